"""The projector route of SOGFS's W-step (issue 27, item 3): ``methods/_spectral_projector.py``.

Every quantity is checked against a dense ``eigh`` where that is accurate (moderate
diagonals), and against a deflated dense solve where it is not (rows whose l2,1 weight has
reached ``1e12``: there a full ``eigh`` of the (d, d) matrix loses ``eps * 1e12`` absolutely).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_permutation
from numpy.testing import assert_allclose, assert_array_equal
from scipy.linalg import eigh
from scipy.special import ellipj, ellipkm1

from ufsbench.methods import _spectral_projector as projector
from ufsbench.methods import sogfs


def _problem(d=240, r=20, n=30, seed=0, spread=(-1.0, 3.0)):
    """``(e, U, X)``: a positive diagonal, ``U = X^T F`` (d, r) and the data ``X`` (n, d)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    U = X.T @ (0.3 * rng.standard_normal((n, r)))
    e = np.exp(rng.uniform(*spread, d))
    return e, U, X


def _dense(e, U, X, m):
    values, vectors = eigh(np.diag(e) + U @ U.T)
    W = vectors[:, :m]
    return values, (W**2).sum(axis=1), (X @ W) @ (X @ W).T


def test_count_below_matches_the_dense_eigenvalues():
    e, U, _ = _problem(d=60, r=8)
    values = np.linalg.eigvalsh(np.diag(e) + U @ U.T)
    for s in np.concatenate([np.geomspace(0.1, 2 * values[-1], 25), values[[5, 30]] + 1e-9]):
        assert projector.count_below(e, U, s) == np.count_nonzero(values < s)


@pytest.mark.parametrize("m", [1, 80, 160])
def test_bottom_projection_matches_the_dense_eigenvectors(m):
    e, U, X = _problem()
    values, squared_norms, gram = _dense(e, U, X, m)
    assert values[m] - values[m - 1] > 1e-6 * values[m]  # a unique projector
    found = projector.bottom_projection(e, U, X, m)
    assert_allclose(found.squared_row_norms, squared_norms, rtol=0, atol=1e-11)
    assert_allclose(found.gram, gram, rtol=0, atol=1e-11 * np.abs(gram).max())


def test_diagonal_entries_inside_the_gap_are_handled():
    e, U, X = _problem(d=600, r=39, n=40)
    m = 200
    _, below, above, _ = projector.spectral_gap(e, U, m)
    assert np.count_nonzero((e > below) & (e < above)) >= 1  # the case under test
    _, squared_norms, gram = _dense(e, U, X, m)
    found = projector.bottom_projection(e, U, X, m)
    assert_allclose(found.squared_row_norms, squared_norms, rtol=0, atol=1e-11)
    assert_allclose(found.gram, gram, rtol=0, atol=1e-11 * np.abs(gram).max())


def test_switched_off_rows_keep_relative_accuracy():
    # The l2,1 weights of rows that W has dropped reach 1 / eps = 1e12. The reference
    # eliminates those rows (their coupling to the rest is O(1e-12)): a dense eigh of the
    # remaining block, which has moderate entries, is accurate.
    e, U, X = _problem(d=400, r=29, n=30)
    dead = np.arange(400) % 3 == 0
    e[dead] = 1e12
    m = 120
    A = np.diag(e) + U @ U.T
    live = ~dead
    block = A[np.ix_(live, live)] - A[np.ix_(live, dead)] @ (A[np.ix_(dead, live)] / e[dead, None])
    values, vectors = eigh(block)
    W_live = vectors[:, :m]
    found = projector.bottom_projection(e, U, X, m)
    assert_allclose(found.squared_row_norms[live], (W_live**2).sum(axis=1), rtol=0, atol=1e-11)
    # A dropped row j of W is -(A_jL W_L) / e_j to first order in 1 / e_j.
    dropped = ((A[np.ix_(dead, live)] @ W_live) ** 2).sum(axis=1) / e[dead] ** 2
    assert_allclose(found.squared_row_norms[dead], dropped, rtol=1e-6)
    assert found.squared_row_norms[dead].max() < 1e-20


def test_no_unique_projector_gives_none():
    e, U, X = _problem(d=240, r=20)
    flat = np.full_like(e, 0.7)  # Q = I: 0.7 repeats d - r = 220 times, m = 80 < 220
    assert projector.bottom_projection(flat, U, X, 80) is None
    assert projector.spectral_gap(flat, U, 80) is None  # the bisection finds no gap either
    # With m beyond the repeated block the projector is unique again.
    m = 230
    _, squared_norms, _ = _dense(flat, U, X, m)
    found = projector.bottom_projection(flat, U, X, m)
    assert_allclose(found.squared_row_norms, squared_norms, rtol=0, atol=1e-10)


