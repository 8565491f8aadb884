"""UDFS, NDFS and the LSDCL baselines: planted features, monotone objective, seeding, algebra."""

from __future__ import annotations

import numpy as np
import pytest

from ufsbench import rank_features
from ufsbench.graph import knn_graph, laplacian
from ufsbench.methods import ndfs, udfs
from ufsbench.methods._low_rank import smallest_eigenvectors_lowrank
from ufsbench.methods.base import l21_weights, row_norms

# L1UFS is left out: at its defaults W = 0 minimises its objective on this fixture (see
# PLANTED_PARAMS in test_methods.py); tests/test_lsdcl_baselines.py covers it.
METHODS = ["udfs", "ndfs", "sogfs", "ulap", "rufs"]
# SOGFS standardises inside (unit-norm columns): gamma = 1 then outweighs the graph term on
# this fixture; see PLANTED_PARAMS in test_methods.py.
PARAMS = {"sogfs": {"gamma": 0.01}}


@pytest.fixture(scope="module")
def standardized(planted_data):
    """The planted fixture with every column z-scored.

    UDFS scores a feature by its unnormalised local scatter. In the raw fixture every
    feature has the same within-cluster noise, so that score cannot separate informative
    from noise features; after z-scoring, the informative columns are locally tight.
    """
    X, y, informative = planted_data
    return (X - X.mean(axis=0)) / X.std(axis=0), y, informative


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_iterative_method_finds_planted_features(method, seed, standardized):
    X, _, informative = standardized
    selection = rank_features(X, method, n_clusters=3, random_state=seed, **PARAMS.get(method, {}))
    assert set(selection.top(4)) == set(informative)


@pytest.mark.parametrize(
    "method, params",
    [
        ("udfs", {}),
        ("udfs", {"gamma": 10.0, "lam": 1.0, "tol": 0.0}),
        ("ndfs", {}),
        ("ndfs", {"alpha": 1e3, "beta": 1e-3}),
        ("ndfs", {"alpha": 1e-3, "beta": 1e3, "max_iter": 30}),
    ],
)
def test_iterative_method_objective_non_increasing(method, params, standardized):
    X, _, _ = standardized
    history = rank_features(X, method, n_clusters=3, **params).history
    assert len(history) >= 2
    assert np.all(np.diff(history) <= 1e-8 * np.abs(history[:-1]))


@pytest.mark.parametrize("method", METHODS)
def test_iterative_method_same_seed_same_result(method, planted_data):
    X, _, _ = planted_data
    first = rank_features(X, method, n_clusters=3, random_state=3)
    second = rank_features(X, method, n_clusters=3, random_state=3)
    np.testing.assert_array_equal(first.ranking, second.ranking)
    np.testing.assert_array_equal(first.scores, second.scores)
    np.testing.assert_array_equal(first.history, second.history)


@pytest.mark.parametrize(
    "method, params, n_iter",
    [
        ("udfs", {"max_iter": 50, "tol": 1e-2}, 50),
        ("ndfs", {"max_iter": 50, "tol": 1e-2}, 50),
        ("sogfs", {"max_iter": 50, "tol": 1e-2}, 50),
        ("ulap", {"max_iter": 50, "tol": 1e-2}, 50),
        ("rufs", {"max_iter": 50, "tol": 1e-2}, 50),
        ("l1ufs", {"max_iter": 50, "tol": 1e-2}, 50),
    ],
)
def test_iterative_method_tol_stops_early(method, params, n_iter, planted_data):
    X, _, _ = planted_data
    selection = rank_features(X, method, n_clusters=3, **params)
    assert 0 < selection.n_iter < n_iter


def test_ndfs_runs_with_more_features_than_samples():
    X = np.random.default_rng(0).normal(size=(20, 60))
    selection = rank_features(X, "ndfs", n_clusters=2, max_iter=5)
    assert selection.n_iter == 5 and np.all(np.isfinite(selection.scores))


# ---------------------------------------------------------------- brute force: UDFS


def _dense_local_laplacian(X, neighbours, lam):
    """sum_i S_i H (X~_i X~_i^T + lam I)^-1 H S_i^T, one explicit n x n term per sample."""
    n, size = neighbours.shape
    H = np.eye(size) - np.ones((size, size)) / size
    total = np.zeros((n, n))
    for i in range(n):
        S_i = np.zeros((n, size))
        S_i[neighbours[i], np.arange(size)] = 1.0
        X_local = H @ (S_i.T @ X)  # centred (k+1, d) block
        inverse = np.linalg.inv(X_local @ X_local.T + lam * np.eye(size))
        total += S_i @ H @ inverse @ H @ S_i.T
    return total


