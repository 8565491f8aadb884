"""Solvers on data with far more features than samples: low-rank routes against dense ones.

    python benchmarks/speed/bench_lowrank.py [--methods udfs ulap l1ufs]
        [--datasets glioma orl] [--mirror PATH] [--first] [--out TSV]

With ``n << d`` (gene and face data) the (d, d) matrices of UDFS's and ULAP's W-steps
(``gamma D + X^T L X``) and of L1UFS's W-step and start (``lambda2 Q + (mu / 2) X^T L X``)
are a diagonal plus a matrix of rank at most ``n``. The low-rank routes never form them:
subspace iteration on the Woodbury inverse for the smallest eigenvectors (UDFS, ULAP),
(n, n) systems in the basis of the thin QR of ``diag(e)^-1/2 X^T`` (L1UFS). For each
dataset (from the mirror), method and setting below (``--first``: the first setting only),
the script runs
``rank_features`` once per route (``eig_solver`` / ``linear_solver`` = ``dense`` and
``lowrank``) on the 0-1 5-NN graph, BLAS on one thread, and reports both CPU timings, their
ratio, the final objectives and how many of the top-50 features the two rankings share.

The routes are exact and agree to rounding where the problem has one solution; with
``n < d`` the first W-step of UDFS and ULAP is degenerate (``D = I``: any basis of the null
space of ``X^T L X`` minimises it), so their rankings follow each route's basis and may
differ while the objectives stay of the same size. L1UFS is convex: its two routes share
the objective, and the ranking too unless the objective is flat in ``W`` (a tiny
``lambda2`` beside a large ``lambda1``: 26 of the top 50 on glioma at (1e4, 1e-5)).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

from ufsbench import rank_features  # noqa: E402

ROUTE_PARAM = {"udfs": "eig_solver", "ulap": "eig_solver", "l1ufs": "linear_solver"}
SETTINGS = {  # the ends and the middle of the papers' grids
    "udfs": [{"gamma": 0.1}, {"gamma": 1e-5}, {"gamma": 1e3}],
    "ulap": [{"gamma": 1.0}, {"gamma": 1e-5}, {"gamma": 1e3}],
    "l1ufs": [  # the last: tiny lambda2, where an earlier Woodbury route diverged on GLIOMA
        {"lambda1": 1.0, "lambda2": 1.0},
        {"lambda1": 1e-5, "lambda2": 1e5},
        {"lambda1": 1e4, "lambda2": 1e-5},
    ],
}


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], ["glioma", "orl"], repeats=1)
    p.add_argument("--methods", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    p.add_argument("--first", action="store_true", help="only the first setting")
    args = p.parse_args(argv)
    columns = ["dataset", "n x d", "method", "setting", "dense_s", "lowrank_s", "ratio",
               "dense_J", "lowrank_J", "top50_shared"]  # fmt: skip
    rows = []
    with _cli.one_thread():
        for name in args.datasets:
            X, y, c, graph = _cli.load_with_graph(name, args.mirror)
            for method in args.methods:
                for setting in SETTINGS[method][: 1 if args.first else None]:
                    runs = {}
                    for route in ("dense", "lowrank"):
                        params = {**setting, ROUTE_PARAM[method]: route}
                        start = time.process_time()
                        sel = rank_features(X, method, graph=graph, n_clusters=c, **params)
                        runs[route] = (time.process_time() - start, sel)
                    (t_dense, dense), (t_low, low) = runs["dense"], runs["lowrank"]
                    shared = len(set(dense.ranking[:50]) & set(low.ranking[:50]))
                    label = ",".join(f"{k}={v:g}" for k, v in setting.items())
                    rows.append((name, f"{X.shape[0]}x{X.shape[1]}", method, label, t_dense,
                                 t_low, t_dense / t_low, float(dense.history[-1]),
                                 float(low.history[-1]), shared))  # fmt: skip
    _cli.write_tsv("lowrank", columns, rows, args.out)


if __name__ == "__main__":
    main()
