"""LR-l1-graph (Yang et al. 2014): the l1-graph with a Laplacian smoothness term on codes.

Objective (row layout, ``A`` a symmetric non-negative sample graph, ``L_A = D_A - A``)::

    sum_i ||x_i - codes[i] X||^2 + lam ||codes||_1 + gamma_l2 tr(codes^T L_A codes)

with ``tr(codes^T L_A codes) = 1/2 sum_ij A_ij ||codes[i] - codes[j]||^2`` (nearby samples
get similar codes). For fixed ``A`` it is jointly convex and is solved for all codes at
once by FISTA (see :func:`lr_l1_codes`). The SRSG paper gives only a prose description;
the defaults follow the LR-l1 paper's iterative scheme [inferred]: ``A`` starts as the
l1-graph of the ``lam_init`` codes (which also start the codes), and is rebuilt from the
new codes after every round.
"""

from __future__ import annotations

import logging
import time

import numpy as np
import scipy.sparse as sp
from scipy.linalg import eigvalsh

from ..graph import knn_graph, laplacian
from ._common import check_int, check_positive, codes_affinity, gram, unit_rows
from ._lr_l1_step import prox_step_dense, prox_step_sparse
from .l1graph import l1_codes

log = logging.getLogger(__name__)

LR_GRAPHS = ("iterative", "knn")
# Above this fill the iterate is handled as a dense array (BLAS beats the sparse step).
DENSE_FILL = 0.05


def lr_l1_objective(X, codes, A, lam, gamma_l2) -> float:
    Z = sp.csr_matrix(codes)
    rec = float(((X - Z @ X) ** 2).sum())
    Lz = (sp.diags(np.asarray(A.sum(axis=1)).ravel()) - A) @ Z
    smooth = float(Z.multiply(Lz).sum())
    return rec + lam * float(abs(Z).sum()) + gamma_l2 * smooth


def lr_l1_codes(
    X,
    lam=0.1,
    gamma_l2=0.1,
    *,
    graph="iterative",
    K=5,
    rounds=3,
    max_iter=300,
    tol=1e-6,
    lam_init=0.1,
    init_codes=None,
):
    """Codes of the LR-l1-graph; returns ``(codes (n, n) dense, history)``.

    Solver: FISTA on all codes at once (the problem is jointly convex for fixed ``A``),
    warm-started from the l1 codes; gradient ``2 (codes G - G) + 2 gamma_l2 L_A codes``,
    step ``1 / (2 lambda_max(G) + 2 gamma_l2 lambda_max(L_A))``, soft threshold, zero
    diagonal. While the iterates are sparse (below ``DENSE_FILL``) they are kept as CSR
    and each step is fused row by row (:mod:`._lr_l1_step`), with no dense n x n
    temporaries; a filled-in iterate falls back to dense BLAS products.

    Parameters
    ----------
    lam : float
        l1 weight (paper scale, no 1/2 on the loss).
    gamma_l2 : float
        Weight of the Laplacian term.
    graph : {"iterative", "knn"}, default="iterative"
        ``A`` from the current codes (rebuilt every round) or the fixed binary K-NN
        graph ``max(S, S^T)`` [both inferred].
    rounds : int, default=3
        Rebuilds of ``A`` (``graph="iterative"``); 1 for ``"knn"``.
    max_iter : int, default=300
        FISTA iterations per round [inferred].
    tol : float, default=1e-6
        Stop a round when the relative objective change falls below it.
    lam_init : float, default=0.1
        l1 weight of the start codes (the paper: LR-l1 starts from the l1-graph codes).
    """
    lam = check_positive("lam", lam)
    gamma_l2 = check_positive("gamma_l2", gamma_l2, allow_zero=True)
    rounds = check_int("rounds", rounds, 1)
    max_iter = check_int("max_iter", max_iter, 1)
    if graph not in LR_GRAPHS:
        raise ValueError(f"lr_l1: unknown graph {graph!r} (known: {', '.join(LR_GRAPHS)})")
    Xn = unit_rows(X)
    n = Xn.shape[0]
    G = gram(Xn)
    lam_G = float(eigvalsh(G, subset_by_index=[n - 1, n - 1])[0])
    if init_codes is None:
        codes = l1_codes(Xn, lam_init, normalize=False, G=G)
    else:
        codes = init_codes.toarray() if sp.issparse(init_codes) else np.array(init_codes, float)
    if graph == "knn":
        K = check_int("K", K, 1, n - 1)
        A = knn_graph(Xn, K, weight="binary")
        rounds = 1
    history = []
    start = time.perf_counter()
    for r in range(rounds):
        if graph == "iterative":
            A = codes_affinity(codes)
        L_A = laplacian(A)
        # lambda_max(L_A) <= 2 max degree (Gershgorin): a safe Lipschitz bound.
        lip = 2.0 * lam_G + 2.0 * gamma_l2 * 2.0 * float(np.asarray(A.sum(axis=1)).max())
        step = 1.0 / lip
        Z = sp.csr_matrix(codes)
        Yk = Z
        t_k = 1.0
        old = lr_l1_objective(Xn, Z, A, lam, gamma_l2)
        for it in range(1, max_iter + 1):
            # Fused sparse step while the iterate is sparse, BLAS once it has filled in.
            if sp.issparse(Yk) and Yk.nnz < DENSE_FILL * n * n:
                Z_new = prox_step_sparse(Yk, G, L_A, step, lam, gamma_l2)
            else:
                Z_new = prox_step_dense(_dense(Yk), G, L_A, step, lam, gamma_l2)
                if _nnz(Z_new) < DENSE_FILL * n * n:
                    Z_new = sp.csr_matrix(Z_new)
            t_next = (1.0 + np.sqrt(1.0 + 4.0 * t_k * t_k)) / 2.0
            Z_prev = sp.csr_matrix(Z) if sp.issparse(Z_new) else _dense(Z)
            Yk = Z_new + ((t_k - 1.0) / t_next) * (Z_new - Z_prev)
            if sp.issparse(Yk):
                Yk = sp.csr_matrix(Yk)
                Yk.eliminate_zeros()
            Z, t_k = Z_new, t_next
            if it % 25 == 0 or it == max_iter:
                value = lr_l1_objective(Xn, Z, A, lam, gamma_l2)
                history.append(value)
                log.info(
                    "lr_l1 round %d iteration %d: objective %.10g, nnz/row %.2f, %.1f s",
                    r + 1,
                    it,
                    value,
                    _nnz(Z) / n,
                    time.perf_counter() - start,
                )
                if abs(old - value) <= tol * max(abs(value), 1e-300):
                    break
                old = value
        codes = _dense(Z)
    np.fill_diagonal(codes, 0.0)
    return codes, history


def lr_l1_graph(X, lam=0.1, gamma_l2=0.1, **options):
    codes, history = lr_l1_codes(X, lam, gamma_l2, **options)
    return codes_affinity(codes), history


def _dense(Z) -> np.ndarray:
    return Z.toarray() if sp.issparse(Z) else Z


def _nnz(Z) -> int:
    return Z.nnz if sp.issparse(Z) else int(np.count_nonzero(Z))
