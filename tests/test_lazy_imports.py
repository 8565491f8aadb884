"""A workflow job imports only what it uses (issue 27, per-job overhead)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from snakemake_cli import needs_snakemake, run_snakemake, validated, write_config

from ufsbench.methods import REGISTRY, registry

ROOT = Path(__file__).resolve().parents[1]

# Heavy modules no selection job of a light method needs, nor any evaluation job.
HEAVY = ("pandas", "sklearn", "scipy.stats", "scipy.optimize", "matplotlib", "numba")
# Further SciPy packages no evaluation job needs (scipy.optimize's __init__ loads them).
EVALUATE_HEAVY = (*HEAVY, "scipy.linalg", "scipy.sparse.linalg", "scipy.special", "scipy.fft")


def heavy(loaded: set[str], names=HEAVY) -> set[str]:
    """The modules of ``loaded`` that are, or are inside, one of ``names``."""
    return {m for m in loaded for name in names if m == name or m.startswith(name + ".")}


def method_modules(loaded: set[str]) -> set[str]:
    """The public modules of ``ufsbench.methods`` among ``loaded``, by short name."""
    prefix = "ufsbench.methods."
    return {m.removeprefix(prefix) for m in loaded if m.startswith(prefix) and "._" not in m}


def fresh_modules(code: str) -> set[str]:
    """The modules a fresh interpreter has loaded after running ``code``."""
    script = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", script], env=dict(os.environ), check=True, capture_output=True
    )
    return set(json.loads(out.stdout.decode().splitlines()[-1]))


def test_select_job_imports_only_its_own_method_module():
    loaded = fresh_modules(
        "from ufsbench import joblog, rank_features\n"
        "from ufsbench.io import knn_affinity, load_data, load_graph, load_knn, save_selections\n"
        "from ufsbench.methods.registry import get_method\n"
        "get_method('lapscore').function"
    )
    assert method_modules(loaded) == {"base", "lapscore", "params", "registry"}
    assert not heavy(loaded)


@pytest.fixture(scope="module")
def job_files(tmp_path_factory):
    """The inputs of a select and an evaluate job: data, k-NN table, selections."""
    import numpy as np

    from ufsbench import rank_features
    from ufsbench.graph import nearest_neighbours
    from ufsbench.io import save_data, save_knn, save_selections

    tmp = tmp_path_factory.mktemp("job")
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(30, 6)), np.repeat([0, 1, 2], 10)
    save_data(tmp / "data.npz", X, y)
    neighbours, distances = nearest_neighbours(X, 5)
    save_knn(tmp / "knn.npz", neighbours, distances, {"median": 1.0, "mean": 1.0})
    save_selections(tmp / "sel.npz", {"a": rank_features(X, "maxvariance")})
    return tmp


def test_select_job_of_lapscore_loads_nothing_heavy_while_it_works(job_files):
    """What workflow/scripts/select.py does for LapScore on a stored k-NN graph."""
    loaded = fresh_modules(
        "from ufsbench import joblog, rank_features\n"
        "from ufsbench.io import knn_affinity, load_data, load_graph, load_knn, save_selections\n"
        f"X, _, _ = load_data({str(job_files / 'data.npz')!r})\n"
        f"graph = knn_affinity(load_knn({str(job_files / 'knn.npz')!r}), weight='heat')\n"
        "sel = rank_features(X, 'lapscore', graph=graph, n_clusters=3, random_state=0)\n"
        f"save_selections({str(job_files / 'out.npz')!r}, {{'a': sel}})"
    )
    assert "ufsbench.methods.lapscore" in loaded
    assert not heavy(loaded)


def test_evaluate_job_loads_no_pandas_and_no_scipy_optimize_while_it_works(job_files):
    """What workflow/scripts/evaluate.py imports and does: k-means, ACC (SciPy's assignment
    solver without ``scipy.optimize``'s ``__init__``), NMI, the table (no pandas)."""
    script = (ROOT / "workflow" / "scripts" / "evaluate.py").read_text()
    imports = [line for line in script.splitlines() if line.startswith(("from ", "import "))]
    loaded = fresh_modules(
        "\n".join(imports) + "\n"
        f"X, y, _ = load_data({str(job_files / 'data.npz')!r})\n"
        f"sel = load_selections({str(job_files / 'sel.npz')!r})['a']\n"
        "rows = evaluate_selection(X, y, sel, [2, 4], n_clusters=3, repeats=2, seed_key=('t',),"
        " as_frame=False)\n"
        "assert 0 < rows[0][2] <= 1\n"
        f"write_rows({str(job_files / 'out.tsv')!r}, SCORE_COLUMNS, rows)"
    )
    assert {"ufsbench.evaluate", "ufsbench.metrics"} <= loaded
    # the compiled solver alone, registered under its own name; not the package
    assert heavy(loaded, EVALUATE_HEAVY) == {"scipy.optimize._lsap"}


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_lookup_by_convention_finds_the_registry_entry(name):
    modules = registry._likely_modules(name)
    found = [registry._declared_in(m)[name] for m in modules if name in registry._declared_in(m)]
    assert found == [REGISTRY[name]]


def test_the_package_and_its_job_helpers_load_no_scipy():
    """``import ufsbench`` (a library user's first line) and ``from ufsbench import joblog``
    (every job's first line) load neither SciPy nor a method: names load on first use."""
    for code in ("import ufsbench", "from ufsbench import joblog"):
        loaded = fresh_modules(code)
        assert not {m for m in loaded if m == "scipy" or m.startswith("scipy.")}, code
        assert not {m for m in loaded if m.startswith("ufsbench.methods")}, code


def test_public_names_still_import():
    loaded = fresh_modules(
        "from ufsbench import REGISTRY, Selection, UFSSelector, get_method, rank_features\n"
        "from ufsbench.methods.base import Selection as defined\n"
        "assert Selection is defined"
    )
    assert "ufsbench.methods.ndfs" in loaded and "ufsbench.selector" in loaded


def test_unknown_method_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown method 'nope'.*lapscore"):
        registry.get_method("nope")


def test_resolving_a_built_in_name_imports_only_its_module():
    """The workflow's plan resolves each configured method (``ufsbench.plan``): a built-in
    name must not build the whole registry, which imports every method module."""
    loaded = fresh_modules(
        "from ufsbench.plan import Plan\n"
        "from ufsbench.methods.external import resolve_method\n"
        "assert resolve_method('lapscore').name == 'lapscore'"
    )
    assert method_modules(loaded) == {"base", "external", "lapscore", "params", "registry"}
    assert not heavy(loaded, ("sklearn", "scipy.stats", "numba"))


# A selection run's config: no css section, the clustering task off (the schema's default
# still lists six clustering methods, which a run of that task would check).
SELECTION_ONLY = {
    "datasets": ["wine"],
    "feature_counts": {"wine": [2, 4]},
    "methods": {"lapscore": {"t": [1.0]}},
}
WITH_OTHER_TASKS = {
    **SELECTION_ONLY,
    "tasks": ["selection", "clustering"],
    "clustering": {"methods": {"km": {}, "l1graph": {"lam": [0.1]}}},
    "css": {"datasets": ["wine"], "methods": {"pocss": {}}, "k": [3]},
}


def planned_modules(config: dict) -> set[str]:
    """The modules a fresh interpreter has loaded after making the plan of ``config``."""
    text = json.dumps(validated(config))
    return fresh_modules(
        "import json\n"
        "from ufsbench.datasets import load_registry\n"
        "from ufsbench.plan import Plan\n"
        f"config = json.loads({text!r})\n"
        f"plan = Plan(config, load_registry({str(ROOT / 'config' / 'datasets.yaml')!r}))"
    )


def test_a_plan_loads_the_other_tasks_solvers_only_when_it_runs_those_tasks():
    """Every ``snakemake`` command makes the plan (and on a cluster, every job): the sparse
    graph builders (scikit-learn) and the CSS solvers (numba) load only for a run with a
    clustering task or a css section, whose settings the plan then checks."""
    assert not heavy(planned_modules(SELECTION_ONLY), ("sklearn", "numba"))
    loaded = planned_modules(WITH_OTHER_TASKS)
    assert {"ufsbench.sparse_graph.builders", "ufsbench.css.solvers"} <= loaded


@pytest.mark.slow
@needs_snakemake
def test_a_dry_run_of_a_selection_run_loads_no_other_tasks_solvers(tmp_path):
    """The workflow's own planning (its rule files too) of a selection-only run imports
    neither scikit-learn nor numba: Python's import log of the ``snakemake -n`` process."""
    write_config(tmp_path, SELECTION_ONLY)
    env = {**os.environ, "PYTHONPROFILEIMPORTTIME": "1"}
    result = run_snakemake(tmp_path, "-n", env=env)
    imported = {
        line.rsplit("|", 1)[1].strip()
        for line in result.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "ufsbench.plan" in imported and "ufsbench.clustering" in imported
    assert not heavy(imported, ("sklearn", "numba"))
