"""MCFS with one budgeted LARS path per eigenvector against the former doubling restarts.

    python benchmarks/speed/mcfs_paths.py [--datasets jaffe coil20 usps49] [--repeats 3]
        [--mirror PATH]

Each dataset runs ``mcfs.select`` with the method's defaults (binary 5-NN graph, built
once outside the timings; ``n_eigen = n_clusters``; counts 5, 10, ..., 50). "before" is
the same call with ``_lasso_paths`` replaced by the former rule, written out below: every
path starts with ``max_iter = target`` and is recomputed with twice the steps until it
reaches ``target`` nonzeros. The table reports both CPU times (best of ``--repeats``,
alternating), their ratio, the ``lars_path`` calls and steps each side computed and
whether the two selections are identical (ranking, scores and subsets, byte for byte).
The peer comparison with scikit-feature (issue 27's target) is not made here.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

COUNTS = list(range(5, 55, 5))


def doubling_paths(Xc, Gram, Y, target, lars_path):
    """The former route: per eigenvector, restart with doubled ``max_iter`` until reached."""
    paths = []
    for y in Y.T:
        max_iter = target
        while True:
            _, _, coefs = lars_path(
                Xc, y, Xy=Xc.T @ y, Gram=Gram, method="lasso", max_iter=max_iter
            )
            reached = np.flatnonzero(np.count_nonzero(coefs, axis=0) >= target)
            if reached.size:
                paths.append(coefs[:, : reached[0] + 1])
                break
            if coefs.shape[1] - 1 < max_iter:
                paths.append(coefs)
                break
            max_iter *= 2
    return paths


def identical(a, b) -> bool:
    return (
        np.array_equal(a.ranking, b.ranking)
        and np.array_equal(a.scores, b.scores)
        and all(np.array_equal(a.subsets[m], b.subsets[m]) for m in a.subsets)
    )


def main(argv=None):
    args = _cli.parser(__doc__.splitlines()[0], ["jaffe", "coil20", "usps49"], 3).parse_args(argv)
    from ufsbench.methods import mcfs

    new_paths, lars_path = mcfs._lasso_paths, mcfs.lars_path
    tally = {"calls": 0, "steps": 0}

    def counting_lars_path(*a, **kw):
        result = lars_path(*a, **kw)
        tally["calls"] += 1
        tally["steps"] += result[2].shape[1] - 1
        return result

    def run(paths):
        mcfs._lasso_paths, mcfs.lars_path = paths, counting_lars_path
        tally.update(calls=0, steps=0)
        try:
            selection = mcfs.select(X, graph=graph, n_clusters=k, feature_counts=COUNTS)
        finally:
            mcfs._lasso_paths, mcfs.lars_path = new_paths, lars_path
        return selection, dict(tally)

    def before(Xc, Gram, Y, target):
        return doubling_paths(Xc, Gram, Y, target, counting_lars_path)

    rows = []
    with _cli.one_thread():
        for name in args.datasets:
            X, y, k, graph = _cli.load_with_graph(name, args.mirror)
            t_old = t_new = np.inf
            for _ in range(args.repeats):
                t, (old, old_tally) = _cli.best_time(lambda: run(before), 1)
                t_old = min(t_old, t)
                t, (new, new_tally) = _cli.best_time(lambda: run(new_paths), 1)
                t_new = min(t_new, t)
            rows.append(
                (
                    name, f"{X.shape[0]}x{X.shape[1]}", k, t_old, t_new, t_old / t_new,
                    old_tally["calls"], new_tally["calls"], old_tally["steps"],
                    new_tally["steps"], identical(old, new),
                )
            )  # fmt: skip
    columns = (
        "dataset", "shape", "n_eigen", "before_cpu_s", "after_cpu_s", "ratio_before_over_after",
        "before_calls", "after_calls", "before_steps", "after_steps", "identical",
    )  # fmt: skip
    _cli.write_tsv("mcfs_paths", columns, rows, args.out)


if __name__ == "__main__":
    main()
