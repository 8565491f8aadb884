"""The compiled LARS-lasso path (ufsbench.lars) against scikit-learn's, and MCFS with it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_digits, load_iris, load_wine
from sklearn.linear_model import lars_path

from ufsbench.graph import knn_graph
from ufsbench.methods import mcfs

pytest.importorskip("numba")

from ufsbench.lars import lasso_paths  # noqa: E402


def _nonzero(path, scale):
    """Nonzeros per step, ignoring lars_path's rounding residue of a dropped coefficient."""
    return np.count_nonzero(np.abs(path) > 1e-12 * scale, axis=0)


def _sklearn_path(X, y, target):
    """``lars_path(method="lasso")`` on the Gram matrix, cut at the first step with
    ``target`` nonzeros (its whole path when it never gets there)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, _, coefs = lars_path(
            X, y, Xy=X.T @ y, Gram=X.T @ X, method="lasso", max_iter=20 * X.shape[1]
        )
    scale = max(np.abs(coefs).max(), 1.0)
    reached = np.flatnonzero(_nonzero(coefs, scale) >= target)
    return coefs[:, : reached[0] + 1] if reached.size else coefs


def _ours(X, y, target):
    return lasso_paths(X.T @ X, X.T @ y, target, X.shape[0])[0]


def _drops(path) -> int:
    """Coefficients that are nonzero at one step and exactly zero at the next."""
    return int(np.sum((path[:, :-1] != 0) & (path[:, 1:] == 0)))


def _problems():
    rng = np.random.default_rng(7)
    out = []
    for n, d in [(40, 30), (30, 60), (100, 20)]:
        for _ in range(3):
            out.append((f"random{n}x{d}", rng.standard_normal((n, d)), rng.standard_normal(n)))
    for name, X in [
        ("diabetes", load_diabetes().data),
        ("wine", load_wine().data),
        ("digits300", load_digits().data[:300].astype(np.float64)),
        ("digits60", load_digits().data[:60].astype(np.float64)),
    ]:
        Xc = X - X.mean(axis=0)
        for _ in range(3):
            out.append((name, Xc, rng.standard_normal(X.shape[0])))
    return out


PROBLEMS = _problems()


@pytest.mark.parametrize("case", range(len(PROBLEMS)))
def test_path_equals_sklearn_lasso_path_at_every_step(case):
    _, X, y = PROBLEMS[case]
    target = min(X.shape[1], X.shape[0] - 2, 40)
    ref = _sklearn_path(X, y, target)
    ours = _ours(X, y, target)
    assert ours.shape == ref.shape
    scale = max(np.abs(ref).max(), 1.0)
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-10 * scale)


def test_paths_include_lasso_drops():
    """The problems above exercise the lasso modification, not only plain LAR."""
    dropping = []
    for name, X, y in PROBLEMS:
        target = min(X.shape[1], X.shape[0] - 2, 40)
        path = _ours(X, y, target)
        if _drops(path):
            dropping.append(name)
            # After the drop the path goes on: it has more steps than nonzeros.
            assert path.shape[1] - 1 > np.count_nonzero(path[:, -1])
    assert len(dropping) >= 5, dropping
    assert {"digits300", "random30x60"} <= set(dropping)


@pytest.mark.parametrize("target", [1, 3, 10, 25])
def test_path_stops_at_the_first_step_with_target_nonzeros(target):
    X = load_digits().data[:200].astype(np.float64)
    Xc = X - X.mean(axis=0)
    Y = np.random.default_rng(3).standard_normal((200, 4))
    for path in lasso_paths(Xc.T @ Xc, Xc.T @ Y, target, 200):
        counts = np.count_nonzero(path, axis=0)
        assert counts[0] == 0
        assert counts[-1] == target
        assert (counts[:-1] < target).all()


def test_whole_path_when_the_target_is_out_of_reach():
    """n = 25 < d: the residual vanishes with at most 24 active columns; both paths end."""
    rng = np.random.default_rng(11)
    X = rng.standard_normal((25, 40))
    X -= X.mean(axis=0)
    y = rng.standard_normal(25)
    ref = _sklearn_path(X, y, 40)
    ours = _ours(X, y, 40)
    assert np.count_nonzero(ours[:, -1]) < 25
    assert ours.shape == ref.shape
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-9 * max(np.abs(ref).max(), 1.0))


def test_at_most_n_samples_columns_join_and_the_path_ends_at_the_exact_fit():
    """Uncentred n = 10 < d = 30: X'X has rank 10, so at most 10 columns are active, and
    the path ends where y is fitted exactly (no correlation left)."""
    rng = np.random.default_rng(13)
    X = rng.standard_normal((10, 30))
    y = rng.standard_normal(10)
    ours = _ours(X, y, 30)
    assert np.count_nonzero(ours, axis=0).max() <= 10
    residual = X.T @ (y - X @ ours[:, -1])
    assert np.abs(residual).max() < 1e-8 * np.abs(X.T @ y).max()
    ref = _sklearn_path(X, y, 30)
    assert ours.shape == ref.shape
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-9 * max(np.abs(ref).max(), 1.0))


def test_a_duplicated_column_is_excluded_as_degenerate():
    """Column 5 repeated as the last column: one copy joins (BLAS rounding may break the
    tie either way), the other's pivot is then zero, so it never does, and the path is
    that of the data without the copy."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((60, 12))
    y = X[:, 5] * 3.0 + rng.standard_normal(60) * 0.1
    Xd = np.column_stack([X, X[:, 5]])
    ours = _ours(Xd, y, 12)
    copies = ours[[5, 12]]
    assert np.count_nonzero(np.abs(copies).sum(axis=1)) == 1
    merged = np.vstack([ours[:5], copies.sum(axis=0), ours[6:12]])
    np.testing.assert_allclose(merged, _ours(X, y, 12), rtol=0, atol=1e-10)


