"""Issue #23's three example walks each touch one definition.

(a) a method's default lives only in its ``select()`` signature; (b) ``graph.k`` and
(c) ``evaluation.repeats`` have their default written only in the config schema, and the
run plan (ufsbench.plan) reads them once: the rules and scripts take them from the plan.
Each test fails when a second definition reappears.
"""

from __future__ import annotations

import importlib
import inspect
import re
import shutil
from types import SimpleNamespace

import pytest
import yaml
from snakemake_cli import ROOT, SNAKEMAKE, needs_snakemake, validated

from ufsbench import REGISTRY
from ufsbench.plan import Plan

SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
RULES = sorted((ROOT / "workflow" / "rules").glob("*.smk")) + [ROOT / "workflow" / "Snakefile"]
SCRIPTS = sorted((ROOT / "workflow" / "scripts").glob("*.py"))
PLAN_CODE = [
    ROOT / "src" / "ufsbench" / name
    for name in ("plan.py", "css/plan.py", "clustering.py", "tuning.py", "crossval.py")
]
TOY = {"toy": SimpleNamespace(n_classes=3, n_features=20, feature_counts=[2, 4], multilabel=False)}


def _text(paths) -> str:
    return "\n".join(f"# {path.name}\n{path.read_text()}" for path in paths)


def _schema_defaults(section: str) -> dict:
    properties = yaml.safe_load(SCHEMA.read_text())["properties"][section]["properties"]
    return {key: value["default"] for key, value in properties.items() if "default" in value}


def _minimal(**changes) -> dict:
    return validated({"datasets": ["toy"], "methods": {"allfea": {}}, **changes})


# -- (a) a method's default: its select() signature -------------------------------------
def test_a_method_default_reaches_the_select_job_from_its_signature_alone():
    """The default setting the plan gives every registered method, as the select job
    receives it (hyper-parameters apart from the config's graph weighting), is the
    select() signature's defaults: no registry, plan or rule restates them."""
    names = sorted(n for n in REGISTRY if not REGISTRY[n].uses_all_features or n == "allfea")
    plan = Plan(_minimal(methods={name: {} for name in names}), TOY)
    for name in names:
        spec = plan.specs[name]
        select = importlib.import_module(f"ufsbench.methods.{spec.module}").select
        signature = inspect.signature(select).parameters
        (default,) = [s for s in plan.settings[name] if s.is_default]
        _, hyper = spec.split_graph_params(default.params)
        expected = {key: signature[key].default for key in hyper if key in signature}
        assert hyper == {**hyper, **expected}, name
        assert set(hyper) <= set(signature), name


def test_no_rule_or_script_names_a_method_parameter_default():
    """Rules and scripts take a method's parameters from the plan (settings), never write
    one: no ``rank_features`` call of a script sets a method parameter to a literal."""
    params = {param for spec in REGISTRY.values() for param in spec.params}
    for script in SCRIPTS:
        for call in re.findall(
            r"rank_features\((.*?)\)\s*(?:#.*)?\n", script.read_text(), re.DOTALL
        ):
            literal = re.findall(r"\b(\w+)\s*=\s*[-\d.\"']", call)
            assert not set(literal) & params, (script.name, literal)
    rules = _text(RULES)
    assert not re.search(r"\bdefaults\[[^]]+\]\s*=", rules)


# -- (b) graph.k: the schema default, read once by the plan ------------------------------
def test_graph_k_default_is_written_only_in_the_schema():
    assert _schema_defaults("graph")["k"] == 5
    code = _text(RULES + SCRIPTS + PLAN_CODE)
    # no `.get("k", 5)`, no `k: int = 5` in the workflow and the plan code
    assert not re.search(r"get\(\s*[\"']k[\"']\s*,", code)
    assert not re.search(r"\bk\s*(:\s*int\s*)?=\s*5\b", code)
    # the rules read graph.k from the plan's graph section only
    rules = _text(RULES)
    assert "graph_config" not in rules and 'config["graph"]' not in rules
    assert "PLAN.graph.k" in rules


