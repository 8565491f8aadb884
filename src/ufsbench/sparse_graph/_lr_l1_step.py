"""One proximal-gradient step of the LR-l1 problem on sparse codes, fused row by row.

The step (row layout, ``Y`` the FISTA extrapolation point, ``G = X X^T``)::

    grad = 2 (Y G - G) + 2 gamma_l2 L_A Y
    Z    = soft(Y - step * grad, step * lam),   Z_ii = 0

The iterates keep ~1-2 % of their entries, but the plain numpy form makes about ten dense
n x n temporaries per step (the gradient, ``U``, ``sign``, ``abs``, ...) and these cost more
than the products. The fused kernel computes one gradient row in a length-n buffer (the
``Y G`` row is a combination of ``nnz(Y_i)`` rows of ``G``; the ``L_A Y`` row one of
``nnz(L_A,i)`` sparse rows of ``Y``), thresholds it, and appends the survivors to the CSR
output: memory traffic of one pass over ``G`` per non-zero, no dense temporaries. It is
compiled with numba; without numba :func:`prox_step_dense` (same arithmetic up to the
order of the sums) runs instead.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

try:  # numba is optional (extra "fast"); without it the numpy step runs
    import numba
except ImportError:  # pragma: no cover - exercised on installs without numba
    numba = None

HAVE_NUMBA = numba is not None


def _fused_rows(y_ptr, y_idx, y_val, l_ptr, l_idx, l_val, G, step, thresh, gamma, cap):
    """CSR arrays of ``soft(Y - step grad, thresh)`` with a zero diagonal.

    Returns ``(ptr, idx, val, ok)``; ``ok`` is False when more than ``cap`` entries survive
    (the caller retries with a larger ``cap``).
    """
    n = G.shape[0]
    g = np.empty(n)
    ptr = np.zeros(n + 1, dtype=np.int64)
    idx = np.empty(cap, dtype=np.int64)
    val = np.empty(cap)
    nnz = 0
    for i in range(n):
        for j in range(n):
            g[j] = 0.0
        for p in range(y_ptr[i], y_ptr[i + 1]):  # (Y G)_i
            a = y_val[p]
            r = y_idx[p]
            for j in range(n):
                g[j] += a * G[r, j]
        for j in range(n):
            g[j] -= G[i, j]
        for q in range(l_ptr[i], l_ptr[i + 1]):  # gamma (L_A Y)_i
            w = gamma * l_val[q]
            k = l_idx[q]
            for p in range(y_ptr[k], y_ptr[k + 1]):
                g[y_idx[p]] += w * y_val[p]
        for j in range(n):  # U_i = Y_i - step * 2 g
            g[j] = -2.0 * step * g[j]
        for p in range(y_ptr[i], y_ptr[i + 1]):
            g[y_idx[p]] += y_val[p]
        g[i] = 0.0
        for j in range(n):
            u = g[j]
            if u > thresh:
                u -= thresh
            elif u < -thresh:
                u += thresh
            else:
                continue
            if nnz == cap:
                return ptr, idx, val, False
            idx[nnz] = j
            val[nnz] = u
            nnz += 1
        ptr[i + 1] = nnz
    return ptr, idx[:nnz], val[:nnz], True


_fused_rows_jit = numba.njit(cache=True, nogil=True)(_fused_rows) if HAVE_NUMBA else None


def prox_step_dense(Y, G, L_A, step, lam, gamma_l2) -> np.ndarray:
    """The step with numpy/scipy products and dense temporaries; ``Y`` dense or sparse.

    The reference of the fused kernel, the fallback without numba, and the step once the
    iterate has filled in (BLAS then beats the row-by-row kernel).
    """
    if sp.issparse(Y):
        YG, LY, Y = Y @ G, (L_A @ Y).toarray(), Y.toarray()
    else:
        YG, LY = Y @ G, L_A @ Y
    U = Y - step * (2.0 * (YG - G) + 2.0 * gamma_l2 * LY)
    Z = np.sign(U) * np.maximum(np.abs(U) - step * lam, 0.0)
    np.fill_diagonal(Z, 0.0)
    return Z


def prox_step_sparse(Y, G, L_A, step, lam, gamma_l2) -> sp.csr_matrix:
    """The step on sparse codes ``Y`` as CSR: fused row by row (numba), else dense."""
    if not HAVE_NUMBA:
        return sp.csr_matrix(prox_step_dense(sp.csr_matrix(Y), G, L_A, step, lam, gamma_l2))
    Y = sp.csr_matrix(Y, dtype=np.float64)
    L_A = sp.csr_matrix(L_A, dtype=np.float64)
    n = G.shape[0]
    G = np.ascontiguousarray(G, dtype=np.float64)
    cap = max(2 * Y.nnz, 16 * n)
    while True:
        ptr, idx, val, ok = _fused_rows_jit(
            Y.indptr.astype(np.int64), Y.indices.astype(np.int64), Y.data,
            L_A.indptr.astype(np.int64), L_A.indices.astype(np.int64), L_A.data,
            G, float(step), float(step * lam), float(gamma_l2), int(cap),
        )  # fmt: skip
        if ok:
            return sp.csr_matrix((val, idx, ptr), shape=(n, n))
        cap = min(2 * cap, n * n)
