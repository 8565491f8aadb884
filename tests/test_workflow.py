"""End to end: the real snakemake CLI on a tiny config in a temporary directory."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pandas as pd
import pytest
import yaml
from snakemake_cli import (
    ROOT,
    needs_snakemake,
    planned_jobs,
    run_snakemake,
    snakemake_cmd,
    validated,
    write_config,
)

from ufsbench import provenance
from ufsbench.blas import ENV, NUMPY_TARGETS, blas_kernels, pinned_coretype, unpinned

pytestmark = [
    pytest.mark.slow,
    needs_snakemake,
]

TINY = {
    "datasets": ["wine", "synthetic_planted"],
    "feature_counts": {"wine": [2, 4, 6], "synthetic_planted": [3, 5, 8]},
    "methods": {
        "allfea": {},
        "random": {"draws": "max"},
        "maxvariance": {},
        "lapscore": {"t": [0.5, 1.0]},
        "mcfs": {},
        "ndfs": {"alpha": [1.0], "beta": [1.0], "max_iter": [10]},
    },
    "evaluation": {"repeats": 3},
}


def snakemake(workdir, *args, check=True):
    return run_snakemake(workdir, *args, check=check)


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("run")
    write_config(workdir, TINY)
    # README's quiet mode: progress lines only, no rule blocks
    result = snakemake(workdir, "--cores", "2", "--quiet", "rules", "host", "reason")
    output = result.stdout + result.stderr
    steps = re.findall(r"^(\d+) of (\d+) steps \(\d+%\) done$", output, re.MULTILINE)
    assert steps and steps[-1][0] == steps[-1][1] and len(steps) == int(steps[-1][1]), output
    assert not re.search(r"^(local)?rule \w+:$", output, re.MULTILINE), output
    return workdir


def test_run_writes_well_formed_tables(finished_run):
    tables = finished_run / "results" / "default" / "tables"
    summary = pd.read_csv(tables / "summary.tsv", sep="\t")
    assert list(summary.columns[:6]) == ["dataset", "method", "protocol", "metric", "mean", "std"]
    assert set(summary["protocol"]) == {"oracle", "default"}
    assert set(summary["metric"]) == {"acc", "nmi_max", "nmi_sqrt"}
    assert set(summary["method"]) == set(TINY["methods"])
    assert summary["mean"].between(0, 100).all()
    scores = pd.read_csv(tables / "scores.tsv", sep="\t")
    expected = [
        "dataset",
        "method",
        "params",
        "n_features",
        "repeat",
        "acc",
        "nmi_max",
        "nmi_sqrt",
    ]
    assert set(expected) <= set(scores.columns)
    assert "select_seconds" not in scores.columns  # timings differ between runs: apart
    timings = pd.read_csv(
        finished_run / "results" / "default" / "timings" / "select_seconds.tsv", sep="\t"
    )
    assert set(timings["method"]) == set(TINY["methods"])
    assert (timings["select_seconds"] >= 0).all()
    lap = scores[(scores["method"] == "lapscore") & (scores["dataset"] == "wine")]
    assert sorted(lap["n_features"].unique()) == [2, 4, 6]
    assert set(lap["repeat"]) == {0, 1, 2}
    for metric in ("acc", "nmi_max", "nmi_sqrt"):
        tests = pd.read_csv(tables / f"ttest_{metric}.tsv", sep="\t")
        assert {"p_value", "p_holm"} <= set(tests.columns)
        assert tests["p_holm"].dropna().between(0, 1).all()
    assert "±" in (tables / "summary.md").read_text()
    assert "\\begin{tabular}" in (tables / "summary.tex").read_text()


def test_run_writes_figures_and_logs(finished_run):
    for dataset in TINY["datasets"]:
        for name in ("curves", "convergence"):
            png = finished_run / "results" / "default" / "figures" / dataset / f"{name}.png"
            assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
            assert png.with_suffix(".pdf").read_bytes()[:5] == b"%PDF-"
    logs = finished_run / "logs" / "default" / "select"
    ndfs_log = next(logs.glob("*/ndfs/c0.log")).read_text()
    assert "iteration 10 objective" in ndfs_log


def test_planted_features_found_in_the_run(finished_run):
    curves = pd.read_csv(finished_run / "results" / "default" / "tables" / "curves.tsv", sep="\t")
    acc = curves[
        (curves.dataset == "synthetic_planted")
        & (curves.metric == "acc")
        & (curves.protocol == "oracle")
    ]
    by_method = acc.groupby("method")["value"].mean()
    assert by_method["lapscore"] > by_method["random"] + 10


def test_second_dry_run_has_nothing_to_do(finished_run):
    result = snakemake(finished_run, "-n")
    assert "Nothing to be done" in result.stdout + result.stderr
    # the code hashes are kept in the run's folder (--directory), not where snakemake started
    assert (finished_run / ".snakemake" / "ufsbench" / "code-hashes.json").is_file()


def test_changing_one_grid_plans_only_that_method(finished_run):
    changed = {**TINY, "methods": {**TINY["methods"], "lapscore": {"t": [0.5, 2.0]}}}
    write_config(finished_run, changed)
    try:
        result = snakemake(finished_run, "-n")
    finally:
        write_config(finished_run, TINY)
    jobs = planned_jobs(result.stdout + result.stderr)
    per_setting = [(rule, wc) for rule, wc in jobs if rule in ("select", "evaluate")]
    assert per_setting, "the grid change planned no selection job"
    assert all("method=lapscore" in wc for _, wc in per_setting)
    assert {rule for rule, _ in jobs} >= {"select", "evaluate", "aggregate"}
    assert "normalize" not in {rule for rule, _ in jobs}


def planned_after(workdir, changes: dict) -> list[tuple[str, str]]:
    """The jobs a dry run plans after the finished run's config is edited by ``changes``
    (section -> keys), the config being restored afterwards."""
    changed = {**TINY, **{key: {**TINY.get(key, {}), **value} for key, value in changes.items()}}
    write_config(workdir, changed)
    try:
        result = snakemake(workdir, "-n")
    finally:
        write_config(workdir, TINY)
    return planned_jobs(result.stdout + result.stderr)


def test_editing_the_protocols_reruns_only_aggregation_and_what_follows(finished_run):
    """evaluation.protocol is read by the aggregation: no k-NN graph, selection or k-means
    evaluation job runs again, only the tables and figures made from the curves. (Dropping
    ``default`` would also drop the out-of-grid default settings: a selection change.)"""
    jobs = planned_after(finished_run, {"evaluation": {"protocol": ["default"]}})
    rules = {rule for rule, _ in jobs}
    assert "aggregate" in rules
    assert not rules & {"download", "normalize", "graph", "select", "evaluate", "convergence"}
    assert rules <= {"aggregate", "ttest", "figure_curves", "figure_convergence", "all"}


def test_editing_graph_k_reruns_the_graph_and_the_graph_based_methods_only(finished_run):
    """graph.k reaches the k-NN table and, through it, the methods that use the graph: the
    data stay, and the methods without a graph are neither selected nor evaluated again."""
    jobs = planned_after(finished_run, {"graph": {"k": 4}})
    rules = {rule for rule, _ in jobs}
    assert {"graph", "select", "evaluate", "aggregate"} <= rules
    assert "normalize" not in rules
    graphs = [wc for rule, wc in jobs if rule == "graph"]
    assert len(graphs) == len(TINY["datasets"]) and all("k=4" in wc for wc in graphs)
    rerun = {re.search(r"method=(\w+)", wc).group(1) for rule, wc in jobs if rule == "select"}
    assert rerun == {"lapscore", "mcfs", "ndfs"}  # the graph-based methods of TINY
    evaluated = {re.search(r"method=(\w+)", wc).group(1) for rule, wc in jobs if rule == "evaluate"}
    assert evaluated == rerun


def test_report_builds(finished_run):
    report = finished_run / "report.html"
    result = snakemake(finished_run, "--report", str(report))
    assert report.stat().st_size > 10_000
    # Snakemake's default disk_mb (over input.size_mb) warned once per job here
    assert "never awaited" not in result.stdout + result.stderr


def test_jobs_record_the_blas_kernels_they_ran(finished_run):
    log = next((finished_run / "logs" / "default" / "select").glob("*/ndfs/c0.log"))
    versions = provenance.read_log_record(log)["versions"]
    kernels = versions["blas"]
    core, why = pinned_coretype("Haswell")  # the default blas_coretype
    if core is None or "openblas" not in kernels:
        pytest.skip(f"nothing pinned here: {why}; NumPy's BLAS: {kernels}")
    assert kernels.endswith(f" {core}")
    # NumPy's paths capped at Haswell's too (an AVX-512 CPU's own pick is above them)
    running = versions["numpy_simd"].split()
    assert running == ["baseline"] or set(running) <= NUMPY_TARGETS["Haswell"], running


def test_blas_coretype_reaches_the_jobs(tmp_path):
    """A core type other than this CPU's own shows in the jobs' records: the workflow's
    setting, not OpenBLAS's choice, decided their kernels."""
    env = unpinned()
    core, why = pinned_coretype("Prescott", environ=env)
    if core is None or "openblas" not in blas_kernels():
        pytest.skip(f"cannot pin Prescott kernels here: {why}")
    write_config(tmp_path, {**TINY, "datasets": ["wine"], "blas_coretype": "Prescott"})
    target = "results/default/wine/lapscore/c0/selection.npz"
    run_snakemake(tmp_path, "--cores", "1", target, env=env)
    logs = [tmp_path / "logs" / "default" / "select" / "wine" / "lapscore" / "c0.log"]
    logs += list((tmp_path / "logs" / "default" / "graph").rglob("*.log"))
    assert len(logs) == 2
    for log in logs:
        versions = provenance.read_log_record(log)["versions"]
        kernels = versions["blas"]
        assert kernels.startswith("openblas") and not kernels.endswith(" Haswell"), log
        assert kernels == blas_kernels_under("Prescott"), log
        # Prescott's CPU runs none of NumPy's dispatched paths: all are disabled
        assert versions["numpy_simd"] == "baseline", log


