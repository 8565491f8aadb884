"""Sparse-graph clustering (SRSG paper): l1-graph, SRSG/FPGD-SP, LR-l1, SMCE, NJW, KM."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.linear_model import Lasso

from ufsbench.sparse_graph import (
    build_graph,
    check_params,
    cluster_with,
    fpgd_sp_batch,
    gaussian_affinity,
    hard_threshold,
    l1_codes,
    lr_l1_codes,
    njw_spectral_clustering,
    scores,
    smce_weights,
    srsg,
    srsg_objective,
)
from ufsbench.sparse_graph._common import gram, unit_rows
from ufsbench.sparse_graph.smce import smce_admm
from ufsbench.sparse_graph.srsg import (
    BatchStats,
    greedy_coloring,
    knn_adjacency,
    penalty_coefficients,
    support,
)


def subspaces(n_per=25, dims=(2, 2, 2), ambient=15, noise=0.01, seed=0):
    """Samples on independent low-dimensional linear subspaces, one class per subspace."""
    rng = np.random.default_rng(seed)
    X, y = [], []
    for label, dim in enumerate(dims):
        basis = np.linalg.qr(rng.normal(size=(ambient, dim)))[0]
        X.append(rng.normal(size=(n_per, dim)) @ basis.T)
        y.append(np.full(n_per, label))
    X = np.vstack(X) + noise * rng.normal(size=(n_per * len(dims), ambient))
    return X, np.concatenate(y)


def random_codes(n, density=0.3, seed=0):
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, n)) * (rng.random((n, n)) < density)
    np.fill_diagonal(Z, 0.0)
    return Z


# -- the proximal step and the support projection -------------------------------------------


def test_hard_threshold_is_the_prox_by_brute_force():
    rng = np.random.default_rng(1)
    s, gamma = 0.3, 0.7
    for trial in range(20):
        u = rng.normal(size=6)
        c = rng.choice([-3.0, -1.0, 1.0, 3.0, 5.0], size=6)
        i = trial % 6
        best, best_v = np.inf, None
        for pattern in itertools.product([0, 1], repeat=6):  # every support
            if pattern[i]:
                continue
            v = np.where(np.array(pattern) == 1, u, 0.0)  # optimal values on that support
            value = ((v - u) ** 2).sum() / (2 * s) + gamma * np.sum(
                np.where((c > 0) & (v != 0), c, 0.0)
            )
            if value < best - 1e-12:
                best, best_v = value, v
        np.testing.assert_allclose(hard_threshold(u, c, s, gamma, self_index=i), best_v)


def _fpgd_sp_full(X, i, z0, c, gamma, s, eta, iters):
    """Algorithm 1 written straight from the paper over all n coordinates (reference)."""
    pen = c > 0
    z, v = z0.copy(), z0.copy()
    for k in range(1, iters + 1):
        a = 2.0 / (k + 1)
        m = (1 - a) * z + a * v
        grad = 2.0 * X @ (m @ X - X[i])  # d/dz ||x_i - z X||^2
        z = hard_threshold(m - s * grad, c, s, gamma, self_index=i)
        v = v - eta * k * grad
        keep = (pen & (z != 0)) | ~pen
        keep[i] = False
        v = np.where(keep, v, 0.0)
    return z


def test_fpgd_sp_active_set_batch_equals_full_algorithm():
    X, _ = subspaces(n_per=8, ambient=6, seed=3)
    Xn = unit_rows(X)
    G = gram(Xn)
    s = 0.99 / (2 * np.linalg.eigvalsh(G)[-1])
    Z0 = l1_codes(Xn, 0.05, normalize=False)
    S = knn_adjacency(Xn, 4)
    rows = np.array([0, 5, 11])
    Cpen = penalty_coefficients(S, support(Z0), rows)
    got = fpgd_sp_batch(G, rows, Z0[rows], Cpen, gamma=0.1, s=s, max_iter=60, tol=0.0)
    for b, i in enumerate(rows):
        want = _fpgd_sp_full(Xn, i, Z0[i], Cpen[b], 0.1, s, s / 2, 60)
        np.testing.assert_allclose(got[b], want, atol=1e-10)
        assert got[b, i] == 0.0


def test_fpgd_sp_reaches_the_least_squares_point_of_its_support():
    """At convergence the kept support is not penalised further: z minimises f on it."""
    X, _ = subspaces(n_per=6, ambient=8, seed=4)
    Xn = unit_rows(X)
    G = gram(Xn)
    s = 0.99 / (2 * np.linalg.eigvalsh(G)[-1])
    Z0 = l1_codes(Xn, 0.05, normalize=False)
    rows = np.array([2])
    Cpen = penalty_coefficients(knn_adjacency(Xn, 3), support(Z0), rows)
    z = fpgd_sp_batch(G, rows, Z0[rows], Cpen, gamma=0.05, s=s, max_iter=20000, tol=1e-14)[0]
    T = np.flatnonzero(z)
    assert 2 not in T
    direct = minimize(
        lambda w: np.sum((Xn[2] - w @ Xn[T]) ** 2),
        np.zeros(len(T)),
        method="BFGS",
        options={"gtol": 1e-12},
    )
    np.testing.assert_allclose(z[T], direct.x, atol=1e-5)
    # a fixed point of the proximal-gradient map
    grad = 2 * (G @ z - G[2])
    np.testing.assert_allclose(hard_threshold(z - s * grad, Cpen[0], s, 0.05, 2), z, atol=1e-7)


def test_penalised_support_never_grows_and_own_index_is_never_used():
    X, _ = subspaces(seed=5)
    Xn = unit_rows(X)
    G = gram(Xn)
    s = 0.99 / (2 * np.linalg.eigvalsh(G)[-1])
    Z0 = l1_codes(Xn, 0.1, normalize=False)
    rows = np.arange(len(Xn))
    Cpen = penalty_coefficients(knn_adjacency(Xn, 5), support(Z0), rows)
    stats = BatchStats()
    Z = fpgd_sp_batch(G, rows, Z0, Cpen, gamma=0.1, s=s, stats=stats)
    penalised = Cpen > 0
    assert not np.any(penalised & (Z != 0) & (Z0 == 0))
    assert np.all(np.diag(Z) == 0)
    assert stats.safeguard_hits == 0


# -- the l1 codes ---------------------------------------------------------------------------


def test_l1_codes_solve_the_lasso_and_exclude_self():
    X, _ = subspaces(n_per=10, seed=6)
    Xn = unit_rows(X)
    n, d = Xn.shape
    lam = 0.05
    codes = l1_codes(X, lam)
    assert np.all(np.diag(codes) == 0)
    for i in (0, 7, 23):
        others = np.delete(np.arange(n), i)

        def objective(z, i=i):
            return np.sum((Xn[i] - z @ Xn) ** 2) + lam * np.abs(z).sum()

        ref = Lasso(alpha=lam / (2 * d), fit_intercept=False, tol=1e-12, max_iter=100000)
        ref.fit(Xn[others].T, Xn[i])
        z_ref = np.zeros(n)
        z_ref[others] = ref.coef_
        assert objective(codes[i]) <= objective(z_ref) + 1e-9
        np.testing.assert_allclose(codes[i], z_ref, atol=1e-5)


# -- the SRSG objective and its penalty coefficients ----------------------------------------


def _d(zi, zj, i, j):
    m = np.ones(len(zi), bool)
    m[[i, j]] = False
    return int(np.sum(((zi == 0) & (zj != 0) | (zi != 0) & (zj == 0)) & m))


def test_srsg_objective_closed_form_equals_brute_force():
    rng = np.random.default_rng(8)
    X = unit_rows(rng.normal(size=(12, 5)))
    Z = random_codes(12, seed=9)
    S = knn_adjacency(X, 3)
    rec, supp = srsg_objective(X, Z, S, 0.1)
    brute = sum(S[i, j] * _d(Z[i], Z[j], i, j) for i in range(12) for j in range(12))
    assert supp == brute
    assert rec == pytest.approx(np.sum((X - Z @ X) ** 2))


@pytest.mark.parametrize("formula", ["paper", "exact"])
def test_penalty_coefficients_are_the_linear_form_of_the_support_term(formula):
    rng = np.random.default_rng(10)
    n = 10
    X = unit_rows(rng.normal(size=(n, 4)))
    Z = random_codes(n, seed=11)
    S = knn_adjacency(X, 3).toarray()
    Sp = S + S.T if formula == "exact" else S
    i = 4
    C = penalty_coefficients(sp.csr_matrix(S), support(Z), np.array([i]), formula)[0]

    def term(z):
        if formula == "exact":  # exactly the terms of eq. (3) that involve code i
            return sum(Sp[i, j] * _d(z, Z[j], i, j) for j in range(n))
        # eq. (6) as printed: only S_ij terms, position m = j not excluded
        m = np.arange(n) != i
        return sum(
            S[i, j] * np.sum((((z == 0) & (Z[j] != 0)) | ((z != 0) & (Z[j] == 0))) & m)
            for j in range(n)
        )

    for _ in range(10):
        z1, z2 = (rng.normal(size=n) * (rng.random(n) < 0.5) for _ in range(2))
        z1[i] = z2[i] = 0.0
        linear = lambda z: np.sum(np.where(z != 0, C, 0.0))  # noqa: E731
        assert term(z1) - term(z2) == pytest.approx(linear(z1) - linear(z2))


def test_greedy_colouring_separates_neighbours():
    X, _ = subspaces(seed=12)
    S = knn_adjacency(X, 5)
    colour = greedy_coloring(S)
    A = (S + S.T).tocoo()
    assert np.all(colour[A.row] != colour[A.col])


def test_srsg_objective_does_not_increase():
    X, _ = subspaces(seed=13)
    for formula, monotone in [("exact", True), ("paper", False)]:
        result = srsg(X, K=5, gamma=0.1, max_sweeps=8, c_formula=formula, monotone=monotone)
        h = np.array(result.history)
        assert np.all(np.diff(h) <= 1e-9 * np.abs(h[:-1])), (formula, h)
        assert result.n_sweeps >= 1


def test_srsg_step_scale_is_a_config_reading_and_a_huge_one_fails_clearly():
    X, _ = subspaces(seed=13)
    assert check_params("srsg", {})["step_scale"] == 0.99  # s = 0.99 / L_f, spec §2
    W, info = build_graph("srsg", X, {"step_scale": 2.0, "max_sweeps": 2})
    assert info["step"] == pytest.approx(2.0 / (2 * np.linalg.eigvalsh(gram(unit_rows(X)))[-1]))
    with np.errstate(all="ignore"), pytest.raises(FloatingPointError, match="srsg diverged"):
        srsg(X, K=5, gamma=0.1, max_sweeps=20, step_scale=1e4)


def test_colored_schedule_equals_sequential_gauss_seidel_in_colour_order():
    X, _ = subspaces(n_per=12, seed=14)
    Xn = unit_rows(X)
    codes0 = l1_codes(Xn, 0.1, normalize=False)
    colored = srsg(X, max_sweeps=2, tol=0.0, init_codes=codes0).codes.toarray()
    # the same sweeps one sample at a time, in colour order
    G = gram(Xn)
    s = 0.99 / (2 * np.linalg.eigvalsh(G)[-1])
    S = knn_adjacency(Xn, 5)
    order = np.argsort(greedy_coloring(S), kind="stable")
    codes = codes0.copy()
    for _ in range(2):
        for i in order:
            C = penalty_coefficients(S, support(codes), np.array([i]))
            codes[[i]] = fpgd_sp_batch(G, np.array([i]), codes[[i]], C, gamma=0.1, s=s)
    np.testing.assert_allclose(colored, codes, atol=1e-12)


def test_srsg_codes_exclude_self_and_affinity_is_symmetric_nonnegative():
    X, _ = subspaces(seed=15)
    result = srsg(X, max_sweeps=5)
    assert result.codes.diagonal().max() == 0 and result.codes.diagonal().min() == 0
    W = result.affinity
    assert W.shape == (len(X), len(X))
    assert abs(W - W.T).max() == 0
    assert W.data.min() >= 0 and W.diagonal().max() == 0


# -- every builder's affinity, and the clustering -------------------------------------------


@pytest.mark.parametrize(
    "method, params",
    [
        ("knn", {}),
        ("sc", {}),
        ("l1graph", {"lam": 0.1}),
        ("smce", {"K": 10}),
        ("lr_l1graph", {"lam": 0.1, "gamma_l2": 0.1, "max_iter": 50}),
        ("srsg", {"max_sweeps": 5}),
    ],
)
def test_affinities_are_symmetric_nonnegative_and_recover_planted_subspaces(method, params):
    X, y = subspaces(seed=16)
    W, info = build_graph(method, X, params)
    assert sp.issparse(W) and W.shape == (len(X), len(X))
    assert abs(W - W.T).max() <= 1e-12
    assert W.data.min() >= 0 and W.diagonal().max() == 0
    labels = cluster_with(method, X, 3, W=W, seed=0)
    if method not in ("sc", "knn"):  # distance graphs do not see linear subspaces
        assert scores(y, labels)["acc"] >= 0.95, (method, scores(y, labels))
    assert info["seconds"] >= 0


def test_srsg_and_l1graph_recover_planted_subspaces_perfectly():
    X, y = subspaces(n_per=30, seed=17)
    for method in ("l1graph", "srsg"):
        W, _ = build_graph(method, X)
        labels = njw_spectral_clustering(W, 3, random_state=0)
        assert scores(y, labels)["acc"] == 1.0


def test_smce_admm_matches_direct_minimisation():
    rng = np.random.default_rng(18)
    K, d, lam = 5, 4, 0.5
    Y = rng.normal(size=(1, K, d))
    A = np.einsum("nkd,nld->nkl", Y, Y)
    q = rng.random((1, K)) + 0.1
    w, _ = smce_admm(A, q, lam, max_iter=20000, tol=1e-12)

    def f(c):
        return lam * np.sum(q[0] * np.abs(c)) + 0.5 * c @ A[0] @ c

    cons = {"type": "eq", "fun": lambda c: c.sum() - 1}
    best = min(
        (
            minimize(f, x0, constraints=[cons], method="SLSQP", options={"ftol": 1e-14})
            for x0 in rng.normal(size=(20, K))
        ),
        key=lambda r: r.fun,
    )
    assert w[0].sum() == pytest.approx(1.0, abs=1e-6)
    assert f(w[0]) <= best.fun + 1e-6


def test_smce_weights_rows_are_distributions_over_neighbours():
    X, _ = subspaces(seed=19)
    Wd = smce_weights(X, 10.0, 8)
    assert np.allclose(np.asarray(Wd.sum(axis=1)).ravel(), 1.0)
    assert Wd.data.min() >= 0 and Wd.diagonal().max() == 0
    assert np.all(np.diff(Wd.indptr) <= 8)


def test_lr_l1_objective_decreases_and_reduces_to_l1_without_laplacian():
    X, _ = subspaces(n_per=10, seed=20)
    codes, history = lr_l1_codes(X, 0.1, 0.5, graph="knn", max_iter=200, tol=0.0)
    assert np.all(np.diff(history) <= 1e-9 * np.abs(history[:-1]).max())
    assert np.all(np.diag(codes) == 0)
    Xn = unit_rows(X)
    exact = l1_codes(Xn, 0.1, normalize=False)
    start = exact + 0.01 * random_codes(len(X), seed=1)
    approx, _ = lr_l1_codes(X, 0.1, 0.0, graph="knn", init_codes=start, max_iter=3000, tol=0.0)

    def obj(Z):
        return np.sum((Xn - Z @ Xn) ** 2) + 0.1 * np.abs(Z).sum()

    assert obj(approx) == pytest.approx(obj(exact), rel=1e-6)


@pytest.mark.parametrize("lam", [0.05, 1e-9])  # 1e-9: nearly every entry survives
def test_fused_lr_l1_step_matches_the_dense_step(lam):
    from ufsbench.graph import laplacian
    from ufsbench.sparse_graph._lr_l1_step import (
        HAVE_NUMBA,
        prox_step_dense,
        prox_step_sparse,
    )

    if not HAVE_NUMBA:
        pytest.skip("numba is not installed: the fused LR-l1 step falls back to the dense one")
    X, _ = subspaces(n_per=15, seed=22)
    Xn = unit_rows(X)
    G = gram(Xn)
    Y = sp.csr_matrix(random_codes(len(X), density=0.1, seed=3))
    A = sp.csr_matrix(np.abs(random_codes(len(X), density=0.2, seed=4)))
    L_A = laplacian((A + A.T) / 2)
    fused = prox_step_sparse(Y, G, L_A, 0.01, lam, 0.3)
    dense = prox_step_dense(Y, G, L_A, 0.01, lam, 0.3)
    assert np.abs(fused.toarray() - dense).max() <= 1e-13
    assert fused.nnz == np.count_nonzero(dense) and np.all(fused.diagonal() == 0)
    if lam < 1e-6:  # more survivors than the first output buffer holds: the retry path
        assert fused.nnz > 16 * len(X)


def test_lr_l1_codes_same_with_fused_dense_and_numpy_steps(monkeypatch):
    from ufsbench.sparse_graph import _lr_l1_step, lr_l1

    X, _ = subspaces(n_per=12, seed=23)
    fused_available = _lr_l1_step.HAVE_NUMBA
    runs = {}
    # fill 2.0: the iterates stay sparse whatever their density; 0.0: always dense BLAS.
    for name, have_numba, fill in [("fused", True, 2.0), ("numpy", False, 2.0),
                                   ("dense", True, 0.0)]:  # fmt: skip
        monkeypatch.setattr(_lr_l1_step, "HAVE_NUMBA", have_numba and fused_available)
        monkeypatch.setattr(lr_l1, "DENSE_FILL", fill)
        runs[name] = lr_l1_codes(X, 0.1, 0.3, max_iter=80, rounds=2, tol=0.0)
    codes, history = runs.pop("fused")
    assert np.count_nonzero(codes) > 0
    for other, other_history in runs.values():
        assert np.abs(codes - other).max() <= 1e-10
        assert history == pytest.approx(other_history, rel=1e-12)


def test_gaussian_affinity_median_width():
    X, _ = subspaces(seed=21)
    W = gaussian_affinity(X)
    assert np.allclose(W, W.T) and np.all(np.diag(W) == 0)
    assert np.median(W[np.triu_indices_from(W, 1)]) == pytest.approx(np.exp(-0.5), rel=1e-6)


def test_km_baseline_reproduces_the_paper_on_wdbc():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    result = scores(y, cluster_with("km", X, 2, seed=0))
    assert round(result["acc"], 4) == 0.8541 and round(result["nmi_max"], 4) == 0.4223


# -- determinism and bad input --------------------------------------------------------------


def test_seeded_determinism():
    X, _ = subspaces(seed=22)
    W1, _ = build_graph("srsg", X, {"max_sweeps": 3})
    W2, _ = build_graph("srsg", X, {"max_sweeps": 3})
    assert (W1 != W2).nnz == 0
    a = cluster_with("srsg", X, 3, W=W1, seed=5)
    b = cluster_with("srsg", X, 3, W=W1, seed=5)
    np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(
        cluster_with("km", X, 3, seed=3), cluster_with("km", X, 3, seed=3)
    )


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda X: l1_codes(np.where(X > 1e9, 0, np.nan), 0.1), "NaN"),
        (lambda X: l1_codes(np.vstack([X, np.zeros(X.shape[1])]), 0.1), "all-zero"),
        (lambda X: l1_codes(X, -1.0), "lam"),
        (lambda X: srsg(X, K=len(X)), "K="),
        (lambda X: srsg(X, schedule="random"), "schedule"),
        (lambda X: srsg(X, c_formula="other"), "c_formula"),
        (lambda X: srsg(X, init_codes=np.zeros((3, 3))), "init_codes"),
        (lambda X: check_params("srsg", {"gama": 0.1}), "unknown parameter"),
        (lambda X: check_params("srsg", {"K": 2.5}), "integer"),
        (lambda X: check_params("nope", {}), "unknown clustering method"),
        (lambda X: check_params("km", {"k": 1}), "no parameters"),
        (lambda X: njw_spectral_clustering(-np.eye(len(X)), 2), "non-negative"),
        (lambda X: njw_spectral_clustering(np.triu(np.ones((len(X), len(X)))), 2), "symmetric"),
        (lambda X: cluster_with("srsg", X, 3), "needs its graph"),
        (lambda X: l1_codes(X[:, 0], 0.1), "2-dimensional"),
    ],
)
def test_bad_input_raises(call, message):
    X, _ = subspaces(n_per=5, seed=23)
    with pytest.raises(ValueError, match=message):
        call(X)


def test_working_set_lasso_expands_to_the_exact_solution():
    from ufsbench.sparse_graph import lasso_gram

    Xn = unit_rows(np.random.default_rng(24).normal(size=(30, 15)))
    G = gram(Xn)
    for i in (0, 13):
        small = lasso_gram(G, i, G[i], 0.02, Xn.shape[1], working=2)
        full = lasso_gram(G, i, G[i], 0.02, Xn.shape[1], working=len(G))
        assert np.count_nonzero(full) > 2  # the answer needs more than the first set
        np.testing.assert_allclose(small, full, atol=1e-10)
        assert small[i] == 0


def test_l1_codes_with_more_atoms_than_dimensions_are_optimal():
    """n >> d: LARS meets degenerate active sets; the codes still satisfy the KKT conditions."""
    rng = np.random.default_rng(25)
    Xn = unit_rows(rng.normal(size=(60, 4)))
    G = gram(Xn)
    lam = 0.02
    codes = l1_codes(Xn, lam, normalize=False)
    for i in range(0, 60, 7):
        r = 2 * (G[i] - G @ codes[i])  # minus the gradient of the smooth part
        r[i] = 0
        nz = codes[i] != 0
        assert np.all(np.abs(r[~nz]) <= lam * (1 + 1e-6) + 1e-9)
        np.testing.assert_allclose(r[nz], lam * np.sign(codes[i][nz]), atol=1e-6)
