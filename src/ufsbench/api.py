"""``rank_features``: run any registered method on a data matrix."""

from __future__ import annotations

import time

import numpy as np

from .graph import check_graph, knn_graph
from .methods.base import Selection
from .methods.registry import get_method
from .validation import (
    check_graph_weights,
    check_method_input,
    check_n_clusters,
    check_samples,
)


def check_data(X, *, name="X") -> np.ndarray:
    """``X`` as a finite float64 matrix with at least 2 samples and 1 feature (a sparse
    matrix raises ``TypeError``); see :func:`ufsbench.validation.check_samples`."""
    return check_samples(X, name=name)


def check_feature_counts(feature_counts, n_features: int) -> list[int] | None:
    """Sorted, unique, each in ``1..n_features``."""
    if feature_counts is None:
        return None
    counts = sorted({int(m) for m in np.atleast_1d(feature_counts)})
    if not counts:
        raise ValueError("feature_counts is empty")
    if counts[0] < 1:
        raise ValueError(f"feature counts must be >= 1, got {counts[0]}")
    if counts[-1] > n_features:
        raise ValueError(f"cannot select {counts[-1]} features: the data has {n_features} features")
    return counts


def rank_features(
    X,
    method: str,
    *,
    graph=None,
    n_clusters: int | None = None,
    random_state: int = 0,
    feature_counts=None,
    n_neighbors: int = 5,
    **params,
) -> Selection:
    """Rank the features of ``X`` with a registered unsupervised method.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    method : str or callable
        A name from :data:`ufsbench.methods.REGISTRY` (e.g. ``"lapscore"``, ``"ndfs"``),
        the name of an installed ``ufsbench.methods`` entry point, a ``"module:function"``
        path, or a function that follows the contract of docs/own-method.md.
    graph : sparse matrix of shape (n_samples, n_samples), default=None
        Symmetric sample affinity for graph-based methods. When None, a k-NN graph is
        built with ``n_neighbors`` and the method's ``weight``/``t`` parameters.
    n_clusters : int, default=None
        Number of clusters (required by the methods that model clusters).
    random_state : int, default=0
        Seed of every random choice the method makes.
    feature_counts : sequence of int, default=None
        Counts at which count-dependent methods (e.g. MCFS) must produce a subset.
    n_neighbors : int, default=5
        k of the k-NN graph built when ``graph`` is None.
    **params
        The method's hyper-parameters; unknown names raise ``ValueError``.

    Returns
    -------
    Selection
        ``ranking`` (best first), ``scores`` (higher is better), ``history``,
        ``n_iter``, ``seconds`` and, for count-dependent methods, ``subsets``.

    Examples
    --------
    >>> import numpy as np
    >>> from ufsbench import rank_features
    >>> X = np.random.default_rng(0).normal(size=(30, 4)) * [1, 5, 1, 1]
    >>> rank_features(X, "maxvariance").ranking[0]
    np.int64(1)
    """
    spec = get_method(method)
    X = check_method_input(X)  # the input checks every method shares (ufsbench.validation)
    n, d = X.shape
    checked = spec.check_params(params)
    graph_params, hyper = spec.split_graph_params(checked)
    counts = check_feature_counts(feature_counts, d)
    if spec.needs_n_clusters:
        n_clusters = check_n_clusters(n_clusters, n, method)
    if spec.graph is not None:
        if graph is None:
            graph = check_graph_weights(knn_graph(X, n_neighbors, **graph_params), graph_params)
        else:
            graph = check_graph_weights(check_graph(graph, n))
    start = time.perf_counter()
    selection = spec.function(
        X,
        graph=graph,
        n_clusters=n_clusters,
        random_state=random_state,
        feature_counts=counts,
        **hyper,
    )
    seconds = time.perf_counter() - start
    ranking = np.asarray(selection.ranking)
    if sorted(ranking.tolist()) != list(range(d)):
        raise RuntimeError(f"method {method!r} returned a ranking that is not a permutation")
    return selection.with_seconds(seconds)
