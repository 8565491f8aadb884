"""Pins of today's outputs for the engines the speed work rewrites (issue 27).

The digests were recorded on one BLAS thread (as every test and job runs; see
``tests/conftest.py``) with the code before the rewrite (litekmeans with a SciPy
sparse indicator per centre update; MCFS restarting ``lars_path`` with doubled step
counts). Faster code must give byte-identical labels, iteration counts and starts
(k-means) and byte-identical rankings, scores and subsets (MCFS) on the same data.
BLUFS's pins add the objective sequence; they were recorded before any BLUFS speed work.
The MCFS and BLUFS digests hash float scores and objectives, whose last bit follows the
CPU's kernels: they are compared on the recorded kind of machine only (re-recorded there
on 2026-11-27 with the code unchanged; ``tests/machine_pins.py``). The k-means pins hash
labels, iteration counts and starts, which held on both machines.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from machine_pins import require_recorded_machine
from sklearn.datasets import load_digits, load_wine

from ufsbench import rank_features
from ufsbench.graph import knn_graph
from ufsbench.kmeans import litekmeans
from ufsbench.methods import _blufs_pam, _memo, mcfs


def _wine():
    X = load_wine().data
    return (X - X.mean(axis=0)) / X.std(axis=0)


def _digits():
    return load_digits().data.astype(np.float64)


def _coarse_digits():
    # 1606 distinct rows among 1797: starts on duplicates leave clusters empty, so the
    # farthest-point refill runs (5 times over seeds 0-9 at k=60).
    return np.floor(load_digits().data / 16.0)


def _kmeans_digest(X, k, seeds, **kwargs) -> str:
    h = hashlib.sha256()
    for seed in seeds:
        result = litekmeans(X, k, random_state=seed, **kwargs)
        h.update(result.labels.astype(np.int64).tobytes())
        h.update(np.int64(result.n_iter).tobytes())
        h.update(result.init.astype(np.int64).tobytes())
    return h.hexdigest()[:16]


@pytest.mark.parametrize("kernel", ["numpy", "numba"])
@pytest.mark.parametrize(
    ("data", "k", "kwargs", "expected"),
    [
        (_wine, 3, {}, "448f86ab5b5eb64f"),
        (_wine, 12, {"n_init": 3}, "287894c734377414"),
        (_digits, 10, {}, "dd09e899839c8bab"),
        (_digits, 40, {"max_iter": 20}, "faa80b4cc633b8df"),
        (_coarse_digits, 60, {}, "52379a031d100838"),
    ],
)
def test_litekmeans_labels_are_pinned(data, k, kwargs, expected, kernel):
    if kernel == "numba":
        pytest.importorskip("numba")
    assert _kmeans_digest(data(), k, range(10), kernel=kernel, **kwargs) == expected


def _selection_digest(selection) -> str:
    h = hashlib.sha256()
    h.update(np.asarray(selection.ranking, dtype=np.int64).tobytes())
    h.update(np.asarray(selection.scores, dtype=np.float64).tobytes())
    for m, subset in sorted((selection.subsets or {}).items()):
        h.update(np.int64(m).tobytes())
        h.update(np.asarray(subset, dtype=np.int64).tobytes())
    return h.hexdigest()[:16]


@pytest.mark.parametrize(
    ("data", "rows", "n_clusters", "kwargs", "expected"),
    [
        (load_wine, None, 3, {"feature_counts": [2, 5, 10]}, "bf6e6402f936ae9d"),
        (
            load_wine,
            None,
            3,
            {"scale": "standardize", "coefficients": "raw"},
            "8eacca0d26a094eb",
        ),
        (load_digits, None, 10, {"feature_counts": [5, 10, 20, 40]}, "955ad566d526125b"),
        (
            load_digits,
            None,
            10,
            {"feature_counts": [10, 30], "scale": "center", "n_eigen": 6},
            "c0e27ce39842ad2f",
        ),
        # d = 64 < n = 120: the Gram route; d = 64 > n = 60: the route without Gram.
        (load_digits, 120, 10, {"feature_counts": [10, 30, 60]}, "2c9a11abe71c694c"),
        (
            load_digits,
            60,
            5,
            {"feature_counts": [20, 40, 64], "scale": "standardize"},
            "47bfac686876df11",
        ),
    ],
)
def test_mcfs_selection_is_pinned(data, rows, n_clusters, kwargs, expected):
    require_recorded_machine()  # digests of float scores: the last bit follows the CPU
    X = np.asarray(data().data[:rows], dtype=np.float64)
    selection = mcfs.select(X, graph=knn_graph(X, 5), n_clusters=n_clusters, **kwargs)
    assert _selection_digest(selection) == expected


def _blufs_digest(selection) -> str:
    h = hashlib.sha256(_selection_digest(selection).encode())
    h.update(np.asarray(selection.history, dtype=np.float64).tobytes())
    return h.hexdigest()[:16]


def _digits_rows(rows):
    return lambda: _digits()[:rows]


def _coarse_rows(rows):
    return lambda: _coarse_digits()[:rows]


# BLUFS and its Cases, recorded at b55a632 before any speed work: 300 rows span two
# column blocks of the P step; 40 rows (d = 64 > n) take the push-through W route; coarse
# digits repeat rows, so distances tie (at zero) where the P step picks its support.
@pytest.mark.parametrize(
    ("data", "method", "kwargs", "expected"),
    [
        (_digits_rows(300), "blufs", {}, "381c1b5b15a673c9"),
        (
            _digits_rows(300),
            "blufs",
            {"p_rule": "distance", "alpha": 100.0, "beta": 0.01},
            "eb82dc7dd7a22863",
        ),
        (
            _digits_rows(300),
            "blufs",
            {"p_rule": "objective", "tau1": 0.3, "beta": 100.0},
            "c8a013c0c726299f",
        ),
        (
            _digits_rows(300),
            "blufs",
            {"w_step": "safeguard", "p_support": None},
            "025f11b86500f876",
        ),
        (_digits_rows(40), "blufs", {}, "18eb6edf20eb6d1e"),
        (_coarse_rows(300), "blufs", {"beta": 100.0}, "64f90ba02d0a1270"),
        (_digits_rows(300), "blufs_case1", {}, "80f28e1dcb5ad0f8"),
        (_digits_rows(300), "blufs_case2", {}, "8980b6068dab18fb"),
        (_digits_rows(300), "blufs_case3", {}, "c307dcc48fe1f0d8"),
        (_digits_rows(120), "blufs_case3", {"case3_graph": "hh"}, "f5dbfb5b8ce177ab"),
    ],
)
def test_blufs_selection_and_objective_are_pinned(data, method, kwargs, expected):
    require_recorded_machine()  # digests of float scores and objectives
    selection = rank_features(
        data(), method, n_clusters=10, random_state=3, feature_counts=[5, 20], **kwargs
    )
    assert _blufs_digest(selection) == expected


def test_blufs_problem_is_computed_once_and_gives_the_same_runs_warm_or_cold():
    X = _digits_rows(300)()
    run = {"n_clusters": 10, "random_state": 3, "feature_counts": [5, 20]}
    _memo.clear()
    cold = rank_features(X, "blufs", beta=10.0, **run)
    rank_features(X, "blufs_case3", **run)  # another setting and variant, same Problem
    warm = rank_features(X, "blufs", beta=10.0, **run)
    assert _blufs_digest(warm) == _blufs_digest(cold)

    shared = _blufs_pam.shared_problem(X.copy(), 10, k=10)
    assert shared is _blufs_pam.shared_problem(X, 10, k=10)
    assert not shared.Xn.flags.writeable and not shared.gram.flags.writeable
    other = _blufs_pam.shared_problem(X, 10, k=5)  # another graph: its own Problem
    assert other is not shared and (other.P0 != shared.P0).nnz > 0
