"""AllFea: the all-features baseline.

Every paper compares its selections with k-means on all ``d`` features. This "method"
selects nothing: all scores are zero, so the ranking is the identity order, and the
evaluation (``MethodSpec.uses_all_features``) clusters on every feature.
"""

from __future__ import annotations

import numpy as np

from .base import Selection
from .params import Declaration


def select(X, *, graph=None, n_clusters=None, random_state=0, feature_counts=None) -> Selection:
    """Score every feature 0, so the ranking is ``0, 1, ..., d - 1``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated data; only its number of columns is used.
    graph, n_clusters, random_state, feature_counts : Ignored
        Accepted for the common method signature.

    Returns
    -------
    Selection
        ``scores`` all zero and ``ranking`` the identity permutation.
    """
    return Selection.from_scores(np.zeros(X.shape[1]))


METHODS = {
    "allfea": Declaration(
        title="AllFea",
        uses_all_features=True,
        references=("k-means on all features: the baseline every paper reports.",),
    ),
}
