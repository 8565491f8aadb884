"""The PAM loop of BLUFS and its degenerated Cases I-III, and the per-budget Selection.

Every variant minimises (spec §2.5, sklearn layout, ``Z = Xn W``)

    f = ||Z - Y||^2 + lam ||W||^2 - alpha Tr(Y^T Sh Y) + beta_eff Tr(Z^T L_P Z) + mu ||P||^2

by sweeps in the order W, P, Y (spec §2.7); a variant is a set of :class:`Config` flags.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ..graph import degrees, knn_graph
from . import _blufs_steps as steps
from . import _memo
from .base import Selection, row_norms

# Budget s when no feature counts are requested: the largest of the paper's grid
# {10, ..., 100}, capped at the number of features.
DEFAULT_BUDGET = 100
W_STEPS = ("refit", "safeguard", "project", "final")


@dataclass(frozen=True)
class Config:
    alpha: float
    beta: float  # effective weight of Tr(Z^T L_P Z)
    lam: float
    mu: float
    tau1: float = 0.8
    tau2: float = 0.0
    tau3: float = 0.0
    p_support: int | None = 10
    p_rule: str = "guarded"
    learn_graph: bool = True
    w_step: str = "refit"
    y_solver: str = "pencf"
    y_max_iter: int = 100
    y_tol: float = 1e-4
    y_safeguard: bool = True
    max_iter: int = 50
    tol: float = 1e-4


@dataclass(frozen=True)
class Problem:
    """Everything a run needs that does not depend on the budget or the seed."""

    Xn: np.ndarray  # (n, d) features scaled to unit norm
    gram: np.ndarray  # Xn^T Xn (d, d) if d <= n, else Xn Xn^T (n, n)
    Sh: sp.csr_matrix | None  # D^-1/2 S D^-1/2
    P0: sp.csc_matrix  # initial (Cases I/BLUFS) or frozen (Case III) adaptive graph
    n_clusters: int


@dataclass
class Run:
    W: np.ndarray  # (d, c) final, row-sparse unless w_step == "final"
    W_hat: np.ndarray  # (d, c) unconstrained minimiser of the last W-subproblem
    support: np.ndarray  # selected features, best first
    history: np.ndarray  # f after each sweep
    terms: np.ndarray  # (n_iter, 5): fit, ridge, spectral, graph, P-regulariser
    log: dict = field(default_factory=dict)  # per sweep: w rule, support changes, Y steps


def normalize_features(X) -> np.ndarray:
    """Each column scaled to unit l2 norm over the samples (a zero column stays zero)."""
    return X / np.sqrt(np.maximum(1e-14, np.einsum("ij,ij->j", X, X)))


def prepare(X, n_clusters, *, k, frozen_graph=None) -> Problem:
    """Feature scaling (spec §2.1), the k-NN heat graph ``S`` (§2.2), ``Sh`` and ``P^0`` (§2.6).

    ``S`` has heat weights ``exp(-D^2 / (2 t^2))`` with ``t`` the mean of all pairwise
    distances, built sparse by :func:`ufsbench.graph.knn_graph`. ``frozen_graph="hh"``
    (Case III) replaces ``P^0`` by the dense row-normalised ``exp(-||x_i - x_j||^2 / 18)``.
    """
    n, d = X.shape
    Xn = normalize_features(X)
    S = knn_graph(Xn, k, weight="heat", t=1.0, sigma0="mean")
    g = 1.0 / np.sqrt(np.maximum(degrees(S), 1e-7))
    Sh = (sp.diags(g) @ S @ sp.diags(g)).tocsr()
    if frozen_graph == "hh":
        sq = np.einsum("ij,ij->i", Xn, Xn)
        K = np.exp(-np.maximum(sq[:, None] + sq - 2.0 * Xn @ Xn.T, 0.0) / 18.0)
        P0 = sp.csc_matrix(K / K.sum(axis=1, keepdims=True))
    else:
        col = np.asarray(S.sum(axis=0)).ravel()
        P0 = (S @ sp.diags(1.0 / np.where(col > 0, col, 1.0))).tocsc()
    gram = Xn.T @ Xn if d <= n else Xn @ Xn.T
    return Problem(Xn=Xn, gram=gram, Sh=Sh, P0=P0, n_clusters=n_clusters)


def shared_problem(X, n_clusters, *, k, frozen_graph=None) -> Problem:
    """:func:`prepare`, computed once per process for a given data set and graph.

    A selection or stage-2 job runs many settings, budgets and seeds on one data set, and
    the Problem depends on none of them: on COIL20 it cost 0.57 CPU s of a ~4.4 s run.
    The stored Problem's dense arrays are read-only; no step writes into it.
    """

    def compute():
        pb = prepare(X, n_clusters, k=k, frozen_graph=frozen_graph)
        pb.Xn.flags.writeable = pb.gram.flags.writeable = False
        return pb

    key = _memo.fingerprint(X, n_clusters, k, frozen_graph)
    return _memo.memoized("blufs_problem", key, compute)


def check(name, X, *, k, p_support=None):
    """Raise for graph sizes the data cannot support (the registry checked types and ranges)."""
    n = X.shape[0]
    if not k < n:
        raise ValueError(f"method {name!r}: k={k} must be < n_samples={n}")
    if p_support is not None and not p_support < n:
        raise ValueError(f"method {name!r}: p_support={p_support} must be < n_samples={n}")


def initial_labels(rng, n, c) -> np.ndarray:
    """``E (E^T E)^-1/2`` for a uniform random assignment, redrawn until no cluster is empty."""
    while True:
        labels = rng.integers(c, size=n)
        counts = np.bincount(labels, minlength=c)
        if counts.min() > 0:
            return np.eye(c)[labels] / np.sqrt(counts)


def objective_terms(pb: Problem, cfg: Config, W, Z, Y, L, P) -> np.ndarray:
    spectral = -cfg.alpha * np.einsum("ij,ij->", Y, pb.Sh @ Y) if cfg.alpha else 0.0
    graph = cfg.beta * steps.graph_trace(L, Z) if cfg.beta else 0.0
    preg = cfg.mu * float(P.multiply(P).sum()) if cfg.mu else 0.0
    return np.array(
        [np.sum((Z - Y) ** 2), cfg.lam * np.sum(W**2), spectral, graph, preg], dtype=float
    )


def w_operator(pb: Problem, cfg: Config, L) -> steps.WOperator:
    """The W-step's factorised ``A`` for the graph Laplacian ``L`` (None: no graph term)."""
    return steps.WOperator(pb.Xn, pb.gram, L, beta=cfg.beta, lam=cfg.lam + cfg.tau2, tau2=cfg.tau2)


