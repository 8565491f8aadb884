"""Config hardening (issue 25, items 1, 4 and 6), checked in the library, fast.

Unsafe names that become path components, plans beyond the size limits, k-NN graphs
larger than a dataset, unknown feature_counts keys and string-typed nested --config
values are all refused at planning time with a message naming the key.
The real snakemake CLI runs the same cases in tests/test_workflow_hardening.py.
"""

import copy

import pytest
import yaml
from snakemake_cli import validated

from ufsbench.datasets import load_registry
from ufsbench.limits import DEFAULT_LIMITS, PlanTooLarge, check_plan_size, grid_size
from ufsbench.names import CONFIG_NAMES, check_config_names, check_name, inside_run
from ufsbench.plan import Plan, typed_overrides

REGISTRY = load_registry()
BAD_NAMES = ["..", "../../../../tmp/x/escaped", "a/b", "/tmp/abs", "a\0b", "", "."]

BASE = {
    "datasets": ["wine"],
    "methods": {"maxvariance": {}, "lapscore": {"t": [0.5, 1.0]}},
    "evaluation": {"repeats": 3},
}


def _config(**changes):
    config = copy.deepcopy(BASE)
    config.update(changes)
    return config


# -- item 1: names that become paths ----------------------------------------------------
@pytest.mark.parametrize("name", BAD_NAMES + [None, 3, "x" * 201])
@pytest.mark.parametrize("kind", ["dataset", "method", "paper", "file", "setting"])
def test_unsafe_names_are_refused(kind, name):
    with pytest.raises(ValueError, match="is not allowed: it becomes part of file paths"):
        check_name(kind, name)


@pytest.mark.parametrize("name", ["Wine", "9x", "a-b", "a.b"])
def test_identifiers_are_lower_case_words(name):
    with pytest.raises(ValueError, match=r"must be a lower-case identifier"):
        check_name("dataset", name)


@pytest.mark.parametrize(
    ("kind", "name"),
    [
        ("dataset", "coil20_c4"),
        ("method", "blufs_case1"),
        ("file", "coil-100.zip"),
        ("file", "relative+location+of+ct+slices+on+axial+axis.zip"),
        ("setting", "K=5,gamma=1e-05"),
        ("setting", "default"),
    ],
)
def test_shipped_style_names_are_accepted(kind, name):
    assert check_name(kind, name) == name


def _set(config, dotted, value, part):
    node = config
    *parents, last = dotted.split(".")
    for key in parents:
        node = node.setdefault(key, {})
    node[last] = {value: {}} if part == "keys" else [value]


@pytest.mark.parametrize("name", BAD_NAMES)
@pytest.mark.parametrize(("dotted", "kind", "part"), CONFIG_NAMES)
def test_every_config_entry_point_refuses_unsafe_names(dotted, kind, part, name):
    config = _config()
    _set(config, dotted, name, part)
    with pytest.raises(ValueError, match=rf"config '{dotted}': {kind} name"):
        check_config_names(config)


def test_a_methods_dataset_list_is_checked():
    config = _config(methods={"maxvariance": {"datasets": ["../x"]}})
    with pytest.raises(ValueError, match=r"config 'methods.maxvariance.datasets'"):
        check_config_names(config)


def test_shipped_configs_pass_the_name_checks():
    from snakemake_cli import ROOT

    for path in [ROOT / "config" / "config.yaml", *sorted((ROOT / "config/experiments").glob("*"))]:
        check_config_names(yaml.safe_load(path.read_text()))


def _registry(tmp_path, name="toy", **changes):
    entry = {
        "description": "toy",
        "source": "url",
        "url": "https://example.org/toy.mat",
        "file": "toy.mat",
        "sha256": None,
        "format": "mat",
        "n_samples": 10,
        "n_features": 3,
        "n_classes": 2,
        "feature_counts": [1, 2],
    }
    entry.update(changes)
    path = tmp_path / "registry.yaml"
    path.write_text(yaml.safe_dump({"datasets": {name: entry}}))
    return path


@pytest.mark.parametrize("name", BAD_NAMES)
def test_registry_refuses_unsafe_entry_names(tmp_path, name):
    with pytest.raises(ValueError, match=r"dataset registry entry .*dataset name"):
        load_registry(_registry(tmp_path, name))


@pytest.mark.parametrize("file", ["..", ".", "../x.mat", "/etc/passwd", "a\0b", ".hidden"])
def test_registry_refuses_unsafe_file_names(tmp_path, file):
    with pytest.raises(ValueError, match=r"key 'file': file name"):
        load_registry(_registry(tmp_path, file=file))


def test_inside_run_refuses_paths_that_escape(tmp_path):
    assert inside_run(["results/wine/data.npz"], tmp_path) == ["results/wine/data.npz"]
    for path in ["../x", "results/../../x", "/tmp/x", "data/raw/a\0b"]:
        with pytest.raises(ValueError, match="resolves outside the run's folder"):
            inside_run([path], tmp_path)


