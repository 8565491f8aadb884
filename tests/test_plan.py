"""The run plan: grid expansion, setting ids, chunks, config errors, seeds, graph specs."""

from types import SimpleNamespace

import pytest
from snakemake_cli import validated

from ufsbench.plan import Plan, command_line_methods, expand_grid, setting_id

REGISTRY = {
    "toy": SimpleNamespace(n_classes=3, n_features=20, feature_counts=[2, 4, 6], multilabel=False),
    "small": SimpleNamespace(n_classes=2, n_features=5, feature_counts=[1, 2, 3], multilabel=False),
    "tags": SimpleNamespace(n_classes=4, n_features=5, feature_counts=[1, 2], multilabel=True),
    "target": SimpleNamespace(
        n_classes=None, n_features=5, feature_counts=[1, 2], multilabel=False
    ),
}


def make_plan(**overrides):
    config = {
        "datasets": ["toy"],
        "methods": {"allfea": {}, "lapscore": {"t": [0.5, 1.0]}},
        "graph": {"k": 5, "weight": "binary", "t": 1.0, "sigma0": "median"},
        "evaluation": {"protocol": ["oracle", "default"]},
        "chunk_size": 25,
    }
    config.update(overrides)
    return Plan(validated(config), REGISTRY)


def test_expand_grid_product_and_coupled_keys():
    grid = {"weight, t": [("binary", 1.0), ("heat", 0.5)], "n_eigen": [2, 3]}
    settings = expand_grid("mcfs", grid)
    assert len(settings) == 4
    assert {"weight": "heat", "t": 0.5, "n_eigen": 3} in settings
    assert {"weight": "binary", "t": 0.5, "n_eigen": 2} not in settings


def test_expand_grid_rejects_wrong_tuple_length():
    with pytest.raises(ValueError, match=r"grid key 'weight, t' needs 2-tuples"):
        expand_grid("mcfs", {"weight, t": [("binary",)]})


def test_setting_id_is_canonical():
    assert setting_id({"beta": 1000.0, "alpha": 1e-5}) == "alpha=1e-05,beta=1000"
    assert setting_id({}) == "default"


def test_plan_settings_mark_grid_and_default():
    plan = make_plan()
    ids = [s.id for s in plan.settings["lapscore"]]
    assert ids == ["t=0.5", "t=1"]
    default = [s for s in plan.settings["lapscore"] if s.is_default]
    assert [s.id for s in default] == ["t=1"] and default[0].in_grid


def test_plan_adds_default_setting_outside_grid():
    plan = make_plan(methods={"lapscore": {"t": [0.5, 2.0]}})
    extra = plan.settings["lapscore"][-1]
    assert (extra.id, extra.in_grid, extra.is_default) == ("t=1", False, True)
    oracle_only = make_plan(
        methods={"lapscore": {"t": [0.5, 2.0]}}, evaluation={"protocol": ["oracle"]}
    )
    assert [s.id for s in oracle_only.settings["lapscore"]] == ["t=0.5", "t=2"]


def test_plan_chunks_settings():
    plan = make_plan(
        methods={"ndfs": {"alpha": [0.1, 1.0, 10.0], "beta": [1.0, 2.0]}}, chunk_size=4
    )
    chunks = plan.chunks("ndfs")
    assert list(chunks) == ["c0", "c1"]
    assert [len(c) for c in chunks.values()] == [4, 2]


def test_a_method_can_have_its_own_chunk_size():
    grid = {"alpha": [0.1, 1.0, 10.0], "beta": [1.0, 2.0]}
    plan = make_plan(methods={"ndfs": {**grid, "chunk_size": 1}, "udfs": {}}, chunk_size=4)
    single = plan.chunks("ndfs")
    assert list(single) == [f"c{i}" for i in range(6)]
    assert [len(c) for c in single.values()] == [1] * 6
    assert plan.method_chunk_size == {"ndfs": 1, "udfs": 4}
    # the reserved key is not a hyper-parameter: the settings do not depend on it
    together = make_plan(methods={"ndfs": grid}, chunk_size=4)
    assert plan.settings["ndfs"] == together.settings["ndfs"]
    assert [s for c in single.values() for s in c] == together.settings["ndfs"]


def test_random_draws_match_another_methods_grid():
    plan = make_plan(
        methods={
            "random": {"draws": "ndfs"},
            "ndfs": {"alpha": [0.1, 1.0, 10.0], "beta": [1.0, 2.0]},
        }
    )
    assert [s.params["seed"] for s in plan.settings["random"]][:6] == list(range(6))
    assert sum(s.in_grid for s in plan.settings["random"]) == 6
    plan = make_plan(methods={"random": {"draws": "max"}, "lapscore": {"t": [1, 2, 3]}})
    assert sum(s.in_grid for s in plan.settings["random"]) == 3


