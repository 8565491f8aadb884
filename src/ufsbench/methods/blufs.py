"""BLUFS: bi-level unsupervised feature selection with an l2,0 row budget.

J. Liu, X. Ju, X. Xiu, W. Liu. Bi-Level Unsupervised Feature Selection. arXiv 2025
(spec: ``shared/specs/blufs.md``). With ``Xn`` (n, d) the data with unit-norm features,
``Z = Xn W``, the fixed 10-NN heat graph ``S`` and ``Sh = D^-1/2 S D^-1/2``, BLUFS solves

    min  ||Z - Y||^2 + lam ||W||^2 - alpha Tr(Y^T Sh Y) + beta Tr(Z^T L_P Z) + mu ||P||^2
    s.t. ||W||_{2,0} <= s,  Y^T Y = I,  P >= 0,  P^T 1 = 1,  diag(P) = 0,

``L_P`` the Laplacian of ``(P + P^T) / 2``, by proximal alternating minimisation (order
W, P, Y; proximal weights ``tau1, tau2, tau3``):

* W: ``W_hat = A^-1 (Xn^T Y + tau2 W^k)``, ``A = Xn^T Xn + (lam + tau2) I + beta Xn^T L_P Xn``
  (paper (30); Cholesky, or the push-through identity when ``d > n``), then the budget;
* P: per column, a Euclidean projection onto the simplex over at most ``p_support`` entries;
* Y: PenCF, the exact-penalty BB method of paper Algorithm 2, then the polar factor.

Stops when ``|f_k - f_{k-1}| < tol max(|f_{k-1}|, 1)`` (paper (48)) or after ``max_iter``
sweeps. One run per requested feature count ``s``.

Reading options (each a parameter; defaults in brackets):

* ``graph_term`` ["trace"]: the paper's (16) writes ``beta sum_ij P_ij ||z_i - z_j||^2 =
  2 beta Tr(Z^T L_P Z)`` but its W update (30) is the minimiser for ``beta Tr(Z^T L_P Z)``
  (spec E6). "trace" keeps (30) (spec §2.5); "sum" keeps (16), i.e. doubles ``beta``.
* ``w_step`` ["refit"]: how (30) meets ``||W||_{2,0} <= s`` in every sweep. "refit"
  [proposal, fixes spec §10 F1]: the W-subproblem (28) is minimised exactly over two
  candidate supports, the ``s`` largest rows of ``W_hat`` and the current support, and the
  better is kept (the first sweep takes the new one). Each refit is an ``s x s`` Cholesky
  solve. This satisfies the descent inequality (43) of Lemma 1 while letting the support
  move; the spec's rule compares the plain truncation of ``W_hat`` with a ``W^k`` already
  fitted to its support and so freezes the support after one or two sweeps. "safeguard":
  spec §2.7a as written (truncation if it decreases (28), else one projected-gradient
  step; Lanczos started from the seeded generator, fixes F3). "project": truncation with
  no safeguard. "final": no projection during the sweeps, ``H_s`` at the end (authors' code).
* ``p_rule`` ["guarded"; proposal]: which ``p_support`` entries a column of P may use.
  "distance" (paper (25), spec §2.7b): the nearest samples in the projected space. With
  ``tau1 > 0`` the proximal target ``b = (tau1 P^k - beta V / 4) / (mu + tau1)`` is not
  ordered like ``V``, so that column is not the minimiser of the P-subproblem and f can
  rise (spec E4; up to 4% per sweep on Diamond9). "objective": the largest entries of
  ``b``, the exact minimiser with at most ``p_support`` non-zeros (paper (42) holds), but
  then P hardly leaves the support of ``P^0``. "guarded": the "distance" column wherever it
  does not raise the column's part of f, else the "objective" one, so f never rises in the
  P step. All three coincide when ``tau1 = 0``. ``p_support=None``: no limit (code ``k = n``).
  In practice "guarded" is nearly "objective": at the default setting the "distance"
  column would raise f, and is replaced, in 97.8% of columns on COIL20 and 97.5% on
  Isolet (column ``P_objective`` of ``benchmarks/speed/bench_blufs.py``), and the last P
  keeps 97.0% and 94.3% of its entries inside the support of ``P^0`` (``P_in_P0``).
* ``y_tol`` [1e-4; proposal, fixes F4]: PenCF stops when the Stiefel KKT residual
  ``||grad l - Y Lambda||_F`` is below ``y_tol`` times ``||grad l||_F`` at its start.
  The authors' ``1e-8`` relative to the starting residual practically never fires, so
  every Y step ran to its cap. ``y_solver="gpi"`` swaps in the monotone generalised power
  iteration of spec §2.7c. ``y_safeguard`` [True, spec]: keep ``Y^k`` if PenCF raised (31).

Initialisation (spec §2.6): ``W^0 ~ N(0, 1)``, ``Y^0`` a scaled random indicator, ``P^0``
the column-normalised ``S``; every draw comes from ``random_state``.

Cases I-III (spec §3; paper §V-C defines them only in words, Table IV lost) are registry
entries that bind options of :func:`select`:

* Case I, feature level only: ``alpha = 0``. The spectral term and ``Sh`` drop out and the
  Y step becomes the exact orthogonal Procrustes step ``Y = polar(Xn W + tau3 Y^k)``
  (``y_solver="gpi"``, exact in one step). The fit term stays (alone, the feature level
  is solved by ``W = 0``, spec §2.4); P, the budget and every reading are unchanged.
* Case II, clustering level only: ``beta = 0``, so no graph term, no P step, ``mu``
  unused, and no l2,0 projection during the sweeps (``w_step="final"``): W is the ridge
  solution ``(Xn^T Xn + (lam + tau2) I)^-1 (Xn^T Y + tau2 W^k)``, Y as in BLUFS, and the
  ``s`` rows of largest norm are selected after convergence, so one run serves every
  feature count. The objective is ``||Xn W - Y||^2 + lam ||W||^2 - alpha Tr(Y^T Sh Y)``.
* Case III, both levels, no graph learning (``learn_graph=False``): P frozen at ``P^0``
  and no P step; the constant ``mu ||P||^2`` is left out (``mu = 0``). ``case3_graph``:
  ``"knn"`` freezes the column-normalised k-NN heat graph of spec §2.2; ``"hh"`` the
  dense row-normalised kernel ``exp(-||x_i - x_j||^2 / 18)`` that a commented-out line of
  the authors' code uses (dense n x n: for small data only).
"""

