"""k-means for the evaluation protocol: a litekmeans clone and a scikit-learn dispatcher.

:func:`litekmeans` follows the semantics of Deng Cai's MATLAB ``litekmeans`` (the k-means
of the FSASL framework that produced the LSDCL tables, ``'Start', 'sample'``):

1. the initial centres are ``n_clusters`` *distinct* random samples;
2. Lloyd iterations: assign every sample to its nearest centre (ties: lowest centre
   index), then move each centre to the mean of its samples;
3. when the assignment leaves clusters empty, the samples farthest from their assigned
   centres (largest squared distance) are moved into them, one per empty cluster: the
   farthest sample to the lowest-numbered empty cluster, and so on;
4. stop when the labels no longer change, or after ``max_iter`` assignments;
5. with ``n_init > 1`` keep the run with the smallest sum of squared distances.

scikit-learn's ``KMeans`` differs in step 3 (it relocates empty centres inside its
update step) and in its tolerance-based stopping rule; ``cluster`` offers both engines.
"""

from __future__ import annotations

import functools
import sys
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp

ENGINES = ("litekmeans", "sklearn")
KERNELS = ("auto", "numba", "numpy")
# "auto" compiles (numba) when the data are at least this large (n_samples * (n_features +
# n_clusters)), when numba is loaded already, or once this process has run AUTO_NUMBA_FITS
# fits under "auto". Numba's import and the load of the compiled kernels cost about 0.85
# CPU s per process; a fit on small data costs 1-4 ms with NumPy and 2.5-5x less compiled
# (benchmarks/DETAILS.md, "k-means kernel per job"). Switching once the NumPy fits have cost
# about as much as the switch (the ski-rental rule) keeps a process that runs few fits
# within twice its best cost, while an evaluation job, which runs thousands, pays the
# switch back many times. Both kernels give bitwise the same results, so the switch never
# changes an output.
AUTO_NUMBA_SIZE = 50_000
AUTO_NUMBA_FITS = 500
_auto_fits = 0  # fits run under "auto" with the NumPy kernel in this process


class KMeansResult(NamedTuple):
    """One k-means fit.

    Attributes
    ----------
    labels : ndarray of shape (n_samples,)
        Cluster index of every sample, in ``0..n_clusters-1``.
    inertia : float
        Sum of squared distances of the samples to their final centres.
    centers : ndarray of shape (n_clusters, n_features)
        Final centres.
    init : ndarray of shape (n_clusters,)
        Indices of the samples that were the initial centres of the kept run.
    n_iter : int
        Number of assignment steps of the kept run.
    converged : bool
        Whether the labels stopped changing within ``max_iter`` assignments.
    """

    labels: np.ndarray
    inertia: float
    centers: np.ndarray
    init: np.ndarray
    n_iter: int
    converged: bool


def litekmeans(
    X,
    n_clusters: int,
    *,
    max_iter: int = 100,
    n_init: int = 1,
    random_state=None,
    kernel: str = "auto",
) -> KMeansResult:
    """k-means with random-sample starts and farthest-point refill of empty clusters.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_clusters : int
        Number of clusters, ``1 <= n_clusters <= n_samples``.
    max_iter : int, default=100
        Maximum number of assignment steps per run.
    n_init : int, default=1
        Number of runs from different random starts; the one with the smallest inertia
        is kept (the first one on ties).
    random_state : int, numpy Generator or None, default=None
        Seed of the starts. ``None`` draws fresh entropy (a library default only; the
        workflow always passes a derived seed).
    kernel : {"auto", "numba", "numpy"}, default="auto"
        Code of the assignment and centre steps; the results are bitwise the same.
        ``"numba"``: compiled loops (:mod:`ufsbench._kmeans_kernels`; needs numba) that
        skip the distances which provably cannot change a label (:func:`_lloyd_pruned`).
        ``"numpy"``: array operations and a sparse indicator product. ``"auto"``: numba
        when it is installed and either already loaded, or the data are large enough
        (``n_samples * (n_features + n_clusters) >= AUTO_NUMBA_SIZE``), or this process
        has run ``AUTO_NUMBA_FITS`` fits under ``"auto"`` already; else numpy.

    Returns
    -------
    KMeansResult
        ``labels``, ``inertia``, ``centers``, ``init``, ``n_iter``, ``converged``.

    Notes
    -----
    Raises ``ValueError`` when ``X`` is not a finite 2-D array, ``n_clusters`` is outside
    ``1..n_samples``, or ``max_iter`` or ``n_init`` is below 1.

    Examples
    --------
    >>> X = np.array([[0.0], [0.1], [5.0], [5.1]])
    >>> result = litekmeans(X, 2, random_state=0)
    >>> result.labels
    array([0, 0, 1, 1])
    >>> round(result.inertia, 6)
    0.01
    """
    # C order once: the sparse centre update would otherwise copy a Fortran-ordered X
    # (as scipy.io.loadmat returns it) on every iteration.
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"litekmeans: X must be 2-dimensional, got shape {X.shape}")
    x_sq = np.einsum("ij,ij->i", X, X)  # (n,)
    # A NaN or infinity in X makes its row's x_sq NaN or infinite (the one pass over X
    # then suffices); an infinite x_sq from finite X (overflow) passes the full check.
    if not np.isfinite(x_sq).all() and not np.all(np.isfinite(X)):
        raise ValueError("litekmeans: X contains NaN or infinite values")
    n = X.shape[0]
    if not 1 <= n_clusters <= n:
        raise ValueError(f"litekmeans: n_clusters={n_clusters} must be in [1, n_samples={n}]")
    if max_iter < 1:
        raise ValueError(f"litekmeans: max_iter={max_iter} must be >= 1")
    if n_init < 1:
        raise ValueError(f"litekmeans: n_init={n_init} must be >= 1")
    kernels = _kernels(kernel, n * (X.shape[1] + n_clusters), fits=n_init)
    rng = np.random.default_rng(random_state)
    best = None
    for _ in range(n_init):
        init = rng.choice(n, size=n_clusters, replace=False)
        run = _lloyd(X, X[init], max_iter=max_iter, x_sq=x_sq, kernels=kernels)
        if best is None or run.inertia < best.inertia:
            best = run._replace(init=init)
    return best


