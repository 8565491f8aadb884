"""MCFS: multi-cluster feature selection by sparse regression on a spectral embedding.

D. Cai, C. Zhang, X. He. Unsupervised Feature Selection for Multi-Cluster Data. KDD 2010.

1. Spectral embedding: the ``K`` (``n_eigen``, default ``n_clusters``) eigenvectors ``y_k``
   of ``L y = lambda D y`` (``L = D - S``) with the smallest eigenvalues, the trivial
   constant one dropped. They are computed in normalized form: the largest eigenpairs of
   ``D^-1/2 S D^-1/2`` orthogonal to ``D^1/2 1``, then ``y = D^-1/2 v``, each scaled to unit
   norm (which matters only to ``coefficients="raw"``).
2. For each ``y_k``, the LASSO ``min ||y_k - X a_k||^2 + beta |a_k|_1``, solved by LARS with
   the lasso modification, which lets the number of nonzero coefficients (the cardinality)
   set ``beta``. ``X`` enters by the ``scale`` reading: ``"none"`` (default) regresses on
   the raw columns, as the objective is printed (no intercept) and as the authors' code
   (``MCFS_p.m`` -> ``SR.m``, which centres only on request) runs it; ``"center"`` centres
   every column; ``"standardize"`` centres and scales every column to unit norm, the
   covariates LARS is defined on (Efron et al. 2004).
3. Feature ``j`` scores ``max_k |a_kj|``; the top ``m`` are selected. Eigenvectors have no
   natural scale, and neither has ``a_k``: with ``coefficients="unit_norm"`` (default) every
   ``a_k`` is scaled to unit norm before the maximum, as the authors' ``SR.m`` does at each
   cardinality; ``"raw"`` takes the maximum of the coefficients as fitted.

Measured under the LSDCL protocol (ten datasets, paper grids, 2026-11-25; see
``measured/lsdcl/notes.tsv``): the defaults move the mean oracle ACC difference from
the paper's Table 2 from -4.58 (``center``, ``raw``) to -2.81 points.

Reading of "LARS stopped at cardinality m" (the model depends on ``m``): one LARS path is
computed per eigenvector, up to the first step with ``max(feature_counts)`` nonzero
coefficients (the whole path when no counts are given). For each requested ``m`` the
coefficients are read at the last step of that path with at most ``m`` nonzeros, and the
``m`` best features by ``max_k |a_kj|`` form ``subsets[m]``. Features with equal scores
there (in particular the zero scores when the paths have fewer than ``m`` active features,
as when ``n_samples <= m``) are ordered by the same score at the end of the path, then by
index, so each subset has exactly ``m`` features. ``ranking`` is that order at the largest
count, ``scores`` the scores there; without counts both come from the end of the path.

Solvers (``solver``): ``"sklearn"`` (default) runs ``sklearn.linear_model.lars_path``
with step budgets (:func:`_lasso_paths`); ``"compiled"`` runs :mod:`ufsbench.lars` (one
compiled LARS-lasso loop per eigenvector on ``X'X`` and ``X'Y``, stopped at the
cardinality; needs numba). Both compute the same path, to rounding, but sum in different
orders, so a near tie can go the other way; and ``lars_path`` leaves a dropped
coefficient at a rounding residue (about 1e-18) for the step at which it drops, which
counts as nonzero there and can end its path one drop step earlier than the exact count
does. The default stays scikit-learn's, whose numbers are pinned.
"""

from __future__ import annotations

import numpy as np
from sklearn.linear_model import lars_path

from ..graph import degrees, spectral_eigenpairs
from .base import Selection
from .params import COMPONENTS, GRAPH_WEIGHT, WIDTH, Declaration, Param

SCALES = ("none", "center", "standardize")
COEFFICIENTS = ("unit_norm", "raw")
SOLVERS = ("sklearn", "compiled")


