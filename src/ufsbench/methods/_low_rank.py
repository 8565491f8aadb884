"""Diagonal plus low rank: ``diag(e) + B B^T`` with ``B`` (d, r), ``r << d``, never formed.

With ``n << d`` (gene and face data) the (d, d) matrices of several solvers are a positive
diagonal plus a PSD matrix of rank at most ``n``: ``gamma D + X^T L X`` in the W-steps of
UDFS (``L~``) and ULAP (``L_S``), ``lambda2 Q + (mu / 2) X^T L X`` in L1UFS. With
``X^T L X = B B^T`` (``B = X^T R``, ``R R^T = L``) the Woodbury identity applies the inverse
in O(d r) per column, and block subspace iteration on it gives the smallest eigenvectors,
where a dense factorisation or ``eigh`` costs O(d^3). (The iteration only needs the inverse
roughly: Rayleigh-Ritz on ``A`` itself makes the pairs exact. L1UFS solves linear systems,
whose accuracy a Woodbury inverse loses when the diagonal is tiny; it works in the basis
of a thin QR instead, ``methods/l1ufs.py``.)
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve, eigh


def low_rank_pays(n: int, d: int) -> bool:
    """Whether the ``auto`` routes take the low-rank form: ``4 n <= d``.

    ``benchmarks/speed/bench_lowrank.py``, one thread: glioma (50 x 4434) UDFS 76x, ULAP 106x,
    L1UFS 43x, tox_171 (171 x 5748) L1UFS 11x faster; ORL (400 x 1024) L1UFS 1.2x.
    """
    return 4 * n <= d


def eig_route(method: str, eig_solver: str, n: int, d: int, gamma: float) -> str:
    """The W-step route of an IRLS eigen-solver (UDFS, ULAP): ``"schur"``, ``"dense"`` or
    ``"lowrank"``.

    ``"auto"`` is low rank when :func:`low_rank_pays` and ``gamma > 0``, which the Woodbury
    inverse needs (``"lowrank"`` with ``gamma = 0`` is an error), and otherwise
    ``"schur"``: the dense ``eigh`` with the rows that the l2,1 weights have switched off
    eliminated first (:mod:`._graded_eigen`), where ``"dense"`` takes the ``eigh`` of the
    whole matrix, exact only to ``eps`` times weights of ``1e12``.
    """
    if eig_solver == "auto":
        return "lowrank" if low_rank_pays(n, d) and gamma > 0 else "schur"
    if eig_solver == "lowrank" and not gamma > 0:
        raise ValueError(f"method {method!r}: eig_solver='lowrank' needs gamma > 0")
    return eig_solver


def psd_factor(L) -> np.ndarray:
    """``R`` (n, r) with ``R R^T = L`` for a symmetric PSD ``L`` (rank ``r``)."""
    values, vectors = np.linalg.eigh(L.toarray() if sp.issparse(L) else L)
    keep = values > 1e-12 * max(values.max(), 0.0)
    return vectors[:, keep] * np.sqrt(values[keep])


def woodbury_inverse(e, B):
    """``V -> (diag(e) + B B^T)^-1 V`` for ``e > 0`` and ``B`` (d, r), by Woodbury:

        (E + B B^T)^-1 = E^-1 - E^-1 B (I + B^T E^-1 B)^-1 B^T E^-1,

    one Cholesky factorisation of the (r, r) core, which is >= I and so always definite;
    each application to ``V`` (d, k) costs O(d r k).
    """
    scaled = B / e[:, None]  # E^-1 B
    core = cho_factor(np.eye(B.shape[1]) + B.T @ scaled)

    def apply(V):
        return V / e[:, None] - scaled @ cho_solve(core, scaled.T @ V)

    return apply


def smallest_eigenvectors_lowrank(e, B, c, *, tol=1e-9, max_iter=1000, patience=5) -> np.ndarray:
    """The ``c`` eigenvectors of ``A = diag(e) + B B^T`` (``e > 0``) with the smallest eigenvalues.

    Block subspace iteration on ``A^-1 = E^-1 - E^-1 B (I + B^T E^-1 B)^-1 B^T E^-1``
    (Woodbury: each product costs ``O(d r)`` per column). ``p = 2c + 10`` columns from a
    fixed start are re-orthonormalised by QR every step; Rayleigh-Ritz on ``A`` gives the
    ``c`` smallest pairs. The iteration stops when every Ritz residual
    ``||A v - theta v||`` is below ``tol`` times the largest of the ``c`` Ritz values, or
    when the largest residual has not decreased for ``patience`` steps (it stalls at the
    rounding floor, above ``tol``, when ``e`` spans many orders of magnitude), or after
    ``max_iter`` steps. A repeated smallest eigenvalue (``D = I`` and ``r < d``: the null
    space of ``B^T``) needs no special case: any basis of it is returned.
    """
    d, r = B.shape
    inverse = woodbury_inverse(e, B)
    p = min(d, 2 * c + 10)
    Q = np.linalg.qr(np.random.default_rng(0).standard_normal((d, p)))[0]  # fixed start
    best, stalled = np.inf, 0
    for _ in range(max_iter):
        Q = np.linalg.qr(inverse(Q))[0]
        AQ = e[:, None] * Q + B @ (B.T @ Q)
        theta, U = eigh(Q.T @ AQ)  # ascending Ritz values
        V, AV = Q @ U[:, :c], AQ @ U[:, :c]
        residual = np.linalg.norm(AV - V * theta[:c], axis=0).max()
        best, stalled = (residual, 0) if residual < best else (best, stalled + 1)
        if residual <= tol * theta[c - 1] or stalled >= patience:
            break
    return V
