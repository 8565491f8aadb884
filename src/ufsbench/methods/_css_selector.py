"""Column subset selection methods as k-means benchmark selectors (pocss.md section 8).

Selection runs on the paper's matrix: the data with every column scaled to unit length
(``scale="unit_column"``, a no-op when the workflow already normalised so). The selected
*indices* are handed back; the benchmark clusters its own ``X[:, idx]``.

* count-dependent methods (every CSS method but Greedy) return ``subsets[m]`` for every
  feature count ``m``: POCSS from one run at ``k_max`` (the archive member with the
  smallest ``f`` among those with at most ``m`` columns, option A), the others from one
  run per ``m``. Such a subset may have fewer than ``m`` columns (POCSS, or data of low
  rank); it is evaluated as returned.
* the ``ranking`` is the ``k_max`` subset ordered by backward elimination, followed by a
  greedy continuation (option C, :mod:`ufsbench.css.ranking`); Greedy's own order is
  already nested and is its ranking.
"""

from __future__ import annotations

import numpy as np

from .base import Selection

DEFAULT_K = 50


def run_seed(random_state: int, seed: int) -> int:
    """The solver seed of one run: the job's seed combined with the grid's ``seed``."""
    return int(np.random.SeedSequence([int(random_state), int(seed)]).generate_state(1)[0])


def css_selection(
    method: str,
    X,
    *,
    random_state=0,
    feature_counts=None,
    k=None,
    scale="unit_column",
    seed=0,
    **params,
) -> Selection:
    """Run CSS ``method`` and express its result as a :class:`Selection`."""
    # Imported here: the solvers load numba, which discovering the registry need not.
    from ..css.ranking import subset_ranking
    from ..css.solvers import GramCache, solve

    X = np.asarray(X, dtype=np.float64)
    n = X.shape[1]
    if scale == "unit_column":
        norms = np.linalg.norm(X, axis=0)
        X = X / np.where(norms > 0, norms, 1.0)
    counts = list(feature_counts) if feature_counts is not None else []
    k_max = int(k) if k is not None else (max(counts) if counts else DEFAULT_K)
    k_max = min(k_max, n)  # a budget above the number of columns allows them all
    cache = GramCache(X)
    solver_seed = run_seed(random_state, seed)
    if method == "greedy_css":
        order = solve(method, X, n, cache=cache, **params).subset
        seen = set(order.tolist())
        ranking = np.array([*order.tolist(), *(j for j in range(n) if j not in seen)])
        return _from_ranking(ranking)
    main = solve(method, X, k_max, seed=solver_seed, cache=cache, **params)
    ranking = subset_ranking(cache.G, main.subset)
    history = ()
    if method == "pocss":
        history = main.info["trace"][:, 2]
        archive = main.info["archive"]
        subsets = {m: archive[max(s for s in archive if s <= m)] for m in counts}
    else:
        subsets = {
            m: main.subset
            if m == k_max
            else solve(method, X, m, seed=solver_seed, cache=cache, **params).subset
            for m in counts
        }
    return _from_ranking(ranking, history=history, subsets=subsets or None)


def _from_ranking(ranking, *, history=(), subsets=None) -> Selection:
    n = len(ranking)
    scores = np.empty(n)
    scores[np.asarray(ranking)] = np.arange(n, 0, -1, dtype=np.float64)
    if subsets:
        subsets = {int(m): np.asarray(s, dtype=np.int64) for m, s in subsets.items()}
    return Selection.from_scores(scores, history=history, n_iter=len(history), subsets=subsets)