def test_workflow_scripts_always_pass_the_neighbour_count():
    """The library keeps API defaults (knn_graph(k=5), rank_features(n_neighbors=5)); the
    workflow never relies on them: every script passes the graph or the plan's k."""
    for script in SCRIPTS:
        text = script.read_text()
        for call in re.findall(r"rank_features\((.*?)\)\s*(?:#.*)?\n", text, re.DOTALL):
            literal = re.match(r"\s*\w+,\s*[\"'](\w+)[\"']", call)
            if literal and REGISTRY[literal.group(1)].graph is None:
                continue  # a method without the shared graph (e.g. BLUFS's own 10-NN graph)
            assert "graph=" in call or "n_neighbors=" in call, script.name
        for call in re.findall(r"nearest_neighbours\(([^)]*)\)", text):
            assert call.count(",") == 1, script.name


def test_the_schema_default_of_graph_k_and_repeats_is_what_the_plan_reads(tmp_path):
    """Change the schema's defaults: the plan, the select jobs' graph file and the
    evaluate jobs' options follow (nothing else holds a default to disagree with)."""
    schema = yaml.safe_load(SCHEMA.read_text())
    schema["properties"]["graph"]["properties"]["k"]["default"] = 7
    schema["properties"]["evaluation"]["properties"]["repeats"]["default"] = 4
    path = tmp_path / "schema.yaml"
    path.write_text(yaml.safe_dump(schema))
    from snakemake.utils import validate

    config = {"datasets": ["toy"], "methods": {"lapscore": {}}}
    validate(config, str(path))
    plan = Plan(config, TOY)
    assert (plan.graph.k, plan.knn_stem) == (7, "knn7")
    assert plan.evaluation.repeats == 4 == plan.evaluation.kmeans_options["repeats"]
    assert plan.evaluation.kmeans_options["repeats"] == 4


def test_an_unvalidated_config_is_refused_with_the_missing_key():
    with pytest.raises(ValueError, match=r"config 'graph.k' is missing: .* validated"):
        Plan(
            {
                "datasets": ["toy"],
                "methods": {"allfea": {}},
                "graph": {},
                "evaluation": {},
                "chunk_size": 5,
                "feature_counts": {},
            },
            TOY,
        )


# -- (c) evaluation.repeats: the schema default, read once -------------------------------
def test_evaluation_is_read_once_by_the_plan():
    assert _schema_defaults("evaluation")["repeats"] == 20
    rules = _text(RULES)
    assert 'config["evaluation"]' not in rules and "config['evaluation']" not in rules
    code = _text(RULES + SCRIPTS + PLAN_CODE)
    assert not re.search(r"get\(\s*[\"']repeats[\"']\s*,", code)
    assert not re.search(r"\brepeats\s*(:\s*int\s*)?=\s*20\b", code)


def test_each_job_gets_only_the_evaluation_fields_it_uses():
    plan = Plan(_minimal(evaluation={"repeats": 3, "protocol": ["oracle"]}), TOY)
    assert "protocol" not in plan.evaluation.kmeans_options
    assert plan.evaluation.kmeans_options["repeats"] == 3
    assert set(plan.evaluation.kmeans_options) == {
        "repeats",
        "engine",
        "n_init",
        "max_iter",
        "init",
    }
    assert plan.protocols == ["oracle"]


# -- a schema default, end to end through the snakemake CLI -------------------------------
@pytest.mark.slow
@needs_snakemake
def test_a_changed_schema_default_of_graph_k_reaches_the_graph_jobs(tmp_path):
    """A copy of the workflow whose schema says graph.k defaults to 7 plans knn7 tables."""
    import subprocess

    for part in ("workflow", "config"):
        shutil.copytree(ROOT / part, tmp_path / part, ignore=shutil.ignore_patterns("__pycache__"))
    schema = tmp_path / "workflow" / "schemas" / "config.schema.yaml"
    schema.write_text(re.sub(r"(\n      k:\n(?:        .*\n)*?        default: )5", r"\g<1>7",
                             schema.read_text(), count=1))  # fmt: skip
    assert "default: 7" in schema.read_text()
    (tmp_path / "run").mkdir()
    config = {"datasets": ["wine"], "methods": {"lapscore": {}}, "evaluation": {"repeats": 2}}
    (tmp_path / "run" / "config.yaml").write_text(yaml.safe_dump(config))
    result = subprocess.run(
        [SNAKEMAKE, "--snakefile", str(tmp_path / "workflow" / "Snakefile"), "--directory",
         str(tmp_path / "run"), "--configfile", str(tmp_path / "run" / "config.yaml"), "-n"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-3000:]
    assert "graph/knn7.npz" in output and "knn5" not in output
