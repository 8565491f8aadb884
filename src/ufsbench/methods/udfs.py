"""UDFS: l2,1-norm regularised discriminative feature selection.

Y. Yang, H. T. Shen, Z. Ma, Z. Huang, X. Zhou. l2,1-Norm Regularized Discriminative
Feature Selection for Unsupervised Learning. IJCAI 2011.

With ``X`` of shape (n, d) (one row per sample; the paper's ``X`` is its transpose),
UDFS solves

    min_{W^T W = I}  tr(W^T M W) + gamma ||W||_{2,1},    M = X^T L~ X   (d x d),

where ``W`` is (d, c), ``c = n_clusters``, and ``L~`` is the local discriminative
matrix ``L~ = sum_i S_i H (X~_i X~_i^T + lam I)^-1 H S_i^T`` (n x n). The local set of
sample ``i`` is ``x_i`` and its ``k`` nearest neighbours; ``S_i`` (n x (k+1)) selects it,
``H`` is the (k+1) centring matrix and ``X~_i = H X_i`` is the centred (k+1, d) local
block, so the matrix inverted is the (k+1) x (k+1) Gram of that block. ``L~`` is
assembled as a sparse matrix from the ``n`` small blocks.

Solver (iteratively reweighted least squares): starting from ``D = I``, repeat

    W <- the c eigenvectors of M + gamma D with the smallest eigenvalues,
    D <- diag(1 / (2 ||w_j|| + eps)),

until ``max_iter`` iterations or a relative objective change below ``tol``.
Features are scored by the row norms ``||w_j||``.

Eigenvectors: with ``d`` features and ``n < d`` samples (gene and face data), ``M`` has
rank at most ``n``. Then ``M = B B^T`` with ``B = X^T R`` (d, r), ``R R^T = L~``; the
Woodbury identity applies the inverse of ``gamma D + B B^T`` in ``O(d r)``, and block
subspace iteration on it replaces the ``O(d^3)`` dense eigendecomposition; ``M`` is never
formed. Where the ``c`` smallest eigenvalues are distinct, both routes compute the same
subspace, so the same scores (``||w_j||`` depends only on the subspace); ``eig_solver``
picks the route. Rows the weights switch off (``D_jj`` up to ``1e12``) make a dense
``eigh`` of ``M + gamma D`` exact only to ``eps`` times that norm; the ``"schur"`` route
(``auto``'s where the low-rank one does not apply, since 2026-11-29) eliminates them first
(:mod:`._graded_eigen`).

Monotonicity: ``W`` is the exact minimiser over the Stiefel manifold of the quadratic
surrogate ``tr(W^T (M + gamma D) W)``, and ``w^2 / (2r + eps)`` majorises (up to a
constant) ``f(w) = w - (eps/2) log(1 + 2w/eps)``, so ``tr(W^T M W) + gamma sum_j f(||w_j||)``
never increases. ``f`` differs from ``||w||`` by less than ``eps log(1/eps)``
(about 3e-11 for ``eps = 1e-12``), so the recorded objective with the plain l2,1 norm
is non-increasing to rounding. The first entry follows the start ``D = I``.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.neighbors import NearestNeighbors

from ._eigen import eigh_range
from ._graded_eigen import bottom_eigenvectors
from ._low_rank import eig_route, psd_factor, smallest_eigenvectors_lowrank
from .base import Selection, l21_weights, row_norms
from .params import ITERATIONS, NEIGHBOURS, NON_NEGATIVE, POSITIVE, Declaration, Param

# Bytes of local blocks (n_chunk, k+1, d) held at once while assembling L~.
_BLOCK_BYTES = 64 * 2**20


def select(
    X,
    *,
    graph=None,
    n_clusters,
    random_state=0,
    feature_counts=None,
    gamma=0.1,
    lam=1e3,
    k=5,
    max_iter=20,
    tol=1e-4,
    eig_solver="auto",
) -> Selection:
    """Rank features by the row norms of the UDFS projection matrix.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated float64 data.
    graph : Ignored
        UDFS builds its own local neighbourhoods from ``X``.
    n_clusters : int
        Number of columns ``c`` of the projection ``W``; at most ``n_features``.
    random_state : int, default=0
        Ignored: UDFS is deterministic.
    feature_counts : Ignored
    gamma : float, default=0.1
        Weight of the l2,1 penalty (>= 0).
    lam : float, default=1e3
        Ridge ``lambda`` of the local Gram matrices (> 0).
    k : int, default=5
        Number of neighbours in each local set (the set has ``k + 1`` samples).
    max_iter : int, default=20
        Maximum number of reweighting iterations.
    tol : float, default=1e-4
        Stop when ``|J_prev - J| <= tol * |J_prev|``; 0 runs ``max_iter`` iterations.
    eig_solver : {"auto", "schur", "dense", "lowrank"}, default="auto"
        How the smallest eigenvectors of ``M + gamma D`` are computed: ``"schur"``, a
        dense eigendecomposition after eliminating the rows whose weight ``D`` has
        switched off (:mod:`._graded_eigen`); ``"dense"``, the full ``d x d``
        eigendecomposition, exact only to ``eps`` times those weights (``1e12``);
        ``"lowrank"``, subspace iteration on the Woodbury inverse of ``gamma D + B B^T``
        (needs ``gamma > 0``); ``"auto"``, low-rank when ``4 n_samples <= n_features`` and
        ``gamma > 0``, else ``"schur"``. ``"schur"`` is ``"dense"`` bit for bit until a row
        is switched off; see the Notes for ``n_samples < n_features``.

    Returns
    -------
    Selection
        ``scores`` are ``||w_j||``; ``history`` is ``tr(W^T M W) + gamma ||W||_{2,1}``
        after each iteration.

    Raises
    ------
    ValueError
        If ``k >= n_samples`` or ``n_clusters > n_features``.

    Notes
    -----
    When ``n_samples < n_features``, ``M`` has rank below ``d`` and the first step
    (``D = I``) is degenerate: every ``c`` orthonormal vectors in the null space of ``M``
    minimise ``tr(W^T (M + gamma I) W)``. The problem does not say which, so the ranking
    follows the basis the eigensolver returns (LAPACK's for ``"dense"``, the fixed start
    block's for ``"lowrank"``), and the two routes rank differently there.
    """
    n, d = X.shape
    if k >= n:
        raise ValueError(f"method 'udfs': k={k} must be < n_samples={n}")
    if n_clusters > d:
        raise ValueError(f"method 'udfs': n_clusters={n_clusters} must be <= n_features={d}")
    eig_solver = eig_route("udfs", eig_solver, n, d, gamma)

    neighbours = local_sets(X, k)
    L_local = local_discriminative_laplacian(X, neighbours, lam)
    if eig_solver == "lowrank":
        B = X.T @ psd_factor(L_local)  # (d, r), M = B B^T

        def quadratic(W):
            return np.sum((B.T @ W) ** 2)

        def smallest(weights):
            return smallest_eigenvectors_lowrank(weights, B, n_clusters)
    else:
        M = X.T @ (L_local @ X)  # (d, d)
        M = 0.5 * (M + M.T)  # symmetric to rounding, as eigh assumes

        def quadratic(W):
            return np.einsum("ij,ij->", W, M @ W)

        def smallest(weights):
            if eig_solver == "schur":  # switched-off rows eliminated first
                return bottom_eigenvectors(M, weights, n_clusters)
            return eigh_range(M + np.diag(weights), 0, n_clusters - 1)[1]

    D = np.ones(d)  # start from D = I: W is unknown
    history = []
    for _ in range(max_iter):
        W = smallest(gamma * D)
        norms = row_norms(W)
        objective = quadratic(W) + gamma * norms.sum()
        history.append(objective)
        D = l21_weights(W)
        if len(history) > 1 and abs(history[-2] - objective) <= tol * abs(history[-2]):
            break
    return Selection.from_scores(norms, history=history)


def local_sets(X, k) -> np.ndarray:
    """(n, k+1) sample indices: each sample first, then its ``k`` nearest other samples."""
    _, neighbours = NearestNeighbors(n_neighbors=k).fit(X).kneighbors()
    return np.hstack([np.arange(X.shape[0])[:, None], neighbours])


def local_discriminative_laplacian(X, neighbours, lam) -> sp.csr_matrix:
    """Sparse ``L~ = sum_i S_i H (X~_i X~_i^T + lam I)^-1 H S_i^T`` of shape (n, n).

    ``neighbours`` is (n, k+1); row ``i`` lists the local set of sample ``i``.
    """
    n, size = neighbours.shape
    H = np.eye(size) - 1.0 / size
    ridge = lam * np.eye(size)
    # Blocks are processed in chunks so the (chunk, k+1, d) copies stay small.
    chunk = max(1, _BLOCK_BYTES // (8 * size * X.shape[1]))
    blocks = np.empty((n, size, size))
    for start in range(0, n, chunk):
        local = X[neighbours[start : start + chunk]]  # (chunk, k+1, d)
        local -= local.mean(axis=1, keepdims=True)  # H X_i
        gram = local @ local.transpose(0, 2, 1)  # (chunk, k+1, k+1)
        blocks[start : start + chunk] = H @ np.linalg.solve(gram + ridge, H)
    rows = np.repeat(neighbours, size, axis=1).ravel()  # neighbours[i, a] for every b
    cols = np.tile(neighbours, (1, size)).ravel()  # neighbours[i, b] for every a
    # COO sums the entries of overlapping local sets, which is the sum over i.
    return sp.coo_matrix((blocks.ravel(), (rows, cols)), shape=(n, n)).tocsr()


METHODS = {
    "udfs": Declaration(
        title="UDFS",
        params={
            "gamma": NON_NEGATIVE,
            "lam": POSITIVE,
            "k": NEIGHBOURS,
            "max_iter": ITERATIONS,
            "tol": NON_NEGATIVE,
            "eig_solver": Param(str, options=("auto", "schur", "dense", "lowrank")),
        },
        grid={
            "gamma": [0.1],
            "lam": [1000.0],
        },
        needs_n_clusters=True,
        iterative=True,
        references=(
            (
                "Y. Yang, H. T. Shen, Z. Ma, Z. Huang, X. Zhou. l2,1-Norm Regularized "
                "Discriminative Feature Selection for Unsupervised Learning. IJCAI 2011."
            ),
        ),
    ),
}