from __future__ import annotations

from . import _blufs_pam as pam
from .base import Selection
from .params import ITERATIONS, NON_NEGATIVE, POSITIVE, Declaration, Param, pick


def select(
    X,
    *,
    graph=None,
    n_clusters,
    random_state=0,
    feature_counts=None,
    alpha=1.0,
    beta=1.0,
    lam=1.0,
    mu=1.0,
    k=10,
    p_support=10,
    p_rule="guarded",
    w_step="refit",
    graph_term="trace",
    tau1=0.8,
    tau2=0.0,
    tau3=0.0,
    y_solver="pencf",
    y_tol=1e-4,
    y_max_iter=100,
    y_safeguard=True,
    max_iter=50,
    tol=1e-4,
    learn_graph=True,
    case3_graph="knn",
    method="blufs",
) -> Selection:
    """Select features with BLUFS, one optimisation per feature count.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated float64 data (scaled to unit-norm features inside).
    graph : Ignored
        BLUFS builds its own k-NN heat graph on the scaled data (spec §2.2).
    n_clusters : int
        Number of pseudo-classes ``c``: columns of ``W`` and ``Y``.
    random_state : int, default=0
        Seed of ``W^0``, ``Y^0`` and every Lanczos start.
    feature_counts : list of int, default=None
        Budgets ``s``; one run each. None: one run with ``s = min(100, n_features)``.
    alpha, beta, lam, mu : float, default=1.0
        Weights of the spectral term, graph term, ridge term and ``||P||^2`` (paper's
        alpha, beta, lambda, mu; ``lam`` because ``lambda`` is a Python keyword).
    k : int, default=10
        Neighbours of the fixed graph ``S``.
    p_support : int or None, default=10
        Most non-zeros per column of ``P``; None for no limit (dense ``P``).
    p_rule, w_step, graph_term, y_solver : str
        Reading options, see the module docstring.
    tau1, tau2, tau3 : float, default=0.8, 0.0, 0.0
        Proximal weights of the P, W and Y steps (authors' code).
    y_tol : float, default=1e-4
        Relative KKT tolerance of PenCF (or step tolerance of GPI).
    y_max_iter : int, default=100
        Cap on the Y solver's iterations.
    y_safeguard : bool, default=True
        Reject a Y step that raises the Y-subproblem objective.
    max_iter : int, default=50
        Maximum number of PAM sweeps.
    tol : float, default=1e-4
        Relative change of the objective that stops the sweeps.
    learn_graph : bool, default=True
        False freezes ``P`` at ``P^0`` (Case III).
    case3_graph : {"knn", "hh"}, default="knn"
        The frozen ``P`` when ``learn_graph`` is False (see the module docstring).
    method : str, default="blufs"
        The registry name that error messages report.

    Returns
    -------
    Selection
        ``subsets[m]`` the ``m`` features of the budget-``m`` run, best first;
        ``ranking``/``scores`` from the largest budget (see
        :func:`ufsbench.methods._blufs_pam.select_budgets`); ``history`` the objective
        after each sweep of that run.

    Notes
    -----
    Raises ``ValueError`` when ``k`` or ``p_support`` is not below ``n_samples``.
    """
    frozen = "hh" if not learn_graph and case3_graph == "hh" else None
    return pam.run_method(
        method,
        X,
        n_clusters=n_clusters,
        random_state=random_state,
        feature_counts=feature_counts,
        k=k,
        graph_term=graph_term,
        frozen_graph=frozen,
        alpha=alpha,
        beta=beta,
        lam=lam,
        mu=mu,
        tau1=tau1,
        tau2=tau2,
        tau3=tau3,
        p_support=p_support,
        p_rule=p_rule,
        w_step=w_step,
        y_solver=y_solver,
        y_max_iter=y_max_iter,
        y_tol=y_tol,
        y_safeguard=y_safeguard,
        learn_graph=learn_graph,
        max_iter=max_iter,
        tol=tol,
    )


