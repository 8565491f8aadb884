"""Block updates of BLUFS (W, P, Y), shared by BLUFS and its degenerated Cases I-III.

Layout: samples are rows. ``Xn`` (n, d) is the feature-normalised data, ``W`` (d, c),
``Z = Xn W`` (n, c) the projected samples, ``Y`` (n, c) the pseudo-labels, ``P`` (n, n)
the sparse column-stochastic adaptive graph, ``Sh`` the sparse normalised fixed graph.
``L_P = diag(Pb 1) - Pb`` with ``Pb = (P + P^T) / 2``. With ``beta`` the *effective* graph
weight, the graph term is ``beta Tr(Z^T L_P Z) = (beta / 2) sum_ij P_ij ||z_i - z_j||^2``
and the W-subproblem is ``g(W) = Tr(W^T A W) - 2 Tr(W^T R)`` with
``A = Xn^T (I + beta L_P) Xn + lam I`` (``lam`` includes the proximal ``tau2``).
``A`` is formed (and Cholesky-factorised) only when ``d <= n``; otherwise every product
goes through ``Z`` and the sparse ``L_P``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve, lu_factor, lu_solve
from scipy.sparse.linalg import LinearOperator, eigsh

from .base import row_norms

# Columns of the distance matrix V processed at once by the P step: memory O(n * block).
P_BLOCK = 256


def _fro(M) -> float:
    """Frobenius norm (``np.linalg.norm`` goes through BLAS ``dot``, slow on small arrays)."""
    return float(np.sqrt(np.einsum("ij,ij->", M, M)))


def row_support(W, s) -> np.ndarray:
    """Support of ``H_s(W)``: the ``s`` largest row norms, best first, ties by lower index."""
    norms = row_norms(W)
    return np.lexsort((np.arange(len(norms)), -norms))[:s]


def simplex_columns(A) -> np.ndarray:
    """Euclidean projection of every column of ``A`` (m, q) onto ``{p >= 0, sum(p) = 1}``."""
    m = A.shape[0]
    U = -np.sort(-A, axis=0)
    css = np.cumsum(U, axis=0) - 1.0
    active = U - css / np.arange(1, m + 1)[:, None] > 0  # row 0 is always active
    r = m - np.argmax(active[::-1], axis=0)  # number of active entries per column
    theta = css[r - 1, np.arange(A.shape[1])] / r
    return np.maximum(A - theta, 0.0)


def laplacian_of(P):
    """Sparse ``L_P = diag(Pb 1) - Pb`` of the symmetrised ``Pb = (P + P^T) / 2``."""
    Pb = ((P + P.T) * 0.5).tocsr()
    return (sp.diags(np.asarray(Pb.sum(axis=1)).ravel()) - Pb).tocsr()


def graph_trace(L, Z) -> float:
    """``Tr(Z^T L Z)``, which equals ``(1/2) sum_ij P_ij ||z_i - z_j||^2`` for ``L = L_P``."""
    return float(np.einsum("ij,ij->", Z, L @ Z))


def p_step(Z, P_prev, *, beta, mu, tau1, n_support, rule):
    """Columns of ``P^{k+1}``; column ``j`` minimises over the simplex with ``p_j = 0``

        (beta / 2) sum_i V_ij p_i + mu ||p||^2 + tau1 ||p - P^k_{:j}||^2,   V_ij = ||z_i - z_j||^2,

    i.e. ``(mu + tau1) ||p - b||^2`` with ``b = (tau1 P^k_{:j} - beta V_{:j} / 4) / (mu + tau1)``,
    over at most ``n_support`` entries (None: all). Which entries:

    * ``"distance"``: the ``n_support`` smallest ``V_ij`` (paper (25), spec §2.7b);
    * ``"objective"``: the ``n_support`` largest ``b_i``, the exact minimiser under that
      sparsity (the best support of a sparse simplex projection);
    * ``"guarded"``: the ``"distance"`` column where it does not raise the column's part of
      ``f``, ``(beta / 2) V^T p + mu ||p||^2``, above that of ``P^k_{:j}``; else ``"objective"``.
    """
    n = Z.shape[0]
    kk = n - 1 if n_support is None else min(n_support, n - 1)
    sq = np.einsum("ij,ij->i", Z, Z)
    P_prev = P_prev.tocsc()
    rows, cols, vals = [], [], []
    for start in range(0, n, P_BLOCK):
        idx = np.arange(start, min(start + P_BLOCK, n))
        diag = (idx, np.arange(len(idx)))
        V = np.maximum(sq[:, None] + sq[idx] - 2.0 * (Z @ Z[idx].T), 0.0)  # (n, q)
        V[diag] = 0.0
        old = P_prev[:, idx].toarray()
        b = (tau1 * old - (beta / 4.0) * V) / (mu + tau1)

        top, val = _top_columns(-V if rule != "objective" else b.copy(), b, diag, kk)
        if rule == "guarded":
            f_new = (beta / 2.0) * np.sum(np.take_along_axis(V, top, 0) * val, 0) + mu * np.sum(
                val**2, 0
            )
            f_old = (beta / 2.0) * np.sum(V * old, 0) + mu * np.sum(old**2, 0)
            worse = f_new > f_old
            if worse.any():
                top_o, val_o = _top_columns(b.copy(), b, diag, kk)
                top[:, worse], val[:, worse] = top_o[:, worse], val_o[:, worse]
        vals.append(val.ravel())
        rows.append(top.ravel())
        cols.append(np.broadcast_to(idx, top.shape).ravel())
    P = sp.csc_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)
    )
    P.eliminate_zeros()
    return P


def _top_columns(key, b, diag, kk):
    """Per column, the ``kk`` entries of largest ``key`` (diagonal excluded) and the simplex
    projection of ``b`` over them: (rows (kk, q), values (kk, q))."""
    key[diag] = -np.inf  # p_j = 0
    # Partitioned along rows of the transpose: the same introselect on the same sequence
    # per column (so the same indices), 1.6x cheaper than striding down axis 0.
    top = np.argpartition(-key.T, kk - 1, axis=1)[:, :kk].T
    return top, simplex_columns(np.take_along_axis(b, top, axis=0))


class WOperator:
    """``A = Xn^T (I + beta L_P) Xn + lam I`` of one graph ``L_P``, factorised once.

    ``A`` depends on the graph and the weights but not on ``Y`` or ``W^k``: one operator
    serves every W-subproblem with that graph (every sweep while P is frozen or unused,
    every budget's first sweep from ``P^0``), with the same arithmetic as a fresh one.
    ``lam`` includes the proximal ``tau2``.
    """

    def __init__(self, Xn, gram, L, *, beta, lam, tau2):
        self.Xn, self.L, self.beta, self.lam, self.tau2 = Xn, L, beta, lam, tau2
        n, d = Xn.shape
        self.A = self._cho = self._lu = None
        if d <= n or tau2:  # A formed (d, d), then Cholesky; gram = Xn^T Xn when d <= n
            A = (gram if d <= n else Xn.T @ Xn) + lam * np.eye(d)
            if L is not None and beta:
                A += beta * (Xn.T @ (L @ Xn))
            self.A, self._cho = A, cho_factor(A)
        else:  # push-through, tau2 = 0: A^-1 Xn^T Y = Xn^T (lam I + M G)^-1 Y, G = Xn Xn^T
            MG = gram + beta * (L @ gram) if L is not None and beta else gram.copy()
            MG[np.diag_indices(n)] += lam
            self._lu = lu_factor(MG)

    def minimiser(self, Y, R):
        """``A^-1 R`` for ``R = Xn^T Y + tau2 W^k`` (the push-through route reads ``Y``)."""
        if self._cho is not None:
            return cho_solve(self._cho, R)
        return self.Xn.T @ lu_solve(self._lu, Y)

    def m_times(self, U):  # (I + beta L_P) U for U (n, q)
        return U + self.beta * (self.L @ U) if self.L is not None and self.beta else U

    def a_times(self, W):
        return self.Xn.T @ self.m_times(self.Xn @ W) + self.lam * W

    def block(self, support) -> np.ndarray:
        """``A[support, support]`` (from ``A`` if formed, else through ``Xn[:, support]``)."""
        if self.A is not None:
            return self.A[np.ix_(support, support)]
        Xs = self.Xn[:, support]
        return Xs.T @ self.m_times(Xs) + self.lam * np.eye(len(support))


class WSystem:
    """The W-subproblem of one sweep: ``A`` (a :class:`WOperator`) and
    ``R = Xn^T Y + tau2 W^k`` (see module doc)."""

    def __init__(self, operator, *, Y, W_prev):
        self.op = operator
        self.R = operator.Xn.T @ Y + operator.tau2 * W_prev  # (d, c)
        self.W_hat = operator.minimiser(Y, self.R)

    def a_times(self, W):
        return self.op.a_times(W)

    def value(self, W) -> float:
        """``g(W) = Tr(W^T A W) - 2 Tr(W^T R)``, via ``Z = Xn W`` (``A`` never needed)."""
        Z = self.op.Xn @ W
        quad = np.einsum("ij,ij->", Z, self.op.m_times(Z)) + self.op.lam * np.einsum(
            "ij,ij->", W, W
        )
        return float(quad - 2.0 * np.einsum("ij,ij->", W, self.R))

    def refit(self, support):
        """Exact minimiser of ``g`` over ``W`` with rows outside ``support`` zero, and ``g``."""
        W = np.zeros_like(self.R)
        W[support] = cho_solve(cho_factor(self.op.block(support)), self.R[support])
        return W, float(-np.einsum("ij,ij->", W[support], self.R[support]))

    def palm_step(self, W, s, rng):
        """``H_s(W - (A W - R) / l)``, ``l = 1.01 lambda_max(A)`` by Lanczos from a seeded start."""
        d = W.shape[0]
        op = LinearOperator((d, d), matvec=lambda v: self.a_times(v.reshape(d, 1)).ravel())
        top = eigsh(op, k=1, which="LA", v0=rng.uniform(-1.0, 1.0, d), return_eigenvectors=False)
        step = W - (self.a_times(W) - self.R) / (1.01 * top[0])
        keep = row_support(step, s)
        out = np.zeros_like(W)
        out[keep] = step[keep]
        return out, keep


def y_loss(B, Sh, Y, Y_prev, alpha, tau3) -> float:
    """``l(Y) = ||B - Y||^2 - alpha Tr(Y^T Sh Y) + tau3 ||Y - Y^k||^2`` (paper (34))."""
    value = np.sum((B - Y) ** 2) + tau3 * np.sum((Y - Y_prev) ** 2)
    return float(value - alpha * np.einsum("ij,ij->", Y, Sh @ Y)) if alpha else float(value)


def polar(M) -> np.ndarray:
    """Orthonormal polar factor ``U V^T`` of ``M = U S V^T`` (n, c): ``M (M^T M)^-1/2``."""
    U, _, Vt = np.linalg.svd(M, full_matrices=False)
    return U @ Vt


def pencf(B, Sh, Y_prev, *, alpha, tau3, max_iter, tol):
    """PenCF (paper Algorithm 2 as run by the authors, spec §2.7c) from ``Y^k``.

    Stops when the KKT residual ``||grad - Y Lambda||`` falls below ``tol`` times the
    gradient norm at the start, when ``Y`` stops moving, or after ``max_iter - 1`` steps.
    Returns the orthonormalised ``Y`` and the number of steps.
    """
    c = Y_prev.shape[1]
    eye = np.eye(c)

    def parts(Y):
        G = -2.0 * (B - Y) + 2.0 * tau3 * (Y - Y_prev)
        if alpha:
            G -= 2.0 * alpha * (Sh @ Y)
        YtG = Y.T @ G
        Lam = 0.5 * (YtG + YtG.T)
        kkt = G - Y @ Lam
        return kkt, Lam, G

    Y = Y_prev.copy()
    kkt, Lam, G = parts(Y)
    scale = _fro(G)
    theta = min(max(0.5 * scale / c, 1e-10), 1e10)
    rho = 1.0001 * np.sqrt(c)
    D = kkt + theta * (Y @ (Y.T @ Y - eye))
    phi = _fro(Y.T @ Y - eye)
    xi, steps, Y_old, D_old = 1e-2, 0, None, None
    for t in range(1, max_iter):
        if Y_old is not None:
            dY, dD = Y - Y_old, D - D_old
            sy = abs(np.einsum("ij,ij->", dY, dD))
            num, den = (sy, np.sum(dD**2)) if t % 2 == 0 else (np.sum(dY**2), sy)
            if den > 0:
                xi = min(max(num / den, 0.0), 1000.0)
        Yt = Y - xi * D
        e = (_fro(xi * Lam) + 1.0) * phi
        if e > 0.5:
            Yt = 2.0 * np.linalg.solve(Yt.T @ Yt + eye, Yt.T).T
        elif e > 0.1:
            Yt = Yt @ (1.5 * eye - 0.5 * (Yt.T @ Yt))
        Yt *= min(1.0, rho / _fro(Yt))
        Y_old, D_old, Y = Y, D, Yt
        steps = t
        kkt, Lam, _ = parts(Y)
        YtY = Y.T @ Y - eye
        D = kkt + theta * (Y @ YtY)
        phi = _fro(YtY)
        res = _fro(kkt)
        if res < tol * scale or _fro(Y - Y_old) < 1e-15 or res > 1e12:
            break
    return polar(Y), steps


def gpi(B, Sh, Y_prev, *, alpha, tau3, max_iter, tol):
    """Generalised power iteration ``Y <- polar(2 alpha (Sh + I) Y + 2 C)``, ``C = B + tau3 Y^k``.

    Monotone for the Y-subproblem (``Sh + I`` is PSD); exact in one step when ``alpha = 0``
    (orthogonal Procrustes). Stops when ``||Y_new - Y|| <= tol * sqrt(c)``.
    """
    C = B + tau3 * Y_prev
    Y, step = Y_prev, 0
    while step < max_iter:
        step += 1
        M = C + alpha * (Sh @ Y + Y) if alpha else C
        Y_new = polar(M)
        moved = _fro(Y_new - Y)
        Y = Y_new
        if not alpha or moved <= tol * np.sqrt(Y.shape[1]):
            break
    return Y, step
