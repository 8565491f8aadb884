"""SOGFS: unsupervised feature selection with structured graph optimisation.

F. Nie, W. Zhu, X. Li. Unsupervised Feature Selection with Structured Graph Optimization.
AAAI 2016. Spec: ``shared/specs/lsdcl.md`` §4 (SOGFS) and ``shared/specs/blufs.md`` §4.5.

With ``X`` (n, d), SOGFS learns an orthonormal projection ``W`` (d, m) and a similarity
``S`` whose Laplacian should have ``c`` zero eigenvalues (``c`` connected components):

    min_{W^T W = I, S, F^T F = I}  sum_ij (||W^T x_i - W^T x_j||^2 s_ij + alpha_i s_ij^2)
                                   + 2 gamma ||W||_{2,1} + 2 lambda tr(F^T L_S F),

``s_i`` on the simplex. The solver (W-step by reweighted eigenvectors, F-step, closed-form
adaptive-neighbour S-step, ``lambda`` doubled/halved by the number of components) and its
monotonicity are described in :mod:`._adaptive_graph`. Features are ranked by ``||w_j||``.

``gamma`` is the weight of the paper's and the spec's W-step ``X L_S X^T + gamma D``
(``lsdcl.md`` §4), i.e. of ``tr(W^T X^T L_S X W) + gamma ||W||_{2,1}``; written with the sum
``sum_ij s_ij ||.||^2 = 2 tr(W^T X^T L_S X W)`` it weighs ``2 gamma``, as above. Both papers'
grids are grids of this ``gamma``. (Until 2026-11-24 the W-step used ``gamma / 2``: the
same family of solutions, but the decade grid then sat at ``10^p / 2``. Measured on the
LSDCL protocol on raw data, old -> new: WINE 72.19 -> 72.19, ZOO 79.25 -> 79.25, JAFFE
68.43 -> 68.06; ULAP WINE 70.42 -> 70.90, ZOO 81.18 -> 81.07, JAFFE 67.04 (earlier,
loaded machine) -> 65.38.)

More features than samples (TOX-171, GLIOMA): ``X^T L_S X`` has rank below ``n``, so the
first W-step (``Q = I``) has the eigenvalue ``gamma`` with multiplicity at least
``d - n + 1``, more than ``m = d / 3``: any ``m`` orthonormal vectors of that eigenspace
(all with ``X^T L_S X W = 0``) solve it. ``eigh`` returns the basis its rounding picks; the
next ``Q``, every later iterate and the ranking follow it. On GLIOMA's first 1200 features
(30 iterations) one BLAS thread and two share 17 of the top 50, a permutation of the
features 13 (``benchmarks/speed/bench_sogfs.py``, ``tests/test_speed_pins.py``). The
problem does not fix the ranking there; every route keeps that first dense ``eigh``.

From the second W-step on the bottom eigenspace is unique, and with ``4 n <= d``
(``eig_solver="auto"``) it comes from the projector route (:mod:`._spectral_projector`):
only the row norms of ``W`` and ``X W W^T X^T``, from the (d, n) factor of
``X^T L_S X`` and the diagonal ``gamma Q``, in O(d n^2) per pole of a rational filter
instead of the O(d^3) ``eigh``. It is also the accurate route once rows are switched off:
their l2,1 weights reach ``1e12`` (``1 / eps``), and a dense ``eigh`` of a matrix of norm
``gamma 1e12`` loses ``eps gamma 1e12`` absolutely, which the eigengap turns into errors of
``1e-4`` to ``0.7`` in ``||w_j||^2`` from about the tenth iteration on GLIOMA's first 1200
features, where the projector stays within ``4e-9`` (from the eighth iteration ``7e-12``)
of a reference that eliminates those rows (``benchmarks/speed/bench_sogfs_projector.py``,
``tests/test_sogfs_projector.py``). Every dataset with ``4 n > d`` takes the Schur route
(:mod:`._graded_eigen`): the dense ``eigh`` after eliminating the switched-off rows, which
is today's dense step bit for bit until a row is switched off and accurate after
(2026-11-29; ``eig_solver="dense"`` keeps the full ``eigh`` of the published runs before).

Standardisation (``scale="standardize"``, the default): the SOGFS authors' code, which the
LSDCL paper links (footnote ``fileId=83492``; two public copies agree, e.g.
``farhadabedinzadeh/AutoUFSTool`` ``UFSs/SOGFS/SOGFS.m``), first centres every feature and
scales it to unit Euclidean norm, then solves on that matrix. The method therefore sees
the data on one scale whatever the raw units: the problem solved is the objective above
on the standardised ``X``. ``scale="none"`` solves on ``X`` as given (the reading before
2026-11-24; on raw WINE, proline, values up to 1680, then dominates ``X^T L_S X``). The
protocol's "raw features" is the input handed to the method and is unchanged. The code's
solver details (S-step over the ``k`` nearest only, ``alpha`` and the start of ``lambda``
from the input data, up to 100 inner reweighting steps, stop at ``c`` components) are
options here (``support``, ``alpha_rule="input"``, ``lambda0=None``, ``w_inner``,
``stop``); the defaults keep the exact block minimisation of one fixed objective. Measured
effects are in ``measured/lsdcl/notes.tsv``.

The two papers that use SOGFS differ only in settings, all parameters here: the LSDCL
paper uses ``k = 5`` and ``gamma`` in ``10^-5..10^5``, the BLUFS paper ``k = 10`` and
``gamma`` in ``10^-4..10^3``; both take the projection dimension ``m = floor(d / 3)``
(``n_components=None``), ``lambda`` starting at ``lambda0 = 1`` and at most 30 iterations
(``blufs.md`` §4.5; the LSDCL paper is silent on the last two).
"""

