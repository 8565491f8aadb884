"""The Schur route of the l2,1 W-steps (SOGFS, ULAP, UDFS): ``methods/_graded_eigen.py``.

The reference for switched-off rows is the projector route (``_spectral_projector``), an
independent algorithm whose diagonal keeps relative accuracy (``test_sogfs_projector.py``);
the cases are built so that the full dense ``eigh`` visibly fails them.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_permutation
from numpy.testing import assert_allclose, assert_array_equal
from scipy.linalg import eigh

from ufsbench.methods import _graded_eigen, sogfs, udfs, ulap
from ufsbench.methods._spectral_projector import bottom_projection


def _problem(d=240, r=20, n=30, seed=0):
    """``(M, e, U, X)``: ``M = U U^T`` (d, d) of rank ``r`` and a positive diagonal."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    U = X.T @ (0.3 * rng.standard_normal((n, r)))
    e = np.exp(rng.uniform(-1.0, 3.0, d))
    return U @ U.T, e, U, X


def _squared_norms(W):
    return (W**2).sum(axis=1)


def test_without_switched_off_rows_it_is_the_dense_eigh_bit_for_bit():
    M, e, _, _ = _problem()
    assert e.max() < _graded_eigen.SWITCH_OFF_RATIO * np.abs(M).sum(axis=1).max()
    _, dense = eigh(M + np.diag(e), subset_by_index=[0, 79])
    assert_array_equal(_graded_eigen.bottom_eigenvectors(M, e, 80), dense)


@pytest.mark.parametrize("switched_off", [1e12, 3e9])
def test_switched_off_rows_are_eliminated_accurately(switched_off):
    M, e, U, X = _problem(d=300, r=29, n=30)
    e[::3] = switched_off  # weights of rows W dropped: far above M's scale (~1e2)
    m = 100
    reference = bottom_projection(e, U, X, m).squared_row_norms
    found = _squared_norms(_graded_eigen.bottom_eigenvectors(M, e, m))
    _, dense = eigh(M + np.diag(e), subset_by_index=[0, m - 1])
    live, dead = e < switched_off, e == switched_off
    # the kept rows to 1e-10 absolutely, the dropped ones (norms ~1e-20) relatively
    assert np.abs(found - reference)[live].max() < 1e-10
    assert_allclose(found[dead], reference[dead], rtol=1e-6)
    assert found[dead].max() < 1e-12
    # the case is one the full eigh gets wrong (so the checks above can fail)
    dense_error = np.abs(_squared_norms(dense) - reference)
    assert dense_error[live].max() > 1e-8 or dense_error[dead].max() > 1e-6 * reference[dead].max()


def test_rows_between_the_spectrum_and_the_switched_off_ones_stay_in_the_eigh():
    # Weights on every scale up to 1e12 (mid-trajectory): the threshold splits them; the
    # result still matches the reference and W stays orthonormal.
    M, e, U, X = _problem(d=200, r=19, n=20, seed=4)
    e = np.geomspace(1e-1, 1e12, e.size)[np.random.default_rng(1).permutation(e.size)]
    m = 60
    W = _graded_eigen.bottom_eigenvectors(M, e, m)
    assert_allclose(W.T @ W, np.eye(m), atol=1e-12)
    reference = bottom_projection(e, U, X, m).squared_row_norms
    assert np.abs(_squared_norms(W) - reference).max() < 1e-9
    big = reference > 1e-6
    assert_allclose(_squared_norms(W)[~big], reference[~big], rtol=1e-8)  # needs the 1/e^2 term


def test_zero_diagonal_and_zero_matrix_take_the_plain_eigh():
    M, e, _, _ = _problem(d=30, r=5, n=6)
    _, dense = eigh(M, subset_by_index=[0, 9])
    assert_array_equal(_graded_eigen.bottom_eigenvectors(M, np.zeros(30), 10), dense)
    W = _graded_eigen.bottom_eigenvectors(np.zeros((30, 30)), np.zeros(30), 10)
    assert_allclose(W.T @ W, np.eye(10), atol=1e-12)


def _blobs(seed=2, n=60, d=24, c=3):
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(c), n // c)
    informative = 3.0 * rng.normal(size=(c, d)) * (np.arange(d) < 6)
    return informative[y] + rng.normal(size=(n, d))


def test_sogfs_auto_takes_the_schur_route_where_samples_are_many():
    X = _blobs()  # 4 n > d
    auto = sogfs.select(X, n_clusters=3, gamma=10.0, max_iter=12)
    schur = sogfs.select(X, n_clusters=3, gamma=10.0, max_iter=12, eig_solver="schur")
    dense = sogfs.select(X, n_clusters=3, gamma=10.0, max_iter=12, eig_solver="dense")
    assert_array_equal(auto.scores, schur.scores)
    assert_permutation(schur.ranking, X.shape[1])
    # the two routes solve the same steps until rows switch off
    assert_allclose(schur.history[:3], dense.history[:3], rtol=1e-10)
    # at a small gamma (W not yet a selection of m rows) the planted features lead
    planted = sogfs.select(X, n_clusters=3, gamma=0.1, max_iter=12, eig_solver="schur")
    assert set(planted.ranking[:6]) == set(range(6))


def test_sogfs_schur_objective_never_increases_through_switched_off_rows():
    X = _blobs()
    sel = sogfs.select(
        X, n_clusters=3, gamma=10.0, max_iter=25, lambda_update="fixed", eig_solver="schur"
    )
    assert np.sort(sel.scores)[0] < 1e-6  # rows were switched off along the way
    assert np.all(np.diff(sel.history) <= 1e-9 * np.abs(sel.history[:-1]))


def test_ulap_auto_takes_the_schur_route_and_keeps_the_other_routes():
    X = _blobs()
    auto = ulap.select(X, n_clusters=3, gamma=10.0, max_iter=10)
    schur = ulap.select(X, n_clusters=3, gamma=10.0, max_iter=10, eig_solver="schur")
    assert_array_equal(auto.scores, schur.scores)
    dense = ulap.select(X, n_clusters=3, gamma=10.0, max_iter=10, eig_solver="dense")
    assert_permutation(dense.ranking, X.shape[1])


def test_udfs_auto_takes_the_schur_route_and_its_objective_never_increases():
    X = _blobs()
    auto = udfs.select(X, n_clusters=3, gamma=10.0, tol=0.0)
    schur = udfs.select(X, n_clusters=3, gamma=10.0, tol=0.0, eig_solver="schur")
    dense = udfs.select(X, n_clusters=3, gamma=10.0, tol=0.0, eig_solver="dense")
    assert_array_equal(auto.scores, schur.scores)
    assert np.sort(schur.scores)[0] < 1e-9  # rows were switched off along the way
    assert_allclose(schur.history[:2], dense.history[:2], rtol=1e-12)
    # IRLS majorisation: non-increasing up to the eps of the weights (udfs module notes)
    assert np.all(np.diff(schur.history) <= 1e-9 * np.abs(schur.history[:-1]))
    with pytest.raises(ValueError, match="needs gamma > 0"):
        udfs.select(X, n_clusters=3, gamma=0.0, eig_solver="lowrank")
