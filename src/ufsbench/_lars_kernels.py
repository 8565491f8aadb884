"""Compiled LARS-lasso path of :mod:`ufsbench.lars` (numba; imported only when used).

The algorithm, its tolerances and its tie rules are stated in :mod:`ufsbench.lars`; this
module holds the loop. Importing it imports numba (about 0.3 CPU s), hence the lazy import.
"""

from __future__ import annotations

import numba
import numpy as np

# A joining column whose Cholesky pivot^2 is at most this fraction of its squared norm
# lies (to rounding) in the span of the active columns: it is excluded from the path.
DEGENERATE = 1e-10
# The path ends when the largest correlation per sample falls to float32 eps (as
# scikit-learn's lars_path does at alpha_min = 0).
EPS32 = float(np.finfo(np.float32).eps)


@numba.njit(cache=True, nogil=True)
def _forward(L, k, b, out):  # pragma: no cover - compiled
    """Solve ``L[:k, :k] out = b`` (lower triangular)."""
    for i in range(k):
        s = b[i]
        for t in range(i):
            s -= L[i, t] * out[t]
        out[i] = s / L[i, i]


@numba.njit(cache=True, nogil=True)
def _backward(L, k, b, out):  # pragma: no cover - compiled
    """Solve ``L[:k, :k]' out = b``."""
    for i in range(k - 1, -1, -1):
        s = b[i]
        for t in range(i + 1, k):
            s -= L[t, i] * out[t]
        out[i] = s / L[i, i]


@numba.njit(cache=True, nogil=True)
def _cholesky_delete(L, k, i):  # pragma: no cover - compiled
    """Remove row and column ``i`` from the ``k x k`` factor ``L`` of ``L L'`` in place.

    Deleting row ``i`` of ``L`` leaves a lower Hessenberg ``(k-1) x k`` matrix whose
    product with its transpose is the reduced Gram matrix; Givens rotations of columns
    ``r, r+1`` (an orthogonal factor on the right, so the product is unchanged) zero its
    superdiagonal.
    """
    for r in range(i, k - 1):
        for c in range(k):
            L[r, c] = L[r + 1, c]
    for r in range(i, k - 1):
        a = L[r, r]
        b = L[r, r + 1]
        h = np.hypot(a, b)
        cs = a / h
        sn = b / h
        for t in range(r, k - 1):
            x = L[t, r]
            y = L[t, r + 1]
            L[t, r] = cs * x + sn * y
            L[t, r + 1] = cs * y - sn * x
        L[r, r + 1] = 0.0
    for c in range(k):
        L[k - 1, c] = 0.0
        L[c, k - 1] = 0.0