def test_method_datasets_restrict_the_runs_and_leave_the_grid_alone():
    plan = make_plan(
        datasets=["toy", "small"],
        methods={
            "random": {"draws": "max"},
            "allfea": {},
            "lapscore": {"datasets": ["small", "target"], "t": [0.5, 1.0, 2.0]},
        },
    )
    # "target" is registered but not in this run: ignored, as for subset runs
    assert plan.method_datasets == {
        "random": ["toy", "small"], "allfea": ["toy", "small"], "lapscore": ["small"]
    }  # fmt: skip
    assert plan.runs() == [
        ("toy", "random"), ("toy", "allfea"), ("small", "random"), ("small", "allfea"),
        ("small", "lapscore"),
    ]  # fmt: skip
    # The given methods' order; methods the run lacks are left out.
    assert plan.runs(["lapscore", "udfs", "allfea"]) == [
        ("toy", "allfea"), ("small", "lapscore"), ("small", "allfea")
    ]  # fmt: skip
    assert plan.runs_on("small", "lapscore") and not plan.runs_on("toy", "lapscore")
    assert not plan.runs_on("toy", "udfs")
    assert [s.params["t"] for s in plan.settings["lapscore"] if s.in_grid] == [0.5, 1.0, 2.0]
    assert sum(s.in_grid for s in plan.settings["random"]) == 3  # draws: max sees the grid
    assert all("datasets" not in s.id for s in plan.settings["lapscore"])


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"datasets": ["nope"]}, r"config 'datasets': unknown dataset 'nope'"),
        (
            {"datasets": ["toy", "tags"]},
            r"config 'datasets': dataset 'tags' is multilabel and the k-means evaluation needs "
            r"one class label per sample \(use it in css.datasets\)",
        ),
        ({"datasets": ["target"]}, r"dataset 'target' is unlabelled and the k-means"),
        ({"methods": {"ndfz": {}}}, r"unknown method 'ndfz' \(known: .*ndfs"),
        (
            {"methods": {"ndfs": {"alpah": [1.0]}}},
            r"method 'ndfs': unknown parameter 'alpah' \(known: alpha, beta",
        ),
        (
            {"methods": {"ndfs": {"alpha": ["big"]}}},
            r"method 'ndfs': parameter 'alpha' must be a number, got 'big'",
        ),
        ({"methods": {"ndfs": {"alpha": [-1.0]}}}, r"method 'ndfs': parameter 'alpha' must be > 0"),
        ({"methods": {"random": {"draws": "nothing"}}}, r"draws='nothing' must be"),
        (
            {"methods": {"lapscore": {"datasets": ["toy", "nope"]}}},
            r"method 'lapscore': unknown dataset\(s\) in 'datasets': \['nope'\]",
        ),
        ({"methods": {"lapscore": {"datasets": []}}}, r"'datasets' must be a non-empty list"),
        (
            {"methods": {"lapscore": {"chunk_size": 0}}},
            r"method 'lapscore': 'chunk_size' must be an integer >= 1, got 0",
        ),
        ({"methods": {"lapscore": {"chunk_size": [2]}}}, r"'chunk_size' must be an integer"),
        (
            {"datasets": ["small"], "feature_counts": {"small": [1, 9]}},
            r"dataset 'small': cannot select 9 features, the dataset has 5",
        ),
    ],
)
def test_plan_rejects_bad_config(overrides, message):
    with pytest.raises(ValueError, match=message):
        make_plan(**overrides)


def test_graph_weights_of_settings():
    plan = make_plan(methods={"lapscore": {"t": [0.5]}, "mcfs": {}, "maxvariance": {}})
    assert plan.knn_stem == "knn5"
    weights = plan.graph_weights("lapscore", plan.settings["lapscore"][0].params)
    assert weights == {"weight": "heat", "t": 0.5, "sigma0": "median"}
    assert plan.graph_weights("mcfs", plan.settings["mcfs"][0].params) == {"weight": "binary"}
    assert plan.graph_weights("maxvariance", {}) is None


def test_graph_config_supplies_method_defaults():
    plan = make_plan(
        methods={"mcfs": {}}, graph={"k": 7, "weight": "heat", "t": 2.0, "sigma0": "mean"}
    )
    (setting,) = plan.settings["mcfs"]
    assert setting.params["weight"] == "heat" and setting.params["t"] == 2.0
    assert plan.graph_weights("mcfs", setting.params) == {
        "weight": "heat",
        "t": 2.0,
        "sigma0": "mean",
    }
    assert plan.knn_stem == "knn7"


def test_seeds_depend_on_identity_only():
    plan = make_plan()
    assert plan.seed("toy", "lapscore", "t=1") == make_plan().seed("toy", "lapscore", "t=1")
    assert plan.seed("toy", "lapscore", "t=1") != plan.seed("toy", "lapscore", "t=0.5")


def test_a_later_config_file_updates_methods_one_entry_at_a_time():
    """See issue 26, item 3: a small --configfile that changes one grid keeps the others."""
    base = {"methods": {"allfea": {}, "ndfs": {"alpha": [0.1, 1.0], "beta": [1.0]}}}
    small = {"methods": {"ndfs": {"alpha": [10.0]}}}
    assert command_line_methods([]) is None
    assert command_line_methods([{"datasets": ["wine"]}]) is None
    # the entry replaces the method's whole grid (no key-by-key merge), others stay
    assert command_line_methods([base, small]) == {"allfea": {}, "ndfs": {"alpha": [10.0]}}
    assert command_line_methods([base, {"methods": {"mcfs": {}}}]) == {
        **base["methods"],
        "mcfs": {},
    }
    assert command_line_methods([base, {"methods": {"allfea": None}}]) == {
        "ndfs": base["methods"]["ndfs"]
    }
    assert base["methods"] == {"allfea": {}, "ndfs": {"alpha": [0.1, 1.0], "beta": [1.0]}}


def test_replace_methods_and_the_command_line_give_the_whole_list():
    base = {"methods": {"allfea": {}, "spec": {}}}
    exp = {"replace_methods": True, "methods": {"lapscore": {"t": [1.0]}}}
    assert command_line_methods([base, exp]) == {"lapscore": {"t": [1.0]}}
    assert command_line_methods([base, exp, {"datasets": ["wine"]}]) == exp["methods"]
    tweak = {"methods": {"spec": {}}}
    assert command_line_methods([base, exp, tweak]) == {"lapscore": {"t": [1.0]}, "spec": {}}
    assert command_line_methods([base, exp], {"methods": {"mcfs": {}}}) == {"mcfs": {}}
    with pytest.raises(ValueError, match="config 'methods' must be a mapping"):
        command_line_methods([base, {"methods": ["ndfs"]}])
