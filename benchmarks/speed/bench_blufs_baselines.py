"""Seconds per run of the BLUFS paper's baselines on COIL20-sized data.

    python benchmarks/speed/bench_blufs_baselines.py [--datasets coil20] [--mirror PATH]
        [--budget 50] [--methods ...] [--out TSV]

One run per method (registry defaults, ``random_state=0``, one BLAS thread) on COIL20
(1440 x 1024, 20 clusters) through the checked loader; without the mirror, a registry
synthetic set runs (``--datasets synthetic_planted``). Count-dependent methods
(RNE, FSPCA, BLSFE) get ``feature_counts=[budget]``: one model, as the workflow runs per
feature count. Each row reports wall and CPU seconds (CPU time is the figure to trust on
a shared machine), iterations and seconds per iteration.

The per-iteration cost each method is built to (n samples, d features, c clusters,
m = s columns for RNE):

* SPCAFS: one partial ``eigh`` of a d x d matrix, O(d^2 c) after the O(d^3) reduction;
* FSPCA: a d x d x c product and an s x s ``eigh``; the start is a thin SVD of X;
* BLSFS: Cholesky of d x d when d <= n (else an n x n LU by the push-through identity),
  ``X^T L_P X`` with sparse ``L_P`` (10 non-zeros per column), the P step in column blocks;
* RNE: ``(A^T A)+ H`` (d^2 m) per inner step; ``(A^T A)- H`` through ``A^T (A H)``;
* BLSFE: dense n x n co-association matrices (the method's own design), ``X^T L_S X``,
  a partial ``eigh`` of n x n and a projected-gradient QP with d x d products.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

from ufsbench import rank_features  # noqa: E402
from ufsbench.methods import REGISTRY  # noqa: E402

METHODS = ("spcafs", "fspca", "blsfs", "rne", "blsfe")


def main(argv=None):
    p = _cli.parser(__doc__.split("\n\n")[0], ["coil20"], repeats=1)
    p.add_argument("--budget", type=int, default=50)
    p.add_argument("--methods", nargs="+", default=list(METHODS), choices=sorted(REGISTRY))
    args = p.parse_args(argv)
    columns = ["dataset", "n x d", "c", "method", "wall_s", "cpu_s", "iters", "cpu_s_per_iter"]
    rows = []
    with _cli.one_thread():
        for dataset in args.datasets:
            X, y = _cli.load(dataset, args.mirror)
            c = len(np.unique(y))
            for name in args.methods:
                counts = [args.budget] if REGISTRY[name].count_dependent else None
                wall, cpu = time.perf_counter(), time.process_time()
                sel = rank_features(X, name, n_clusters=c, feature_counts=counts)
                wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
                rows.append((dataset, f"{X.shape[0]}x{X.shape[1]}", c, name, wall, cpu,
                             sel.n_iter, cpu / max(sel.n_iter, 1)))  # fmt: skip
    _cli.write_tsv("blufs_baselines", columns, rows, args.out)


if __name__ == "__main__":
    main()