@numba.njit(cache=True, nogil=True)
def lasso_path(G, xty, target, n_samples):  # pragma: no cover - compiled
    """Coefficient rows ``(n_steps + 1, d)`` of the LARS-lasso path (see :mod:`ufsbench.lars`)."""
    d = G.shape[0]
    # X'X has rank at most n_samples: no more columns can be active (the pivot test
    # excludes the rest), which bounds the factor's size when d is large.
    kmax = min(target, d, n_samples)
    coef = np.zeros(d)
    c = xty.copy()
    active = np.empty(kmax, dtype=np.int64)
    sign = np.empty(kmax)
    state = np.zeros(d, dtype=np.int8)  # 0 inactive, 1 active, 2 excluded, 3 just dropped
    L = np.zeros((kmax, kmax))
    w = np.empty(kmax)
    z = np.empty(kmax)
    col = np.empty(kmax)
    zs = np.empty(kmax)
    u = np.empty(d)
    rows = np.zeros((min(2 * kmax + 2, 256), d))
    n_rows = 1
    k = 0
    dropped = False
    C_prev = np.inf
    while k < target:
        # The common absolute correlation of the active set: the largest |c_j| outside
        # the excluded columns (inactive ones are at most that, to rounding).
        C = 0.0
        for j in range(d):
            if state[j] != 2 and abs(c[j]) > C:
                C = abs(c[j])
        if C / n_samples <= EPS32 or C > C_prev:
            break
        if not dropped:
            if k == kmax:
                break
            # The inactive column of largest |c_j| (first index among exact ties) joins;
            # a degenerate one is excluded and no column joins at this step.
            j_in = -1
            best = -1.0
            for j in range(d):
                if state[j] == 0 and abs(c[j]) > best:
                    best = abs(c[j])
                    j_in = j
            if j_in < 0:
                break
            for t in range(k):
                col[t] = G[active[t], j_in]
            _forward(L, k, col, z)
            piv = G[j_in, j_in]
            for t in range(k):
                piv -= z[t] * z[t]
            if G[j_in, j_in] <= 0.0 or piv <= DEGENERATE * G[j_in, j_in]:
                state[j_in] = 2
                if k == 0:
                    continue
            else:
                for t in range(k):
                    L[k, t] = z[t]
                L[k, k] = np.sqrt(piv)
                active[k] = j_in
                sign[k] = 1.0 if c[j_in] > 0 else -1.0
                state[j_in] = 1
                k += 1
        dropped = False
        # Equiangular direction: w = a (G_AA)^-1 s, a = (s' G_AA^-1 s)^-1/2.
        _forward(L, k, sign, z)
        _backward(L, k, z, w)
        ssum = 0.0
        for t in range(k):
            ssum += sign[t] * w[t]
        if not ssum > 0.0:
            break
        a = 1.0 / np.sqrt(ssum)
        for t in range(k):
            w[t] *= a
        u[:] = 0.0
        for t in range(k):
            g = G[active[t]]
            wt = w[t]
            for j in range(d):
                u[j] += wt * g[j]
        # Step: the first inactive column to reach the active correlation, at most C / a.
        gamma = C / a
        for j in range(d):
            if state[j] == 1 or state[j] == 2:
                continue
            # A column dropped at the last step sits at its own sign's root (gamma = 0
            # to rounding): only the root of the opposite sign is a crossing.
            just = state[j] == 3
            if not (just and c[j] > 0.0):
                den = a - u[j]
                if den > 0.0:
                    g1 = (C - c[j]) / den
                    if 0.0 < g1 < gamma:
                        gamma = g1
            if not (just and c[j] < 0.0):
                den = a + u[j]
                if den > 0.0:
                    g2 = (C + c[j]) / den
                    if 0.0 < g2 < gamma:
                        gamma = g2
            if just:
                state[j] = 0
        # Lasso modification: an active coefficient reaching zero first ends the step there.
        zmin = gamma
        for t in range(k):
            zs[t] = np.inf
            if w[t] != 0.0:
                zs[t] = -coef[active[t]] / w[t]
                if 0.0 < zs[t] < zmin:
                    zmin = zs[t]
        drop = zmin < gamma
        gamma = zmin
        for t in range(k):
            coef[active[t]] += gamma * w[t]
        for j in range(d):
            c[j] -= gamma * u[j]
        C_prev = C
        if drop:
            # Every coefficient whose zero crossing is the step (exact ties drop together).
            t = 0
            n_drop = 0
            while t < k + n_drop:
                if zs[t] == zmin:
                    coef[active[t - n_drop]] = 0.0
                    state[active[t - n_drop]] = 3
                    _cholesky_delete(L, k, t - n_drop)
                    for s in range(t - n_drop, k - 1):
                        active[s] = active[s + 1]
                        sign[s] = sign[s + 1]
                    k -= 1
                    n_drop += 1
                t += 1
            # The dropped columns' correlations, recomputed from the coefficients.
            for j in range(d):
                if state[j] == 3:
                    cj = xty[j]
                    for s in range(k):
                        cj -= G[j, active[s]] * coef[active[s]]
                    c[j] = cj
            dropped = True
        if n_rows == rows.shape[0]:
            grown = np.zeros((2 * n_rows, d))
            grown[:n_rows] = rows
            rows = grown
        rows[n_rows] = coef
        n_rows += 1
        if k == d:
            break
    return rows[:n_rows].copy()
