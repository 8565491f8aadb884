"""LSDCL: local sensitive dual concept learning for unsupervised feature selection.

L. Du, Y. Fan, P. Zhou. Local Sensitive Dual Concept Factorization for Unsupervised
Feature Selection. IEEE Access. Implementation spec: ``shared/specs/lsdcl.md`` §1-§2.

With the paper's ``X`` (d, n) = our ``X.T``, a symmetric 0-1 k-NN graph ``A`` and
``k = r = c`` concepts, LSDCL solves

    min_{U, S, V >= 0}  ||X - X U S V^T X||_F^2
                        + lambda1 sum_ij A_ij (1 - exp(-||V^T x_i - V^T x_j||^2 / delta^2))
                        + lambda2 ||V||_{2,1},

``U`` (n, k) sample-side coefficients, ``S`` (k, r), ``V`` (d, r) the feature-selection
matrix. Each iteration (Algorithm 1): multiplicative U-step and S-step; half-quadratic
weights ``W_ij = exp(-e_ij / delta^2)`` on the graph edges; ``Q_jj = 1 / (||v_j|| + eps)``;
multiplicative V-step with the paper's split of ``Z = 2 X (D - W o A) X^T``; then
``delta^2 = gamma / n^2 sum_ij ||V^T x_i - V^T x_j||^2``. Features are ranked by
``||v_j||``. The products are those of lsdcl.md §2.9; see :mod:`._dual_concept`.

Notes
-----
* Monotonicity: with ``W``, ``Q`` and ``delta`` frozen each block update is an MM step
  and does not increase its sub-objective. As printed, ``W`` omits ``1 / delta^2`` and
  ``Q`` omits ``1/2`` (lsdcl.md §9.8), so with ``delta`` fixed the algorithm descends
  ``recon + lambda1 delta^2 CIM + 2 lambda2 ||V||_{2,1}``; with ``hq_weights="exact"``
  it descends the paper's objective itself. The ``delta^2`` step is a heuristic, not a
  minimisation, so the recorded objective (lsdcl.md §2.8, the paper's weights) is not
  guaranteed to be monotone (§2.8 reports rare small increases).
* Scale drift (§9.16): ``(S, V) -> (t S, V / t)`` keeps the reconstruction and CIM terms
  and shrinks ``||V||_{2,1}``, so ``V`` drifts towards 0 and results depend on
  ``max_iter``; the ranking is scale-invariant.

Ablations (lsdcl.md section 3) are registry entries that bind options of :func:`select`:

* M1 (EUFS-like): NMF (``dual=False``) + squared-loss graph on ``U`` + l2,1,
  ``||X^T - U V^T||^2 + lambda1 tr(U^T L U) + lambda2 ||V||_{2,1}``, ``k = c`` concepts;
* M2: dual concepts + squared-loss graph on ``U`` (``graph_term="printed"``) or, the
  "M2-proj" deviation, on ``V^T x_i`` (``graph_term="projection"``) + l2,1;
* M3: NMF + the CIM graph term on ``V^T x_i`` + l2,1 (``delta^2`` adapted as in LSDCL).

Every step of M1 and M2 is an MM step (with ``Q`` as printed the recorded objective's
``lambda2 ||V||_{2,1}`` is descended with weight ``2 lambda2``, lsdcl.md §9.8); M3, as
LSDCL, is not provably monotone. The NMF updates split only ``n x k`` and ``d x k``
matrices element-wise, so mixed-sign data needs no deviation there.
"""

from __future__ import annotations

from ._dual_concept import Options
from ._dual_concept_setup import fit_select
from .params import ITERATIONS, NON_NEGATIVE, POSITIVE, Declaration, Param, pick

# Where the squared-loss graph term acts: on U (as printed) or on the projections V^T x.
GRAPH_TERMS = {"printed": "laplacian_u", "projection": "laplacian_v"}
GRAPH_LOSSES = ("cim", "squared")