def initial_operator(pb: Problem, cfg: Config) -> steps.WOperator:
    """:func:`w_operator` of ``P^0``: every run's first W step, and all of them when P is
    frozen (Case III) or unused (Case II)."""
    return w_operator(pb, cfg, steps.laplacian_of(pb.P0) if cfg.beta else None)


def solve(pb: Problem, cfg: Config, s: int, random_state, operator=None) -> Run:
    """One PAM run with budget ``s`` (``||W||_{2,0} <= s``), seeded by ``random_state``.

    ``operator``: :func:`initial_operator` of ``(pb, cfg)`` if the caller has it (the runs of
    several budgets share it); built here otherwise.
    """
    rng = np.random.default_rng(random_state)
    n, d = pb.Xn.shape
    c = pb.n_clusters
    W = rng.standard_normal((d, c))  # W^0 (only its proximal term sees it)
    Y = initial_labels(rng, n, c)
    P = pb.P0
    op = operator if operator is not None else initial_operator(pb, cfg)
    L = op.L
    support, history, terms = None, [], []
    log = {"w_rule": [], "support_changes": [], "y_steps": [], "y_rejected": []}
    for _ in range(cfg.max_iter):
        # -- W step: paper (30), then the l2,0 constraint (spec §2.7a; module blufs notes)
        if op is None:
            op = w_operator(pb, cfg, L)
        system = steps.WSystem(op, Y=Y, W_prev=W)
        W_hat, previous, rule = system.W_hat, support, "closed"
        if cfg.w_step == "final":
            W = W_hat
        elif cfg.w_step == "project" or previous is None:
            support = steps.row_support(W_hat, s)
            if cfg.w_step == "refit":
                W, _ = system.refit(support)
            else:
                W = np.where(np.isin(np.arange(d), support)[:, None], W_hat, 0.0)
        elif cfg.w_step == "refit":
            candidate = steps.row_support(W_hat, s)
            W_new, g_new = system.refit(candidate)
            W_old, g_old = system.refit(previous)
            W, support = (W_new, candidate) if g_new <= g_old else (W_old, previous)
            rule = "new support" if g_new <= g_old else "old support"
        else:  # "safeguard": spec §2.7a as written
            candidate = steps.row_support(W_hat, s)
            W_new = np.where(np.isin(np.arange(d), candidate)[:, None], W_hat, 0.0)
            if system.value(W_new) <= system.value(W):
                W, support = W_new, candidate
            else:
                W, support = system.palm_step(W, s, rng)
                rule = "fallback"
        log["w_rule"].append(rule)
        changed = 0 if previous is None or support is None else s - np.isin(support, previous).sum()
        log["support_changes"].append(int(changed))
        Z = pb.Xn @ W
        # -- P step (spec §2.7b), skipped when the graph is frozen or unused
        if cfg.beta and cfg.learn_graph:
            P = steps.p_step(
                Z, P, beta=cfg.beta, mu=cfg.mu, tau1=cfg.tau1, n_support=cfg.p_support,
                rule=cfg.p_rule,
            )  # fmt: skip
            L = steps.laplacian_of(P)
            op = None  # A follows the new graph: built at the next W step
        # -- Y step (spec §2.7c)
        solver = steps.pencf if cfg.y_solver == "pencf" else steps.gpi
        Y_new, n_steps = solver(
            Z, pb.Sh, Y, alpha=cfg.alpha, tau3=cfg.tau3, max_iter=cfg.y_max_iter, tol=cfg.y_tol
        )
        rejected = cfg.y_safeguard and steps.y_loss(
            Z, pb.Sh, Y_new, Y, cfg.alpha, cfg.tau3
        ) > steps.y_loss(Z, pb.Sh, Y, Y, cfg.alpha, cfg.tau3)
        Y = Y if rejected else Y_new
        log["y_steps"].append(n_steps)
        log["y_rejected"].append(bool(rejected))
        terms.append(objective_terms(pb, cfg, W, Z, Y, L, P))
        history.append(terms[-1].sum())
        if len(history) >= 2:
            if abs(history[-1] - history[-2]) < cfg.tol * max(abs(history[-2]), 1.0):
                break
    if cfg.w_step == "final":
        support = steps.row_support(W, s)
    return Run(W, W_hat, support, np.asarray(history), np.asarray(terms), log)


