"""The project's set-up as a user and a contributor meet it: dependencies, which tests the
default ``python -m pytest`` runs, the opt-in real-SLURM test, and what CI runs."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import tomllib
from importlib.metadata import requires
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
FULL_SUITE = (
    'UFSBENCH_SLURM_TESTS=1 python -m pytest -m "" -n auto --maxprocesses 4 --dist loadgroup'
    " --durations=20"
)


def requirement_name(requirement: str) -> str:
    return re.split(r"[\s;<>=!~\[]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def test_report_needs_nothing_beyond_the_main_dependencies():
    """``pip install -e .`` then ``snakemake --report`` works: snakemake's "reports" extra
    (pygments) is among the main dependencies."""
    report_extra = [
        requirement_name(r) for r in requires("snakemake") or [] if 'extra == "reports"' in r
    ]
    assert report_extra, "snakemake no longer declares a 'reports' extra"
    main = {requirement_name(r) for r in PYPROJECT["project"]["dependencies"]}
    assert set(report_extra) <= main


DUMMY_TESTS = """
import pytest

def test_plain():
    pass

@pytest.mark.slow
def test_slow():
    pass

@pytest.mark.slurm
def test_slurm():
    pass

@pytest.mark.mirror
def test_mirror():
    pass
"""


def pytest_in(folder, *args, env_extra=None):
    env = {k: v for k, v in os.environ.items() if k != "UFSBENCH_SLURM_TESTS"}
    env.update(env_extra or {})
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


@pytest.fixture
def dummy_project(tmp_path):
    """A copy of the pytest set-up (pyproject, conftest and the machine_pins module its
    report header reads) with one test per marker."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "tests").mkdir()
    for name in ("conftest.py", "machine_pins.py"):
        shutil.copy(ROOT / "tests" / name, tmp_path / "tests" / name)
    (tmp_path / "tests" / "test_dummy.py").write_text(DUMMY_TESTS)
    return tmp_path


def outcomes(output: str) -> dict[str, int]:
    """{"passed": 2, "deselected": 2, ...} from pytest's last summary line."""
    return {word: int(n) for n, word in re.findall(r"(\d+) (passed|skipped|deselected)", output)}


def test_default_run_deselects_slow_and_slurm_and_says_how_to_run_them(dummy_project):
    result = pytest_in(dummy_project, "-q")
    assert result.returncode == 0, result.stdout + result.stderr
    assert outcomes(result.stdout) == {"passed": 2, "deselected": 2}, result.stdout
    assert 'python -m pytest -m ""' in result.stdout


def test_the_header_says_whether_byte_pins_are_compared(dummy_project):
    result = pytest_in(dummy_project)
    assert result.returncode == 0, result.stdout + result.stderr
    # the copy has no recorded machine: the pins would skip, and the header says why
    assert "byte pins: skipped (no pins_machine.json" in result.stdout, result.stdout


def test_slurm_marked_tests_skip_saying_how_to_opt_in(dummy_project):
    result = pytest_in(dummy_project, "-q", "-m", "", "-rs")
    assert result.returncode == 0, result.stdout + result.stderr
    assert outcomes(result.stdout) == {"passed": 3, "skipped": 1}, result.stdout
    assert re.search(r"SKIPPED .*opt in with UFSBENCH_SLURM_TESTS=1", result.stdout)
    opted_in = pytest_in(dummy_project, "-q", "-m", "", env_extra={"UFSBENCH_SLURM_TESTS": "1"})
    assert outcomes(opted_in.stdout) == {"passed": 4}, opted_in.stdout


SHARED_RUN = """
import pytest

@pytest.fixture(scope="module")
def run():
    return 1

""" + "\n".join(f"def test_{i}(run):\n    pass\n" for i in range(4))

INDEPENDENT = "\n".join(f"def test_{i}(tmp_path):\n    pass\n" for i in range(4))

# a slurm test, a test sharing its module fixture and one sharing another fixture with that
# test: one chain, so all three must run where SLURM is started; test_other shares nothing
SLURM_CHAIN = """
import pytest

@pytest.fixture(scope="module")
def local_run():
    return 1

@pytest.fixture(scope="module")
def reference():
    return 1

@pytest.mark.slurm
def test_cluster(local_run):
    pass

def test_same_run(local_run, reference):
    pass

def test_same_reference(reference):
    pass

def test_other():
    pass
"""


