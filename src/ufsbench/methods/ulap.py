"""ULAP: unsupervised feature selection with a local adaptive projection.

X. Chen, G. Yuan, W. Wang, F. Nie, X. Chang, J. Z. Huang. Local Adaptive Projection
Framework for Feature Selection of Labeled and Unlabeled Data. IEEE TNNLS 29(12), 2018.
Spec: ``shared/specs/lsdcl.md`` §4 (ULAP); the identification and the formulation are
[inferred] there.

ULAP alternates an adaptive similarity ``S`` (computed from the projected distances) and
a projection ``W`` (computed from ``S``):

    min_{W^T W = I, S}  sum_ij (||W^T x_i - W^T x_j||^2 s_ij + alpha_i s_ij^2)
                        + 2 gamma ||W||_{2,1},

``s_i`` on the simplex: SOGFS without its rank constraint, solved by the same steps
(:mod:`._adaptive_graph`, with ``lambda = 0``); ``gamma`` weighs the W-step
``X L_S X^T + gamma D`` as in SOGFS (hence ``2 gamma`` in the sum form). ULAP solves on
``X`` as given: its authors' code is not available to us, so SOGFS's internal
standardisation is not assumed here. The projection has ``c = n_clusters``
columns [proposal]. Features are ranked by ``||w_j||``.
"""

from __future__ import annotations

from . import _adaptive_graph
from ._low_rank import eig_route
from .base import Selection, row_norms
from .params import COMPONENTS, ITERATIONS, NEIGHBOURS, NON_NEGATIVE, Declaration, Param, decades


def select(
    X,
    *,
    graph=None,
    n_clusters,
    random_state=0,
    feature_counts=None,
    gamma=1.0,
    k=5,
    n_components=None,
    alpha_rule="mean",
    max_iter=30,
    tol=0.0,
    eig_solver="auto",
) -> Selection:
    """Rank features by the row norms of the ULAP projection ``W``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated float64 data.
    graph : Ignored
        ULAP learns its own graph, starting from the adaptive-neighbour graph of ``X``.
    n_clusters : int
        Default number of columns of ``W``.
    random_state : int, default=0
        Accepted for the common signature; ULAP is deterministic.
    feature_counts : Ignored
    gamma : float, default=1.0
        Weight of ``||W||_{2,1}`` (>= 0).
    k : int, default=5
        Neighbours per sample in the adaptive-neighbour rule (< n_samples - 1).
    n_components : int, default=None
        Columns ``m`` of ``W``; None means ``min(n_clusters, n_features)`` [proposal].
    alpha_rule : {"mean", "row"}, default="mean"
        One ``alpha`` fixed at the first S-step (the objective then provably never
        increases), or per-row ``alpha_i`` recomputed every iteration.
    max_iter : int, default=30
        Number of iterations.
    tol : float, default=0.0
        Stop when ``|J_prev - J| <= tol * |J_prev|``; 0 runs ``max_iter`` iterations.
    eig_solver : {"auto", "schur", "dense", "lowrank"}, default="auto"
        The W-step's eigenvectors: ``"schur"``, a dense ``eigh`` after eliminating the
        rows whose l2,1 weight has switched them off (:mod:`._graded_eigen`; the same
        step as ``"dense"``, accurate where that one loses ``eps`` times weights of
        ``1e12``); ``"dense"``, ``eigh`` of the whole (d, d) matrix; ``"lowrank"``,
        subspace iteration on its Woodbury inverse (needs ``gamma > 0``); ``"auto"``,
        ``"lowrank"`` when ``4 n <= d`` and ``gamma > 0``, else ``"schur"``. Where the smallest
        eigenvalues are distinct both give the same ``W`` up to rounding; with ``n < d``
        the first W-step (``Q = I``) is degenerate, as in UDFS, and the two pick different
        bases of the same eigenspace.

    Returns
    -------
    Selection
        ``scores`` are ``||w_j||``; ``history`` is the objective after each iteration.

    Raises
    ------
    ValueError
        If ``k >= n_samples - 1``, ``n_components > n_features``, or ``eig_solver`` is
        ``"lowrank"`` with ``gamma = 0``.
    """
    n, d = X.shape
    m = min(n_clusters, d) if n_components is None else n_components
    _adaptive_graph.check_sizes("ulap", X, k=k, n_components=m, n_clusters=None)
    eig_solver = eig_route("ulap", eig_solver, n, d, gamma)
    result = _adaptive_graph.solve(
        X,
        n_components=m,
        gamma=gamma,
        k=k,
        n_clusters=None,
        alpha_rule=alpha_rule,
        max_iter=max_iter,
        tol=tol,
        random_state=random_state,
        eig_solver=eig_solver,
    )
    return Selection.from_scores(row_norms(result.W), history=result.history)


METHODS = {
    "ulap": Declaration(
        title="ULAP",
        params={
            "eig_solver": Param(str, options=("auto", "schur", "dense", "lowrank")),
            "gamma": NON_NEGATIVE,
            "k": NEIGHBOURS,
            "n_components": COMPONENTS,
            "alpha_rule": Param(str, options=("mean", "row", "input")),
            "max_iter": ITERATIONS,
            "tol": NON_NEGATIVE,
        },
        grid={
            "gamma": decades(-5, 5),
        },
        needs_n_clusters=True,
        iterative=True,
        references=(
            (
                "X. Chen, G. Yuan, W. Wang, F. Nie, X. Chang, J. Z. Huang. Local Adaptive "
                "Projection Framework for Feature Selection of Labeled and Unlabeled Data. IEEE "
                "TNNLS 2018 (identification inferred by the spec)."
            ),
            "Baseline of the LSDCL paper: shared/specs/lsdcl.md, sections 4 and 6.3.",
        ),
    ),
}
