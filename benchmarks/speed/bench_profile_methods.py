"""Profile one setting of RUFS, L1UFS and LSDCL on COIL20 and time it.

    python benchmarks/speed/bench_profile_methods.py [--methods rufs l1ufs lsdcl]
        [--mirror PATH] [--profile] [--top N] [--out TSV]

COIL20 (1440 x 1024, 20 clusters) through the checked loader from the mirror, the LSDCL
config's graph (5-NN, 0-1 weights), each method's default setting (the middle of its
grid: every weight 1), BLAS on one thread. Each method runs once; ``--profile`` runs it
under cProfile and prints the ``--top`` functions by internal time. The script prints and
writes (``--out``) the CPU seconds per setting and a SHA-256 of the ranking, so a
before/after pair of runs shows both the time and that the ranking did not move.
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import io
import pstats
import time
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from ufsbench import rank_features
from ufsbench.data import load_dataset
from ufsbench.datasets import find_in_mirror, load_registry
from ufsbench.graph import knn_graph

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = {
    "rufs": {"nu": 1.0, "alpha": 1.0, "beta": 1.0},
    "l1ufs": {"lambda1": 1.0, "lambda2": 1.0},
    "lsdcl": {"lambda1": 1.0, "lambda2": 1.0, "gamma": 1.0},
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--methods", nargs="+", default=list(SETTINGS), choices=list(SETTINGS))
    parser.add_argument("--dataset", default="coil20")
    parser.add_argument("--mirror", type=Path, default=ROOT.parent / "shared" / "datasets")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--label", default="", help="a tag for the rows (e.g. before/after)")
    args = parser.parse_args(argv)
    entry = load_registry()[args.dataset]
    X, y, _ = load_dataset(entry, find_in_mirror(entry, args.mirror))
    c = len(np.unique(y))
    graph = knn_graph(X, 5, weight="binary")
    rows = []
    with threadpool_limits(limits=1):
        for method in args.methods:
            profiler = cProfile.Profile(time.process_time) if args.profile else None
            start = time.process_time()
            if profiler:
                profiler.enable()
            sel = rank_features(X, method, graph=graph, n_clusters=c, **SETTINGS[method])
            if profiler:
                profiler.disable()
            seconds = time.process_time() - start
            digest = hashlib.sha256(np.asarray(sel.ranking, dtype=np.int64).tobytes()).hexdigest()
            setting = ",".join(f"{k}={v:g}" for k, v in SETTINGS[method].items())
            rows.append((args.label, args.dataset, method, setting, f"{seconds:.2f}", digest[:16]))
            print(*rows[-1], sep="\t", flush=True)
            if profiler:
                text = io.StringIO()
                pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(args.top)
                print(text.getvalue(), flush=True)
    if args.out:
        header = ("label", "dataset", "method", "setting", "cpu_s", "ranking_sha256_16")
        new = not args.out.exists()
        with args.out.open("a") as handle:
            if new:
                print(*header, sep="\t", file=handle)
            for row in rows:
                print(*row, sep="\t", file=handle)


if __name__ == "__main__":
    main()
