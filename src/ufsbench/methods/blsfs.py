"""BLSFS: bi-level spectral feature selection (classification level + feature level).

Z. Hu, J. Wang, K. Zhang, W. Pedrycz, N. R. Pal. Bi-Level Spectral Feature Selection.
IEEE TNNLS 36(4):6597-6611, 2025, as summarised by the BLUFS paper, eqs.
(4)-(7). No public code was found; the joint model and its solver are the spec's
[inferred] reading (``shared/specs/blufs.md`` §4.10).

1. Classification level, once: discrete pseudo-labels ``Y`` (n, c) one-hot, from
   Ng-Jordan-Weiss spectral clustering of the fixed ``k``-NN heat graph ``S`` (width: mean
   pairwise distance): the ``c`` leading eigenvectors of ``D^-1/2 S D^-1/2``, rows
   normalised, k-means with 10 restarts.
2. Feature level, jointly with the regression (sklearn layout, ``Z = X W``):

       min_{W, b, P}  ||X W + 1 b^T - Y||^2 + beta sum_ij (||z_i - z_j||^2 P_ij + alpha P_ij^2)
                      + gamma sum_i sqrt(||w_i||^2 + eps)
       s.t.  P >= 0,  P^T 1 = 1,  P_jj = 0,  column j of P non-zero on at most p_support rows.

   ``sum_ij ||z_i - z_j||^2 P_ij = 2 Tr(Z^T L_P Z)``, ``L_P`` the Laplacian of
   ``(P + P^T) / 2``; ``eps`` smooths the l2,1 norm at 0.
3. Updates, each exact for its block, so ``history`` (the objective after each sweep)
   never increases:

   * ``b = mean(Y - X W)``: the fit becomes ``||Xc W - Yc||^2`` with centred ``Xc``, ``Yc``;
   * ``W = (Xc^T Xc + 2 beta Xc^T L_P Xc + gamma D)^-1 Xc^T Y`` with
     ``D = diag(1 / (2 sqrt(||w_i||^2 + eps)))`` of the previous ``W`` (``D = I`` at the
     start): the minimiser of the objective with the l2,1 term replaced by its tangent
     majoriser (the spec's ``1 / (2 ||w_i|| + eps)`` up to the smoothing). Cholesky of the
     d x d system when ``d <= n``; otherwise the push-through identity
     ``A^-1 Xc^T = D^-1 Xc^T (gamma I + M Xc D^-1 Xc^T)^-1``, ``M = I + 2 beta L_P``;
   * ``P``: per column ``j``, the simplex projection of ``-V_:j / (2 alpha)`` over the
     ``p_support`` nearest samples in the projected space (the CAN rule), which is the
     exact minimiser with at most ``p_support`` non-zeros; ``P^0`` is the column-normalised
     ``S``.

   Stops after ``max_iter`` sweeps (30) or a relative change below ``tol`` (1e-4).
4. Features are ranked by ``||w_i||``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg import cho_factor, cho_solve, lu_factor, lu_solve
from sklearn.cluster import KMeans

from ..graph import knn_graph, spectral_eigenpairs
from . import _blufs_steps as steps
from .base import Selection, row_norms
from .params import ITERATIONS, NEIGHBOURS, NON_NEGATIVE, POSITIVE, Declaration, Param, decades


def select(
    X,
    *,
    graph=None,
    n_clusters,
    random_state=0,
    feature_counts=None,
    alpha=1.0,
    beta=1.0,
    gamma=1.0,
    k=10,
    p_support=10,
    eps=1e-10,
    max_iter=30,
    tol=1e-4,
) -> Selection:
    """Rank features by the row norms of the BLSFS regression matrix.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated float64 data (the raw data, spec §4).
    graph : Ignored
        BLSFS builds its own ``k``-NN heat graph (spec §4: k = 10, mean width).
    n_clusters : int
        Number of pseudo-classes ``c``.
    random_state : int, default=0
        Seed of the eigensolver start and of the k-means of the classification level.
    feature_counts : Ignored
        The l2,1 ranking serves every count.
    alpha : float, default=1.0
        Weight of ``||P||^2`` inside the graph term (> 0).
    beta : float, default=1.0
        Weight of the feature level (graph term).
    gamma : float, default=1.0
        Weight of the l2,1 penalty (> 0).
    k : int, default=10
        Neighbours of the fixed graph ``S``.
    p_support : int or None, default=10
        Most non-zeros per column of ``P`` (CAN rule); None: no limit.
    eps : float, default=1e-10
        Smoothing of the l2,1 norm.
    max_iter : int, default=30
    tol : float, default=1e-4

    Returns
    -------
    Selection
        ``scores`` = ``||w_i||``; ``history`` the objective after each sweep.

    Notes
    -----
    Raises ``ValueError`` when ``k`` or ``p_support`` is not below ``n_samples`` or when
    ``n_clusters`` leaves no room for the spectral embedding.
    """
    n, d = X.shape
    for name, value in (("k", k), ("p_support", p_support)):
        if value is not None and not value < n:
            raise ValueError(f"method 'blsfs': {name}={value} must be < n_samples={n}")
    S = knn_graph(X, k, weight="heat", t=1.0, sigma0="mean")
    Y = pseudo_labels(S, n_clusters, random_state)
    Xc = X - X.mean(axis=0)
    Yc = Y - Y.mean(axis=0)
    col = np.asarray(S.sum(axis=0)).ravel()
    P = (S @ sp.diags(1.0 / np.where(col > 0, col, 1.0))).tocsc()
    system = _WSolver(Xc, Y, gamma=gamma)
    D = np.ones(d)
    history = []
    for _ in range(max_iter):
        L = steps.laplacian_of(P)
        W = system.solve(L, 2.0 * beta, D)
        Z = Xc @ W
        # column objective V^T p + alpha ||p||^2 = (b/2) V^T p + mu ||p||^2, b = 2, mu = alpha
        P = steps.p_step(Z, P, beta=2.0, mu=alpha, tau1=0.0, n_support=p_support, rule="distance")
        sq = np.einsum("ij,ij->i", W, W) + eps
        fit = Z - Yc
        graph_term = 2.0 * steps.graph_trace(steps.laplacian_of(P), Z)
        history.append(
            float(np.einsum("ij,ij->", fit, fit))
            + beta * (graph_term + alpha * float(P.multiply(P).sum()))
            + gamma * float(np.sqrt(sq).sum())
        )
        D = 0.5 / np.sqrt(sq)
        if len(history) > 1 and abs(history[-2] - history[-1]) < tol * max(abs(history[-2]), 1.0):
            break
    return Selection.from_scores(row_norms(W), history=history)


def pseudo_labels(S, n_clusters, random_state) -> np.ndarray:
    """One-hot NJW spectral clustering labels (n, c) of the affinity ``S``."""
    _, V = spectral_eigenpairs(S, n_clusters, random_state)
    norms = row_norms(V)
    V = V / np.where(norms > 0, norms, 1.0)[:, None]
    labels = KMeans(n_clusters, n_init=10, random_state=random_state).fit_predict(V)
    return np.eye(n_clusters)[labels]


class _WSolver:
    """``W = (Xc^T (I + t L) Xc + gamma D)^-1 Xc^T Y`` for changing ``L``, ``t``, ``D``."""

    def __init__(self, Xc, Y, *, gamma):
        self.Xc, self.Y, self.gamma = Xc, Y, gamma
        n, d = Xc.shape
        self.primal = d <= n
        self.gram = Xc.T @ Xc if self.primal else None  # (d, d), fixed
        self.R = Xc.T @ Y

    def solve(self, L, t, D):
        Xc = self.Xc
        if self.primal:
            A = self.gram + self.gamma * np.diag(D)
            if t:
                A += t * (Xc.T @ (L @ Xc))
            return cho_solve(cho_factor(A), self.R)
        # push-through (d > n): A^-1 Xc^T Y = D^-1 Xc^T (gamma I + M K)^-1 Y, K = Xc D^-1 Xc^T
        XD = Xc / D  # (n, d) = Xc D^-1
        K = XD @ Xc.T
        MK = K + t * (L @ K) if t else K.copy()
        MK[np.diag_indices_from(MK)] += self.gamma
        return XD.T @ lu_solve(lu_factor(MK), self.Y)


METHODS = {
    "blsfs": Declaration(
        title="BLSFS",
        params={
            "alpha": POSITIVE,
            "beta": NON_NEGATIVE,
            "gamma": POSITIVE,
            "k": NEIGHBOURS,
            "p_support": Param(int, low=1, allow_none=True),
            "eps": POSITIVE,
            "max_iter": ITERATIONS,
            "tol": NON_NEGATIVE,
        },
        grid={
            "alpha": decades(-4, 3),
            "beta": decades(-4, 3),
            "gamma": decades(-4, 3),
        },
        needs_n_clusters=True,
        iterative=True,
        references=(
            (
                "Z. Hu, J. Wang, K. Zhang, W. Pedrycz, N. R. Pal. Bi-Level Spectral Feature "
                "Selection. IEEE TNNLS 36(4):6597-6611, 2025."
            ),
            "Compared in: J. Liu, X. Ju, X. Xiu, W. Liu. Bi-Level Unsupervised FS (BLUFS).",
            "Model and solver [inferred]: shared/specs/blufs.md, section 4.10.",
        ),
    ),
}
