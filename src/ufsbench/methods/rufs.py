"""RUFS: robust unsupervised feature selection.

M. Qian, C. Zhai. Robust Unsupervised Feature Selection. IJCAI 2013.
Spec: ``shared/specs/lsdcl.md`` §4 (RUFS).

With ``X`` (n, d), cluster encodings ``G`` (n, c), cluster bases ``F`` (c, d) and the
projection ``W`` (d, c), RUFS solves (the objective of the authors' code, which adds three
small fixed terms to the paper's four)

    min  ||X - G F||_{2,1} + nu tr(G^T L G) + alpha ||X W - G||_{2,1} + beta ||W||_{2,1}
         + f_l21 sum_j ||F_:j|| + g_l1 sum G + (ortho / 4) ||G^T G - I||_F^2
    s.t. G >= 0, F >= 0,

``||.||_{2,1}`` summing row norms (robust to outlying samples), the orthogonality of ``G``
relaxed to the penalty. ``L = (I - A)^T (I - A)`` is the local-learning regulariser: row
``i`` of ``A`` holds the kernel-ridge weights ``K_iN (K_NN + ridge I)^-1`` predicting sample
``i`` from its graph neighbours ``N``, ``K`` being the heat-kernel ``k``-NN graph with width
the mean pairwise distance (the framework's ``localLearnMx_KRR``).

Solver [proposal, lsdcl.md §4: "a cheaper IRLS re-implementation ... acceptable as a
documented deviation"; the reference uses projected L-BFGS]: every l2,1 term is
reweighted (``||r|| <= ||r||^2 / (2 ||r_old||) + ||r_old|| / 2``), then, in the reference
order,

* W-step, exact: ``(alpha X^T D2 X + beta Q) W = alpha X^T D2 G`` (kernel form when d > n);
* G-step, multiplicative: ``G <- G o sqrt(grad^- / grad^+)`` on the split gradient of the
  reweighted objective;
* F-step, multiplicative (semi-NMF rule of Ding, Li, Jordan 2010):
  ``F <- F o sqrt(((G^T D1 X)^+) / ((G^T D1 G) F + (G^T D1 X)^- + f_l21 F Q_F))``.

Features are ranked by ``||w_j||``.

Notes
-----
* Monotonicity: the W-step (exact) and the F-step (an MM step) never increase the
  objective; the G-step with the quartic penalty is not a proven descent step, so the
  recorded objective is not guaranteed to be monotone (in our runs it decreased).
* Start [framework]: one-hot k-means labels ``Y`` (10 restarts, seeded);
  ``W0 = (X^T X + beta/alpha I)^-1 X^T Y``; ``F0 = max((G0^T G0)^-1 G0^T X, 0)`` plus 0.2
  times the mean positive entry. Multiplicative updates never move a zero, so
  ``G0 = Y + g_offset`` (0.2, as NDFS) with unit columns, near ``G^T G = I`` [proposal].
* ``max_iter`` is 20 and drops to ``max_iter_heavy`` = 5 when ``alpha + beta + nu > 10^4``
  [framework].
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.linalg import LinAlgError, cho_factor, cho_solve, lstsq

from ..graph import knn_graph
from . import _memo
from .base import EPSILON, Selection, l21_weights, row_norms
from .params import (
    COMPONENTS,
    ITERATIONS,
    NEIGHBOURS,
    NON_NEGATIVE,
    POSITIVE,
    Declaration,
    Param,
    decades,
)


def select(
    X,
    *,
    graph=None,
    n_clusters,
    random_state=0,
    feature_counts=None,
    nu=1.0,
    alpha=1.0,
    beta=1.0,
    k=5,
    ridge=0.1,
    ortho=1e7,
    f_l21=1e-4,
    g_l1=0.1,
    g_offset=0.2,
    max_iter=20,
    max_iter_heavy=5,
    inner_iter=1,
    w_step="irls",
    tol=0.0,
) -> Selection:
    """Rank features by the row norms of the RUFS projection ``W``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated float64 data.
    graph : Ignored
        RUFS builds its local-learning regulariser from its own heat-kernel ``k``-NN graph.
    n_clusters : int
        ``c``: columns of ``G`` and ``W``.
    random_state : int, default=0
        Seed of the k-means start.
    feature_counts : Ignored
    nu, alpha, beta : float, default=1.0
        Weights of the local-learning term, the robust regression and ``||W||_{2,1}`` (> 0).
    k : int, default=5
        Neighbours of the local-learning graph.
    ridge : float, default=0.1
        Ridge of the local kernel regressions [framework].
    ortho : float, default=1e7
        Weight ``zeta`` of the orthogonality penalty ``(zeta / 4) ||G^T G - I||^2`` [framework].
    f_l21 : float, default=1e-4
        Weight of the column-l2,1 norm of ``F`` [framework].
    g_l1 : float, default=0.1
        Weight of the l1 norm of ``G`` [framework].
    g_offset : float, default=0.2
        Added to the one-hot ``G0`` so multiplicative updates can move every entry.
    max_iter : int, default=20
        Number of iterations.
    max_iter_heavy : int or None, default=5
        Number of iterations when ``alpha + beta + nu > 1e4``; None keeps ``max_iter``.
    inner_iter : int, default=1
        Multiplicative G- and F-steps per iteration (each re-weighted). The reference
        minimises each block to a tolerance with projected L-BFGS; more inner steps
        approach that block minimisation.
    w_step : {"irls", "ridge"}, default="irls"
        ``"irls"``: the exact W-step of the reweighted objective. ``"ridge"``: the
        unweighted ridge solution ``(X^T X + beta/alpha I)^-1 X^T G`` every time (the
        reference's start, where its L-BFGS W-step stays when its absolute stopping
        tolerance 0.1 exceeds the possible decrease, e.g. for small ``alpha, beta``). A
        diagnostic reading of the reference's solver, not of the objective.
    tol : float, default=0.0
        Stop when ``|J_prev - J| <= tol * |J_prev|``; 0 runs every iteration.

    Returns
    -------
    Selection
        ``scores`` are ``||w_j||``; ``history`` is the objective after each iteration.

    Raises
    ------
    ValueError
        If ``k >= n_samples`` or ``n_clusters > n_samples``.
    """
    n, d = X.shape
    if k >= n:
        raise ValueError(f"method 'rufs': k={k} must be < n_samples={n}")
    if alpha + beta + nu > 1e4 and max_iter_heavy is not None:
        max_iter = max_iter_heavy
    L = _memo.memoized(
        "rufs_local_learning",
        _memo.fingerprint(X, k, ridge),
        lambda: local_learning_regulariser(X, k, ridge),
    ).copy()  # setting-independent: computed once per process (methods/_memo.py)
    G, F, W = _start(X, n_clusters, alpha, beta, g_offset, random_state)
    weights = dict(nu=nu, alpha=alpha, beta=beta, ortho=ortho, f_l21=f_l21, g_l1=g_l1)
    history = []
    for _ in range(max_iter):
        if w_step == "ridge":
            W = _ridge_solve(X, np.ones(n), (beta / alpha) * np.ones(d), G)
        else:
            W = update_w(X, G, W, alpha=alpha, beta=beta)
        for _ in range(inner_iter):
            G = update_g(X, G, F, W, L, **weights)
        for _ in range(inner_iter):
            F = update_f(X, G, F, f_l21=f_l21)
        history.append(objective(X, G, F, W, L, **weights))
        if (
            tol > 0
            and len(history) > 1
            and abs(history[-2] - history[-1]) <= tol * abs(history[-2])
        ):
            break
    return Selection.from_scores(row_norms(W), history=history)


def local_learning_regulariser(X, k, ridge) -> sp.csr_matrix:
    """``L = (I - A)^T (I - A)`` (n, n, sparse) of local kernel-ridge predictions.

    All ``n`` local systems are solved in one batch: neighbourhoods (graph rows, of varying
    size after symmetrisation) are padded to the largest; a padded slot has a unit
    diagonal, no coupling and a zero right-hand side, so its coefficient is 0.
    """
    n = X.shape[0]
    K = knn_graph(X, k, weight="heat", t=1.0, sigma0="mean")  # symmetric, empty diagonal
    sizes = np.diff(K.indptr)
    width = int(sizes.max())
    present = np.arange(width)[None, :] < sizes[:, None]  # (n, width), row-major = CSR order
    neighbours = np.zeros((n, width), dtype=K.indices.dtype)
    neighbours[present] = K.indices
    rhs = np.zeros((n, width))
    rhs[present] = K.data  # K_iN
    rows = np.broadcast_to(neighbours[:, :, None], (n, width, width))
    cols = np.broadcast_to(neighbours[:, None, :], (n, width, width))
    blocks = np.asarray(K[rows.ravel(), cols.ravel()]).reshape(n, width, width)  # K_NN
    pairs = present[:, :, None] & present[:, None, :]
    blocks = np.where(pairs, blocks, 0.0) + np.where(present, ridge, 1.0)[:, :, None] * np.eye(
        width
    )
    coefficients = np.linalg.solve(blocks, rhs[:, :, None])[:, :, 0]  # blocks are symmetric
    A = sp.csr_matrix((coefficients[present], K.indices, K.indptr), shape=(n, n))
    residual = sp.identity(n, format="csr") - A
    return (residual.T @ residual).tocsr()


def _start(X, c, alpha, beta, g_offset, random_state):
    labels = _memo.kmeans_labels(X, c, random_state)  # KMeans(c, n_init=10), memoized
    one_hot = np.eye(c)[labels]  # (n, c)
    W = _ridge_solve(X, np.ones(X.shape[0]), (beta / alpha) * np.ones(X.shape[1]), one_hot)
    G = one_hot + g_offset
    G /= np.sqrt(np.einsum("ij,ij->j", G, G))[None, :]  # unit columns: G^T G near I
    F = np.maximum(_spd_solve(G.T @ G, G.T @ X), 0.0)  # (c, d) least squares, clipped
    positive = F[F > 0]
    F += 0.2 * (positive.mean() if positive.size else 1.0)
    return G, F, W


def _ridge_solve(X, row_weights, diag, B):
    """``(X^T D X + diag(diag))^-1 X^T D B`` with ``D = diag(row_weights)``, min(n, d)-sized."""
    n, d = X.shape
    root = np.sqrt(row_weights)[:, None]
    Xw = root * X  # D^1/2 X
    if d <= n:
        system = Xw.T @ Xw + np.diag(diag)
        rhs = Xw.T @ (root * B)
        return _spd_solve(system, rhs)
    # Push-through: (Xw^T Xw + P)^-1 Xw^T = P^-1 Xw^T (Xw P^-1 Xw^T + I)^-1 (scaled form).
    scaled = Xw / diag[None, :]  # Xw P^-1
    system = scaled @ Xw.T + np.eye(n)
    return scaled.T @ _spd_solve(system, root * B)


def _spd_solve(A, B):
    # Cholesky (potrf) and triangular solves (potrs): what ``solve(assume_a="pos")`` runs,
    # bit for bit, without its condition estimate and checks (1.7x faster at d = 1024).
    try:
        return cho_solve(cho_factor(A), B)
    except LinAlgError:  # numerically semi-definite: least squares
        return lstsq(A, B)[0]


def update_w(X, G, W, *, alpha, beta):
    """Exact W-step of the reweighted objective: weights from the current ``W`` and ``G``."""
    d2 = l21_weights(X @ W - G)
    q = l21_weights(W)
    return _ridge_solve(X, d2, (beta / alpha) * q, G)


def update_g(X, G, F, W, L, *, nu, alpha, beta, ortho, f_l21, g_l1):
    """Multiplicative G-step on the split gradient of the reweighted objective."""
    d1 = l21_weights(G @ F - X)[:, None]
    XW = X @ W
    d2 = l21_weights(XW - G)[:, None]
    XFt = d1 * (X @ F.T)  # D1 X F^T (n, c)
    target = d2 * XW  # D2 X W
    L_pos = L.maximum(0)
    L_neg = -L.minimum(0)
    GtG = G.T @ G
    up = 2.0 * np.maximum(XFt, 0) + 2.0 * nu * (L_neg @ G)
    up += 2.0 * alpha * np.maximum(target, 0) + ortho * G
    down = 2.0 * (d1 * G) @ (F @ F.T) + 2.0 * np.maximum(-XFt, 0) + g_l1
    down += 2.0 * nu * (L_pos @ G) + 2.0 * alpha * (d2 * G) + 2.0 * alpha * np.maximum(-target, 0)
    down += ortho * (G @ GtG)
    return G * np.sqrt((up + EPSILON) / (down + EPSILON))


def update_f(X, G, F, *, f_l21):
    """Multiplicative (MM) F-step of the reweighted ``||X - G F||_{2,1} + f_l21 ||F^T||_{2,1}``."""
    d1 = l21_weights(G @ F - X)[:, None]
    GtDX = (d1 * G).T @ X  # (c, d)
    q_f = l21_weights(F.T)[None, :]  # column weights of F
    up = np.maximum(GtDX, 0)
    down = ((d1 * G).T @ G) @ F + np.maximum(-GtDX, 0) + f_l21 * F * q_f
    return F * np.sqrt((up + EPSILON) / (down + EPSILON))


def objective(X, G, F, W, L, *, nu, alpha, beta, ortho, f_l21, g_l1) -> float:
    c = G.shape[1]
    gram = G.T @ G - np.eye(c)
    return float(
        row_norms(G @ F - X).sum()
        + nu * np.einsum("ij,ij->", G, L @ G)
        + alpha * row_norms(X @ W - G).sum()
        + beta * row_norms(W).sum()
        + f_l21 * row_norms(F.T).sum()
        + g_l1 * G.sum()
        + 0.25 * ortho * np.einsum("ij,ij->", gram, gram)
    )


METHODS = {
    "rufs": Declaration(
        title="RUFS",
        params={
            "nu": POSITIVE,
            "alpha": POSITIVE,
            "beta": POSITIVE,
            "k": NEIGHBOURS,
            "ridge": POSITIVE,
            "ortho": NON_NEGATIVE,
            "f_l21": NON_NEGATIVE,
            "g_l1": NON_NEGATIVE,
            "g_offset": POSITIVE,
            "max_iter": ITERATIONS,
            "max_iter_heavy": COMPONENTS,
            "inner_iter": ITERATIONS,
            "w_step": Param(str, options=("irls", "ridge")),
            "tol": NON_NEGATIVE,
        },
        grid={
            "nu": decades(-5, 5),
            "alpha": decades(-5, 5),
            "beta": decades(-5, 5),
        },
        needs_n_clusters=True,
        iterative=True,
        references=(
            "M. Qian, C. Zhai. Robust Unsupervised Feature Selection. IJCAI 2013.",
            "Baseline of the LSDCL paper: shared/specs/lsdcl.md, sections 4 and 6.3.",
            (
                "Solver: IRLS + multiplicative updates, a documented deviation from the "
                "reference's projected L-BFGS (lsdcl.md section 4)."
            ),
        ),
    ),
}