def test_parallel_workers_keep_shared_fixtures_and_slurm_together_and_spread_the_rest(
    dummy_project,
):
    """``-n 2 --dist loadgroup`` (the full-suite command): the tests sharing a module fixture
    run on one worker (it is made once); every SLURM test, with the tests sharing fixtures
    with it, on one worker (a machine has one SLURM to start and stop); independent tests,
    even of one file, ungrouped: on whichever worker is free (a file of long runs is not
    one worker's queue)."""
    tests = dummy_project / "tests"
    for name, body in [("a", SHARED_RUN), ("b", SHARED_RUN), ("c", INDEPENDENT),
                       ("s", SLURM_CHAIN)]:  # fmt: skip
        (tests / f"test_{name}.py").write_text(body)
    result = pytest_in(
        dummy_project, "-m", "", "-v", "-n", "2", "--dist", "loadgroup", "-p", "no:randomly",
        env_extra={"UFSBENCH_SLURM_TESTS": "1"},
    )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    passed = r"\[(gw\d)\] \[\s*\d+%\] PASSED tests/(test_\w+)\.py::(\w+)(@\S+)?"
    ran = re.findall(passed, result.stdout)
    assert len(ran) == 4 + 4 + 4 + 4 + 4, result.stdout
    workers, groups = {}, {}
    for worker, file, test, group in ran:
        workers.setdefault(file, {})[test] = worker
        groups.setdefault(file, {})[test] = group.removeprefix("@")
    assert len(set(workers["test_a"].values())) == 1, result.stdout
    assert len(set(workers["test_b"].values())) == 1, result.stdout
    slurm = {workers["test_dummy"]["test_slurm"]} | {
        workers["test_s"][name] for name in ("test_cluster", "test_same_run", "test_same_reference")
    }
    assert len(slurm) == 1, result.stdout
    # xdist schedules each ungrouped test on its own (which worker is free decides)
    assert set(groups["test_c"].values()) == {""}, result.stdout
    assert groups["test_s"]["test_other"] == "", result.stdout
    assert set(groups["test_a"].values()) == {"tests/test_a.py"}, result.stdout


def test_real_slurm_test_is_marked_slurm():
    """So conftest skips it at collection, before its fixtures (the local run, the SLURM
    start) could run."""
    from test_cluster import test_slurm_run_matches_local_run as test

    assert "slurm" in {mark.name for mark in test.pytestmark}


@pytest.mark.skipif(not Path("/proc/self/comm").exists(), reason="needs Linux /proc")
def test_stop_slurm_stops_only_what_start_slurm_recorded(tmp_path):
    ours = subprocess.Popen(["sleep", "300"])
    theirs = subprocess.Popen(["sleep", "300"])
    created, kept = tmp_path / "slurm.conf", tmp_path / "other.conf"
    created.write_text("x")
    kept.write_text("y")
    try:
        # a recorded pid that now belongs to another program (pytest) must survive too
        (tmp_path / "started").write_text(f"sleep {ours.pid}\nslurmd {os.getpid()}\n")
        (tmp_path / "created").write_text(f"{created}\n")
        result = subprocess.run(
            ["bash", str(ROOT / "tests" / "slurm" / "stop_slurm.sh")],
            env={**os.environ, "SLURM_DIR": str(tmp_path)},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        deadline = time.monotonic() + 10
        while ours.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert ours.poll() is not None
        assert theirs.poll() is None
        assert not created.exists() and kept.exists()
        assert not (tmp_path / "started").exists()
    finally:
        for proc in (ours, theirs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
            proc.wait()


def test_ci_runs_every_test_with_the_readme_command():
    ci = (ROOT / ".ci" / "run").read_text()
    assert FULL_SUITE.replace("python ", "python3 ") in ci
    assert FULL_SUITE in (ROOT / "README.md").read_text()
    assert "not slow" in PYPROJECT["tool"]["pytest"]["ini_options"]["addopts"]