def select(
    X,
    *,
    graph,
    n_clusters,
    random_state=0,
    feature_counts=None,
    lambda1=1.0,
    lambda2=1.0,
    gamma=1.0,
    max_iter=100,
    tol=1e-5,
    scale="none",
    mixed_sign="split",
    init="kmeans",
    s_init="identity",
    hq_weights="printed",
    z_split="paper",
    n_sample_concepts=None,
    n_feature_concepts=None,
    n_concepts=None,
    dual=True,
    graph_loss="cim",
    graph_term="printed",
    method="lsdcl",
):
    """Rank features by the row norms of the LSDCL feature-side coefficients ``V``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated float64 data (nonnegative for the paper's updates, see ``mixed_sign``).
    graph : sparse matrix of shape (n_samples, n_samples)
        Symmetric 0-1 k-NN affinity ``A`` without self loops.
    n_clusters : int
        ``c``; the default number of sample and feature concepts ``k = r = c``.
    random_state : int, default=0
        Seed of the initialisation (k-means, eigensolver start or random start).
    feature_counts : Ignored
    lambda1 : float, default=1.0
        Weight of the CIM local-structure term (>= 0).
    lambda2 : float, default=1.0
        Weight of ``||V||_{2,1}`` (>= 0).
    gamma : float, default=1.0
        Multiplier of the adaptive kernel width ``delta^2`` (> 0).
    max_iter : int, default=100
        Maximum number of iterations (lsdcl.md §2.6; in practice the stopping rule).
    tol : float, default=1e-5
        Stop when ``|J_{t-1} - J_t| <= tol |J_{t-1}|``, checked from ``t >= 2``.
    scale : {"none", "minmax", "unit_norm"}, default="none"
        Preprocessing inside the method (see :mod:`._dual_concept_setup`).
    mixed_sign : {"split", "raise"}, default="split"
        Negative data: the ``X+ - X-`` general path (a deviation), or ``ValueError``.
    init : {"kmeans", "spectral", "random"}, default="kmeans"
        Start of ``U`` and ``V`` (lsdcl.md §2.5).
    s_init : {"identity", "identity_plus"}, default="identity"
        ``S0 = I`` (paper) or ``I + 0.2`` (deviation).
    hq_weights : {"printed", "exact"}, default="printed"
        ``W`` and ``Q`` as printed, or the exact half-quadratic weights
        ``exp(-e / delta^2) / delta^2`` and ``1 / (2 ||v_j||)`` (lsdcl.md §9.8).
    z_split : {"paper", "elementwise"}, default="paper"
        The paper's split of ``Z``, or ``Z+ = max(Z, 0)`` (forms the d x d matrix ``Z``;
        a deviation, lsdcl.md §10.2).
    n_sample_concepts, n_feature_concepts : int, default=None
        ``k`` and ``r``; None means ``n_concepts``, else ``n_clusters``.
    n_concepts : int, default=None
        ``k = r`` at once (the NMF ablations' one number of concepts).
    dual : bool, default=True
        Dual-concept reconstruction ``X U S V^T X`` (LSDCL, M2) or NMF ``U V^T`` (M1, M3).
    graph_loss : {"cim", "squared"}, default="cim"
        The local-structure term: the CIM on ``V^T x_i`` (LSDCL, M3) or a squared loss
        (M1, M2) placed by ``graph_term``.
    graph_term : {"printed", "projection"}, default="printed"
        Where the squared loss acts: ``tr(U^T L U)`` (the paper) or
        ``sum A_ij ||V^T x_i - V^T x_j||^2`` (a deviation); unused with the CIM.
    method : str, default="lsdcl"
        The registry name that error messages report.

    Returns
    -------
    Selection
        ``scores`` are ``||v_j||``; ``history`` is the objective of lsdcl.md §2.8 after
        each iteration.

    Notes
    -----
    Raises ``ValueError`` for negative data when ``mixed_sign="raise"``, and when the
    numbers of concepts do not fit the data.
    """
    if graph_loss not in GRAPH_LOSSES or graph_term not in GRAPH_TERMS:
        raise ValueError(
            f"method {method!r}: unknown graph_loss {graph_loss!r} or graph_term "
            f"{graph_term!r} (known: {GRAPH_LOSSES}, {tuple(GRAPH_TERMS)})"
        )
    options = Options(
        dual=dual,
        graph_term="cim" if graph_loss == "cim" else GRAPH_TERMS[graph_term],
        lambda1=lambda1,
        lambda2=lambda2,
        gamma=gamma,
        hq_weights=hq_weights,
        z_split=z_split,
    )
    return fit_select(
        X,
        graph,
        method=method,
        options=options,
        n_sample_concepts=n_sample_concepts or n_concepts or n_clusters,
        n_feature_concepts=n_feature_concepts or n_concepts or n_clusters,
        random_state=random_state,
        max_iter=max_iter,
        tol=tol,
        scale=scale,
        mixed_sign=mixed_sign,
        init=init,
        s_init=s_init,
    )


