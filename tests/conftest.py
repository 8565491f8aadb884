"""Shared fixtures (small planted data sets, the dataset mirror) and the opt-in tests.

``python -m pytest`` runs the fast suite: pyproject's ``addopts`` deselects the ``slow``
and ``slurm`` markers. ``python -m pytest -m ""`` runs everything (``.ci/run`` does); the
real-SLURM test also needs ``UFSBENCH_SLURM_TESTS=1``, since it may install SLURM with
apt-get and start its daemons.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from ufsbench.hashcache import CACHE_ENV
from ufsbench.synthetic import planted

ROOT = Path(__file__).resolve().parents[1]
MIRROR = Path(os.environ.get("UFSBENCH_MIRROR", ROOT.parent / "shared" / "datasets"))
SLURM_OPT_IN = "UFSBENCH_SLURM_TESTS"


def slurm_opted_in() -> bool:
    return os.environ.get(SLURM_OPT_IN) == "1"


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups in its own hook
def pytest_collection_modifyitems(config, items):
    """Group the tests for parallel workers; skip, saying how to opt in, the tests that may
    install and start SLURM."""
    if config.pluginmanager.hasplugin("xdist"):
        group_for_workers(items)
    if slurm_opted_in():
        return
    skip = pytest.mark.skip(
        reason=f"real-SLURM test: may apt-get install SLURM and start its daemons; "
        f"opt in with {SLURM_OPT_IN}=1 (.ci/run does)"
    )
    for item in items:
        if "slurm" in item.keywords:
            item.add_marker(skip)


def group_for_workers(items):
    """``xdist_group`` marks for ``pytest -n N --dist loadgroup``: the tests of a file that
    share a fixture of that file wider than one test (often a whole workflow run) stay on
    one worker, so it is made once; the ``slurm`` tests, and the tests sharing such a
    fixture with them, are one group, so that only one worker at a time starts, uses and
    stops the single SLURM of the machine. Every other test goes to whichever worker is
    free: a file of independent long runs (``test_measured_rerun``) takes one worker per
    run, not one for the whole file."""
    shared = {item: shared_fixtures(item) for item in items}
    # the fixtures a slurm test shares, and (transitively) all their users' shared fixtures
    with_slurm = set().union(*(shared[item] for item in items if "slurm" in item.keywords))
    while True:
        grown = with_slurm.union(*(names for names in shared.values() if names & with_slurm))
        if grown == with_slurm:
            break
        with_slurm = grown
    for item in items:
        if "slurm" in item.keywords or shared[item] & with_slurm:
            item.add_marker(pytest.mark.xdist_group("slurm"))
        elif shared[item]:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


def shared_fixtures(item) -> set:
    """(file, name) of each fixture defined in ``item``'s file that outlives one test."""
    file = item.nodeid.split("::")[0]
    info = getattr(item, "_fixtureinfo", None)
    if info is None:  # not a Python test function: keep it with its file
        return {(file, None)}
    return {
        (file, name)
        for name, definitions in info.name2fixturedefs.items()
        if any(d.baseid == file and d.scope != "function" for d in definitions)
    }


def pytest_report_header(config):
    """Whether the byte pins are compared here, or skip and why (``machine_pins``)."""
    from machine_pins import PIN_COMMAND, difference

    why = difference()
    if why is None:
        return "byte pins: compared (this machine computes as the recorded one)"
    return f"byte pins: skipped ({why}); {PIN_COMMAND} pins the kernels and NumPy's paths"


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """Say how to run what the default marker expression left out."""
    deselected = len(terminalreporter.stats.get("deselected", []))
    markexpr = config.getoption("markexpr", "")
    if deselected and "not slow" in markexpr:
        terminalreporter.write_line(
            f"{deselected} slow/slurm tests deselected by default (-m {markexpr!r}); "
            f'run every test with `python -m pytest -m ""` (as .ci/run does; the real-SLURM '
            f"test also needs {SLURM_OPT_IN}=1)."
        )


@pytest.fixture(scope="session", autouse=True)
def session_hash_folder(tmp_path_factory):
    """The workflow runs of the tests share their code hashes (:mod:`ufsbench.hashcache`)
    in a folder of this session, not in the user's cache: a test writes nothing outside
    its temporary folders. The environment is set for every ``snakemake`` a test starts."""
    previous = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(tmp_path_factory.getbasetemp() / "code-hashes")
    yield Path(os.environ[CACHE_ENV])
    if previous is None:
        os.environ.pop(CACHE_ENV, None)
    else:
        os.environ[CACHE_ENV] = previous


@pytest.fixture(autouse=True)
def one_blas_thread():
    """Every test on one BLAS/OpenMP thread, as every workflow job runs (``joblog``).

    Rounding, and so the rankings of ill-conditioned solvers (SOGFS, L1UFS at tiny
    lambda2, MCFS's LARS), depends on the thread count; without this, a test's numbers
    would depend on whether an earlier test had limited the threads.
    """
    with threadpool_limits(limits=1):
        yield


@pytest.fixture(scope="session")
def planted_data():
    """(X, y, informative): 3 clusters in 4 informative features among 16 noise features."""
    return planted(n_samples=150, n_informative=4, n_noise=16, n_clusters=3, random_state=7)


@pytest.fixture(scope="session")
def mirror():
    """The local dataset mirror; tests that need it skip, saying why, when it is absent."""
    if not (MIRROR / "MANIFEST.tsv").is_file():
        pytest.skip(f"dataset mirror not found at {MIRROR} (set UFSBENCH_MIRROR)")
    return MIRROR


def assert_permutation(ranking, d):
    ranking = np.asarray(ranking)
    assert ranking.shape == (d,)
    assert np.array_equal(np.sort(ranking), np.arange(d))
