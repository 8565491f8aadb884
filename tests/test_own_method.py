"""Methods from outside the package (issue #28 item 1): resolution, contract, checks."""

from __future__ import annotations

import sys
import textwrap

import numpy as np
import pytest
from snakemake_cli import validated

from ufsbench import Selection, UFSSelector, rank_features
from ufsbench.datasets import load_registry
from ufsbench.methods.external import ExternalSpec, resolve_method
from ufsbench.plan import Plan

X = np.random.default_rng(0).normal(size=(40, 6)) * [1, 1, 9, 1, 1, 3]

MODULE = """
import numpy as np
from ufsbench import Selection

def variance(X, *, scale=1.0):
    return X.var(axis=0) * scale

def smooth(X, *, graph, n_clusters, random_state=0, alpha=1.0, mode="a", flag=False):
    degree = np.asarray(graph.sum(axis=1)).ravel()
    return -(degree @ X**2 - np.einsum("ij,ij->j", X, graph @ X)) * alpha

def no_default(X, *, alpha):
    return X.var(axis=0)

def variadic(X, **options):
    return X.var(axis=0)

def not_permutation(X):
    d = X.shape[1]
    return Selection(ranking=np.zeros(d, dtype=int), scores=np.zeros(d))

def nan_scores(X):
    return np.full(X.shape[1], np.nan)

def short_scores(X):
    return np.ones(X.shape[1] - 1)

def selection(X, *, random_state=0):
    return Selection.from_scores(np.random.default_rng(random_state).random(X.shape[1]))

NOT_A_FUNCTION = 3
"""


@pytest.fixture
def plugin(tmp_path, monkeypatch):
    """A module ``own_methods`` importable from a folder on sys.path, as a user's is."""
    (tmp_path / "own_methods.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("own_methods", None)
    yield tmp_path / "own_methods.py"
    sys.modules.pop("own_methods", None)


def config(methods, datasets=("wine",)):
    return validated({"datasets": list(datasets), "methods": methods, "evaluation": {"repeats": 1}})


def test_a_module_function_path_ranks_like_the_function(plugin):
    sel = rank_features(X, "own_methods:variance", scale=2.0)
    assert isinstance(sel, Selection)
    assert sel.ranking.tolist() == np.argsort(-X.var(axis=0), kind="stable").tolist()
    np.testing.assert_allclose(sel.scores, 2 * X.var(axis=0))


def test_a_callable_gets_the_graph_and_n_clusters_it_names(plugin):
    import own_methods

    sel = rank_features(X, own_methods.smooth, n_clusters=3, alpha=0.5)
    assert sorted(sel.ranking.tolist()) == list(range(6))
    with pytest.raises(ValueError, match="method .*smooth.* needs n_clusters"):
        rank_features(X, own_methods.smooth)


def test_selector_accepts_a_path_and_a_callable(plugin):
    import own_methods

    by_path = UFSSelector("own_methods:variance", n_features_to_select=2).fit(X)
    by_callable = UFSSelector(own_methods.variance, n_features_to_select=2, scale=3.0).fit(X)
    assert by_path.get_support().tolist() == [False, False, True, False, False, True]
    assert by_callable.get_support().tolist() == by_path.get_support().tolist()
    assert by_callable.get_params()["scale"] == 3.0


def test_signature_gives_parameters_with_types_and_defaults(plugin):
    spec = resolve_method("own_methods:smooth")
    assert isinstance(spec, ExternalSpec)
    assert spec.defaults == {"weight": "binary", "t": 1.0, "alpha": 1.0, "mode": "a", "flag": False}
    assert spec.graph == "param" and spec.needs_n_clusters
    assert spec.source_path == str(plugin.resolve())
    with pytest.raises(ValueError, match="parameter 'alpha' must be a number, got 'x'"):
        rank_features(X, spec, n_clusters=2, alpha="x")
    with pytest.raises(ValueError, match="parameter 'flag' must be a bool"):
        rank_features(X, spec, n_clusters=2, flag=1)


@pytest.mark.parametrize(
    "target, message",
    [
        ("nowhere_at_all:f", "cannot import module 'nowhere_at_all'"),
        ("own_methods:missing", "module 'own_methods' has no attribute 'missing'"),
        ("own_methods:NOT_A_FUNCTION", "'NOT_A_FUNCTION' is a int, not a function"),
        ("own_methods:no_default", "parameter 'alpha' has no default"),
        ("own_methods:variadic", "takes \\*options"),
        ("own_methods", "must be a 'module:function' path"),
    ],
)
def test_a_wrong_callable_fails_at_planning_time(plugin, target, message):
    with pytest.raises(ValueError, match=message):
        Plan(config({"mine": {"callable": target}}), load_registry())


def test_an_unknown_parameter_in_the_grid_fails_at_planning_time(plugin):
    with pytest.raises(ValueError, match="method 'mine': unknown parameter 'beta'"):
        Plan(config({"mine": {"callable": "own_methods:variance", "beta": [1.0]}}), load_registry())


def test_plan_expands_the_grid_of_an_outside_method(plugin):
    plan = Plan(
        config({"mine": {"callable": "own_methods:variance", "scale": [1.0, 2.0]}}),
        load_registry(),
    )
    assert [s.id for s in plan.settings["mine"]] == ["scale=1", "scale=2"]
    assert plan.specs["mine"].target == "own_methods:variance"


def test_unknown_method_name_says_how_to_add_one():
    with pytest.raises(ValueError, match="unknown method 'nosuch'.*callable"):
        Plan(config({"nosuch": {}}), load_registry())


@pytest.mark.parametrize(
    "target, message",
    [
        ("own_methods:not_permutation", "not a permutation of the 6 feature indices"),
        ("own_methods:nan_scores", "NaN or infinite feature scores"),
        ("own_methods:short_scores", r"scores of shape \(5,\); expected \(6,\)"),
    ],
)
def test_a_wrong_result_is_refused(plugin, target, message):
    with pytest.raises(ValueError, match=message):
        rank_features(X, target)


def test_random_state_reaches_the_method(plugin):
    first = rank_features(X, "own_methods:selection", random_state=1).ranking
    assert (
        first.tolist() == rank_features(X, "own_methods:selection", random_state=1).ranking.tolist()
    )
    assert (
        first.tolist() != rank_features(X, "own_methods:selection", random_state=2).ranking.tolist()
    )


def test_an_installed_entry_point_is_found_by_name(plugin, tmp_path):
    """A package's ``ufsbench.methods`` entry point, as ``pip install`` records it."""
    dist = tmp_path / "own_methods-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: own-methods\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(
        "[ufsbench.methods]\nown_variance = own_methods:variance\n"
    )
    plan = Plan(config({"own_variance": {"scale": [2.0]}}), load_registry())
    assert plan.specs["own_variance"].target == "own_methods:variance"
    assert rank_features(X, "own_variance").ranking[0] == 2
