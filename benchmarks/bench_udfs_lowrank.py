"""UDFS on data with far more features than samples: low-rank route against dense eigh.

    python benchmarks/bench_udfs_lowrank.py [--datasets glioma tox_171 orl] [--mirror PATH]
        [--gammas 1e-5 0.1 1000]

For each dataset (read from the mirror) and each ``gamma`` (``lam`` and ``k`` at their
defaults, ``max_iter=20``, ``tol=1e-4``, BLAS on one thread), runs ``udfs.select`` with
``eig_solver="dense"`` (a ``d x d`` eigendecomposition per iteration) and ``"lowrank"``
(LOBPCG preconditioned by the Woodbury inverse of ``gamma D + B B^T``, ``M = B B^T``) and
prints both timings, their ratio, the final objectives and the top-50 overlap. With
``n < d`` the first step is degenerate (see the ``udfs`` notes), so the two rankings may
differ while both reach objectives of the same size.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from ufsbench.data import load_dataset
from ufsbench.datasets import find_in_mirror, load_registry
from ufsbench.methods import udfs

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["glioma", "tox_171", "orl"])
    parser.add_argument("--gammas", nargs="+", type=float, default=[1e-5, 0.1, 1e3])
    parser.add_argument("--mirror", type=Path, default=ROOT.parent / "shared" / "datasets")
    args = parser.parse_args(argv)
    registry = load_registry()
    print("dataset\tn x d\tgamma\tdense s\tlowrank s\tratio\tdense J\tlowrank J\ttop-50 shared")
    with threadpool_limits(limits=1):
        for name in args.datasets:
            entry = registry[name]
            X, y, _ = load_dataset(entry, find_in_mirror(entry, args.mirror))
            c = len(np.unique(y))
            for gamma in args.gammas:
                runs = {}
                for route in ("dense", "lowrank"):
                    start = time.perf_counter()
                    sel = udfs.select(X, n_clusters=c, gamma=gamma, eig_solver=route)
                    runs[route] = (time.perf_counter() - start, sel)
                (t_dense, dense), (t_low, low) = runs["dense"], runs["lowrank"]
                shared = len(set(dense.ranking[:50]) & set(low.ranking[:50]))
                shape = f"{X.shape[0]} x {X.shape[1]}"
                timings = (f"{t_dense:.2f}", f"{t_low:.2f}", f"{t_dense / t_low:.0f}")
                objectives = (f"{dense.history[-1]:.6g}", f"{low.history[-1]:.6g}")
                print(name, shape, gamma, *timings, *objectives, shared, sep="\t", flush=True)


if __name__ == "__main__":
    main()