@pytest.mark.parametrize("delta", [0.5, 1e-3, 1e-8])
def test_zolotarev_approximates_the_sign_within_its_tolerance(delta):
    a, b = projector.zolotarev_sign(delta)
    x = np.concatenate([np.geomspace(delta, 1.0, 20001), np.linspace(delta, 1.0, 20001)])
    z = x * (a / (x[:, None] ** 2 + b**2)).sum(axis=1)
    assert np.abs(z - 1.0).max() <= 1.5 * projector.FILTER_TOL
    bigger = projector.zolotarev_sign(delta, tol=1e-6)[0].size
    assert bigger < a.size  # fewer terms for a looser tolerance


def test_sc_of_the_complementary_modulus_matches_scipy_where_scipy_is_accurate():
    k, parts = 0.3, 10
    index = np.arange(1, parts)
    sn, cn, _, _ = ellipj(index * ellipkm1(k**2) / parts, 1 - k**2)
    assert_allclose(projector._sc_complementary(index, parts, k), sn / cn, rtol=1e-12)


def test_moebius_sends_the_two_intervals_to_symmetric_ones():
    lo, below, above, hi = 0.5, 2.0, 2.001, 1e12
    p, q, s, delta = projector.moebius(lo, below, above, hi)
    image = [(p * x + q) / (x + s) for x in (lo, below, above, hi)]
    assert_allclose(image, [-1.0, -delta, delta, 1.0], rtol=1e-9)
    assert not lo <= -s <= hi  # no pole on the spectrum


def _wide(seed=3, n=30, d=240, c=3):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(c), n // c)
    informative = 3.0 * rng.normal(size=(c, d)) * (rng.random(d) < 0.1)
    return informative[y] + rng.normal(size=(n, d))


def test_sogfs_routes_agree_while_the_dense_route_is_accurate():
    # Early iterations (no row's weight has diverged yet) are well conditioned, so the
    # dense eigh and the projector solve the same steps: same objectives and scores.
    X = _wide()
    dense = sogfs.select(X, n_clusters=3, max_iter=4, eig_solver="dense")
    fast = sogfs.select(X, n_clusters=3, max_iter=4, eig_solver="projector")
    assert_allclose(fast.history, dense.history, rtol=1e-10)
    assert_allclose(fast.scores, dense.scores, rtol=0, atol=1e-10)
    assert_array_equal(fast.ranking[:50], dense.ranking[:50])
    assert_permutation(fast.ranking, X.shape[1])


def test_sogfs_auto_takes_the_projector_only_where_features_outnumber_samples_fourfold():
    wide = _wide()  # 30 x 240: 4 n <= d
    auto = sogfs.select(wide, n_clusters=3, max_iter=3)
    fast = sogfs.select(wide, n_clusters=3, max_iter=3, eig_solver="projector")
    assert_array_equal(auto.history, fast.history)
    assert_array_equal(auto.ranking, fast.ranking)
    # 4 n > d: the Schur route, i.e. the dense eigh bit for bit while no row is switched off
    narrow = _wide(d=100)
    auto = sogfs.select(narrow, n_clusters=3, max_iter=3)
    dense = sogfs.select(narrow, n_clusters=3, max_iter=3, eig_solver="dense")
    assert_array_equal(auto.history, dense.history)
    assert_array_equal(auto.scores, dense.scores)


def test_sogfs_projector_is_deterministic_and_needs_a_positive_gamma():
    X = _wide()
    first = sogfs.select(X, n_clusters=3, max_iter=3, eig_solver="projector")
    again = sogfs.select(X, n_clusters=3, max_iter=3, eig_solver="projector")
    assert_array_equal(first.scores, again.scores)
    with pytest.raises(ValueError, match="eig_solver='projector' needs gamma > 0"):
        sogfs.select(X, n_clusters=3, gamma=0.0, eig_solver="projector")
    auto_zero = sogfs.select(X, n_clusters=3, gamma=0.0, max_iter=2)  # auto: dense
    assert_permutation(auto_zero.ranking, X.shape[1])


def test_sogfs_projector_objective_never_increases_with_lambda_fixed():
    # Block minimisation of one fixed objective (lambda and alpha fixed), through the
    # iterations where rows are switched off (weights of 1e12): J never increases.
    X = _wide()
    sel = sogfs.select(
        X, n_clusters=3, max_iter=15, lambda_update="fixed", eig_solver="projector", gamma=10.0
    )
    assert np.all(np.diff(sel.history) <= 1e-9 * np.abs(sel.history[:-1]))
