"""ACC and both NMIs of one clustering: one counted contingency table vs three sorted ones.

    python benchmarks/speed/bench_metrics.py [--datasets usps49 coil20 jaffe]
        [--runs 200] [--repeats 5] [--mirror PATH] [--out TSV]

Every k-means run of an evaluation is scored by ACC, NMI (max) and NMI (sqrt). Until
this change each score built its own contingency table by sorting both labelings
(``np.unique``), and the two NMIs each recomputed the mutual information; now
:func:`ufsbench.metrics.clustering_scores` counts one table (``np.bincount`` of the
label codes) and derives all three from it. The single-score functions keep the code
before (``single_scores`` below), so both run here. The labelings are ``--runs`` k-means
runs (litekmeans, the evaluation's engine) on each dataset's first 50 features; the
script checks that both give the same three floats, bit for bit, and times scoring all
of them (CPU s, best of ``--repeats``; ``ratio`` = before / after, measured in one run).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402


def single_scores(y_true, y_pred) -> tuple[float, float, float]:
    """The evaluation before: the three single-score functions, a table each."""
    from ufsbench.metrics import clustering_accuracy, nmi

    return (
        clustering_accuracy(y_true, y_pred),
        nmi(y_true, y_pred, "max"),
        nmi(y_true, y_pred, "sqrt"),
    )


def main(argv=None):
    from ufsbench.kmeans import cluster
    from ufsbench.metrics import clustering_scores

    p = _cli.parser(__doc__.splitlines()[0], ["usps49", "coil20", "jaffe"])
    p.add_argument("--runs", type=int, default=200, help="k-means labelings per dataset")
    args = p.parse_args(argv)
    rows = []
    with _cli.one_thread():
        for name in args.datasets:
            X, y = _cli.load(name, args.mirror)
            k = len(np.unique(y))
            Xm = np.ascontiguousarray(X[:, :50])
            labelings = [cluster(Xm, k, random_state=seed) for seed in range(args.runs)]

            def score_all(scores, y=y, labelings=labelings):
                return [scores(y, labels) for labels in labelings]

            before, old = _cli.best_time(lambda: score_all(single_scores), args.repeats)
            after, new = _cli.best_time(lambda: score_all(clustering_scores), args.repeats)
            rows.append(
                [
                    name,
                    len(y),
                    k,
                    args.runs,
                    1e6 * before / args.runs,
                    1e6 * after / args.runs,
                    before / after,
                    old == new,
                ]
            )
    columns = ["dataset", "n", "k", "runs", "before_us_per_run", "after_us_per_run", "ratio"]
    _cli.write_tsv("metrics", [*columns, "identical"], rows, args.out)


if __name__ == "__main__":
    main()
