"""RNE: robust neighbourhood embedding for unsupervised feature selection.

Y. Liu, D. Ye, W. Li, H. Wang, Y. Gao. Robust Neighborhood Embedding for Unsupervised
Feature Selection. Knowledge-Based Systems 193, 2020 (IJCAI 2018 short version). Spec:
``shared/specs/blufs.md`` §4.6, from the first author's ``RNE_obj.m``.

1. LLE weights ``M`` (n, n, sparse): row ``i`` holds the weights that reconstruct sample
   ``x_i`` from its ``k`` nearest neighbours, ``min ||x_i - sum_j M_ij x_j||^2`` with
   ``sum_j M_ij = 1``; the local Gram is regularised by ``reg * trace`` (the spec's
   inferred rule; the authors' code adds it only when ``k`` exceeds ``n_features``).
2. ``A = (I - M) X`` (n, d), ``reconstruction="rows"``: row ``i`` is the LLE residual
   ``x_i - sum_j M_ij x_j`` of sample ``i``, the quantity RNE's L1 loss is about.
   ``"transpose"`` is the spec's printed ``(I - M^T) X``, which is what the authors' code
   computes: it stores sample ``i``'s weights in row ``i`` of ``M``, as here, and then
   forms ``(eye(n) - M') * X``, whose row ``i`` is ``x_i - sum_j M_ji x_j`` (``x_i`` minus
   the samples it helps reconstruct, with weights that need not sum to 1). In the d x n
   layout the residuals are ``X^T (I - M^T)``; the code keeps that factor while using
   n x d data, where the residuals are ``(I - M) X``. The mathematics wins, hence the
   default; on a smooth 1-D manifold among noise columns the LLE residual finds the
   manifold features and the transposed form stays near chance (tests).
3. ``min_{H >= 0, H^T H = I} ||A H||_1`` with ``H`` (d, m), ``m = s`` (one run per feature
   count), by ADMM on ``E = A H`` with multiplier ``G`` (n, m) and penalty ``mu``:

   * inner (``inner_iter`` times): unit-norm columns of ``H``, then the multiplicative
     step of the H-Lagrangian ``(mu/2)||A H - E||^2 - <G, A H> + (a/4)||H^T H - I||^2``
     with ``Q+ = (|Q| + Q)/2``, ``Q- = (|Q| - Q)/2``::

         H <- H o sqrt((a H + mu (A^T E)+ + mu (A^T A)- H + (A^T G)+)
                      / (a H H^T H + mu (A^T E)- + mu (A^T A)+ H + (A^T G)- + eps))

   * outer (``max_iter`` times): ``E = soft(A H - G / mu, 1 / mu)``,
     ``G <- G + mu (E - A H)``, ``mu <- min(rho mu, 1e10)``.

   ``H^0`` uniform in [0, 1) from ``random_state``; ``E^0 = A H^0``, ``G^0 = 0``.
4. Features are ranked by ``||h_i||^2``.

``history`` holds ``||A H||_1`` after each outer iteration. It is **not** guaranteed to
decrease: the penalty grows, the inner steps renormalise ``H`` and the multiplicative
rule is not a descent method for the penalised Lagrangian. What holds: ``H >= 0``
throughout, and the ADMM residual ``||E - A H||`` shrinks as ``mu`` grows.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from ..graph import nearest_neighbours
from .base import EPSILON, Selection, row_norms
from .params import COMPONENTS, ITERATIONS, NEIGHBOURS, NON_NEGATIVE, POSITIVE, Declaration, Param

MU_MAX = 1e10
# Samples whose local Gram matrices are formed at once: memory block * k * d floats.
BLOCK = 256


def select(
    X,
    *,
    graph=None,
    n_clusters=None,
    random_state=0,
    feature_counts=None,
    k=10,
    reg=1e-3,
    ortho_weight=1e3,
    mu0=10.0,
    rho=1.1,
    max_iter=50,
    inner_iter=30,
    reconstruction="rows",
    n_components=None,
    scale="none",
) -> Selection:
    """Select features by the L1 neighbourhood-reconstruction error of ``X H``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    graph : Ignored
        RNE finds its own ``k`` nearest neighbours.
    n_clusters : Ignored
    random_state : int, default=0
        Seed of ``H^0``.
    feature_counts : list of int, default=None
        One run per count ``s`` with ``m = s`` columns. None: one run with
        ``m = n_components`` or, if that is None, ``max(1, n_features // 4)``.
    k : int, default=10
        Neighbours of each sample in the LLE step.
    reg : float, default=1e-3
        Regularisation of the local Gram matrix, relative to its trace (>= 0). 0 is the
        authors' code when ``k <= n_features``; a singular local Gram then raises.
    ortho_weight : float, default=1e3
        Weight ``a`` of the orthogonality penalty.
    mu0, rho : float, default=10, 1.1
        Initial ADMM penalty and its growth factor per outer iteration.
    max_iter, inner_iter : int, default=50, 30
        Outer ADMM iterations and multiplicative H steps in each.
    reconstruction : {"rows", "transpose"}, default="rows"
        The LLE residual ``A = (I - M) X`` or the spec's and the authors' code's
        ``(I - M^T) X`` (see module docstring).
    n_components : int, default=None
        Fixed ``m`` for every count; None: ``m = s`` (spec).
    scale : {"none", "zscore"}, default="none"
        ``"zscore"`` standardises every feature before the LLE step [proposal]. The
        L1 residual of a feature grows with its spread, so on raw pixels RNE prefers
        flat, low-variance pixels (warpAR10P: near-chance clustering); the spec feeds
        every method the raw data, hence the default. Constant features stay 0.

    Returns
    -------
    Selection
        ``subsets[s]`` the ``s`` largest ``||h_i||`` of the run for ``s``; ``ranking`` /
        ``scores`` (``||h_i||^2``) and ``history`` (``||A H||_1`` per outer iteration)
        of the largest run.

    Notes
    -----
    Raises ``ValueError`` when ``k`` is not below ``n_samples`` or ``n_components``
    exceeds ``n_features``.
    """
    n, d = X.shape
    if not k < n:
        raise ValueError(f"method 'rne': k={k} must be < n_samples={n}")
    if n_components is not None and n_components > d:
        raise ValueError(f"method 'rne': n_components={n_components} must be <= n_features={d}")
    if scale == "zscore":
        sd = X.std(axis=0)
        X = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    M = lle_weights(X, k, reg)
    A = X - (M.T if reconstruction == "transpose" else M) @ X
    AtA = A.T @ A  # (d, d), formed once; its positive part is needed as a matrix
    AtA_pos = np.maximum(AtA, 0.0)
    counts = feature_counts or [n_components or max(1, d // 4)]
    settings = dict(a=ortho_weight, mu0=mu0, rho=rho, max_iter=max_iter, inner_iter=inner_iter)
    runs = {}
    for s in counts:
        m = n_components or s
        rng = np.random.default_rng(random_state)
        runs[s] = solve(A, AtA_pos, rng.uniform(size=(d, m)), **settings)
    H, history = runs[counts[-1]]
    scores = row_norms(H) ** 2
    subsets = None
    if feature_counts is not None:
        subsets = {s: _top(row_norms(runs[s][0]) ** 2, s) for s in counts}
    selection = Selection.from_scores(scores, history=history)
    return Selection(
        ranking=selection.ranking, scores=scores, history=selection.history,
        n_iter=selection.n_iter, subsets=subsets,
    )  # fmt: skip


def _top(scores, s):
    return np.argsort(-scores, kind="stable")[:s]


def lle_weights(X, k, reg) -> sp.csr_matrix:
    """Sparse (n, n) LLE weights: row ``i`` reconstructs ``x_i`` from its ``k`` neighbours."""
    n = X.shape[0]
    nbrs, _ = nearest_neighbours(X, k)
    weights = np.empty((n, k))
    ones = np.ones(k)
    for start in range(0, n, BLOCK):
        idx = np.arange(start, min(start + BLOCK, n))
        local = X[nbrs[idx]] - X[idx, None, :]  # (b, k, d)
        C = np.einsum("bkd,bld->bkl", local, local)
        trace = np.trace(C, axis1=1, axis2=2)
        shift = reg * np.where(trace > 0, trace, 1.0)
        C[:, np.arange(k), np.arange(k)] += shift[:, None]
        try:  # only reg = 0 can meet a singular C: C is PSD and the shift positive
            w = np.linalg.solve(C, np.broadcast_to(ones, (len(idx), k))[..., None])[..., 0]
        except np.linalg.LinAlgError:
            w = None
        sums = None if w is None else w.sum(axis=1, keepdims=True)
        if w is None or not (np.all(np.isfinite(w)) and np.all(sums != 0)):
            raise ValueError(
                f"method 'rne': a local Gram matrix of the LLE step is singular with "
                f"reg={reg} (duplicate or collinear neighbours); use reg > 0"
            )
        weights[idx] = w / sums
    rows = np.repeat(np.arange(n), k)
    return sp.csr_matrix((weights.ravel(), (rows, nbrs.ravel())), shape=(n, n))


def solve(A, AtA_pos, H, *, a, mu0, rho, max_iter, inner_iter):
    """ADMM of the module docstring from ``H^0``: (H, history of ||A H||_1)."""
    AH = A @ H
    E = AH.copy()
    G = np.zeros_like(E)
    mu = mu0
    history = []
    for _ in range(max_iter):
        AtE, AtG = A.T @ E, A.T @ G
        fixed_num = mu * np.maximum(AtE, 0.0) + np.maximum(AtG, 0.0)
        fixed_den = mu * np.maximum(-AtE, 0.0) + np.maximum(-AtG, 0.0) + EPSILON
        for _ in range(inner_iter):
            norms = np.sqrt(np.einsum("ij,ij->j", H, H))
            H = H / np.where(norms > 0, norms, 1.0)
            pos_H = AtA_pos @ H
            # (A^T A)- H = (A^T A)+ H - A^T A H >= 0, but the subtraction can round a
            # zero entry to -1e-20 and the square root below to NaN (binary data, zoo).
            neg_H = np.maximum(pos_H - A.T @ (A @ H), 0.0)
            num = a * H + mu * neg_H + fixed_num
            den = a * (H @ (H.T @ H)) + mu * pos_H + fixed_den
            H = H * np.sqrt(num / den)
        AH = A @ H
        E = np.sign(AH - G / mu) * np.maximum(np.abs(AH - G / mu) - 1.0 / mu, 0.0)
        G = G + mu * (E - AH)
        mu = min(mu * rho, MU_MAX)
        history.append(float(np.abs(AH).sum()))
    return H, np.asarray(history)


METHODS = {
    "rne": Declaration(
        title="RNE",
        params={
            "k": NEIGHBOURS,
            "reg": NON_NEGATIVE,
            "ortho_weight": POSITIVE,
            "mu0": POSITIVE,
            "rho": Param(float, low=1.0),
            "max_iter": ITERATIONS,
            "inner_iter": ITERATIONS,
            "reconstruction": Param(str, options=("rows", "transpose")),
            "n_components": COMPONENTS,
            "scale": Param(str, options=("none", "zscore")),
        },
        grid={
            "k": [10],
        },
        count_dependent=True,
        iterative=True,
        references=(
            (
                "Y. Liu, D. Ye, W. Li, H. Wang, Y. Gao. Robust Neighborhood Embedding for "
                "Unsupervised Feature Selection. Knowledge-Based Systems 193, 2020."
            ),
            "Compared in: J. Liu, X. Ju, X. Xiu, W. Liu. Bi-Level Unsupervised FS (BLUFS).",
            "Algorithm: shared/specs/blufs.md, section 4.6.",
        ),
    ),
}