def _kernels(kernel, size, fits=1):
    """The compiled kernels module for ``kernel`` (module docstring), or None for NumPy.

    ``fits``: the runs about to be made, counted towards ``AUTO_NUMBA_FITS``.
    """
    global _auto_fits
    if kernel not in KERNELS:
        known = ", ".join(map(repr, KERNELS))
        raise ValueError(f"litekmeans: unknown kernel {kernel!r} (known: {known})")
    if kernel == "numpy":
        return None
    if kernel == "auto" and "numba" not in sys.modules and size < AUTO_NUMBA_SIZE:
        _auto_fits += fits
        if _auto_fits <= AUTO_NUMBA_FITS:
            return None
    compiled = _compiled_kernels()
    if compiled is None and kernel == "numba":
        raise ImportError("litekmeans: kernel='numba' needs numba (extra 'fast')")
    return compiled


@functools.cache
def _compiled_kernels():
    """:mod:`ufsbench._kmeans_kernels`, or None without numba (tried once per process)."""
    try:
        from . import _kmeans_kernels
    except ImportError:
        return None
    return _kmeans_kernels


def _sq_distances(X, centers, x_sq) -> np.ndarray:
    """Squared Euclidean distances, shape (n_samples, n_clusters), clipped at 0.

    ``(x_sq - 2 X C') + c_sq`` in that order, formed in place: ``X @ (-2 C)'`` equals
    ``-2 (X C')`` exactly (scaling by a power of two commutes with rounding).
    """
    c_sq = np.einsum("ij,ij->i", centers, centers)  # (k,)
    D = X @ (-2.0 * centers).T
    D += x_sq[:, None]
    D += c_sq
    np.maximum(D, 0.0, out=D)
    return D


def _lloyd(X, centers, *, max_iter: int, x_sq=None, kernels=None) -> KMeansResult:
    """Lloyd iterations from the given centres with the farthest-point refill rule.

    ``kernels``: :mod:`ufsbench._kmeans_kernels` for the compiled steps
    (:func:`_lloyd_pruned`, bitwise the same run), None for NumPy.
    """
    if x_sq is None:
        x_sq = np.einsum("ij,ij->i", X, X)
    if kernels is not None:
        return _lloyd_pruned(X, centers, max_iter=max_iter, x_sq=x_sq, kernels=kernels)
    n = X.shape[0]
    k = centers.shape[0]
    centers = np.array(centers, dtype=np.float64)
    rows = np.arange(n)
    indicator = _indicator(n, k)
    labels = None
    converged = False
    n_iter = 0
    while n_iter < max_iter:
        n_iter += 1
        D = _sq_distances(X, centers, x_sq)
        new_labels = np.argmin(D, axis=1)
        counts = np.bincount(new_labels, minlength=k)
        empty = np.flatnonzero(counts == 0)
        if len(empty):
            # Farthest from their own centre first; ties keep sample order.
            own = D[rows, new_labels]
            farthest = np.argsort(-own, kind="stable")[: len(empty)]
            new_labels[farthest] = empty
            counts = np.bincount(new_labels, minlength=k)
        if labels is not None and np.count_nonzero(new_labels != labels) == 0:
            converged = True
            break
        labels = new_labels
        centers = _update_centers(X, labels, counts, centers, indicator)
    return _result(X, centers, labels, n_iter, converged)


