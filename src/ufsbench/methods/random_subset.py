"""RandomSubset: a seeded random ranking, the control every selection should beat.

The ranking is a uniformly random permutation drawn from ``seed`` alone, not from the
run's ``random_state``: the method's grid is a list of seeds, so each grid point is one
fixed random ranking whatever the evaluation seed. ``scores`` are the ranks reversed
(best feature ``d``, worst ``1``), so higher is better as for every method.
"""

from __future__ import annotations

import numpy as np

from .base import Selection
from .params import SEED, Declaration


def select(
    X, *, graph=None, n_clusters=None, random_state=0, feature_counts=None, seed=0
) -> Selection:
    """Rank the features in a random order drawn from ``seed``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Validated data; only its number of columns is used.
    graph, n_clusters, random_state, feature_counts : Ignored
        Accepted for the common method signature; ``random_state`` is deliberately unused.
    seed : int, default=0
        Seed of the permutation.

    Returns
    -------
    Selection
        ``ranking`` a random permutation; ``scores[ranking] = d, d - 1, ..., 1``.
    """
    n_features = X.shape[1]
    permutation = np.random.default_rng(seed).permutation(n_features)
    scores = np.empty(n_features)
    scores[permutation] = np.arange(n_features, 0, -1)
    return Selection.from_scores(scores)


METHODS = {
    "random": Declaration(
        title="RandomSubset",
        params={
            "seed": SEED,
        },
        grid={
            "seed": [0],
        },
        references=("Control: a seeded random ranking; its grid is a list of seeds.",),
    ),
}
