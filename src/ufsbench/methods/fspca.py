"""FSPCA: feature-sparse PCA with an l2,0 row budget.

F. Nie, L. Tian, R. Wang, X. Li. Learning Feature-Sparse Principal Subspace. IEEE TPAMI
45(4), 2023 (NeurIPS 2020 version). Spec: ``shared/specs/blufs.md`` §4.8.

With ``A = Xc^T Xc`` (d, d), the scatter of the column-centred data, FSPCA solves

    max  Tr(W^T A W)   s.t.  W^T W = I_m,  ||W||_{2,0} <= s.

For a fixed support ``T`` (``|T| = s``) the optimum is the top-``m`` eigenvectors of the
principal submatrix ``A_TT``, with value ``sigma_m(A_TT)`` (the sum of its ``m`` largest
eigenvalues); the problem is the choice of ``T``.

* Start (``Go``): the ``s`` largest diagonal entries of the rank-``m`` truncation
  ``A_m = V_m diag(sigma) V_m^T`` of ``A`` (exact when ``rank A <= m``).
* Iteration (``IPU``): with ``Q = A W (W^T A W)^+ W^T A``, take ``T`` = the ``s`` largest
  ``diag(Q)`` and ``W`` = the top-``m`` eigenvectors of ``A_TT``. ``Q = A^1/2 Pi A^1/2``
  with ``Pi`` an orthogonal projector, so ``Q <= A`` and ``rank Q <= m``; for the new
  support ``sigma_m(A_TT) >= Tr(Q_TT) >= Tr(Q_SS) = Tr(W^T A W)``: the objective never
  decreases. ``history`` records ``-Tr(W^T A W)`` (non-increasing). The iterations stop
  when the support repeats or after ``max_iter`` (authors' code: 20). They are skipped
  when ``rank A <= m``.

``m = min(n_components, s)`` (the model needs ``m <= s``); ``n_components`` defaults to
``n_clusters`` [inferred]. One run per feature count. The selected features are ordered by
``||w_i||``; ties (possible when ``m`` is small) by larger ``diag(Q)`` then lower index.
"""

from __future__ import annotations

import numpy as np

from ._eigen import eigh_range
from .base import Selection, row_norms
from .params import COMPONENTS, ITERATIONS, Declaration

# Relative eigenvalue below which A is treated as rank deficient.
RANK_TOL = 1e-10


def select(
    X,
    *,
    graph=None,
    n_clusters,
    random_state=0,
    feature_counts=None,
    n_components=None,
    max_iter=20,
) -> Selection:
    """Select ``s`` features per requested count by the FSPCA support iteration.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated float64 data (centred inside).
    graph : Ignored
    n_clusters : int
        Default number of components.
    random_state : Ignored
        FSPCA is deterministic.
    feature_counts : list of int, default=None
        Budgets ``s``; one run each. None: one run with ``s = n_features``.
    n_components : int, default=None
        Principal components ``m`` (capped at ``s``); None means ``n_clusters``.
    max_iter : int, default=20
        Most IPU iterations per budget.

    Returns
    -------
    Selection
        ``subsets[s]`` the budget-``s`` support, best first; ``ranking`` / ``scores``
        from the largest budget (support by ``||w_i||``, then the rest by ``diag(Q)``,
        with negative scores); ``history`` = ``-Tr(W^T A W)`` per iteration of that run
        (its first entry is the ``Go`` start).
    """
    d = X.shape[1]
    Xc = X - X.mean(axis=0)
    A = Xc.T @ Xc
    # Top-m truncation from the thin SVD of Xc: sigma_k^2 and right singular vectors.
    _, sv, Vt = np.linalg.svd(Xc, full_matrices=False)
    eig_A = sv**2
    rank = int(np.count_nonzero(eig_A > RANK_TOL * max(eig_A[0], 1e-300)))
    counts = feature_counts or [d]
    mc = n_clusters if n_components is None else n_components
    runs = {s: _solve(A, eig_A, Vt, rank, s, min(mc, s), max_iter) for s in counts}
    W, T, q, history = runs[counts[-1]]
    support = _order(W, T, q)
    rest = np.setdiff1d(np.arange(d), support)
    ranking = np.concatenate([support, rest[np.lexsort((rest, -q[rest]))]])
    scores = np.empty(d)
    scores[support] = row_norms(W)[support]
    scores[rest] = -1.0 / (1.0 + np.maximum(q[rest], 0.0))
    subsets = None if feature_counts is None else {s: _order(*runs[s][:3]) for s in counts}
    return Selection(
        ranking=ranking, scores=scores, history=np.asarray(history), n_iter=len(history),
        subsets=subsets,
    )  # fmt: skip


def _top(values, s):
    """Indices of the ``s`` largest ``values`` (ties by lower index), ascending index order."""
    return np.sort(np.lexsort((np.arange(len(values)), -values))[:s])


def _fit(A, T, m):
    """``W`` (d, m): the top-``m`` eigenvectors of ``A_TT`` on the rows ``T``, zero elsewhere."""
    W = np.zeros((A.shape[0], m))
    k = len(T)
    W[T] = eigh_range(A[np.ix_(T, T)], k - m, k - 1)[1]
    return W


def _solve(A, eig_A, Vt, rank, s, m, max_iter):
    """One budget: (W, its support T, diag(Q) of the final W, history of -Tr(W^T A W))."""
    trunc = np.einsum("k,ki,ki->i", eig_A[:m], Vt[:m], Vt[:m])  # diag of A_m
    T = _top(trunc, s)
    W = _fit(A, T, m)
    history = [-float(np.einsum("ij,ij->", W, A @ W))]
    q = trunc
    for _ in range(max_iter if rank > m else 0):
        AW = A @ W
        q = np.einsum("ij,ij->i", AW @ np.linalg.pinv(W.T @ AW, hermitian=True), AW)
        T_new = _top(q, s)
        if np.array_equal(T_new, T):
            break
        T, W = T_new, _fit(A, T_new, m)
        history.append(-float(np.einsum("ij,ij->", W, A @ W)))
    if rank > m:  # diag(Q) of the returned W orders ties and the unselected features
        AW = A @ W
        q = np.einsum("ij,ij->i", AW @ np.linalg.pinv(W.T @ AW, hermitian=True), AW)
    return W, T, q, history


def _order(W, T, q):
    """The support ``T`` by decreasing ``||w_i||``, then ``diag(Q)``, then index."""
    norms = row_norms(W)
    return T[np.lexsort((T, -q[T], -norms[T]))]


METHODS = {
    "fspca": Declaration(
        title="FSPCA",
        params={
            "n_components": COMPONENTS,
            "max_iter": ITERATIONS,
        },
        grid={
            "max_iter": [20],
        },
        needs_n_clusters=True,
        count_dependent=True,
        iterative=True,
        references=(
            (
                "F. Nie, L. Tian, R. Wang, X. Li. Learning Feature-Sparse Principal Subspace. IEEE "
                "TPAMI 45(4):4858-4869, 2023 (NeurIPS 2020 version)."
            ),
            "Compared in: J. Liu, X. Ju, X. Xiu, W. Liu. Bi-Level Unsupervised FS (BLUFS).",
            "Algorithm: shared/specs/blufs.md, section 4.8.",
        ),
    ),
}
