"""RUFS, SOGFS, ULAP and L1UFS: the LSDCL paper's baselines beyond the spine.

The registry-wide contract (permutation, seeding, planted features, parameter errors,
check_estimator) is tested by tests/test_methods.py and tests/test_selector.py, which
enumerate the registry; here are the solver-specific properties.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import LinAlgError, eigh

from ufsbench import rank_features
from ufsbench.graph import knn_graph, laplacian
from ufsbench.methods import _adaptive_graph, l1ufs, rufs
from ufsbench.methods._low_rank import woodbury_inverse
from ufsbench.methods.base import l21_weights, row_norms

# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def standardized(planted_data):
    X, y, informative = planted_data
    return (X - X.mean(axis=0)) / X.std(axis=0), y, informative


def _blobs(n_per=20, n_blobs=3, d=6, seed=0, spread=8.0):
    rng = np.random.default_rng(seed)
    centres = spread * rng.normal(size=(n_blobs, d))
    return np.vstack([c + rng.normal(size=(n_per, d)) for c in centres])


def _dense_simplex_projection(v):
    """Projection of one vector onto the simplex by bisection on the threshold."""
    low, high = v.min() - 1.0, v.max()
    for _ in range(200):
        theta = 0.5 * (low + high)
        if np.maximum(v - theta, 0.0).sum() > 1.0:
            low = theta
        else:
            high = theta
    return np.maximum(v - 0.5 * (low + high), 0.0)


def _dense_sq_distances(E):
    return ((E[:, None, :] - E[None, :, :]) ** 2).sum(axis=2)


# ---------------------------------------------------------------- SOGFS / ULAP: S-step


@pytest.mark.parametrize("alpha", [None, 0.5, 50.0])  # per-row rule; small and large alpha
def test_adaptive_neighbours_rows_solve_their_simplex_problem(alpha):
    E = np.random.default_rng(1).normal(size=(40, 3))
    S, alphas = _adaptive_graph.adaptive_neighbours(E, 4, alpha=alpha)
    D = _dense_sq_distances(E)
    S = S.toarray()
    assert np.all(np.diag(S) == 0)
    np.testing.assert_allclose(S.sum(axis=1), 1.0, rtol=1e-12)
    for i in range(len(E)):
        others = np.arange(len(E)) != i
        expected = _dense_simplex_projection(-D[i, others] / (2.0 * alphas[i]))
        np.testing.assert_allclose(S[i, others], expected, atol=1e-9)
    if alpha is None:  # the per-row rule gives each row exactly k neighbours
        assert np.all((S > 0).sum(axis=1) == 4)
    else:
        np.testing.assert_array_equal(alphas, alpha)


def test_adaptive_neighbours_large_alpha_grows_support_beyond_k():
    E = np.random.default_rng(2).normal(size=(30, 2))
    S, _ = _adaptive_graph.adaptive_neighbours(E, 3, alpha=1e3)
    assert (S.toarray() > 0).sum(axis=1).min() > 4


def test_adaptive_neighbours_tiny_alpha_and_zero_distances_stay_finite():
    E = np.zeros((6, 2))  # every distance 0: a projection that ignores features of 0 spread
    S, _ = _adaptive_graph.adaptive_neighbours(E, 2, alpha=1e-300)
    np.testing.assert_allclose(S.toarray().sum(axis=1), 1.0)
    E = np.random.default_rng(4).normal(size=(20, 3)) * 1e6
    S, _ = _adaptive_graph.adaptive_neighbours(E, 3, alpha=1e-12)  # nearest takes all
    np.testing.assert_allclose(S.toarray().max(axis=1), 1.0)


def test_adaptive_neighbours_equidistant_points_share_weight():
    E = np.vstack([np.eye(4), -np.eye(4)])  # every point has 6 others at distance sqrt(2)
    S, _ = _adaptive_graph.adaptive_neighbours(E, 3)
    np.testing.assert_allclose(S.sum(axis=1), 1.0)
    assert np.all(np.isfinite(S.data))


def test_objective_equals_dense_formula():
    E = np.random.default_rng(3).normal(size=(25, 4))
    S, alphas = _adaptive_graph.adaptive_neighbours(E, 5)
    dense = S.toarray()
    expected = (dense * _dense_sq_distances(E)).sum() + alphas @ (dense**2).sum(axis=1) + 2.5
    assert _adaptive_graph.objective(S, alphas, E, 2.5) == pytest.approx(expected, rel=1e-12)


# ---------------------------------------------------------------- SOGFS: F-step


@pytest.mark.parametrize("c", [3, 5])  # exactly the 3 components; beyond them
def test_laplacian_bottom_sparse_path_equals_dense(c, monkeypatch):
    X = _blobs(n_per=30, n_blobs=3, d=4, seed=4, spread=30.0)
    S, _ = _adaptive_graph.adaptive_neighbours(X, 5)
    L = _adaptive_graph.graph_laplacian(S)
    dense_values, dense_vectors = eigh(L.toarray(), subset_by_index=[0, c - 1])
    monkeypatch.setattr(_adaptive_graph, "_DENSE_EIGH_MAX", 0)
    values, vectors = _adaptive_graph.laplacian_bottom(L, c, random_state=0)
    np.testing.assert_allclose(values, dense_values, atol=1e-9)
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(c), atol=1e-9)
    # Same invariant subspace (eigenvalue c may be separated from c + 1 by a wide gap).
    np.testing.assert_allclose(vectors @ vectors.T, dense_vectors @ dense_vectors.T, atol=1e-6)


def test_laplacian_bottom_fewer_vectors_than_components_span_null_space():
    X = _blobs(n_per=30, n_blobs=3, d=4, seed=4, spread=30.0)
    S, _ = _adaptive_graph.adaptive_neighbours(X, 5)
    L = _adaptive_graph.graph_laplacian(S)
    values, vectors = _adaptive_graph.laplacian_bottom(L, 2)
    np.testing.assert_array_equal(values, 0.0)
    np.testing.assert_allclose(L @ vectors, 0.0, atol=1e-12)
    np.testing.assert_allclose(vectors.T @ vectors, np.eye(2), atol=1e-12)


# ---------------------------------------------------------------- SOGFS / ULAP: solver


@pytest.mark.parametrize(
    "method, params",
    [
        ("sogfs", {"alpha_rule": "mean", "lambda_update": "fixed"}),
        ("sogfs", {"alpha_rule": "mean", "lambda_update": "fixed", "gamma": 100.0}),
        ("ulap", {"alpha_rule": "mean"}),
        ("ulap", {"alpha_rule": "mean", "gamma": 1e-3, "n_components": 5}),
    ],
)
def test_adaptive_graph_objective_non_increasing_when_guaranteed(method, params, standardized):
    X, _, _ = standardized
    history = rank_features(X, method, n_clusters=3, max_iter=15, **params).history
    assert len(history) == 15
    assert np.all(np.diff(history) <= 1e-9 * np.abs(history[:-1]))


def test_ulap_lowrank_w_step_gives_the_dense_iterates():
    """Full-rank X^T L_S X (n > d): the two W-step routes agree to rounding throughout."""
    X = _blobs(n_per=15, n_blobs=3, d=8, seed=7)
    runs = {
        route: rank_features(X, "ulap", n_clusters=3, max_iter=6, gamma=0.5, eig_solver=route)
        for route in ("dense", "lowrank")
    }
    np.testing.assert_allclose(runs["lowrank"].history, runs["dense"].history, rtol=1e-8)
    np.testing.assert_allclose(runs["lowrank"].scores, runs["dense"].scores, rtol=1e-6)


@pytest.mark.parametrize("gamma", [1e-3, 0.1, 10.0])
def test_ulap_lowrank_objective_non_increasing_with_many_features(gamma):
    """n << d ("auto" is low rank): every step stays an exact block minimisation."""
    rng = np.random.default_rng(8)
    labels = rng.integers(0, 3, 24)
    X = rng.normal(size=(24, 300))
    X[:, :6] += 5.0 * np.eye(3)[labels] @ rng.normal(size=(3, 6))
    auto = rank_features(X, "ulap", n_clusters=3, max_iter=10, gamma=gamma)
    low = rank_features(X, "ulap", n_clusters=3, max_iter=10, gamma=gamma, eig_solver="lowrank")
    np.testing.assert_array_equal(auto.scores, low.scores)
    assert np.all(np.diff(low.history) <= 1e-9 * np.abs(low.history[:-1]))
    assert sorted(low.ranking) == list(range(300))
    with pytest.raises(ValueError, match="eig_solver='lowrank' needs gamma > 0"):
        rank_features(X, "ulap", n_clusters=3, gamma=0.0, eig_solver="lowrank")


def test_sogfs_lambda_doubles_or_halves_by_components():
    X = _blobs(n_per=15, n_blobs=3, d=5, seed=5)
    adapt = _adaptive_graph.solve(X, n_components=2, gamma=1.0, k=4, n_clusters=3, max_iter=8)
    ratios = adapt.lambdas[1:] / adapt.lambdas[:-1]
    assert set(np.round(ratios, 12)) <= {0.5, 1.0, 2.0}
    fixed = _adaptive_graph.solve(
        X, n_components=2, gamma=1.0, k=4, n_clusters=3, max_iter=4, lambda_update="fixed"
    )
    np.testing.assert_array_equal(fixed.lambdas, 1.0)


def test_sogfs_projection_is_orthonormal_and_graph_stochastic():
    X = _blobs(seed=6)
    result = _adaptive_graph.solve(X, n_components=3, gamma=0.5, k=5, n_clusters=3, max_iter=5)
    np.testing.assert_allclose(result.W.T @ result.W, np.eye(3), atol=1e-10)
    np.testing.assert_allclose(np.asarray(result.S.sum(axis=1)).ravel(), 1.0)
    assert result.S.diagonal().max() == 0


def test_sogfs_default_projection_dimension_is_a_third_of_the_features(monkeypatch):
    seen = {}
    original = _adaptive_graph.solve

    def spy(X, **kwargs):
        seen.update(kwargs)
        return original(X, **kwargs)

    monkeypatch.setattr(_adaptive_graph, "solve", spy)
    X = _blobs(d=10)
    rank_features(X, "sogfs", n_clusters=3, max_iter=2)
    assert seen["n_components"] == 3
    rank_features(X, "ulap", n_clusters=3, max_iter=2)
    assert seen["n_components"] == 3 and seen["n_clusters"] is None


def test_sogfs_first_w_step_uses_gamma_times_reweighting_matrix():
    # The spec's and the reference code's W-step: bottom eigenvectors of
    # X^T L_S X + gamma Q, Q = I at the start (not gamma / 2).
    X = _blobs(n_per=12, n_blobs=3, d=7, seed=11)
    gamma, m = 50.0, 3
    S0, _ = _adaptive_graph.adaptive_neighbours(X, 4)
    L0 = _adaptive_graph.graph_laplacian(S0).toarray()
    M = X.T @ L0 @ X
    _, expected = eigh(0.5 * (M + M.T) + gamma * np.eye(7), subset_by_index=[0, m - 1])
    result = _adaptive_graph.solve(X, n_components=m, gamma=gamma, k=4, n_clusters=3, max_iter=1)
    # Same subspace: the projector is basis-independent.
    np.testing.assert_allclose(result.W @ result.W.T, expected @ expected.T, atol=1e-8)


def test_sogfs_objective_non_increasing_with_inner_w_steps(standardized):
    X, _, _ = standardized
    history = rank_features(
        X, "sogfs", n_clusters=3, max_iter=10, lambda_update="fixed", w_inner=4, gamma=10.0
    ).history
    assert np.all(np.diff(history) <= 1e-9 * np.abs(history[:-1]))


def test_sogfs_standardize_ignores_feature_shift_and_scale():
    X = _blobs(n_per=15, n_blobs=3, d=6, seed=12)
    rng = np.random.default_rng(0)
    Y = X * rng.uniform(0.1, 1000.0, size=6) + rng.normal(scale=50.0, size=6)
    kw = dict(n_clusters=3, max_iter=5, scale="standardize", gamma=1.0)
    a = rank_features(X, "sogfs", **kw)
    b = rank_features(Y, "sogfs", **kw)
    np.testing.assert_allclose(a.scores, b.scores, rtol=1e-6, atol=1e-9)
    raw = rank_features(Y, "sogfs", n_clusters=3, max_iter=5, gamma=1.0, scale="none")
    assert not np.allclose(raw.scores, b.scores)


def test_sogfs_default_solves_on_standardized_features():
    # The authors' code centres every feature and scales it to unit norm first.
    X = _blobs(n_per=15, n_blobs=3, d=6, seed=15) * np.array([1, 10, 100, 1, 1000, 5.0])
    centred = X - X.mean(axis=0)
    unit = centred / np.linalg.norm(centred, axis=0)
    default = rank_features(X, "sogfs", n_clusters=3, max_iter=4)
    explicit = rank_features(unit, "sogfs", n_clusters=3, max_iter=4, scale="none")
    np.testing.assert_allclose(default.scores, explicit.scores, rtol=1e-8, atol=1e-12)


def test_knn_simplex_rows_solve_their_restricted_problem():
    E = _blobs(n_per=10, n_blobs=2, d=3, seed=13)
    k, alpha = 4, 0.7
    S, alphas = _adaptive_graph.knn_simplex(E, k, alpha)
    D = _dense_sq_distances(E)
    np.testing.assert_array_equal(alphas, alpha)
    for i in range(len(E)):
        order = [j for j in np.argsort(D[i], kind="stable") if j != i][:k]
        expected = np.zeros(len(E))
        expected[order] = _dense_simplex_projection(-D[i, order] / (2 * alpha))
        np.testing.assert_allclose(S[i].toarray().ravel(), expected, atol=1e-9)
    assert np.diff(S.indptr).max() <= k


def test_sogfs_input_alpha_starts_lambda_at_alpha_and_stops_at_c_components():
    X = _blobs(n_per=15, n_blobs=3, d=5, seed=14, spread=30.0)
    _, alphas = _adaptive_graph.adaptive_neighbours(X, 7)
    result = _adaptive_graph.solve(
        X,
        n_components=4,
        gamma=1.0,
        k=7,
        n_clusters=3,
        alpha_rule="input",
        lambda0=None,
        support="knn",
        stop="components",
        max_iter=20,
    )
    assert result.lambdas[0] == pytest.approx(alphas.mean())
    assert len(result.history) < 20  # three far-apart blobs: c components early
    with pytest.raises(ValueError, match="lambda0=None"):
        _adaptive_graph.solve(X, n_components=2, gamma=1.0, k=4, n_clusters=3, lambda0=None)


# ---------------------------------------------------------------- RUFS


@pytest.fixture(scope="module")
def rufs_problem(standardized):
    X = standardized[0][:60]
    L = rufs.local_learning_regulariser(X, 5, 0.1)
    G, F, W = rufs._start(X, 3, 1.0, 1.0, 0.2, 0)
    return X, L, G, F, W


def test_rufs_local_learning_rows_reproduce_kernel_ridge(rufs_problem):
    X, L, *_ = rufs_problem
    K = knn_graph(X, 5, weight="heat", t=1.0, sigma0="mean").toarray()
    A = np.zeros_like(K)
    for i in range(len(X)):
        nb = np.flatnonzero(K[i])
        A[i, nb] = K[i, nb] @ np.linalg.inv(K[np.ix_(nb, nb)] + 0.1 * np.eye(len(nb)))
    I_A = np.eye(len(X)) - A
    np.testing.assert_allclose(L.toarray(), I_A.T @ I_A, atol=1e-10)


def _reweighted(X, G, F, W, L, G_ref, F_ref, W_ref, nu=1.0, alpha=1.0, beta=1.0):
    """The RUFS majoriser with IRLS weights frozen at the reference point (ortho = 1e7)."""
    d1 = l21_weights(G_ref @ F_ref - X)
    d2 = l21_weights(X @ W_ref - G_ref)
    q = l21_weights(W_ref)
    q_f = l21_weights(F_ref.T)
    gram = G.T @ G - np.eye(G.shape[1])
    return (
        d1 @ row_norms(G @ F - X) ** 2
        + nu * np.einsum("ij,ij->", G, L @ G)
        + alpha * d2 @ row_norms(X @ W - G) ** 2
        + beta * q @ row_norms(W) ** 2
        + 1e-4 * q_f @ row_norms(F.T) ** 2
        + 0.1 * G.sum()
        + 0.25e7 * np.einsum("ij,ij->", gram, gram)
    )


def test_rufs_w_step_minimises_reweighted_problem(rufs_problem):
    X, L, G, F, W = rufs_problem
    new = rufs.update_w(X, G, W, alpha=1.0, beta=1.0)
    d2, q = l21_weights(X @ W - G), l21_weights(W)
    gradient = X.T @ (d2[:, None] * (X @ new - G)) + q[:, None] * new
    np.testing.assert_allclose(gradient, 0.0, atol=1e-8 * np.abs(X.T @ G).max())
    before = _reweighted(X, G, F, W, L, G, F, W)
    assert _reweighted(X, G, F, new, L, G, F, W) <= before


def test_rufs_kernel_form_w_step_equals_primal():
    rng = np.random.default_rng(7)
    X, G = rng.normal(size=(12, 30)), rng.uniform(size=(12, 3))
    W = rng.normal(size=(30, 3))
    wide = rufs.update_w(X, G, W, alpha=0.5, beta=2.0)  # d > n: kernel form
    d2, q = l21_weights(X @ W - G), l21_weights(W)
    system = X.T @ (d2[:, None] * X) + 4.0 * np.diag(q)
    np.testing.assert_allclose(wide, np.linalg.solve(system, X.T @ (d2[:, None] * G)), atol=1e-9)


@pytest.mark.parametrize("step", ["f", "g"])
def test_rufs_multiplicative_steps_do_not_increase_majoriser(rufs_problem, step):
    X, L, G, F, W = rufs_problem
    rng = np.random.default_rng(0)
    G_next, F_next = G, F
    for _ in range(5):  # several random nonnegative starts
        G0 = G * rng.uniform(0.5, 1.5, G.shape)
        F0 = F * rng.uniform(0.5, 1.5, F.shape)
        if step == "f":
            F_next = rufs.update_f(X, G0, F0, f_l21=1e-4)
            G_next = G0
        else:
            G_next = rufs.update_g(
                X, G0, F0, W, L, nu=1.0, alpha=1.0, beta=1.0, ortho=1e7, f_l21=1e-4, g_l1=0.1
            )
            F_next = F0
        before = _reweighted(X, G0, F0, W, L, G0, F0, W)
        after = _reweighted(X, G_next, F_next, W, L, G0, F0, W)
        assert after <= before * (1 + 1e-12)
        assert np.all(G_next >= 0) and np.all(F_next >= 0)


@pytest.mark.parametrize("params", [{}, {"nu": 100.0, "alpha": 1e-2, "beta": 10.0}])
def test_rufs_objective_decreases_on_planted_data(params, standardized):
    history = rank_features(standardized[0], "rufs", n_clusters=3, **params).history
    assert len(history) == 20
    assert np.all(np.diff(history) <= 1e-8 * np.abs(history[:-1]))


def test_rufs_inner_iterations_repeat_the_g_and_f_steps(standardized, monkeypatch):
    X = standardized[0][:50]
    calls = {"g": 0, "f": 0, "w": 0}
    for name, key in (("update_g", "g"), ("update_f", "f"), ("update_w", "w")):
        original = getattr(rufs, name)

        def spy(*args, _original=original, _key=key, **kwargs):
            calls[_key] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(rufs, name, spy)
    rank_features(X, "rufs", n_clusters=3, max_iter=4, inner_iter=3)
    assert calls == {"g": 12, "f": 12, "w": 4}


def test_rufs_heavy_settings_run_fewer_iterations(standardized):
    X = standardized[0]
    assert rank_features(X, "rufs", n_clusters=3, alpha=1e4).n_iter == 5
    assert rank_features(X, "rufs", n_clusters=3, alpha=1e4, max_iter_heavy=None).n_iter == 20


# ---------------------------------------------------------------- L1UFS


def _l1ufs_problem(n=30, d=6, seed=0):
    rng = np.random.default_rng(seed)
    X = _blobs(n_per=n // 3, n_blobs=3, d=d, seed=seed)
    X -= X.min()  # nonnegative, as the LSDCL datasets
    graph = knn_graph(X, 4)
    return X, graph, laplacian(graph).toarray(), l1ufs.graph_factors(X, graph)[0], rng


@pytest.mark.parametrize("lowrank", [False, True])
@pytest.mark.parametrize(
    "residual, shape",
    [("features", (30, 6)), ("features", (12, 20)), ("samples", (30, 6)), ("samples", (9, 40))],
)  # d < n, d > n
def test_l1ufs_w_step_solves_each_column_system(residual, shape, lowrank):
    X, graph, L, P, rng = _l1ufs_problem(*shape)
    d = X.shape[1]
    W, Z = rng.normal(size=(d, d)), rng.normal(size=(len(X), d))
    B = X.T @ X
    root = l1ufs.graph_factors(X, graph)[1]
    new = l1ufs.update_w(
        X, None if lowrank else B, None if lowrank else P.T @ P, P, W, Z, lambda2=0.7, mu=3.0,
        residual=residual, root=root, lowrank=lowrank,
    )  # fmt: skip
    shared = l1ufs.update_w(
        X, None if lowrank else B, None if lowrank else P.T @ P, P, W, Z, lambda2=0.7, mu=3.0,
        residual=residual, root=root, lowrank=lowrank, R=X - X @ W,
    )  # fmt: skip
    if lowrank:
        new, shared = new.toarray(), shared.toarray()
    np.testing.assert_array_equal(shared, new)  # the residual handed over by solve()
    R, q = X - X @ W, l21_weights(W)
    C = 0.7 * np.diag(q) + 1.5 * X.T @ L @ X  # lambda2 Q + (mu / 2) X^T L X
    rhs = 1.5 * P.T @ Z
    if residual == "samples":
        a = l21_weights(R)
        Ba = X.T @ (a[:, None] * X)
        np.testing.assert_allclose(new, np.linalg.solve(Ba + C, Ba + rhs), atol=1e-8)
        return
    a = l21_weights(R.T)
    for j in range(d):  # the O(d^4) way: one solve per column
        expected = np.linalg.solve(a[j] * B + C, a[j] * B[:, j] + rhs[:, j])
        np.testing.assert_allclose(new[:, j], expected, rtol=1e-7, atol=1e-9)


def test_woodbury_inverse_solves_diagonal_plus_low_rank():
    rng = np.random.default_rng(4)
    e, B, V = rng.uniform(1e-3, 1e3, size=50), rng.normal(size=(50, 7)), rng.normal(size=(50, 3))
    solve = woodbury_inverse(e, B)
    np.testing.assert_allclose(solve(V), np.linalg.solve(np.diag(e) + B @ B.T, V), rtol=1e-8)


def test_l1ufs_low_rank_matrix_multiplies_and_keeps_row_norms():
    rng = np.random.default_rng(9)
    left, right = rng.normal(size=(40, 6)), rng.normal(size=(6, 40))
    left[::3] *= 1e-9  # rows of very different sizes
    W = l1ufs.LowRankMatrix(left, right)
    M = rng.normal(size=(5, 40))
    np.testing.assert_allclose(M @ W, M @ (left @ right), rtol=1e-12)
    G = W.gram_factor
    np.testing.assert_allclose(G @ G.T, W.toarray() @ W.toarray().T, atol=1e-12)
    np.testing.assert_allclose(row_norms(G), row_norms(left @ right), rtol=1e-10)


@pytest.mark.parametrize("residual", ["features", "samples"])
def test_l1ufs_lowrank_route_gives_the_dense_iterates_with_many_features(residual):
    X, graph, _, _, _ = _l1ufs_problem(n=12, d=60, seed=5)  # 4 n <= d: "auto" is low rank
    options = dict(lambda1=0.3, lambda2=0.5, residual=residual, rho=1.1, max_iter=15, tol=0.0)
    dense = l1ufs.solve(X, graph, **options)
    low = l1ufs.solve(X, graph, lowrank=True, **options)
    np.testing.assert_allclose(low.history, dense.history, rtol=1e-6)
    assert isinstance(low.W, l1ufs.LowRankMatrix)  # the (d, d) W is never formed
    np.testing.assert_allclose(low.W.toarray(), dense.W, atol=1e-6 * np.abs(dense.W).max())
    np.testing.assert_allclose(
        row_norms(l1ufs.rows(low.W)), row_norms(dense.W), rtol=1e-6, atol=1e-9
    )
    kwargs = dict(graph=graph, lambda1=0.3, lambda2=0.5, residual=residual, max_iter=15)
    auto = l1ufs.select(X, **kwargs)
    np.testing.assert_array_equal(
        auto.scores, l1ufs.select(X, linear_solver="lowrank", **kwargs).scores
    )
    narrow = X[:, :30]  # 4 n > d: "auto" is dense
    np.testing.assert_array_equal(
        l1ufs.select(narrow, **kwargs).scores,
        l1ufs.select(narrow, linear_solver="dense", **kwargs).scores,
    )


def _backward_error(A, x, b):
    return np.linalg.norm(A @ x - b) / (
        np.linalg.norm(A, 2) * np.linalg.norm(x) + np.linalg.norm(b)
    )


@pytest.mark.parametrize("lambda1", [1e3, 1e4, 1e5])
@pytest.mark.parametrize("residual", ["features", "samples"])
def test_l1ufs_solves_its_systems_accurately_with_a_tiny_lambda2(residual, lambda1):
    # GLIOMA-like: positive, nearly constant entries (one dominant singular value), d > n,
    # and lambda2 = 1e-5 beside a large lambda1 X^T L X. Woodbury forms lost 1e-7 of
    # backward error here, and on GLIOMA diverged.
    rng = np.random.default_rng(2)
    X = 1.3 + 0.4 * rng.random((20, 200))
    X[:10, :5] += 2.0
    graph = knn_graph(X, 5, weight="binary")
    lambda2, d = 1e-5, X.shape[1]
    options = dict(lambda1=lambda1, lambda2=lambda2, residual=residual, rho=1.1, tol=0.0)
    start = l1ufs.solve(X, graph, max_iter=0, lowrank=True, **options).W.toarray()
    P, root = l1ufs.graph_factors(X, graph)
    B = X.T @ X
    assert _backward_error(B + lambda1 * P.T @ P + lambda2 * np.eye(d), start, B) < 1e-13
    # One W-step from the state after ten iterations, in both routes.
    W = l1ufs.solve(X, graph, max_iter=10, lowrank=True, **options).W.toarray()
    Z, mu = P @ W + 0.01 * rng.normal(size=(len(X), d)), 10.0
    R, q = X - X @ W, l21_weights(W)
    C = lambda2 * np.diag(q) + 0.5 * mu * P.T @ P
    rhs = 0.5 * mu * P.T @ Z
    for lowrank in (False, True):
        new = l1ufs.update_w(
            X, B, P.T @ P, P, W, Z, root=root, lambda2=lambda2, mu=mu, residual=residual,
            lowrank=lowrank,
        )  # fmt: skip
        new = new.toarray() if lowrank else new
        if residual == "samples":
            Ba = X.T @ (l21_weights(R)[:, None] * X)
            assert _backward_error(Ba + C, new, Ba + rhs) < 1e-13
            continue
        a = l21_weights(R.T)
        errors = [
            _backward_error(a[j] * B + C, new[:, j], a[j] * B[:, j] + rhs[:, j]) for j in range(d)
        ]
        assert max(errors) < 1e-13
    dense = np.array(l1ufs.solve(X, graph, max_iter=50, **options).history)
    low = np.array(l1ufs.solve(X, graph, max_iter=50, lowrank=True, **options).history)
    assert np.all(np.isfinite(low))
    # The dense route's solves of this ill-conditioned system (lambda1 / lambda2 up to 1e10)
    # lose accuracy with some LAPACK builds and thread counts (numpy 2.4 / scipy 1.17:
    # 50.946 -> 51.061 -> 50.949; its end point off by up to 4e-4 on one thread), while the
    # low-rank route stays monotone: it may be lower than the dense one, never higher, and
    # both end within the original 1e-3.
    assert np.all(low <= dense * (1 + 1e-6))
    assert np.all(np.diff(low[3:]) <= 1e-8 * low[4:])
    assert abs(low[-1] - dense[-1]) <= 1e-3 * dense[-1]


def test_l1ufs_numerically_singular_subproblem_gets_a_tiny_ridge():
    B = np.array([[2.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 1.0]])
    C = np.diag([1e8, 1e8, -1e-9])  # singular PSD up to rounding: Cholesky fails
    with pytest.raises(LinAlgError):
        eigh(B, C)
    theta, V = l1ufs.eigh_with_ridge(B, C)
    used = C + 1e-4 * np.eye(3)  # the ridge is 1e-12 max(diag C)
    np.testing.assert_allclose(B @ V, used @ V * theta, atol=1e-9)
    np.testing.assert_allclose(V.T @ used @ V, np.eye(3), atol=1e-9)
    well = l1ufs.eigh_with_ridge(B, np.eye(3))  # definite: no ridge
    for got, want in zip(well, eigh(B, np.eye(3)), strict=True):
        np.testing.assert_array_equal(got, want)


def test_l1ufs_graph_factors_reproduce_the_laplacian_and_its_quadratic_form():
    X, graph, L, P, _ = _l1ufs_problem()
    np.testing.assert_allclose(P.T @ P, X.T @ L @ X, atol=1e-8 * np.abs(X.T @ L @ X).max())
    _, S = l1ufs.graph_factors(X, graph)
    np.testing.assert_allclose(S @ S.T, L, atol=1e-12 * np.abs(L).max())
    np.testing.assert_allclose(S.T @ X, P, atol=1e-12 * np.abs(P).max())


def test_l1ufs_soft_threshold_is_the_l1_prox():
    M = np.array([[-3.0, -0.5, 0.0, 0.2, 2.0]])
    np.testing.assert_array_equal(l1ufs.soft_threshold(M, 1.0), [[-2.0, 0.0, 0.0, 0.0, 1.0]])


@pytest.mark.parametrize("params", [{"lambda1": 0.1, "lambda2": 0.5}, {"residual": "samples"}])
def test_l1ufs_converges_to_a_minimum_of_its_convex_objective(params):
    X, graph, _, P, rng = _l1ufs_problem(n=24, d=5, seed=3)
    options = {"lambda1": 1.0, "lambda2": 1.0, "residual": "features", **params}
    result = l1ufs.solve(X, graph, rho=1.1, max_iter=200, tol=0.0, **options)
    W, history = result.W, result.history

    def J(M):
        return l1ufs.objective(
            X, M, P @ M, options["lambda1"], options["lambda2"], options["residual"]
        )

    assert J(W) == pytest.approx(history[-1], rel=1e-9)
    assert history[-1] < history[0]
    d = X.shape[1]
    for other in (np.zeros((d, d)), np.eye(d)):
        assert J(W) <= J(other) + 1e-9
    # Convex objective: no small perturbation improves the returned point by more than
    # the ADMM accuracy.
    for _ in range(50):
        step = 1e-3 * rng.normal(size=(d, d)) * (1 + np.abs(W))
        assert J(W) <= J(W + step) + 1e-4 * J(W)


@pytest.mark.parametrize(
    "method, kwargs, match",
    [
        ("rufs", {"k": 60}, r"method 'rufs': k=60 must be < n_samples=60"),
        ("rufs", {"alpha": 0.0}, r"parameter 'alpha' must be > 0"),
        ("rufs", {"max_iter_heavy": 0}, r"parameter 'max_iter_heavy' must be >= 1"),
        ("l1ufs", {"lambda2": 0.0}, r"parameter 'lambda2' must be > 0"),
        ("l1ufs", {"rho": 0.5}, r"parameter 'rho' must be >= 1.0"),
        ("l1ufs", {"residual": "rows"}, r"parameter 'residual' must be one of"),
        ("sogfs", {"k": 59}, r"method 'sogfs': k=59 must be < n_samples - 1 = 59"),
        ("sogfs", {"n_components": 7}, r"n_components=7 must be in \[1, n_features=6\]"),
        ("sogfs", {"lambda0": 0.0}, r"parameter 'lambda0' must be > 0"),
        ("sogfs", {"gamma": -1.0}, r"parameter 'gamma' must be >= 0"),
        ("sogfs", {"lambda_update": "grow"}, r"parameter 'lambda_update' must be one of"),
        ("ulap", {"alpha_rule": "median"}, r"parameter 'alpha_rule' must be one of"),
        ("ulap", {"k": 0}, r"parameter 'k' must be >= 1"),
    ],
)
def test_baseline_rejects_invalid_parameters(method, kwargs, match):
    X = _blobs(d=6)
    with pytest.raises(ValueError, match=match):
        rank_features(X, method, n_clusters=3, **kwargs)