def blas_kernels_under(coretype: str) -> str:
    """What :func:`blas_kernels` says in a fresh interpreter with ``coretype`` forced
    (OpenBLAS names some core types after others: Prescott runs as Katmai)."""
    env = {**os.environ, ENV: coretype}
    code = "from ufsbench.blas import blas_kernels; print(blas_kernels())"
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    return done.stdout.strip()


def test_invalid_config_fails_before_any_job(tmp_path):
    write_config(tmp_path, {**TINY, "methods": {"ndfs": {"alpah": [1.0]}}})
    result = snakemake(tmp_path, "-n", check=False)
    assert result.returncode != 0
    assert "method 'ndfs': unknown parameter 'alpah'" in result.stdout + result.stderr
    write_config(tmp_path, {**TINY, "unknown_key": 1})
    result = snakemake(tmp_path, "-n", check=False)
    assert result.returncode != 0
    assert "unknown_key" in result.stdout + result.stderr
    assert not (tmp_path / "results").exists()


def test_command_line_restricts_datasets(tmp_path):
    write_config(tmp_path, TINY)
    result = snakemake(tmp_path, "-n", "--config", "datasets=[wine]")
    jobs = planned_jobs(result.stdout + result.stderr)
    assert any("dataset=wine" in wc for _, wc in jobs)
    assert not any("synthetic_planted" in wc for _, wc in jobs)