# A step formed whole that changed more than this share of the labels is followed by
# another one formed whole: early in a run, when most labels are still open, forming all
# distances by one GEMM costs less than the bounds.
PLAIN_SHARE = 0.05
# With at most this many clusters, BLAS forms X @ C' slowly (75 us for 1673 x 50 x 2, a
# third of the time of 1440 x 100 x 20) and the bounds save little: the kernels form
# every distance of every step, the first too, and accept labels past the rounding.
SMALL_K = 4


def _lloyd_pruned(X, centers, *, max_iter: int, x_sq, kernels) -> KMeansResult:
    """:func:`_lloyd` with the compiled kernels, skipping the distances that cannot matter.

    Bitwise the same run as :func:`_lloyd`: a step's labels are the row argmins of the
    rounded distances ``max((x_sq + X @ (-2C)') + c_sq, 0)``, but Elkan's bounds on the
    true distances (rounded outward) settle most labels without forming their rows, and a
    sample whose label they leave open is settled by the distances they leave open only
    when its nearest centre beats the next by more than the rounding of either
    computation could bridge (:mod:`ufsbench._kmeans_kernels`). The first step, any step
    where that fails, and any step that leaves a cluster empty (the refill orders samples
    by their rounded distances) are formed whole, exactly as :func:`_lloyd` forms them.
    """
    n, dim = X.shape
    k = centers.shape[0]
    centers = np.array(centers, dtype=np.float64)
    x_norm = np.sqrt(x_sq)
    ecoef = 4.0 * (dim + 4) * 2.0**-53  # see the kernels' module
    upper, lower, lmin = np.empty(n), np.empty((n, k)), np.empty(n)
    half, least = np.zeros((k, k)), np.empty(k)
    counts = np.empty(k, dtype=np.intp)
    G_buffer = np.empty((n, k))
    labels = None
    converged = False
    n_iter = 0

    def steps(centers, labels, n_iter, first):
        """Pruned steps from ``labels`` (see :func:`ufsbench._kmeans_kernels.pruned_steps`);
        with few clusters, every distance formed (no bounds)."""
        return kernels.pruned_steps(
            X, x_sq, x_norm, centers, labels, upper, lower, lmin, half, least, counts,
            ecoef, n_iter, max_iter, first, k <= SMALL_K,
        )  # fmt: skip

    if k <= SMALL_K:  # the first step too by the kernels, all its distances formed
        upper[:], lower[:], lmin[:], least[:] = np.inf, 0.0, 0.0, 0.0
        np.fill_diagonal(half, np.inf)
        status, n_iter, labels, centers = steps(centers, np.zeros(n, dtype=np.intp), 0, True)
        converged = status == 0
        if status == 3:  # undecided: from the start as _lloyd
            labels = None
    while n_iter < max_iter and not converged:
        n_iter += 1  # a step formed whole, as _lloyd forms it
        c_sq = np.einsum("ij,ij->i", centers, centers)
        G = np.matmul(X, (-2.0 * centers).T, out=G_buffer)  # the same GEMM, no new array
        new_labels, own = np.empty(n, dtype=np.intp), np.empty(n)
        previous = np.empty(0, dtype=np.intp) if labels is None else labels
        n_changed, n_empty = kernels.assign(G, x_sq, c_sq, new_labels, own, counts, previous)
        if n_empty:
            empty = np.flatnonzero(counts == 0)
            farthest = np.argsort(-own, kind="stable")[: len(empty)]
            new_labels[farthest] = empty
            counts = np.bincount(new_labels, minlength=k).astype(np.intp)
            if labels is not None:
                n_changed = np.count_nonzero(new_labels != labels)
        if labels is not None and n_changed == 0:
            converged = True
            break
        first = labels is None
        labels = new_labels
        old = centers
        centers = kernels.cluster_means(X, labels, counts, centers)
        if k > SMALL_K and (first or n_changed > PLAIN_SHARE * n):
            continue  # while many labels change, the bounds would not pay
        cmax = float(np.sqrt(c_sq.max()))
        kernels.init_bounds(G, x_sq, c_sq, labels, x_norm, cmax, ecoef, upper, lower, lmin)
        half[:] = 0.0  # the bounds from earlier centres do not hold
        kernels.move_bounds(old, centers, labels, upper, lower, lmin, half, least)
        # Then pruned steps until one must be formed whole or the run ends.
        status, n_iter, labels, centers = steps(centers, labels, n_iter, False)
        if status == 0:
            converged = True
            break
    return _result(X, centers, labels, n_iter, converged)