@pytest.mark.parametrize("block_bytes", [udfs._BLOCK_BYTES, 1])  # one chunk; one per sample
def test_udfs_sparse_laplacian_equals_dense_sum(block_bytes, monkeypatch):
    monkeypatch.setattr(udfs, "_BLOCK_BYTES", block_bytes)
    X = np.random.default_rng(1).normal(size=(25, 7))
    neighbours = udfs.local_sets(X, 4)
    assert np.array_equal(neighbours[:, 0], np.arange(25))
    sparse = udfs.local_discriminative_laplacian(X, neighbours, lam=0.5)
    np.testing.assert_allclose(
        sparse.toarray(), _dense_local_laplacian(X, neighbours, 0.5), rtol=1e-10, atol=1e-13
    )


def test_udfs_matches_dense_iteration():
    X = np.random.default_rng(2).normal(size=(30, 8))
    gamma, lam, k, c, n_iter = 0.5, 2.0, 4, 3, 6
    M = X.T @ _dense_local_laplacian(X, udfs.local_sets(X, k), lam) @ X
    D = np.eye(X.shape[1])
    history = []
    for _ in range(n_iter):
        _, vectors = np.linalg.eigh(M + gamma * D)  # full spectrum, ascending
        W = vectors[:, :c]
        history.append(np.trace(W.T @ M @ W) + gamma * row_norms(W).sum())
        D = np.diag(l21_weights(W))
    ours = udfs.select(X, n_clusters=c, gamma=gamma, lam=lam, k=k, max_iter=n_iter, tol=0.0)
    np.testing.assert_allclose(ours.history, history, rtol=1e-8)
    np.testing.assert_allclose(ours.scores, row_norms(W), rtol=1e-8)


def test_udfs_lowrank_route_matches_dense_iteration():
    """Where the c smallest eigenvalues are distinct, the Woodbury-LOBPCG route gives the
    brute-force history and scores of the dense one."""
    X = np.random.default_rng(2).normal(size=(30, 8))
    gamma, lam, k, c, n_iter = 0.5, 2.0, 4, 3, 6
    dense = udfs.select(X, n_clusters=c, gamma=gamma, lam=lam, k=k, max_iter=n_iter, tol=0.0,
                        eig_solver="dense")  # fmt: skip
    lowrank = udfs.select(X, n_clusters=c, gamma=gamma, lam=lam, k=k, max_iter=n_iter, tol=0.0,
                          eig_solver="lowrank")  # fmt: skip
    np.testing.assert_allclose(lowrank.history, dense.history, rtol=1e-7)
    np.testing.assert_allclose(lowrank.scores, dense.scores, rtol=1e-6)


def test_udfs_smallest_eigenvectors_lowrank_span_the_smallest_eigenspace():
    rng = np.random.default_rng(3)
    d, r, c = 60, 10, 4
    B, e = rng.normal(size=(d, r)), rng.uniform(0.5, 2.0, d)
    W = smallest_eigenvectors_lowrank(e, B, c)
    _, V = np.linalg.eigh(B @ B.T + np.diag(e))
    np.testing.assert_allclose(W @ W.T, V[:, :c] @ V[:, :c].T, atol=1e-8)


def test_udfs_lowrank_repeated_eigenvalue_gives_a_minimising_orthonormal_basis():
    """D = I and r < d: the null space of B^T is one eigenspace (eigenvalue gamma)."""
    rng = np.random.default_rng(4)
    d, r, c, gamma = 80, 10, 5, 0.3
    B = rng.normal(size=(d, r))
    W = smallest_eigenvectors_lowrank(np.full(d, gamma), B, c)
    np.testing.assert_allclose(W.T @ W, np.eye(c), atol=1e-10)
    np.testing.assert_allclose(B.T @ W, 0.0, atol=1e-6)  # so (gamma I + B B^T) W = gamma W


@pytest.mark.parametrize("gamma", [1e-3, 0.1, 10.0])
def test_udfs_lowrank_objective_non_increasing_with_many_features(gamma):
    """The IRLS descent needs exact eigenvector steps; with n << d (planted structure in a
    few columns, many noise columns) the low-rank route keeps the objective monotone."""
    rng = np.random.default_rng(6)
    labels = rng.integers(0, 3, 30)
    X = rng.normal(size=(30, 400))
    X[:, :5] += 4.0 * np.eye(3)[labels] @ rng.normal(size=(3, 5))
    sel = udfs.select(X, n_clusters=3, gamma=gamma, lam=1.0, max_iter=15, tol=0.0)
    assert len(sel.history) == 15
    assert np.all(np.diff(sel.history) <= 1e-9 * np.abs(sel.history[:-1]))