def _checkout_like(tmp_path):
    """A folder holding config/config.yaml, as users run the repository: the Snakefile's
    default config is loaded too, under every --configfile."""
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text((ROOT / "config/config.yaml").read_text())
    return tmp_path


def test_a_small_config_file_changes_one_grid_and_keeps_the_other_methods(tmp_path):
    """See issue 26, item 3: a small --configfile edits the default's methods entry by
    entry; `replace_methods: true` (the paper experiments) and --config methods=... give
    the whole list."""
    workdir = _checkout_like(tmp_path)
    default = yaml.safe_load((ROOT / "config/config.yaml").read_text())["methods"]

    def planned(config, *args):
        write_config(workdir, {**TINY, **config})
        result = snakemake(workdir, "-n", *args)
        jobs = planned_jobs(result.stdout + result.stderr)
        found = [re.search(r"method=(\w+)", wc) for rule, wc in jobs if rule == "select"]
        return {m.group(1) for m in found if m}, jobs

    methods, jobs = planned({"methods": {"lapscore": {"t": [2.0]}}, "chunk_size": 1})
    assert methods == set(default)
    lapscore = [wc for rule, wc in jobs if rule == "select" and "method=lapscore" in wc]
    # t = 2 and the default t = 1 per dataset (one job each), not the default's 3 values
    assert len(lapscore) == 4
    methods, _ = planned({"methods": {"ndfs": None, "udfs": None}})
    assert methods == set(default) - {"ndfs", "udfs"}
    only = {"allfea": {}, "lapscore": {"t": [1.0]}}
    methods, _ = planned({"replace_methods": True, "methods": only})
    assert methods == {"allfea", "lapscore"}
    methods, _ = planned({"methods": only}, "--config", "methods={maxvariance: {}}")
    assert methods == {"maxvariance"}


