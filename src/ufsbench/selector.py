"""A scikit-learn selector around every registered method."""

from __future__ import annotations

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .api import rank_features
from .methods.registry import get_method


class UFSSelector(SelectorMixin, BaseEstimator):
    """Unsupervised feature selection with any method of the ufsbench registry.

    Parameters
    ----------
    method : str or callable, default="lapscore"
        Registry name (``ufsbench.REGISTRY``): allfea, random, maxvariance, lapscore,
        spec, mcfs, udfs, ndfs, ...; or a ``"module:function"`` path, an installed
        ``ufsbench.methods`` entry point's name, or a function (docs/own-method.md).
    n_features_to_select : int, default=None
        Number of features kept; None keeps half of them (rounded down, at least one).
        More than the data has raises ``ValueError`` at ``fit``.
    n_clusters : int, default=None
        Number of clusters, for the methods that model them (mcfs, spec, udfs, ndfs).
    n_neighbors : int, default=5
        k of the sample k-NN graph of graph-based methods.
    random_state : int, default=0
        Seed of the method's random choices.
    **params
        The method's hyper-parameters (e.g. ``alpha=0.1`` for ndfs). They behave like
        constructor parameters: ``get_params``/``set_params``/``clone`` see them.

    Attributes
    ----------
    scores_ : ndarray of shape (n_features_in_,)
        Feature scores, higher is better.
    ranking_ : ndarray of shape (n_features_in_,)
        Feature indices, best first (not scikit-learn's RFE ranks).
    n_iter_ : int
        Iterations of an iterative method (0 otherwise).
    objective_ : ndarray of shape (n_iter_,)
        Objective after each iteration.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from ufsbench import UFSSelector
    >>> X = np.random.default_rng(0).normal(size=(40, 5)) * [1, 1, 9, 1, 1]
    >>> UFSSelector(method="maxvariance", n_features_to_select=1).fit(X).get_support()
    array([False, False,  True, False, False])
    """

    def __init__(
        self,
        method="lapscore",
        n_features_to_select=None,
        *,
        n_clusters=None,
        n_neighbors=5,
        random_state=0,
        **params,
    ):
        self.method = method
        self.n_features_to_select = n_features_to_select
        self.n_clusters = n_clusters
        self.n_neighbors = n_neighbors
        self.random_state = random_state
        # The method's own hyper-parameters vary by method, so they are kept in a dict
        # that get_params/set_params expose like constructor parameters.
        self._hyper = dict(params)

    def get_params(self, deep=True):
        return {**super().get_params(deep=deep), **self._hyper}

    def set_params(self, **params):
        base = set(super().get_params(deep=False))
        for name, value in params.items():
            if name in base:
                setattr(self, name, value)
            else:
                self._hyper[name] = value
        return self

    def fit(self, X, y=None, graph=None):
        """Rank the features of ``X`` (``y`` is ignored; ``graph`` is an optional affinity)."""
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        spec = get_method(self.method)
        d = X.shape[1]
        k = self.n_features_to_select
        if k is None:
            k = max(1, d // 2)
        elif isinstance(k, bool) or not isinstance(k, Integral) or k < 1:
            raise ValueError(f"n_features_to_select must be a positive integer, got {k!r}")
        if k > d:
            raise ValueError(f"cannot select {k} features: X has {d} features")
        n_neighbors = min(self.n_neighbors, X.shape[0] - 1)
        hyper = dict(self._hyper)
        selection = rank_features(
            X,
            self.method if isinstance(self.method, str) else spec,
            graph=graph,
            n_clusters=self.n_clusters,
            random_state=self.random_state,
            feature_counts=[k] if spec.count_dependent else None,
            n_neighbors=n_neighbors,
            **hyper,
        )
        self.scores_ = selection.scores
        self.ranking_ = selection.ranking
        self.n_iter_ = selection.n_iter
        self.objective_ = selection.history
        self.selected_ = np.asarray(selection.top(k))
        return self

    def _get_support_mask(self):
        check_is_fitted(self)
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.selected_] = True
        return mask

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        tags.target_tags.required = False
        return tags