def select_budgets(
    X, cfg: Config, *, n_clusters, random_state, feature_counts, k, frozen_graph=None
):
    """One run per budget (one in all when the W step ignores the budget) -> Selection.

    ``subsets[m]``: the ``m`` features of the run with budget ``m``, by decreasing row norm
    of its ``W``. ``ranking``: the largest budget's support in that order, then the other
    features by decreasing row norm of that run's last unconstrained ``W_hat``. ``scores``:
    ``||w_i||`` on the support, ``-1 / (1 + ||w_hat_i||)`` (negative) off it.
    ``history``: the largest budget's objective trace.
    """
    d = X.shape[1]
    counts = feature_counts or [min(DEFAULT_BUDGET, d)]
    pb = shared_problem(X, n_clusters, k=k, frozen_graph=frozen_graph)
    if cfg.w_step == "final":  # the budget enters only after convergence
        run = solve(pb, cfg, d, random_state)
        ranking = run.support
        subsets = {m: ranking[:m] for m in counts}
        scores = row_norms(run.W)
    else:
        first = initial_operator(pb, cfg)  # the same in every budget's first sweep
        runs = {m: solve(pb, cfg, m, random_state, operator=first) for m in counts}
        run = runs[counts[-1]]
        rest = np.setdiff1d(np.arange(d), run.support)
        hat = row_norms(run.W_hat)[rest]
        ranking = np.concatenate([run.support, rest[np.lexsort((rest, -hat))]])
        scores = np.empty(d)
        scores[run.support] = row_norms(run.W)[run.support]
        scores[rest] = -1.0 / (1.0 + hat)
        subsets = {m: runs[m].support for m in counts}
    if feature_counts is None:
        subsets = None
    return Selection(
        ranking=ranking, scores=scores, history=run.history, n_iter=len(run.history),
        subsets=subsets,
    )  # fmt: skip


def run_method(
    name,
    X,
    *,
    n_clusters,
    random_state,
    feature_counts,
    k,
    graph_term="trace",
    frozen_graph=None,
    **config,
):
    """What every BLUFS variant does: check sizes, build its Config, select per budget.

    ``graph_term="sum"`` keeps the paper's (16) literally by doubling ``beta`` (see
    :mod:`ufsbench.methods.blufs`); ``config`` holds the :class:`Config` fields.
    """
    check(name, X, k=k, p_support=config.get("p_support"))
    if graph_term == "sum":
        config["beta"] *= 2.0
    return select_budgets(
        X,
        Config(**config),
        n_clusters=n_clusters,
        random_state=random_state,
        feature_counts=feature_counts,
        k=k,
        frozen_graph=frozen_graph,
    )
