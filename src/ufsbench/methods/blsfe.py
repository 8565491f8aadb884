"""BLSFE: bi-level self-paced feature-selection ensemble (clustering + feature levels).

P. Zhou, X. Wang, L. Du. Bi-Level Ensemble Method for Unsupervised Feature Selection.
Information Fusion 100, 2023 (called BLSEF / BLSFE / BLFSE). Spec:
``shared/specs/blufs.md`` §4.9, from the authors' ``BLFSE.zip``. Samples are first scaled
to unit norm (rows of ``X``), giving ``Xr`` (n, d).

Stage 1, base results (once): the samples are shuffled into ``n_bases`` batches; on each,
unsupervised Infinite Feature Selection (InfFS-U) gives a feature score ``v_j >= 0``:
``A = mix * Sigma + (1 - mix) * (1 - |Spearman|)`` over feature pairs (``Sigma`` the
pairwise max of the feature standard deviations, min-max scaled), ``r = 0.9 / rho(A)`` and
``v_j = (I - r A)^-1 1 - 1`` (the row sums of the path series ``sum_{l>=1} (r A)^l``).
Per feature count ``s``, k-means (``c`` clusters, ``n_replicates`` starts) on the top-``s``
features of every ``v_j`` gives base partitions with co-association ``S_j = Y_j Y_j^T``.

Stage 2, bi-level consensus (per ``s``): with ``M = Xr^T L_S Xr`` (d, d), ``D_v = diag(v)``
and ``Z = Xr D_v W`` the block updates minimise

    J = sum_j alpha_j^2 ||A o (S - S_j)||^2 + (2/g1) [Tr(Z^T L_S Z)
        + (g2/2) sum_j beta_j^2 ||v - v_j||^2] + (2 rho/g1) Tr(F^T L_S F)

over ``W^T W = I`` (the ``c`` smallest eigenvectors of ``D_v M D_v``), ``v`` on the simplex
(the QP ``min v^T (M o W W^T) v + (g2/2) sum_j beta_j^2 ||v - v_j||^2``, solved by
accelerated projected gradient), ``S`` in ``[0, 1]`` (element-wise closed form), ``F``
(the ``c`` smallest eigenvectors of ``L_S``) and the base weights
``alpha_j ∝ 1 / ||A o (S - S_j)||^2``, ``beta_j ∝ 1 / ||v - v_j||^2``. Around them, a
self-paced schedule ``q = 0.9, ..., 0.5`` re-weights the sample pairs,
``A = min(1, lambda_q / (2 sum_j alpha_j^2 (S - S_j)^2))``,
``lambda_q = 2 ((q - 1)^2 q + q^2 (1 - q)) / n_bases``, and ``rho`` doubles while ``L_S``
has more than ``c`` connected parts missing (sum of its ``c`` smallest eigenvalues
> 1e-9), halves (restoring ``F``) when it has too many (sum of ``c + 1`` < 1e-11), else
the inner loop (at most ``max_iter`` = 5 steps) ends. Features are ranked by ``v``.

Readings [inferred], each documented here:

* ``J`` above is the objective whose block minimisers are the code's updates (checked
  term by term); ``history`` records it after every inner step. It is **not** monotone:
  ``A`` changes with ``q`` and ``rho`` doubles or halves inside the loop.
* When ``d`` exceeds the rank of ``Xr D_v`` (always for ``d > n``), ``D_v M D_v`` has a
  null space of dimension ``>= c``: its ``c`` smallest eigenvalues are all 0 and any
  orthonormal basis of that null space is a valid ``W``. We take the orthonormalised
  projection of a fixed seeded Gaussian ``(d, c)`` matrix onto it (deterministic; the
  authors' ``eig`` returns an arbitrary LAPACK-dependent basis).
* ``v`` on the simplex is sparse: features with ``v_i = 0`` are ordered by the initial
  consensus score (the mean of the normalised ``v_j``), then by index.
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import cho_factor, cho_solve
from scipy.sparse.linalg import eigsh
from scipy.stats import rankdata

from ..kmeans import litekmeans
from ._blufs_steps import simplex_columns
from ._eigen import eigh_range
from .base import EPSILON, Selection
from .params import ITERATIONS, POSITIVE, Declaration, Param

Q_SCHEDULE = (0.9, 0.8, 0.7, 0.6, 0.5)
DEFAULT_BUDGET = 100


def select(
    X,
    *,
    graph=None,
    n_clusters,
    random_state=0,
    feature_counts=None,
    gamma1=1.0,
    gamma2=1.0,
    n_bases=10,
    mix=0.7,
    n_replicates=20,
    max_iter=5,
    qp_max_iter=300,
) -> Selection:
    """Select features with BLSFE, one consensus per feature count.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    graph : Ignored
    n_clusters : int
        Clusters ``c`` of the base k-means and columns of ``W`` and ``F``.
    random_state : int, default=0
        Seed of the batch split, the base k-means and the null-space basis.
    feature_counts : list of int, default=None
        One consensus per count. None: one with ``s = min(100, n_features)``.
    gamma1, gamma2 : float, default=1.0
        Weights of the graph terms and of the feature-score consensus (authors' 1, 1).
    n_bases : int, default=10
        Batches (base results).
    mix : float, default=0.7
        InfFS-U weight of the standard-deviation term.
    n_replicates : int, default=20
        k-means starts per base partition.
    max_iter : int, default=5
        Most inner iterations per self-paced step (the code's 5).
    qp_max_iter : int, default=300
        Most accelerated projected-gradient steps of the ``v`` QP.

    Returns
    -------
    Selection
        ``subsets[s]`` the top-``s`` of the final ``v`` of the run for ``s``;
        ``ranking`` / ``scores`` (``v``, ties by the initial consensus score) and
        ``history`` (``J`` per inner step) of the largest count.

    Notes
    -----
    Raises ``ValueError`` when a batch would have fewer than ``n_clusters`` samples.
    """
    n, d = X.shape
    if n // n_bases < max(n_clusters, 2):
        raise ValueError(
            f"method 'blsfe': n_samples={n} split into n_bases={n_bases} batches leaves "
            f"fewer than n_clusters={n_clusters} (or 2) samples per batch"
        )
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    Xr = X / np.where(norms > 0, norms, 1.0)[:, None]
    rng = np.random.default_rng(random_state)
    batches = np.array_split(rng.permutation(n), n_bases)
    V = np.array([inffs_scores(Xr[b], mix) for b in batches])  # (m, d)
    V = V / np.maximum(V.sum(axis=1, keepdims=True), EPSILON)
    prior = V.mean(axis=0)
    counts = feature_counts or [min(DEFAULT_BUDGET, d)]
    G = rng.standard_normal((d, n_clusters))  # fixed start of the null-space basis
    runs = {}
    for s in counts:
        labels = np.array(
            [
                litekmeans(
                    Xr[:, _top(v, prior, s)], n_clusters, max_iter=100,
                    n_init=n_replicates, random_state=_base_seed(random_state, s, j),
                ).labels
                for j, v in enumerate(V)
            ]
        )  # fmt: skip
        runs[s] = consensus(Xr, V, labels, n_clusters, G, gamma1=gamma1, gamma2=gamma2,
                            max_iter=max_iter, qp_max_iter=qp_max_iter)  # fmt: skip
    v, history = runs[counts[-1]]
    ranking = _order(v, prior)
    # scores: v where positive; the zero entries get negative scores in their tie order
    scores = v.copy()
    tail = ranking[v[ranking] <= 0]
    scores[tail] = -np.arange(1, len(tail) + 1) / (len(tail) + 1.0)
    subsets = None
    if feature_counts is not None:
        subsets = {s: _order(runs[s][0], prior)[:s] for s in counts}
    return Selection(
        ranking=ranking, scores=scores, history=np.asarray(history), n_iter=len(history),
        subsets=subsets,
    )  # fmt: skip


def _base_seed(random_state, s, j) -> int:
    """Seed of base clustering ``j`` at count ``s``: independent of the other counts run."""
    return int(np.random.SeedSequence([random_state, s, j]).generate_state(1)[0])


def _order(v, prior):
    """Features by decreasing ``v``, ties by decreasing ``prior``, then index."""
    return np.lexsort((np.arange(len(v)), -prior, -v))


def _top(v, prior, s):
    return _order(v, prior)[:s]


def inffs_scores(Xb, mix) -> np.ndarray:
    """InfFS-U score minus 1 of every feature of the batch ``Xb`` (nb, d); ``>= 0``."""
    d = Xb.shape[1]
    sd = Xb.std(axis=0, ddof=1)
    sigma = np.maximum(sd[:, None], sd[None, :])
    span = sigma.max() - sigma.min()
    sigma = (sigma - sigma.min()) / span if span > 0 else np.zeros_like(sigma)
    ranks = rankdata(Xb, axis=0)
    ranks -= ranks.mean(axis=0)
    rn = np.sqrt(np.einsum("ij,ij->j", ranks, ranks))
    ranks /= np.where(rn > 0, rn, 1.0)  # constant features: correlation 0
    corr = ranks.T @ ranks
    A = mix * sigma + (1.0 - mix) * (1.0 - np.abs(corr))
    top = eigsh(A, k=1, which="LA", v0=np.ones(d), return_eigenvectors=False)[0]
    system = np.eye(d) - (0.9 / top) * A  # SPD: the spectral radius of r A is 0.9
    return np.maximum(cho_solve(cho_factor(system), np.ones(d)) - 1.0, 0.0)


def _smallest(Lap, k):
    """The ``k`` smallest eigenpairs (values, vectors) of a dense symmetric matrix."""
    return eigh_range(Lap, 0, k - 1)


def _laplacian(S):
    return np.diag(S.sum(axis=1)) - S


def _sqdist(Z):
    sq = np.einsum("ij,ij->i", Z, Z)
    return np.maximum(sq[:, None] + sq[None, :] - 2.0 * Z @ Z.T, 0.0)


def consensus(Xr, V, labels, c, G, *, gamma1, gamma2, max_iter, qp_max_iter):
    """Stage 2 for one count: (final v, history of J)."""
    m = len(V)
    n, d = Xr.shape
    co = [(lab[:, None] == lab[None, :]).astype(np.float64) for lab in labels]  # S_j
    S = sum(co) / m
    _, F = _smallest(_laplacian(S), c)
    v = V.mean(axis=0)
    v /= v.sum()
    alpha = np.full(m, 1.0 / m)
    beta = np.full(m, 1.0 / m)
    rho = 1.0
    history = []
    for q in Q_SCHEDULE:
        lam_q = 2.0 * ((q - 1.0) ** 2 * q + q**2 * (1.0 - q)) / m
        spread = 2.0 * sum(a**2 * (S - Sj) ** 2 for a, Sj in zip(alpha, co, strict=True))
        with np.errstate(divide="ignore"):
            A = np.minimum(1.0, lam_q / spread)
        for _ in range(max_iter):
            L = _laplacian(S)
            M = Xr.T @ (L @ Xr)  # (d, d)
            W = _w_step(Xr, M, v, G)
            v = _v_step(M, W, V, beta, v, gamma2, qp_max_iter)
            Z = (Xr * v) @ W
            a2 = alpha**2
            target = sum(a * Sj for a, Sj in zip(a2, co, strict=True))
            penalty = (rho * _sqdist(F) + _sqdist(Z)) / (gamma1 * 2.0 * A**2)
            S = np.clip((target - penalty) / a2.sum(), 0.0, 1.0)
            S = 0.5 * (S + S.T)
            L = _laplacian(S)
            F_old = F
            ev, F = _smallest(L, c + 1)
            F = F[:, :c]
            dev = np.array([np.sum((A * (S - Sj)) ** 2) for Sj in co])
            alpha = _inverse_weights(dev)
            beta = _inverse_weights(np.sum((v - V) ** 2, axis=1))
            history.append(_objective(S, co, A, alpha, beta, v, V, Z, F, L, rho, gamma1, gamma2))
            if ev[:c].sum() > 1e-9:
                rho *= 2.0
            elif ev.sum() < 1e-11:
                rho /= 2.0
                F = F_old
            else:
                break
    return v, history


def _inverse_weights(values):
    w = 1.0 / np.maximum(values, EPSILON)
    return w / w.sum()


def _w_step(Xr, M, v, G):
    """``c`` smallest eigenvectors of ``D_v M D_v`` (a null-space basis when it has one).

    ``D_v M D_v = B^T L_S B`` with ``B = Xr D_v``, so ``null(B)`` lies in its null space;
    ``B`` is zero on the features with ``v_i = 0`` and its row space is found from the SVD
    of the columns with ``v_i > 0`` only (``v`` is sparse).
    """
    c = G.shape[1]
    support = np.flatnonzero(v > 0)
    _, sv, Vt = np.linalg.svd(Xr[:, support] * v[support], full_matrices=False)
    rank = int(np.count_nonzero(sv > 1e-10 * sv[0])) if sv.size and sv[0] > 0 else 0
    if Xr.shape[1] - rank >= c:  # eigenvalue 0 with multiplicity >= c
        basis = Vt[:rank]  # row space of B, on the support coordinates
        P = G.copy()
        P[support] -= basis.T @ (basis @ G[support])
        W, _ = np.linalg.qr(P)
        return W
    N = v[:, None] * M * v[None, :]
    _, W = eigh_range(0.5 * (N + N.T), 0, c - 1)
    return W


def _v_step(M, W, V, beta, v, gamma2, max_iter):
    """``argmin 1/2 v^T H v + f^T v`` on the simplex, FISTA from the current ``v``."""
    b2 = beta**2
    H = 2.0 * M * (W @ W.T)
    H[np.diag_indices_from(H)] += gamma2 * b2.sum()
    f = -gamma2 * (b2 @ V)
    lip = np.abs(H).sum(axis=1).max()  # Gershgorin bound on lambda_max(H)
    x, y, t = v.copy(), v.copy(), 1.0
    for _ in range(max_iter):
        x_new = simplex_columns((y - (H @ y + f) / lip)[:, None])[:, 0]
        t_new = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        y = x_new + ((t - 1.0) / t_new) * (x_new - x)
        moved = np.abs(x_new - x).sum()
        x, t = x_new, t_new
        if moved < 1e-10:
            break
    return x


def _objective(S, co, A, alpha, beta, v, V, Z, F, L, rho, gamma1, gamma2):
    fit = sum(a**2 * np.sum((A * (S - Sj)) ** 2) for a, Sj in zip(alpha, co, strict=True))
    feature = np.einsum("ij,ij->", Z, L @ Z) + 0.5 * gamma2 * float(
        beta**2 @ np.sum((v - V) ** 2, axis=1)
    )
    return float(
        fit + (2.0 / gamma1) * feature + (2.0 * rho / gamma1) * np.einsum("ij,ij->", F, L @ F)
    )


METHODS = {
    "blsfe": Declaration(
        title="BLSFE",
        params={
            "gamma1": POSITIVE,
            "gamma2": POSITIVE,
            "n_bases": Param(int, low=2),
            "mix": Param(float, low=0.0, high=1.0),
            "n_replicates": ITERATIONS,
            "max_iter": ITERATIONS,
            "qp_max_iter": ITERATIONS,
        },
        grid={
            "gamma1": [1.0],
            "gamma2": [1.0],
        },
        needs_n_clusters=True,
        count_dependent=True,
        iterative=True,
        references=(
            (
                "P. Zhou, X. Wang, L. Du. Bi-Level Ensemble Method for Unsupervised Feature "
                "Selection. Information Fusion 100:101910, 2023."
            ),
            "Compared in: J. Liu, X. Ju, X. Xiu, W. Liu. Bi-Level Unsupervised FS (BLUFS).",
            "Algorithm: shared/specs/blufs.md, section 4.9.",
        ),
    ),
}