# Constraints of every option of the family (spec section 2.8 and the readings of 10).
_OPTIONS = {
    "alpha": NON_NEGATIVE,
    "beta": NON_NEGATIVE,
    "lam": POSITIVE,
    "mu": POSITIVE,
    "k": Param(int, low=1),
    "p_support": Param(int, low=1, allow_none=True),
    "p_rule": Param(str, options=("guarded", "distance", "objective")),
    "w_step": Param(str, options=pam.W_STEPS),
    "graph_term": Param(str, options=("trace", "sum")),
    "case3_graph": Param(str, options=("knn", "hh")),
    "tau1": NON_NEGATIVE,
    "tau2": NON_NEGATIVE,
    "tau3": NON_NEGATIVE,
    "y_solver": Param(str, options=("pencf", "gpi")),
    "y_tol": NON_NEGATIVE,
    "y_max_iter": Param(int, low=2),
    "y_safeguard": Param(bool),
    "max_iter": ITERATIONS,
    "tol": NON_NEGATIVE,
}
_ALWAYS = ("k", "max_iter", "tol")
_Y_STEP = ("tau2", "tau3", "y_solver", "y_tol", "y_max_iter", "y_safeguard")
_WEIGHTS = [1e-2, 1.0, 1e2]
_PAPER = "J. Liu, X. Ju, X. Xiu, W. Liu. Bi-Level Unsupervised Feature Selection. arXiv 2025."
_FAMILY = {"needs_n_clusters": True, "count_dependent": True, "iterative": True}

METHODS = {
    "blufs": Declaration(
        title="BLUFS",
        params=pick(
            _OPTIONS,
            "alpha",
            "beta",
            "lam",
            "mu",
            "p_support",
            "p_rule",
            "w_step",
            "graph_term",
            "tau1",
            *_Y_STEP,
            *_ALWAYS,
        ),
        grid={"alpha": _WEIGHTS, "beta": _WEIGHTS},
        references=(_PAPER, "Model and readings: shared/specs/blufs.md, section 2."),
        **_FAMILY,
    ),
    "blufs_case1": Declaration(
        title="BLUFS Case I",
        params=pick(
            _OPTIONS,
            "beta",
            "lam",
            "mu",
            "p_support",
            "p_rule",
            "w_step",
            "graph_term",
            "tau1",
            "tau2",
            "tau3",
            *_ALWAYS,
        ),
        grid={"beta": _WEIGHTS},
        references=(
            _PAPER,
            "Case I, feature level only (alpha = 0): shared/specs/blufs.md, section 3.",
        ),
        bind={"alpha": 0.0, "y_solver": "gpi"},
        **_FAMILY,
    ),
    "blufs_case2": Declaration(
        title="BLUFS Case II",
        params=pick(_OPTIONS, "alpha", "lam", *_Y_STEP, *_ALWAYS),
        grid={"alpha": _WEIGHTS},
        references=(
            _PAPER,
            "Case II, clustering level only (beta = 0): shared/specs/blufs.md, section 3.",
        ),
        # No P step, so no support to limit (nor to check against n_samples).
        bind={"beta": 0.0, "mu": 0.0, "w_step": "final", "p_support": None},
        **_FAMILY,
    ),
    "blufs_case3": Declaration(
        title="BLUFS Case III",
        params=pick(
            _OPTIONS,
            "alpha",
            "beta",
            "lam",
            "case3_graph",
            "w_step",
            "graph_term",
            *_Y_STEP,
            *_ALWAYS,
        ),
        grid={"alpha": _WEIGHTS, "beta": _WEIGHTS},
        references=(
            _PAPER,
            "Case III, no graph learning (P frozen): shared/specs/blufs.md, section 3.",
        ),
        bind={"learn_graph": False, "mu": 0.0, "p_support": None},
        **_FAMILY,
    ),
}
