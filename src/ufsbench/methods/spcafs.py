"""SPCAFS: sparse PCA feature selection with the l2,p-norm.

Z. Li, F. Nie, J. Bian, D. Wu, X. Li. Sparse PCA via l2,p-Norm Regularization for
Unsupervised Feature Selection. IEEE TPAMI 45(4), 2023 (spec: ``shared/specs/blufs.md`` §4.7).

With ``X`` (n, d) one row per sample, ``S_t = Xc^T Xc`` the scatter of the column-centred
data and ``W`` (d, m) with orthonormal columns, SPCAFS solves

    min_{W^T W = I}  -Tr(W^T S_t W) + gamma sum_i (||w_i||^2 + eps)^(p/2),

``w_i`` the i-th row of ``W``. Each iteration is one majorisation-minimisation step: the
concave ``u -> (u + eps)^(p/2)`` (``0 < p <= 2``) lies below its tangent at the current row
norms, so with ``G = diag((p/2) (||w_i||^2 + eps)^((p-2)/2))``

    W <- the m eigenvectors of ``gamma G - S_t`` with the smallest eigenvalues

minimises the majoriser exactly on the Stiefel manifold, and the objective above (recorded
in ``history``) never increases. ``eps`` smooths the norm at 0 (the authors' code adds
``1e-12`` inside the same power). ``G^0 = I``. Features are ranked by ``||w_i||``.

Stops when the objective changes by less than ``tol`` relative to its magnitude, or after
``max_iter`` iterations (authors' code: 1e-4, 30).
"""

from __future__ import annotations

import numpy as np

from ._eigen import eigh_range
from .base import Selection, row_norms
from .params import COMPONENTS, ITERATIONS, NON_NEGATIVE, POSITIVE, Declaration, Param, decades


def select(
    X,
    *,
    graph=None,
    n_clusters,
    random_state=0,
    feature_counts=None,
    gamma=1.0,
    p=0.5,
    n_components=None,
    eps=1e-12,
    max_iter=30,
    tol=1e-4,
) -> Selection:
    """Rank features by the row norms of the l2,p-sparse principal subspace.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated float64 data (centred inside).
    graph : Ignored
    n_clusters : int
        Default number of components ``m`` (spec: ``m = c`` [inferred]).
    random_state : Ignored
        SPCAFS is deterministic (dense eigensolver, fixed start ``G^0 = I``).
    feature_counts : Ignored
        The ranking serves every count.
    gamma : float, default=1.0
        Weight of the l2,p penalty (tuned in {1e-4, ..., 1e3}).
    p : float, default=0.5
        Exponent of the l2,p norm, ``0 < p <= 2`` (authors' default 0.5).
    n_components : int, default=None
        Columns ``m`` of ``W``; None means ``n_clusters``.
    eps : float, default=1e-12
        Smoothing inside ``(||w_i||^2 + eps)^(p/2)``.
    max_iter : int, default=30
    tol : float, default=1e-4

    Returns
    -------
    Selection
        ``scores`` = ``||w_i||``; ``history`` the objective after each iteration.

    Notes
    -----
    Raises ``ValueError`` when ``n_components`` exceeds ``n_features``.
    """
    d = X.shape[1]
    m = n_clusters if n_components is None else n_components
    if not 1 <= m <= d:
        raise ValueError(f"method 'spcafs': n_components={m} must be in [1, n_features={d}]")
    Xc = X - X.mean(axis=0)
    St = Xc.T @ Xc  # (d, d) scatter, formed once
    G = np.ones(d)
    history = []
    for _ in range(max_iter):
        M = gamma * np.diag(G) - St
        _, W = eigh_range(M, 0, m - 1, driver="evr")
        sq = np.einsum("ij,ij->i", W, W) + eps
        penalty = float(np.sum(sq ** (p / 2.0)))
        history.append(-float(np.einsum("ij,ij->", W, St @ W)) + gamma * penalty)
        G = (p / 2.0) * sq ** ((p - 2.0) / 2.0)
        if len(history) > 1 and abs(history[-2] - history[-1]) < tol * abs(history[-2]):
            break
    return Selection.from_scores(row_norms(W), history=history)


METHODS = {
    "spcafs": Declaration(
        title="SPCAFS",
        params={
            "gamma": POSITIVE,
            "p": Param(float, high=2.0, positive=True),
            "n_components": COMPONENTS,
            "eps": POSITIVE,
            "max_iter": ITERATIONS,
            "tol": NON_NEGATIVE,
        },
        grid={
            "gamma": decades(-4, 3),
        },
        needs_n_clusters=True,
        iterative=True,
        seed_free=lambda n_samples, n_features: True,  # random_state is ignored
        references=(
            (
                "Z. Li, F. Nie, J. Bian, D. Wu, X. Li. Sparse PCA via l2,p-Norm Regularization for "
                "Unsupervised Feature Selection. IEEE TPAMI 45(4), 2023."
            ),
            "Compared in: J. Liu, X. Ju, X. Xiu, W. Liu. Bi-Level Unsupervised FS (BLUFS).",
            "Algorithm: shared/specs/blufs.md, section 4.7.",
        ),
    ),
}