def test_udfs_auto_route_when_features_outnumber_samples():
    X = np.random.default_rng(5).normal(size=(20, 100))
    auto = udfs.select(X, n_clusters=3, gamma=0.5, max_iter=8, tol=0.0)
    lowrank = udfs.select(X, n_clusters=3, gamma=0.5, max_iter=8, tol=0.0, eig_solver="lowrank")
    assert np.array_equal(auto.scores, lowrank.scores)  # the same route, deterministic
    assert np.all(np.diff(lowrank.history) <= 1e-8 * np.abs(lowrank.history[:-1]))
    assert sorted(lowrank.ranking) == list(range(100))
    with pytest.raises(ValueError, match="needs gamma > 0"):
        udfs.select(X, n_clusters=3, gamma=0.0, eig_solver="lowrank")


# ---------------------------------------------------------------- brute force: NDFS


def _dense_ndfs(X, S, F, alpha, beta, gamma, n_iter):
    """NDFS transcribed with dense matrices: explicit inverse, M formed, n x n Laplacian."""
    n, d = X.shape
    degree = S.sum(axis=1)
    L = np.eye(n) - S / np.sqrt(np.outer(degree, degree))
    F = F / np.linalg.norm(F, axis=0)
    D = np.eye(d)
    W = np.linalg.inv(X.T @ X + beta * D) @ X.T @ F
    history = []
    for _ in range(n_iter):
        D = np.diag(1.0 / (2.0 * np.linalg.norm(W, axis=1) + 1e-12))
        A_inv = np.linalg.inv(X.T @ X + beta * D)
        M = L + alpha * (np.eye(n) - X @ A_inv @ X.T)
        denominator = M @ F + gamma * F @ F.T @ F
        assert denominator.min() > 0  # the rule is defined everywhere in these cases
        F = F * (gamma * F) / denominator
        F = F / np.linalg.norm(F, axis=0)
        W = A_inv @ X.T @ F
        orth = F.T @ F - np.eye(F.shape[1])
        history.append(
            np.trace(F.T @ L @ F)
            + alpha * (np.linalg.norm(X @ W - F) ** 2 + beta * np.linalg.norm(W, axis=1).sum())
            + gamma / 2 * np.linalg.norm(orth) ** 2
        )
    return F, W, np.array(history)


@pytest.mark.parametrize("shape", [(40, 10), (15, 50)])  # d < n (primal), d > n (kernel)
def test_ndfs_efficient_update_equals_dense(shape):
    rng = np.random.default_rng(3)
    X = rng.normal(size=shape)
    graph = knn_graph(X, 4, weight="heat")
    F0 = rng.uniform(0.1, 1.0, size=(shape[0], 3))
    params = {"alpha": 2.0, "beta": 0.5, "gamma": 1e3}
    result = ndfs.iterate(X, laplacian(graph, normed=True), F0, max_iter=8, tol=0.0, **params)
    F, W, history = _dense_ndfs(X, graph.toarray(), F0, n_iter=8, **params)
    np.testing.assert_allclose(result.F, F, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(result.W, W, rtol=1e-8, atol=1e-12)
    np.testing.assert_allclose(result.history, history, rtol=1e-8)


def test_ndfs_initial_indicators_are_one_hot_plus_offset(planted_data):
    X, _, _ = planted_data
    graph = knn_graph(X, 5, weight="heat")
    F0 = ndfs.initial_indicators(graph, laplacian(graph, normed=True), 3, random_state=0)
    assert F0.shape == (X.shape[0], 3)
    assert np.all(np.isin(F0, [0.2, 1.2])) and np.all((F0 == 1.2).sum(axis=1) == 1)


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    "method, kwargs, match",
    [
        ("udfs", {"k": 150}, r"method 'udfs': k=150 must be < n_samples=150"),
        ("udfs", {"gamma": -1.0}, r"parameter 'gamma' must be >= 0"),
        ("udfs", {"lam": 0.0}, r"parameter 'lam' must be > 0"),
        ("udfs", {"k": 0}, r"parameter 'k' must be >= 1"),
        ("udfs", {"max_iter": 2.5}, r"parameter 'max_iter' must be an integer"),
        ("ndfs", {"alpha": 0.0}, r"parameter 'alpha' must be > 0"),
        ("ndfs", {"gamma": -1.0}, r"parameter 'gamma' must be > 0"),
        ("ndfs", {"tol": -0.1}, r"parameter 'tol' must be >= 0"),
        ("ndfs", {"alpah": 1.0}, r"unknown parameter 'alpah'"),
    ],
)
def test_iterative_method_rejects_invalid_params(method, kwargs, match, planted_data):
    X, _, _ = planted_data
    with pytest.raises(ValueError, match=match):
        rank_features(X, method, n_clusters=3, **kwargs)


def test_udfs_rejects_more_clusters_than_features():
    X = np.random.default_rng(0).normal(size=(30, 2))
    with pytest.raises(ValueError, match=r"n_clusters=3 must be <= n_features=2"):
        rank_features(X, "udfs", n_clusters=3)
