"""Cluster execution on a real single-node SLURM, and recovery from a killed run.

The SLURM test may apt-get install SLURM and start its daemons, so it runs only with
``UFSBENCH_SLURM_TESTS=1`` (``.ci/run`` sets it; see ``tests/conftest.py``).

Both compare the whole ``results/tables`` and ``results/figures`` trees with an
uninterrupted local run of the same config: the same files, byte for byte (timings live
in ``results/timings``, figures carry no date), whatever ``--cores``.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from snakemake_cli import (
    ROOT,
    SLURM_RUN_ARGS,
    needs_snakemake,
    run_snakemake,
    snakemake_cmd,
    write_config,
)

from ufsbench.io import load_selections

SLURM_DIR = Path(os.environ.get("UFSBENCH_SLURM_DIR", "/tmp/ufsbench-slurm"))
TABLES = ["summary.tsv", "curves.tsv", "ttest_acc.tsv", "ttest_nmi_max.tsv", "ttest_nmi_sqrt.tsv"]

pytestmark = [
    pytest.mark.slow,
    needs_snakemake,
]

SMALL = {
    "datasets": ["wine"],
    "feature_counts": {"wine": [2, 4, 6]},
    "methods": {
        "maxvariance": {},
        "lapscore": {"t": [1.0]},
        "random": {"seed": [0, 1]},
    },
    "evaluation": {"repeats": 3},
}


# Every run also selects with an iterative method (a convergence figure too) and with the
# method from outside ufsbench of examples/my_method, on PYTHONPATH as docs/own-method.md
# says: the jobs on the SLURM node must import it as local jobs do (sbatch exports the
# environment).
EXAMPLE_PACKAGE = ROOT / "examples" / "my_method" / "my_ufs"
CONFIG = {
    **SMALL,
    "methods": {
        **SMALL["methods"],
        "ndfs": {"alpha": [0.1, 1.0], "beta": [1.0]},
        "mine": {"callable": "my_ufs.selectors:graph_smoothness", "alpha": [1.0]},
    },
}


def run(workdir, *args, timeout=900, env=None):
    return run_snakemake(workdir, *args, timeout=timeout, env=env)


def with_example_package(workdir) -> dict:
    """The environment of a run importing the example method from a copy in ``workdir``."""
    shutil.copytree(EXAMPLE_PACKAGE, workdir / "pkg" / "my_ufs")
    return {**os.environ, "PYTHONPATH": f"{ROOT / 'src'}{os.pathsep}{workdir / 'pkg'}"}


def prepare(tmp_path, name, config):
    workdir = tmp_path / name
    workdir.mkdir()
    write_config(workdir, config)
    return workdir


def tree(workdir, name) -> dict[str, bytes]:
    """Every file under ``results/<name>``, by relative path."""
    root = workdir / "results" / "default" / name
    files = sorted(p for p in root.rglob("*") if p.is_file())
    return {str(p.relative_to(root)): p.read_bytes() for p in files}


def assert_same_trees(a, b):
    """``results/default/{tables,figures}`` of two runs: same files, same bytes."""
    for name in ("tables", "figures"):
        first, second = tree(a, name), tree(b, name)
        assert sorted(first) == sorted(second), name
        if name == "tables":
            assert set(TABLES) <= set(first), sorted(first)
        differ = [path for path in first if first[path] != second[path]]
        assert not differ, f"results/{name}: {differ} differ"


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """An uninterrupted run at --cores 1."""
    workdir = prepare(tmp_path_factory.mktemp("reference"), "run", CONFIG)
    run(workdir, "--cores", "1", env=with_example_package(workdir))
    return workdir


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """The same at --cores 2."""
    workdir = prepare(tmp_path_factory.mktemp("local"), "run", CONFIG)
    run(workdir, "--cores", "2", env=with_example_package(workdir))
    return workdir


def slurm_script(name, env, timeout):
    """Run ``tests/slurm/<name>`` with ``env``; its completed process."""
    return subprocess.run(
        ["bash", str(ROOT / "tests" / "slurm" / name)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def stop_slurm(env):
    """Stop what start_slurm.sh started (and only that); print what it stopped."""
    result = slurm_script("stop_slurm.sh", env, timeout=120)
    print(result.stdout, result.stderr, file=sys.stderr)


@pytest.fixture(scope="module")
def slurm():
    """A single-node SLURM, started (installing it if needed) unless one runs already; skip,
    saying why, if impossible. At teardown the daemons this fixture started are stopped
    and the files it created removed; a SLURM that ran before is left running."""
    pytest.importorskip(
        "snakemake_executor_plugin_slurm", reason="snakemake-executor-plugin-slurm is not installed"
    )
    if os.geteuid() != 0:
        pytest.skip("SLURM test needs root to install and start slurmctld/slurmd/munged")
    if shutil.which("apt-get") is None and shutil.which("slurmctld") is None:
        pytest.skip("SLURM test needs Debian's slurm-wlm packages (no apt-get here)")
    env = {**os.environ, "SLURM_DIR": str(SLURM_DIR)}
    try:
        result = slurm_script("start_slurm.sh", env, timeout=300)
    except subprocess.TimeoutExpired:
        stop_slurm(env)
        pytest.skip("SLURM could not be started within 300 s")
    if result.returncode != 0:
        stop_slurm(env)
        output = f"{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
        pytest.skip(f"SLURM could not be started:\n{output}")
    print(result.stdout, file=sys.stderr)
    yield
    started = SLURM_DIR / "started"
    recorded = (
        [line.split() for line in started.read_text().splitlines()] if started.exists() else []
    )
    stop_slurm(env)
    # what start_slurm.sh started is gone (it records the daemons' pids, not their parents')
    alive = [f"{name} {pid}" for name, pid in recorded if Path(f"/proc/{pid}").exists()]
    assert not alive, f"daemons left running after stop_slurm.sh: {alive}"


@pytest.mark.slurm
def test_slurm_run_matches_local_run(tmp_path, slurm, local_run):
    workdir = prepare(tmp_path, "slurm", CONFIG)
    # No accounting database here: job states come from squeue (MinJobAge=600 keeps them).
    start = time.perf_counter()
    run(workdir, *SLURM_RUN_ARGS, timeout=900, env=with_example_package(workdir))
    print(f"SLURM run took {time.perf_counter() - start:.0f} s", file=sys.stderr)
    log = "\n".join(p.read_text() for p in (workdir / ".snakemake" / "log").glob("*.log"))
    assert "slurm" in log.lower()
    summary = pd.read_csv(workdir / "results/default/tables/summary.tsv", sep="\t")
    assert set(summary["method"]) == {"maxvariance", "lapscore", "random", "ndfs", "mine"}
    assert_same_trees(workdir, local_run)


def test_cores_change_no_byte_of_tables_or_figures(local_run, reference):
    assert (local_run / "results" / "default" / "figures" / "wine" / "convergence.pdf").exists()
    assert_same_trees(local_run, reference)
    timings = pd.read_csv(
        local_run / "results" / "default" / "timings" / "select_seconds.tsv", sep="\t"
    )
    assert list(timings.columns) == ["dataset", "method", "params", "select_seconds"]


def test_killed_run_resumes_to_identical_tables(tmp_path, reference):
    workdir = prepare(tmp_path, "killed", CONFIG)
    env = with_example_package(workdir)
    # One job at a time, killed with SIGKILL (no cleanup) once selections are being made.
    proc = subprocess.Popen(
        snakemake_cmd(workdir, "--cores", "1"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=env,
    )
    results = workdir / "results" / "default" / "wine"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:
        if len(list(results.glob("*/c0/selection.npz"))) >= 2:
            break
        time.sleep(0.05)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    # the code hashes were kept when the plan was made (for each cluster job's own planning)
    assert (workdir / ".snakemake" / "ufsbench" / "code-hashes.json").is_file()
    done = list(results.glob("*/c0/selection.npz"))
    assert not (workdir / "results" / "default" / "tables" / "summary.tsv").exists()
    for path in done:  # whatever exists is whole: outputs are written atomically
        assert load_selections(path)
    run(workdir, "--unlock", env=env)
    run(workdir, "--cores", "2", "--rerun-incomplete", env=env)
    assert_same_trees(workdir, reference)
    leftovers = [p for p in (workdir / "results").rglob("*") if p.name.endswith(".part")]
    assert not leftovers, leftovers
