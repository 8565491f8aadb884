"""MaxVariance: features ranked by their sample variance, largest first.

The score of feature ``j`` is ``var(X[:, j])`` (population variance, ``ddof=0``). It is
scale-dependent by design: it is the baseline that selects what a variance-driven method
such as PCA or k-means on raw features would notice first.
"""

from __future__ import annotations

from .base import Selection
from .params import Declaration


def select(X, *, graph=None, n_clusters=None, random_state=0, feature_counts=None) -> Selection:
    """Score every feature by its variance.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated data.
    graph, n_clusters, random_state, feature_counts : Ignored
        Accepted for the common method signature.

    Returns
    -------
    Selection
        ``scores`` the column variances; ``ranking`` largest variance first.
    """
    return Selection.from_scores(X.var(axis=0))


METHODS = {
    "maxvariance": Declaration(
        title="MaxVariance",
        references=("Features ranked by their variance, largest first.",),
    ),
}