def test_clustering_setting_ids_are_checked():
    from ufsbench.clustering import ClusterPlan

    config = _config(tasks=["clustering"], clustering={"methods": {"km": {}}})
    assert ClusterPlan(validated(config), REGISTRY).methods == ["km"]


# -- item 4: size limits ------------------------------------------------------------------
def test_grid_size_is_the_product_without_expanding():
    grid = {"a": list(range(1000)), "b": list(range(1000)), "c": list(range(1000)), "d": 1}
    assert grid_size(grid) == 10**9
    assert grid_size({"a, b": [[1, 2], [3, 4]], "datasets": ["wine"]}) == 2


@pytest.mark.parametrize(
    ("changes", "key", "limit_key"),
    [
        ({"methods": {"random": {"draws": 10**9}}}, "methods.random.draws", "settings_per_method"),
        ({"methods": {"random": {"draws": 200000}}}, "methods.random.draws", "settings_per_method"),
        (
            {"methods": {"lapscore": {"t": list(range(1, 201)), "weight": ["heat"] * 101}}},
            "methods.lapscore",
            "settings_per_method",
        ),
        ({"evaluation": {"repeats": 10**9}}, "evaluation.repeats", "repeats"),
        ({"clustering": {"seeds": 5000}}, "clustering.seeds", "repeats"),
        ({"css": {"k": list(range(1, 30000))}}, "css.k", "settings_per_method"),
        (
            {"datasets": ["wine"] * 200, "chunk_size": 1, "methods": {"lapscore": {"t": [1] * 60}}},
            "methods",
            "jobs",
        ),
    ],
)
def test_plans_beyond_the_limits_are_refused_before_expanding(changes, key, limit_key):
    config = _config(**changes)
    with pytest.raises(PlanTooLarge, match=rf"config '{key}': [\d,]+ .*\(limits\.{limit_key}\)"):
        check_plan_size(config)
    with pytest.raises(PlanTooLarge, match=r"raise the bound deliberately"):
        Plan(config, REGISTRY)  # the Plan checks first, so nothing expands


def test_a_limits_section_raises_a_bound_deliberately():
    config = _config(methods={"random": {"draws": 25000}})
    with pytest.raises(PlanTooLarge):
        check_plan_size(config)
    config["limits"] = {"settings_per_method": 25000}
    check_plan_size(config)
    with pytest.raises(ValueError, match="unknown key 'nosuch'"):
        check_plan_size(_config(limits={"nosuch": 1}))


def test_the_shipped_experiments_are_within_the_default_limits():
    from snakemake_cli import ROOT

    base = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    for path in sorted((ROOT / "config" / "experiments").glob("*.yaml")):
        config = {**base, **yaml.safe_load(path.read_text())}
        check_plan_size(config)
    assert DEFAULT_LIMITS["settings_per_method"] >= 1331  # the LSDCL grid


# -- item 6: checks at planning time --------------------------------------------------------
def test_graph_k_beyond_a_dataset_is_refused_at_planning():
    n = REGISTRY["wine"].n_samples
    with pytest.raises(ValueError, match=rf"config 'graph.k': k={n} .*n_samples={n}"):
        Plan(validated(_config(graph={"k": n})), REGISTRY)
    Plan(validated(_config(graph={"k": n - 1})), REGISTRY)


def test_a_methods_neighbour_count_beyond_a_dataset_is_refused_at_planning():
    n = REGISTRY["wine"].n_samples
    with pytest.raises(ValueError, match=rf"config 'methods.udfs': .*k={n} .*n_samples={n}"):
        Plan(validated(_config(methods={"udfs": {"k": [5, n]}})), REGISTRY)


def test_a_css_budget_k_is_not_a_neighbour_count():
    Plan(validated(_config(methods={"pocss": {"k": [500]}})), REGISTRY)


def test_feature_counts_of_an_unknown_dataset_are_refused():
    with pytest.raises(ValueError, match=r"config 'feature_counts': unknown dataset 'nosuch'"):
        Plan(validated(_config(feature_counts={"nosuch": [2]})), REGISTRY)


def test_nested_command_line_values_are_typed_as_yaml():
    # what Snakemake's --config evaluation='{repeats: 2}' gives: every scalar a string
    config = {"evaluation": {"repeats": "2", "kmeans": "sklearn"}, "datasets": ["wine"]}
    overrides = {
        "evaluation": {"repeats": "2"},
        "methods": {"lapscore": {"t": ["0.5", "1.0e-3"]}, "mcfs": {"scale": "none"}},
        "chunk_size": 7,
    }
    typed = typed_overrides(config, overrides)
    assert config["evaluation"] == {"repeats": 2, "kmeans": "sklearn"}
    assert typed["methods"]["lapscore"]["t"] == [0.5, 1.0e-3]
    assert typed["methods"]["mcfs"]["scale"] == "none"
    assert typed["chunk_size"] == 7
    assert typed_overrides({}, {"a": {"b": "c: d", "e": "null"}}) == {"a": {"b": "c: d", "e": None}}