from __future__ import annotations

import numpy as np

from . import _adaptive_graph
from ._low_rank import low_rank_pays
from .base import Selection
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
    lambda0=1.0,
    lambda_update="adapt",
    alpha_rule="mean",
    support="simplex",
    w_inner=1,
    stop="max_iter",
    scale="standardize",
    max_iter=30,
    tol=0.0,
    eig_solver="auto",
) -> Selection:
    """Rank features by the row norms of the SOGFS projection ``W``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated float64 data (raw, as in both papers; standardised inside by default).
    graph : Ignored
        SOGFS learns its own graph, starting from the adaptive-neighbour graph of ``X``.
    n_clusters : int
        ``c``: the number of connected components the learned graph is pushed towards.
    random_state : int, default=0
        Seed of the eigensolver start vector (large graphs only); otherwise deterministic.
    feature_counts : Ignored
    gamma : float, default=1.0
        Weight of ``||W||_{2,1}`` (>= 0).
    k : int, default=5
        Neighbours per sample in the adaptive-neighbour rule (< n_samples - 1).
    n_components : int, default=None
        Columns ``m`` of ``W``; None means ``max(1, floor(n_features / 3))`` [paper].
    lambda0 : float, default=1.0
        Starting weight of the rank term (> 0) [inferred, blufs.md §4.5].
    lambda_update : {"adapt", "fixed"}, default="adapt"
        Double/halve ``lambda`` by the number of components, or keep ``lambda0``.
    alpha_rule : {"mean", "row", "input"}, default="mean"
        One ``alpha`` fixed at the first S-step (the CAN code's), per-row ``alpha_i``
        recomputed every iteration (exactly ``k`` neighbours), or one ``alpha`` from the
        input data (the SOGFS code's ``r``); see :mod:`._adaptive_graph`.
    support : {"simplex", "knn"}, default="simplex"
        S-step over the whole simplex (exact), or over each row's ``k`` nearest neighbours
        (the SOGFS code).
    w_inner : int, default=1
        Reweighted eigen-steps per W-step (the SOGFS code iterates up to 100).
    stop : {"max_iter", "components"}, default="max_iter"
        Also stop once ``S`` has exactly ``c`` components (the SOGFS code).
    scale : {"standardize", "none"}, default="standardize"
        ``"standardize"`` centres every feature and scales it to unit Euclidean norm before
        solving, as the SOGFS authors' code does (see the module docstring); ``"none"``
        solves on ``X`` as given.
    max_iter : int, default=30
        Number of iterations.
    tol : float, default=0.0
        Stop when ``|J_prev - J| <= tol * |J_prev|``; 0 runs ``max_iter`` iterations.
    eig_solver : {"auto", "schur", "dense", "projector"}, default="auto"
        The W-step: ``"schur"``, a dense ``eigh`` after eliminating the rows whose l2,1
        weight has switched them off (:mod:`._graded_eigen`); ``"dense"``, the ``eigh``
        of the whole (d, d) matrix, exact only to ``eps`` times its norm, which those
        weights (``1e12``) make large; ``"projector"``, only the row norms of ``W`` and
        ``X W W^T X^T`` from the (d, n) factor of ``X^T L_S X``
        (:mod:`._spectral_projector`; needs ``gamma > 0``). ``"auto"`` takes the projector
        where the features outnumber the samples four times (GLIOMA, TOX-171, warpAR10P),
        otherwise ``"schur"``. All solve the same steps; ``"schur"`` and ``"projector"``
        to about ``1e-10`` in ``||w_j||^2`` (``tests/test_sogfs_projector.py``,
        ``tests/test_graded_eigen.py``).

    Returns
    -------
    Selection
        ``scores`` are ``||w_j||``; ``history`` is the objective after each iteration.

    Raises
    ------
    ValueError
        If ``k >= n_samples - 1``, ``n_components > n_features``,
        ``n_clusters >= n_samples``, or ``eig_solver="projector"`` with ``gamma = 0``.
    """
    n, d = X.shape
    if eig_solver == "auto":
        eig_solver = "projector" if low_rank_pays(n, d) and gamma > 0 else "schur"
    elif eig_solver == "projector" and not gamma > 0:
        raise ValueError("method 'sogfs': eig_solver='projector' needs gamma > 0")
    if scale == "standardize":
        X = standardize(X)
    m = max(1, d // 3) if n_components is None else n_components
    _adaptive_graph.check_sizes("sogfs", X, k=k, n_components=m, n_clusters=n_clusters)
    result = _adaptive_graph.solve(
        X,
        n_components=m,
        gamma=gamma,
        k=k,
        n_clusters=n_clusters,
        lambda0=lambda0,
        lambda_update=lambda_update,
        alpha_rule=alpha_rule,
        support=support,
        w_inner=w_inner,
        stop=stop,
        max_iter=max_iter,
        tol=tol,
        random_state=random_state,
        eig_solver=eig_solver,
    )
    return Selection.from_scores(result.scores, history=result.history)


def standardize(X):
    """Centre every column and scale it to unit Euclidean norm (constant columns stay 0)."""
    centred = X - X.mean(axis=0)
    norms = np.sqrt(np.einsum("ij,ij->j", centred, centred))
    return centred / np.where(norms > 0, norms, 1.0)


METHODS = {
    "sogfs": Declaration(
        title="SOGFS",
        params={
            "lambda0": Param(float, positive=True, allow_none=True),
            "lambda_update": Param(str, options=("adapt", "fixed")),
            "support": Param(str, options=("simplex", "knn")),
            "w_inner": ITERATIONS,
            "stop": Param(str, options=("max_iter", "components")),
            "scale": Param(str, options=("standardize", "none")),
            "gamma": NON_NEGATIVE,
            "k": NEIGHBOURS,
            "n_components": COMPONENTS,
            "alpha_rule": Param(str, options=("mean", "row", "input")),
            "max_iter": ITERATIONS,
            "tol": NON_NEGATIVE,
            "eig_solver": Param(str, options=("auto", "schur", "dense", "projector")),
        },
        grid={
            "gamma": decades(-5, 5),
        },
        needs_n_clusters=True,
        iterative=True,
        seed_free=lambda n_samples, n_features: _adaptive_graph.seed_free(n_samples),
        references=(
            (
                "F. Nie, W. Zhu, X. Li. Unsupervised Feature Selection with Structured Graph "
                "Optimization. AAAI 2016."
            ),
            "Baseline of the LSDCL paper: shared/specs/lsdcl.md, sections 4 and 6.3.",
            "Also a baseline of BLUFS (shared/specs/blufs.md, section 4.5: k=10).",
        ),
    ),
}