def select(
    X,
    *,
    graph,
    n_clusters,
    random_state=0,
    feature_counts=None,
    n_eigen=None,
    scale="none",
    coefficients="unit_norm",
    solver="sklearn",
) -> Selection:
    """Select features by LASSO regressions of the spectral embedding on ``X``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated data.
    graph : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
        Symmetric sample affinity ``S`` with an empty diagonal (0-1 or heat weights).
    n_clusters : int
        Default of ``n_eigen``.
    random_state : int, default=0
        Seeds the start vector of the eigensolver.
    feature_counts : list of int, default=None
        Sorted counts in ``1..n_features``; a subset is selected for each.
    n_eigen : int, default=None
        Number of nontrivial eigenvectors ``K``; None means ``n_clusters``.
    scale : {"none", "center", "standardize"}, default="none"
        How the columns of ``X`` enter the regressions (module docstring) [inferred].
    coefficients : {"unit_norm", "raw"}, default="unit_norm"
        Scale of each ``a_k`` before the maximum over eigenvectors (module docstring).
    solver : {"sklearn", "compiled"}, default="sklearn"
        The LARS-lasso solver (module docstring): scikit-learn's ``lars_path`` or
        :mod:`ufsbench.lars` (faster; equal to rounding).

    Returns
    -------
    Selection
        ``subsets[m]`` the ``m`` features selected for each requested ``m`` (best first),
        or None without counts; ``scores`` and ``ranking`` as in the module docstring.

    Notes
    -----
    Raises ``ValueError`` when ``n_eigen > n_samples - 2`` (more eigenvectors than the
    eigensolver can return).
    """
    n_samples, n_features = X.shape
    n_eigen = n_clusters if n_eigen is None else n_eigen
    if not 1 <= n_eigen <= n_samples - 2:
        raise ValueError(
            f"method 'mcfs': n_eigen={n_eigen} must be in [1, n_samples - 2 = {n_samples - 2}]"
        )
    if scale not in SCALES:
        raise ValueError(f"method 'mcfs': unknown scale {scale!r} (known: {', '.join(SCALES)})")
    if coefficients not in COEFFICIENTS:
        raise ValueError(
            f"method 'mcfs': unknown coefficients {coefficients!r} "
            f"(known: {', '.join(COEFFICIENTS)})"
        )
    if solver not in SOLVERS:
        raise ValueError(f"method 'mcfs': unknown solver {solver!r} (known: {', '.join(SOLVERS)})")
    Y = _spectral_embedding(graph, n_eigen, random_state)
    Xc = _prepare(X, scale)
    target = n_features if feature_counts is None else feature_counts[-1]
    if solver == "compiled":
        from .. import lars

        paths = lars.lasso_paths(Xc.T @ Xc, Xc.T @ Y, target, n_samples)
    else:
        # One Gram matrix serves every path; it is no larger than X when d <= n.
        Gram = Xc.T @ Xc if n_features <= n_samples else None
        paths = _lasso_paths(Xc, Gram, Y, target)  # each (d, n_steps)

    unit = coefficients == "unit_norm"
    end_scores = _scores([path[:, -1] for path in paths], unit)
    if feature_counts is None:
        return Selection.from_scores(end_scores)
    subsets = {}
    for m in feature_counts:
        scores = _scores([_at_cardinality(path, m) for path in paths], unit)
        # lexsort: last key first; ties in `scores` fall back to the end-of-path scores.
        order = np.lexsort((np.arange(n_features), -end_scores, -scores))
        subsets[m] = order[:m]
    return Selection(ranking=order, scores=scores, subsets=subsets)


def _scores(coefs, unit):
    """``max_k |a_kj|`` over the eigenvectors' coefficient vectors ``coefs``."""
    A = np.abs(np.array(coefs))  # (K, d)
    if unit:
        norms = np.linalg.norm(A, axis=1, keepdims=True)
        A = A / np.where(norms > 0, norms, 1.0)
    return A.max(axis=0)