def _result(X, centers, labels, n_iter, converged) -> KMeansResult:
    """The run's result (no ``init``: :func:`litekmeans` fills it in)."""
    return KMeansResult(
        labels=labels,
        inertia=_inertia(X, centers, labels),
        centers=centers,
        init=np.empty(0, dtype=np.int64),
        n_iter=n_iter,
        converged=converged,
    )


def _inertia(X, centers, labels) -> float:
    """Sum of squared distances of the samples to their centres, from the residuals (not
    the expansion the assignment uses). One temporary, not two: on a busy machine the
    page faults of a second n x d array cost more than the arithmetic (100 vs 540 us for
    1673 x 50); the residual is the same ``X - centers[labels]`` element by element."""
    residual = centers[labels]
    np.subtract(X, residual, out=residual)
    return float(np.einsum("ij,ij->", residual, residual))


def _indicator(n, k):
    """A (k, n) CSR 0-1 matrix with ``n`` entries, its structure rewritten by each update."""
    return sp.csr_matrix(
        (np.ones(n), np.arange(n), np.append(np.zeros(k, dtype=np.intp), n)), shape=(k, n)
    )


def _update_centers(X, labels, counts, old_centers, indicator=None) -> np.ndarray:
    """Cluster means; a cluster still empty after the refill keeps its old centre.

    The sums are the product of the (k, n) 0-1 cluster indicator in CSR form (row ``j``
    lists the samples of cluster ``j`` in increasing order) with ``X``: each cluster's sum
    accumulates its samples one by one in sample order. ``indicator`` (from
    :func:`_indicator`) is reused: its index arrays are overwritten in place, which
    spares building a sparse matrix on every iteration.
    """
    n, k = X.shape[0], old_centers.shape[0]
    E = _indicator(n, k) if indicator is None else indicator
    np.cumsum(counts, out=E.indptr[1:])
    # A stable sort keeps each cluster's samples in increasing order; on 16-bit keys
    # NumPy's stable sort is a radix sort.
    keys = labels.astype(np.int16) if k <= np.iinfo(np.int16).max else labels
    E.indices[:] = np.argsort(keys, kind="stable")
    sums = E @ X  # (k, d)
    return _means(sums, counts, old_centers)


def _means(sums, counts, old_centers):
    """``sums / counts`` per cluster; an empty cluster keeps its old centre."""
    filled = counts > 0
    if filled.all():
        sums /= counts[:, None]
        return sums
    centers = old_centers.copy()
    centers[filled] = sums[filled] / counts[filled, None]
    return centers


def cluster(
    X,
    n_clusters: int,
    *,
    engine: str = "litekmeans",
    n_init: int = 1,
    max_iter: int = 100,
    init: str = "random",
    random_state=None,
) -> np.ndarray:
    """Cluster labels of ``X`` from one of the k-means engines.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_clusters : int
    engine : {"litekmeans", "sklearn"}, default="litekmeans"
        ``"litekmeans"``: :func:`litekmeans` (the FSASL framework's k-means).
        ``"sklearn"``: ``sklearn.cluster.KMeans(init=init, n_init=n_init,
        max_iter=max_iter, random_state=random_state)``.
    n_init : int, default=1
    max_iter : int, default=100
    init : str, default="random"
        Start of the scikit-learn engine (``"random"`` or ``"k-means++"``); litekmeans
        only supports ``"random"`` (random distinct samples).
    random_state : int or None, default=None

    Returns
    -------
    ndarray of shape (n_samples,)
        Cluster labels.

    Notes
    -----
    Raises ``ValueError`` for an unknown engine, and for ``init`` other than
    ``"random"`` with the litekmeans engine.
    """
    if engine == "litekmeans":
        if init != "random":
            raise ValueError(f"engine 'litekmeans' supports only init='random', got {init!r}")
        return litekmeans(
            X, n_clusters, max_iter=max_iter, n_init=n_init, random_state=random_state
        ).labels
    if engine == "sklearn":
        from sklearn.cluster import KMeans

        model = KMeans(
            n_clusters=n_clusters,
            init=init,
            n_init=n_init,
            max_iter=max_iter,
            random_state=random_state,
        )
        return model.fit(np.asarray(X, dtype=np.float64)).labels_
    known = ", ".join(map(repr, ENGINES))
    raise ValueError(f"unknown k-means engine {engine!r} (known: {known})")
