"""Bottom eigenvectors of ``M + diag(e)`` when some ``e_j`` are huge, to their accuracy.

The l2,1 W-steps (SOGFS, ULAP, UDFS) take the ``m`` eigenvectors of ``A = X^T L X + gamma Q``
with the smallest eigenvalues, ``Q = diag(1 / (2 ||w_j|| + eps))``. A row that the previous
``W`` dropped gets the weight ``1e12``: a dense ``eigh`` of ``A``, whose norm is then
``gamma 1e12``, is exact only to ``eps gamma 1e12`` absolutely, which the eigengap turns
into errors in the rows that matter (``benchmarks/speed/bench_sogfs_projector.py``: up to
0.74 in ``||w_j||^2`` on GLIOMA, 0.13 on JAFFE). Those rows are eliminated instead.

Split the rows into ``O`` (switched off: ``e_j > K u``, ``u = ||M||_inf + e_(m)``, an
upper bound of the wanted eigenvalues and of ``M``'s scale, ``e_(m)`` the m-th smallest
``e``) and the rest ``A``. For an eigenpair ``(lambda, v)`` with ``lambda <= u``,
``v_O = -(D_O + M_OO - lambda)^-1 M_OA v_A`` exactly, and ``v_A`` is an eigenvector of the
Schur complement ``M_AA + D_A - M_AO (D_O + M_OO - lambda)^-1 M_OA``. Expanding in
``1 / D_O``:

* ``v_A``: the bottom eigenvectors of ``S = M_AA + D_A - M_AO D_O^-1 M_OA`` (error
  ``O(u / K^2)`` in ``S``), by a dense ``eigh`` of entries at most ``K u`` (rounding
  ``eps K u``). ``K = eps^(-1/3)`` balances the two, about ``4e-11 u`` each, against
  ``eps gamma 1e12`` for the ``eigh`` of ``A``.
* ``v_O = -D_O^-1 T + D_O^-1 (M_OO - lambda) D_O^-1 T``, ``T = M_OA v_A``: the tiny norms
  of the switched-off rows to relative accuracy ``O(1 / K^2)``, as the next weights need.

Then every column is normalised. With no row above ``K u`` (the first W-step, and any
trajectory whose weights stay moderate) this is the dense ``eigh`` of ``A``, bit for bit.
"""

from __future__ import annotations

import numpy as np

from ._eigen import eigh_range

# Weights above this multiple of the spectrum's scale are eliminated (module notes).
SWITCH_OFF_RATIO = np.finfo(np.float64).eps ** (-1.0 / 3.0)


def bottom_eigenvectors(M, e, m) -> np.ndarray:
    """``W`` (d, m): orthonormal eigenvectors of ``M + diag(e)`` for its ``m`` smallest
    eigenvalues, with the switched-off rows of ``e`` eliminated (module notes).

    Parameters
    ----------
    M : ndarray of shape (d, d)
        Symmetric positive semi-definite.
    e : ndarray of shape (d,)
        Non-negative diagonal.
    m : int
        Number of eigenvectors, ``1 <= m <= d``.
    """
    scale = np.abs(M).sum(axis=1).max() + np.partition(e, m - 1)[m - 1]
    off = e > SWITCH_OFF_RATIO * scale
    if not scale > 0 or not off.any():
        return eigh_range(M + np.diag(e), 0, m - 1)[1]
    kept = ~off
    inverse = 1.0 / e[off]
    coupling = M[np.ix_(off, kept)]  # M_OA
    S = M[np.ix_(kept, kept)] + np.diag(e[kept]) - coupling.T @ (inverse[:, None] * coupling)
    values, V_kept = eigh_range(0.5 * (S + S.T), 0, m - 1)
    first = inverse[:, None] * (coupling @ V_kept)  # D_O^-1 T
    second = inverse[:, None] * (M[np.ix_(off, off)] @ first - first * values)
    W = np.empty((len(e), m))
    W[kept] = V_kept
    W[off] = second - first
    return W / np.linalg.norm(W, axis=0)