# Constraints of every option of the family; each entry exposes some of them.
_OPTIONS = {
    "lambda1": NON_NEGATIVE,
    "lambda2": NON_NEGATIVE,
    "gamma": POSITIVE,
    "max_iter": ITERATIONS,
    "tol": NON_NEGATIVE,
    "scale": Param(str, options=("none", "minmax", "unit_norm")),
    "mixed_sign": Param(str, options=("split", "raise")),
    "init": Param(str, options=("kmeans", "spectral", "random")),
    "s_init": Param(str, options=("identity", "identity_plus")),
    "hq_weights": Param(str, options=("printed", "exact")),
    "z_split": Param(str, options=("paper", "elementwise")),
    "graph_term": Param(str, options=tuple(GRAPH_TERMS)),
    "n_concepts": Param(int, low=1, allow_none=True),
    "n_sample_concepts": Param(int, low=1, allow_none=True),
    "n_feature_concepts": Param(int, low=1, allow_none=True),
}
# The solver controls and readings every family member takes.
_ALWAYS = ("max_iter", "tol", "scale", "mixed_sign", "init", "hq_weights")
_WEIGHTS = [1e-2, 1.0, 1e2]
_PAPER = (
    "L. Du, Y. Fan, P. Zhou. Local Sensitive Dual Concept Factorization for Unsupervised "
    "Feature Selection. IEEE Access."
)
_UPDATES = "Updates: shared/specs/lsdcl.md, section 3."
_FAMILY = {"graph": "binary", "needs_n_clusters": True, "iterative": True}

METHODS = {
    "lsdcl": Declaration(
        title="LSDCL",
        params=pick(
            _OPTIONS,
            "lambda1",
            "lambda2",
            "gamma",
            "s_init",
            "z_split",
            "n_sample_concepts",
            "n_feature_concepts",
            *_ALWAYS,
        ),
        grid={"lambda1": _WEIGHTS, "lambda2": _WEIGHTS, "gamma": [1.0]},
        references=(_PAPER, "Implementation spec: shared/specs/lsdcl.md, sections 1-2."),
        **_FAMILY,
    ),
    "lsdcl_m1": Declaration(
        title="LSDCL-M1",
        params=pick(_OPTIONS, "lambda1", "lambda2", "n_concepts", *_ALWAYS),
        grid={"lambda1": _WEIGHTS, "lambda2": _WEIGHTS},
        references=("Ablation M1 (NMF + graph on U + l2,1, EUFS-like) of " + _PAPER, _UPDATES),
        bind={"dual": False, "graph_loss": "squared", "graph_term": "printed"},
        **_FAMILY,
    ),
    "lsdcl_m2": Declaration(
        title="LSDCL-M2",
        params=pick(
            _OPTIONS,
            "lambda1",
            "lambda2",
            "s_init",
            "graph_term",
            "n_sample_concepts",
            "n_feature_concepts",
            *_ALWAYS,
        ),
        grid={"lambda1": _WEIGHTS, "lambda2": _WEIGHTS},
        references=("Ablation M2 (dual concepts + graph on U + l2,1) of " + _PAPER, _UPDATES),
        bind={"graph_loss": "squared"},
        **_FAMILY,
    ),
    "lsdcl_m3": Declaration(
        title="LSDCL-M3",
        params=pick(_OPTIONS, "lambda1", "lambda2", "gamma", "z_split", "n_concepts", *_ALWAYS),
        grid={"lambda1": _WEIGHTS, "lambda2": _WEIGHTS, "gamma": [1.0]},
        references=("Ablation M3 (NMF + CIM graph on V^T x + l2,1) of " + _PAPER, _UPDATES),
        bind={"dual": False},
        **_FAMILY,
    ),
}