@pytest.mark.slow
def test_two_experiments_in_one_checkout_keep_their_own_results(tmp_path):
    """See issue 26, item 4: the default run and a second config run from one folder,
    each into results/<experiment>/ and logs/<experiment>/; neither touches the other's
    files, and downloads stay shared."""
    workdir = _checkout_like(tmp_path)
    small = "{datasets: [wine], feature_counts: {wine: [2, 4]}, evaluation: {repeats: 2}}"
    default_run = ["--config", "methods={maxvariance: {}, lapscore: {}}"]
    write_config(workdir, yaml.safe_load(small))
    snakemake(workdir, "--cores", "1", *default_run)
    first = {
        path: path.read_bytes()
        for path in (workdir / "results" / "default").rglob("*")
        if path.is_file()
    }
    assert workdir / "results/default/tables/summary.tsv" in first
    second = {
        **yaml.safe_load(small),
        "experiment": "second",
        "replace_methods": True,
        "methods": {"allfea": {}, "maxvariance": {}},
        "evaluation": {"repeats": 3},
    }
    write_config(workdir, second)
    snakemake(workdir, "--cores", "1")
    after = {
        path: path.read_bytes()
        for path in (workdir / "results" / "default").rglob("*")
        if path.is_file()
    }
    assert after == first  # not one byte of the default run changed
    summary = pd.read_csv(workdir / "results/second/tables/summary.tsv", sep="\t")
    assert set(summary["method"]) == {"allfea", "maxvariance"}
    scores = pd.read_csv(workdir / "results/second/tables/scores.tsv", sep="\t")
    assert set(scores["repeat"]) == {0, 1, 2}
    assert (workdir / "logs/second/aggregate.log").is_file()
    assert (workdir / "logs/default/aggregate.log").is_file()
    assert not (workdir / "results" / "tables").exists()
    # Each run is complete as it stands: nothing to do for either.
    again = snakemake(workdir, "-n")
    assert "Nothing to be done" in again.stdout + again.stderr
    write_config(workdir, yaml.safe_load(small))
    again = snakemake(workdir, "-n", *default_run)
    assert "Nothing to be done" in again.stdout + again.stderr


def job_counts(output: str) -> dict[str, int]:
    """{rule: count} from the "Job stats" table a dry run prints."""
    table = output[output.index("Job stats:") :]
    counts = {}
    for line in table.splitlines()[3:]:
        match = re.match(r"^(\w+)\s+(\d+)$", line.strip())
        if not match:
            break
        counts[match.group(1)] = int(match.group(2))
    return counts


# A child that runs its arguments and reports the peak resident memory of its children:
# the pytest process's own RUSAGE_CHILDREN would include every earlier snakemake run.
PEAK_PROBE = """
import resource, subprocess, sys
result = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(result.stdout + result.stderr)
print("peak_kb", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(result.returncode)
"""


def test_large_config_plans_every_job_in_bounded_memory(tmp_path):
    """30 datasets x 10 methods x 100 settings: the dry run plans exactly the plan's
    chunks, in < 1 GB (384 MB measured, 1 294 jobs).
    Its time: benchmarks/speed/bench_planning.py."""
    from ufsbench.datasets import load_registry
    from ufsbench.plan import Plan

    registry = load_registry(ROOT / "config" / "datasets.yaml")
    datasets = [
        name for name, e in registry.items() if e.n_classes and e.n_features and not e.multilabel
    ][:30]
    decades = [10.0**p for p in range(-5, 5)]
    methods = {
        "allfea": {},
        "maxvariance": {},
        "random": {"seed": list(range(100))},
        "lapscore": {"t": [0.01 * (i + 1) for i in range(100)]},
        "spec": {"t": [0.01 * (i + 1) for i in range(100)]},
        "mcfs": {"weight, t": [["heat", 0.01 * (i + 1)] for i in range(100)]},
        "udfs": {"gamma": decades, "lam": decades},
        "ndfs": {"alpha": decades, "beta": decades},
        "lsdcl": {"lambda1": decades, "lambda2": decades},
        "blufs": {"alpha": decades, "beta": decades},
    }
    config = {
        "datasets": datasets,
        "methods": methods,
        "feature_counts": {name: [min(5, registry[name].n_features)] for name in datasets},
    }
    write_config(tmp_path, config)
    plan = Plan(validated(config), registry)
    chunks = sum(len(plan.chunks(method)) for _, method in plan.runs())
    assert len(datasets) == 30 and chunks > 500
    result = subprocess.run(
        [sys.executable, "-c", PEAK_PROBE, *snakemake_cmd(tmp_path, "-n", "--quiet", "rules")],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stdout[-4000:]
    counts = job_counts(result.stdout)
    assert counts["normalize"] == counts["graph"] == len(datasets)
    assert counts["select"] == counts["evaluate"] == chunks
    peak_mb = int(re.search(r"^peak_kb (\d+)$", result.stdout, re.MULTILINE).group(1)) / 1024
    print(f"planned {counts['total']} jobs, peak {peak_mb:.0f} MB", file=sys.stderr)
    assert peak_mb < 1024