def test_several_responses_are_paths_of_each():
    X = load_wine().data
    Xc = X - X.mean(axis=0)
    Y = np.random.default_rng(2).standard_normal((X.shape[0], 3))
    G, XtY = Xc.T @ Xc, Xc.T @ Y
    paths = lasso_paths(G, XtY, 8, X.shape[0])
    assert len(paths) == 3
    for path, xty in zip(paths, XtY.T, strict=True):
        np.testing.assert_array_equal(path, lasso_paths(G, xty, 8, X.shape[0])[0])


@pytest.mark.parametrize(
    ("gram", "xty", "target", "n_samples", "message"),
    [
        (np.eye(3), np.ones(3), 4, 10, r"target=4 must be in \[1, n_features = 3\]"),
        (np.eye(3), np.ones(3), 0, 10, r"target=0 must be in"),
        (np.eye(3), np.ones(3), 2.0, 10, "target must be an int"),
        (np.ones((3, 2)), np.ones(3), 1, 10, "gram must be square"),
        (np.eye(3), np.ones(4), 1, 10, "xty must have 3 rows"),
        (np.eye(3), np.ones(3), 1, 0, "n_samples=0 must be at least 1"),
        (np.eye(3), np.array([1.0, np.nan, 0.0]), 1, 10, "must be finite"),
    ],
)
def test_bad_input_is_refused_clearly(gram, xty, target, n_samples, message):
    with pytest.raises(ValueError, match=message):
        lasso_paths(gram, xty, target, n_samples)


MCFS_CASES = [
    (load_wine, None, 3, {"feature_counts": [2, 5, 10]}),
    (load_wine, None, 3, {"feature_counts": [3, 8], "scale": "standardize"}),
    (load_iris, None, 3, {"feature_counts": [1, 2, 3]}),
    (load_digits, None, 10, {"feature_counts": [5, 10, 20, 40]}),
    (load_digits, None, 10, {"feature_counts": [10, 30], "scale": "center", "n_eigen": 6}),
    (load_digits, 120, 10, {"feature_counts": [10, 30, 60]}),
    (load_digits, 60, 5, {"feature_counts": [20, 40, 64], "scale": "standardize"}),
    (load_digits, 300, 10, {"coefficients": "raw"}),
]


@pytest.mark.parametrize(("data", "rows", "n_clusters", "kwargs"), MCFS_CASES)
def test_mcfs_compiled_solver_selects_what_the_default_selects(data, rows, n_clusters, kwargs):
    X = np.asarray(data().data[:rows], dtype=np.float64)
    graph = knn_graph(X, 5)
    default = mcfs.select(X, graph=graph, n_clusters=n_clusters, **kwargs)
    fast = mcfs.select(X, graph=graph, n_clusters=n_clusters, solver="compiled", **kwargs)
    for m, subset in (default.subsets or {}).items():
        np.testing.assert_array_equal(fast.subsets[m], subset)
    np.testing.assert_array_equal(fast.ranking, default.ranking)
    np.testing.assert_allclose(fast.scores, default.scores, rtol=0, atol=1e-9)


def test_mcfs_refuses_an_unknown_solver():
    X = load_iris().data
    with pytest.raises(ValueError, match="unknown solver 'fast'.*sklearn, compiled"):
        mcfs.select(X, graph=knn_graph(X, 5), n_clusters=3, solver="fast")


def python_output(code: str) -> str:
    """What ``code`` prints, run in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", code], env=dict(os.environ), check=True, capture_output=True
    )
    return out.stdout.decode()


def test_numba_is_imported_only_by_the_compiled_solver():
    code = (
        "import numpy as np\n"
        "from sklearn.datasets import load_iris\n"
        "from ufsbench.graph import knn_graph\n"
        "from ufsbench.methods import mcfs\n"
        "import ufsbench.lars\n"
        "X = load_iris().data\n"
        "mcfs.select(X, graph=knn_graph(X, 5), n_clusters=3, feature_counts=[2])\n"
        "import json, sys\n"
        "print(json.dumps('numba' in sys.modules))"
    )
    assert json.loads(python_output(code).splitlines()[-1]) is False


def test_without_numba_the_compiled_solver_says_what_it_needs():
    code = (
        "import sys\n"
        "sys.modules['numba'] = None\n"
        "import numpy as np\n"
        "from ufsbench.lars import lasso_paths\n"
        "try:\n"
        "    lasso_paths(np.eye(2), np.ones(2), 1, 5)\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    assert "needs numba (extra 'fast')" in python_output(code)
