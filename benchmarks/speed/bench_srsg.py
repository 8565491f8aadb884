"""Seconds of the three stages of the SRSG pipeline on COIL-20 (1440 x 1024, 20 classes).

    python benchmarks/speed/bench_srsg.py [--datasets coil20 coil20_c4] [--mirror PATH]
        [--n-jobs J] [--out TSV]

Stages: (1) the l1 initialisation (per-sample LARS on the shared Gram matrix, lambda =
0.1; Gram matrix and lambda_max(G) included), (2) SRSG (FPGD-SP coordinate descent with
the paper's parameters gamma = 0.1, K = 5, M_c = M_p = 100, eps = 1e-5; colored
schedule), (3) NJW spectral clustering of W (k-means with 10 starts, seed 0). Also
reports ACC/NMI of the run, sweeps used and safeguard hits. Data: registry datasets
through the checked loader (``coil20_cC``: the paper's first-C-class subsets); one BLAS
thread. CPU seconds of this process (with ``--n-jobs`` > 1 the l1 workers' are not
counted) and wall seconds.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

from ufsbench.sparse_graph import (  # noqa: E402
    gram,
    l1_codes,
    njw_spectral_clustering,
    scores,
    srsg,
    unit_rows,
)


def stages(X, y, n_jobs):
    """``(rows, result, score)``: (stage, CPU s, wall s) of each stage."""
    c = len(np.unique(y))
    timed = []

    def clock(name, function):
        c0, t0 = time.process_time(), time.perf_counter()
        out = function()
        timed.append((name, time.process_time() - c0, time.perf_counter() - t0))
        return out

    def init():
        Xn = unit_rows(X)
        return l1_codes(Xn, 0.1, n_jobs=n_jobs, normalize=False, G=gram(Xn))

    codes = clock("l1_init", init)
    result = clock("srsg", lambda: srsg(X, gamma=0.1, K=5, init_codes=codes))
    labels = clock("spectral", lambda: njw_spectral_clustering(result.affinity, c, random_state=0))
    return timed, codes, result, scores(y, labels)


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], ["coil20"], repeats=1)
    p.add_argument("--n-jobs", type=int, default=1, help="processes of the l1 stage")
    p.add_argument("--verbose", action="store_true")
    args = p.parse_args(argv)
    if args.verbose:
        logging.basicConfig(level=logging.INFO, format="%(message)s")
    columns = ["dataset", "n x d", "stage", "cpu_s", "wall_s", "detail"]
    rows = []
    with _cli.one_thread():
        for name in args.datasets:
            X, y = _cli.load(name, args.mirror)
            timed, codes, result, s = stages(X, y, args.n_jobs)
            shape = f"{X.shape[0]}x{X.shape[1]}"
            details = {
                "l1_init": f"nnz/row {np.count_nonzero(codes) / len(X):.1f}",
                "srsg": f"{result.n_sweeps} sweeps, converged {result.converged}, "
                f"{result.n_colours} colours, safeguard hits {result.safeguard_hits}, "
                f"nnz/row {result.nnz_final:.1f}",
                "spectral": f"ACC {s['acc']:.4f} NMI(max) {s['nmi_max']:.4f}",
            }
            for stage, cpu, wall in timed:
                rows.append((name, shape, stage, cpu, wall, details[stage]))
            rows.append((name, shape, "total", sum(t[1] for t in timed),
                         sum(t[2] for t in timed), ""))  # fmt: skip
    _cli.write_tsv("srsg", columns, rows, args.out)


if __name__ == "__main__":
    main()
