"""Solvers on data with far more features than samples: low-rank routes against dense ones.

    python benchmarks/bench_lowrank.py [--methods udfs ulap l1ufs] [--datasets glioma orl]
        [--mirror PATH] [--first]

With ``n << d`` (gene and face data) the (d, d) matrices of UDFS's and ULAP's W-steps
(``gamma D + X^T L X``) and of L1UFS's W-step and start (``lambda2 Q + (mu / 2) X^T L X``)
are a diagonal plus a matrix of rank at most ``n``. The low-rank routes never form them:
subspace iteration on the Woodbury inverse for the smallest eigenvectors (UDFS, ULAP),
(n, n) systems in the basis of the thin QR of ``diag(e)^-1/2 X^T`` (L1UFS). For each
dataset (from the mirror), method and setting below (``--first``: the first setting only),
the script runs
``rank_features`` once per route (``eig_solver`` / ``linear_solver`` = ``dense`` and
``lowrank``) on the 0-1 5-NN graph, BLAS on one thread, and prints both timings, their
ratio, the final objectives and how many of the top-50 features the two rankings share.

The routes are exact and agree to rounding where the problem has one solution; with
``n < d`` the first W-step of UDFS and ULAP is degenerate (``D = I``: any basis of the null
space of ``X^T L X`` minimises it), so their rankings follow each route's basis and may
differ while the objectives stay of the same size. L1UFS is convex: its two routes share
the objective, and the ranking too unless the objective is flat in ``W`` (a tiny
``lambda2`` beside a large ``lambda1``: 26 of the top 50 on glioma at (1e4, 1e-5)).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from ufsbench import rank_features
from ufsbench.data import load_dataset
from ufsbench.datasets import find_in_mirror, load_registry
from ufsbench.graph import knn_graph

ROOT = Path(__file__).resolve().parents[1]
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
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    parser.add_argument("--datasets", nargs="+", default=["glioma", "orl"])
    parser.add_argument("--mirror", type=Path, default=ROOT.parent / "shared" / "datasets")
    parser.add_argument("--first", action="store_true", help="only the first setting")
    args = parser.parse_args(argv)
    registry = load_registry()
    columns = ("dataset", "n x d", "method", "setting", "dense s", "lowrank s", "ratio")
    print(*columns, "dense J", "lowrank J", "top-50 shared", sep="\t")
    with threadpool_limits(limits=1):
        for name in args.datasets:
            entry = registry[name]
            X, y, _ = load_dataset(entry, find_in_mirror(entry, args.mirror))
            graph = knn_graph(X, 5, weight="binary")
            c = len(np.unique(y))
            for method in args.methods:
                for setting in SETTINGS[method][: 1 if args.first else None]:
                    runs = {}
                    for route in ("dense", "lowrank"):
                        params = {**setting, ROUTE_PARAM[method]: route}
                        start = time.perf_counter()
                        sel = rank_features(X, method, graph=graph, n_clusters=c, **params)
                        runs[route] = (time.perf_counter() - start, sel)
                    (t_dense, dense), (t_low, low) = runs["dense"], runs["lowrank"]
                    shared = len(set(dense.ranking[:50]) & set(low.ranking[:50]))
                    shape = f"{X.shape[0]} x {X.shape[1]}"
                    label = ",".join(f"{k}={v:g}" for k, v in setting.items())
                    timings = (f"{t_dense:.2f}", f"{t_low:.2f}", f"{t_dense / t_low:.1f}")
                    objectives = (f"{dense.history[-1]:.6g}", f"{low.history[-1]:.6g}")
                    row = (name, shape, method, label, *timings, *objectives, shared)
                    print(*row, sep="\t", flush=True)


if __name__ == "__main__":
    main()