def _prepare(X, scale):
    """The regression design of the ``scale`` reading; a centred constant column stays zero."""
    if scale == "none":
        return X
    Xc = X - X.mean(axis=0)
    if scale == "standardize":
        norms = np.linalg.norm(Xc, axis=0)
        Xc = Xc / np.where(norms > 0, norms, 1.0)
    return Xc


def _spectral_embedding(graph, n_eigen, random_state):
    """(n, n_eigen) nontrivial generalized eigenvectors of ``L y = lambda D y``, unit norm."""
    _, V = spectral_eigenpairs(graph, n_eigen + 1, random_state)
    deg = degrees(graph)
    # y = D^-1/2 v; isolated samples keep v = 0, so any finite inverse degree works.
    Y = V[:, 1:] / np.where(deg > 0, np.sqrt(deg), 1.0)[:, None]
    return Y / np.linalg.norm(Y, axis=0)


def _lasso_paths(Xc, Gram, Y, target):
    """:func:`_lasso_path` of every column of ``Y``, step budgets learnt along the way.

    Lasso drops make a path need more steps than ``target`` to reach ``target``
    nonzeros (1.1-2.5 times as many on COIL20 and JAFFE at 50). ``lars_path`` cannot be
    resumed, and a budget too small costs a whole recomputation, so each path's first
    budget is the mean ratio of steps to ``target`` of the paths before it, plus 20 %
    (1.5 for the first path).
    """
    ratios, paths = [], []
    for y in Y.T:
        ratio = float(np.mean(ratios)) * 1.2 if ratios else 1.5
        path = _lasso_path(Xc, Gram, y, target, budget=int(np.ceil(target * ratio)))
        ratios.append((path.shape[1] - 1) / target)
        paths.append(path)
    return paths


def _lasso_path(Xc, Gram, y, target, budget=None):
    """LARS-lasso coefficients (d, n_steps), cut at the first step with ``target`` nonzeros.

    Lasso steps may drop a variable, so ``target`` steps need not reach ``target``
    nonzeros: ``lars_path`` runs ``budget`` steps (default ``target``) and, when that
    falls short, again from the start with a budget extrapolated from the rate at which
    nonzeros grew (at least 1.25 times the last), until it reaches ``target`` or the path
    ends. A path's steps do not depend on the budget (``max_iter`` only stops the
    loop), so the result is the same for every budget sequence: the path up to its first
    step with ``target`` nonzeros, or the whole path.
    """
    max_iter = max(target if budget is None else budget, 1)
    while True:
        _, _, coefs = lars_path(Xc, y, Xy=Xc.T @ y, Gram=Gram, method="lasso", max_iter=max_iter)
        n_nonzero = np.count_nonzero(coefs, axis=0)
        reached = np.flatnonzero(n_nonzero >= target)
        if reached.size:
            return coefs[:, : reached[0] + 1]
        steps = coefs.shape[1] - 1
        if steps < max_iter:  # the path ended before max_iter steps
            return coefs
        more = (target - n_nonzero[-1]) * steps / max(n_nonzero[-1], 1)
        max_iter = max(int(np.ceil(steps + 1.3 * more)) + 2, int(np.ceil(1.25 * max_iter)))


def _at_cardinality(path, m):
    """Coefficients at the last step of ``path`` with at most ``m`` nonzeros."""
    step = np.flatnonzero(np.count_nonzero(path, axis=0) <= m)[-1]
    return path[:, step]


METHODS = {
    "mcfs": Declaration(
        title="MCFS",
        params={
            "weight": GRAPH_WEIGHT,
            "t": WIDTH,
            "n_eigen": COMPONENTS,
            "scale": Param(str, options=("none", "center", "standardize")),
            "coefficients": Param(str, options=("unit_norm", "raw")),
            "solver": Param(str, options=SOLVERS),
        },
        grid={
            "weight, t": [("binary", 1.0)],
        },
        graph="param",
        needs_n_clusters=True,
        count_dependent=True,
        references=(
            (
                "D. Cai, C. Zhang, X. He. Unsupervised Feature Selection for Multi-Cluster Data. "
                "KDD 2010."
            ),
        ),
    ),
}
