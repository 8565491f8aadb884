"""Pins of today's outputs for the engines the speed work rewrites (issue 27).

The digests were recorded on one BLAS thread (as every test and job runs; see
``tests/conftest.py``) with the code before the rewrite (litekmeans with a SciPy
sparse indicator per centre update; MCFS restarting ``lars_path`` with doubled step
counts). Faster code must give byte-identical labels, iteration counts and starts
(k-means) and byte-identical rankings, scores and subsets (MCFS) on the same data.
BLUFS's pins add the objective sequence; they were recorded before any BLUFS speed work.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pytest
from sklearn.datasets import load_digits, load_wine

from ufsbench import rank_features
from ufsbench.graph import knn_graph
from ufsbench.kmeans import litekmeans
from ufsbench.methods import mcfs


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
        (load_wine, None, 3, {"feature_counts": [2, 5, 10]}, "1d0445a2376b91be"),
        (
            load_wine,
            None,
            3,
            {"scale": "standardize", "coefficients": "raw"},
            "0d508fcd2f3a6c10",
        ),
        (load_digits, None, 10, {"feature_counts": [5, 10, 20, 40]}, "dc7d5a7343ce2f2d"),
        (
            load_digits,
            None,
            10,
            {"feature_counts": [10, 30], "scale": "center", "n_eigen": 6},
            "a27bebaaf22f9e9b",
        ),
        # d = 64 < n = 120: the Gram route; d = 64 > n = 60: the route without Gram.
        (load_digits, 120, 10, {"feature_counts": [10, 30, 60]}, "f512a9413a78711d"),
        (
            load_digits,
            60,
            5,
            {"feature_counts": [20, 40, 64], "scale": "standardize"},
            "d0d5ede51b3bf586",
        ),
    ],
)
def test_mcfs_selection_is_pinned(data, rows, n_clusters, kwargs, expected):
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
        (_digits_rows(300), "blufs", {}, "cef174c854dadbea"),
        (
            _digits_rows(300),
            "blufs",
            {"p_rule": "distance", "alpha": 100.0, "beta": 0.01},
            "d671cba1f019b232",
        ),
        (
            _digits_rows(300),
            "blufs",
            {"p_rule": "objective", "tau1": 0.3, "beta": 100.0},
            "a043b020d93d4562",
        ),
        (
            _digits_rows(300),
            "blufs",
            {"w_step": "safeguard", "p_support": None},
            "655669448ba62a78",
        ),
        (_digits_rows(40), "blufs", {}, "491414b93c4bddfa"),
        (_coarse_rows(300), "blufs", {"beta": 100.0}, "d49a7001284654cc"),
        (_digits_rows(300), "blufs_case1", {}, "107f68cd7e424260"),
        (_digits_rows(300), "blufs_case2", {}, "81c04e7d10803dae"),
        (_digits_rows(300), "blufs_case3", {}, "466cd397c8b5d7e1"),
        (_digits_rows(120), "blufs_case3", {"case3_graph": "hh"}, "41330a729b6afde3"),
    ],
)
def test_blufs_selection_and_objective_are_pinned(data, method, kwargs, expected):
    selection = rank_features(
        data(), method, n_clusters=10, random_state=3, feature_counts=[5, 20], **kwargs
    )
    assert _blufs_digest(selection) == expected
