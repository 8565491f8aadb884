"""NDFS: unsupervised feature selection by nonnegative spectral analysis.

Z. Li, Y. Yang, J. Liu, X. Zhou, H. Lu. Unsupervised Feature Selection Using
Nonnegative Spectral Analysis. AAAI 2012.

With ``X`` of shape (n, d) (one row per sample; the paper's ``X`` is its transpose),
``W`` (d, c), cluster indicators ``F`` (n, c), ``c = n_clusters``, and the normalised
Laplacian ``L = I - D^-1/2 S D^-1/2`` of the given graph ``S``, NDFS solves

    min_{F >= 0, W}  tr(F^T L F) + alpha (||X W - F||_F^2 + beta ||W||_{2,1})
                     + (gamma / 2) ||F^T F - I||_F^2,

the orthogonality constraint ``F^T F = I`` being relaxed to the penalty. With
``A = X^T X + beta D_W`` and ``D_W = diag(1 / (2 ||w_j|| + eps))``, each iteration is

    F <- F o (gamma F) / (M F + gamma F F^T F),   M = L + alpha (I - X A^-1 X^T),
    W <- A^-1 X^T F,
    D_W <- diag(1 / (2 ||w_j|| + eps)),

``o`` and ``/`` element-wise, then the columns of ``F`` are scaled to unit norm;
features are scored by ``||w_j||``. ``M`` is never formed: ``M F = L F + alpha (F - X W_F)``
with ``W_F = A^-1 X^T F`` and ``L`` sparse. When ``d > n`` the solve uses the kernel form
``A^-1 X^T = D_W^-1 X^T (X D_W^-1 X^T + beta I)^-1``, so every factorisation is
``min(n, d)``-sized.

Start: k-means (10 restarts, seeded) on the ``c`` leading eigenvectors of
``D^-1/2 S D^-1/2``, rows normalised (see :func:`ufsbench.graph.spectral_eigenpairs`);
``F0`` = one-hot labels + 0.2, columns scaled to unit norm; ``W`` and ``D_W`` come from one
W-step on ``F0`` with ``D_W = I``.

Notes
-----
* Penalty: the F-rule is the paper's KKT fixed point of the ``(gamma / 2)`` penalty, the
  one recorded (lsdcl.md §4 quotes ``gamma / 4`` from the authors' framework; the same
  rule would then descend ``tr(F^T M F) / 2 + (gamma / 4) ||.||^2``, not that objective).
* Order: the framework's (W-step, reweight, F-step, column normalisation), each
  iteration closed by the W-step so the recorded ``(F, W)`` and the final ``W`` match
  the final ``F``. Without the normalisation the rule maps a scale ``s`` of ``F`` to
  ``1 / s`` and oscillates. Entries whose denominator is non-positive (``M F`` has
  negative entries), where the rule is undefined, are left unchanged.
* Monotonicity: the W-step and the reweighting provably do not increase the objective;
  the F-step and the normalisation are not proven descent steps. With a large ``gamma``
  (default 1e8) an F-step moves ``F`` by a relative ``O(||M|| / gamma)`` and the recorded
  objective was non-increasing in every run we tried; with ``gamma`` near 1 it can rise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from sklearn.cluster import KMeans

from ..graph import laplacian, spectral_eigenpairs
from .base import EPSILON, Selection, l21_weights, row_norms
from .params import ITERATIONS, NON_NEGATIVE, POSITIVE, WIDTH, Declaration


@dataclass(frozen=True)
class NDFSResult:
    F: np.ndarray  # (n, c)
    W: np.ndarray  # (d, c)
    history: np.ndarray  # (n_iter,)


def select(
    X,
    *,
    graph,
    n_clusters,
    random_state=0,
    feature_counts=None,
    alpha=1.0,
    beta=1.0,
    gamma=1e8,
    max_iter=100,
    tol=0.0,
) -> Selection:
    """Rank features by the row norms of the NDFS regression matrix.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated float64 data.
    graph : sparse matrix of shape (n_samples, n_samples)
        Symmetric sample affinity (a heat-kernel k-NN graph in the papers).
    n_clusters : int
        Number of clusters ``c``: columns of ``F`` and ``W``.
    random_state : int, default=0
        Seed of the eigensolver start and of k-means in the initialisation.
    feature_counts : Ignored
    alpha : float, default=1.0
        Weight of the regression term (> 0).
    beta : float, default=1.0
        Weight of the l2,1 penalty inside the regression term (> 0).
    gamma : float, default=1e8
        Weight of the orthogonality penalty ``(gamma / 2) ||F^T F - I||^2`` (> 0).
    max_iter : int, default=100
        Maximum number of iterations.
    tol : float, default=0.0
        Stop when ``|J_prev - J| <= tol * |J_prev|``; 0 runs ``max_iter`` iterations.

    Returns
    -------
    Selection
        ``scores`` are ``||w_j||``; ``history`` is the penalised objective after
        each iteration.
    """
    L = laplacian(graph, normed=True)
    F0 = initial_indicators(graph, L, n_clusters, random_state)
    result = iterate(X, L, F0, alpha=alpha, beta=beta, gamma=gamma, max_iter=max_iter, tol=tol)
    return Selection.from_scores(row_norms(result.W), history=result.history)


def initial_indicators(graph, L, n_clusters, random_state) -> np.ndarray:
    """One-hot k-means labels of the spectral embedding, plus 0.2: ``F0`` (n, c)."""
    _, embedding = spectral_eigenpairs(graph, n_clusters, random_state)
    norms = row_norms(embedding)
    embedding /= np.where(norms > 0, norms, 1.0)[:, None]
    labels = KMeans(n_clusters, n_init=10, random_state=random_state).fit_predict(embedding)
    return np.eye(n_clusters)[labels] + 0.2


def iterate(X, L, F, *, alpha, beta, gamma, max_iter, tol) -> NDFSResult:
    """Alternate the F-step, W-step and reweighting from ``F`` (n, c); see the module notes."""
    n, d = X.shape
    kernel = d > n
    # X^T X (or X X^T) is fixed; only its diagonal shift by beta D_W changes.
    gram = X @ X.T if kernel else X.T @ X

    def factor(D):  # Cholesky of the min(n, d)-sized system of A = X^T X + beta D
        if kernel:
            return cho_factor((X / D) @ X.T + beta * np.eye(n))
        return cho_factor(gram + np.diag(beta * D))

    def solve_W(factors, D, F):  # A^-1 X^T F, (d, c)
        if kernel:
            return (X.T @ cho_solve(factors, F)) / D[:, None]
        return cho_solve(factors, X.T @ F)

    F = _unit_columns(F)
    D = np.ones(d)
    W = solve_W(factor(D), D, F)
    D = l21_weights(W)
    LF = L @ F  # stale whenever F changes
    history = []
    for _ in range(max_iter):
        factors = factor(D)  # A changes with D
        # F-step with M F = L F + alpha (F - X A^-1 X^T F): M (n x n) is never formed.
        MF = LF + alpha * (F - X @ solve_W(factors, D, F))
        FtF = F.T @ F
        denominator = MF + gamma * (F @ FtF)
        # The rule is undefined where M F < 0 outweighs gamma F F^T F: keep those entries.
        undefined = denominator <= EPSILON
        denominator[undefined] = 1.0
        ratio = gamma * F / denominator
        ratio[undefined] = 1.0
        F = _unit_columns(F * ratio)
        LF = L @ F

        W = solve_W(factors, D, F)  # the exact W-step for the new F, same D
        residual = X @ W - F
        FtF = F.T @ F
        np.fill_diagonal(FtF, FtF.diagonal() - 1.0)
        objective = (
            np.einsum("ij,ij->", F, LF)
            + alpha * (np.einsum("ij,ij->", residual, residual) + beta * row_norms(W).sum())
            + 0.5 * gamma * np.einsum("ij,ij->", FtF, FtF)
        )
        history.append(objective)
        D = l21_weights(W)
        if tol > 0 and len(history) > 1 and abs(history[-2] - objective) <= tol * history[-2]:
            break
    return NDFSResult(F=F, W=W, history=np.asarray(history))


def _unit_columns(F):
    norms = np.sqrt(np.einsum("ij,ij->j", F, F))
    return F / np.where(norms > 0, norms, 1.0)


METHODS = {
    "ndfs": Declaration(
        title="NDFS",
        params={
            "alpha": POSITIVE,
            "beta": POSITIVE,
            "gamma": POSITIVE,
            "t": WIDTH,
            "max_iter": ITERATIONS,
            "tol": NON_NEGATIVE,
        },
        grid={
            "alpha": [1.0],
            "beta": [1.0],
        },
        graph="heat",
        needs_n_clusters=True,
        iterative=True,
        references=(
            (
                "Z. Li, Y. Yang, J. Liu, X. Zhou, H. Lu. Unsupervised Feature Selection Using "
                "Nonnegative Spectral Analysis. AAAI 2012."
            ),
        ),
    ),
}
