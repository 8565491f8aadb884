"""Time one evaluate job's k-means protocol with and without the repeated-run cache.

    python benchmarks/bench_evaluate_cache.py [--dataset jaffe] [--methods rufs mcfs lsdcl]
        [--settings 16] [--mirror PATH]

An evaluate job scores every setting of a chunk (``chunk_size`` settings, 16 in the
paper configs) at every feature count with ``repeats`` k-means runs. Under ``shared``
seeding (the LSDCL protocol: one seed per dataset, count and run, whatever the setting),
a run is fully determined by its columns and its seed, so settings whose top-m features
repeat need not be clustered again (``evaluate_selection(..., cache=...)``).

Protocol: the dataset's Table 1 feature counts, 20 litekmeans runs, the first
``--settings`` settings of the method's grid in ``config/experiments/lsdcl.yaml`` (in the
workflow's order, so one select/evaluate chunk) on the 0-1 5-NN graph, BLAS on one
thread. Both sides evaluate the same selections, computed once beforehand; the script
checks that the score tables are identical and prints, per method, both timings, their
ratio and the number of k-means runs each side clustered.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml
from threadpoolctl import threadpool_limits

from ufsbench import rank_features
from ufsbench.data import load_dataset
from ufsbench.datasets import find_in_mirror, load_registry
from ufsbench.evaluate import evaluate_selection
from ufsbench.graph import knn_graph
from ufsbench.methods import get_method
from ufsbench.plan import expand_grid, split_method_options

ROOT = Path(__file__).resolve().parents[1]
GRIDS = ROOT / "config" / "experiments" / "lsdcl.yaml"


def evaluate_chunk(X, y, selections, counts, c, dataset, cache):
    frames = [
        evaluate_selection(
            X, y, sel, counts, n_clusters=c, repeats=20, seed_key=(dataset,), cache=cache
        )
        for sel in selections
    ]
    return pd.concat(frames, ignore_index=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="jaffe")
    parser.add_argument("--methods", nargs="+", default=["rufs", "mcfs", "lsdcl"])
    parser.add_argument("--settings", type=int, default=16)
    parser.add_argument("--mirror", type=Path, default=ROOT.parent / "shared" / "datasets")
    args = parser.parse_args(argv)
    entry = load_registry()[args.dataset]
    path = find_in_mirror(entry, args.mirror) if entry.file_entry else None
    X, y, _ = load_dataset(entry, path)
    counts, c = list(entry.feature_counts), len(np.unique(y))
    graph = knn_graph(X, 5, weight="binary")
    grids = yaml.safe_load(GRIDS.read_text())["methods"]
    print(f"{args.dataset} {X.shape}, counts {counts}, 20 runs per (setting, count)")
    print("method\tsettings\tplain s\tcached s\tratio\truns plain\truns cached\tidentical")
    with threadpool_limits(limits=1):
        for method in args.methods:
            spec = get_method(method)
            grid = split_method_options(method, grids[method], load_registry()).grid
            settings = expand_grid(method, grid)[: args.settings]
            selections = [
                rank_features(X, method, graph=graph if spec.graph else None, n_clusters=c,
                              random_state=0, feature_counts=counts, **params)
                for params in settings
            ]  # fmt: skip
            start = time.perf_counter()
            plain = evaluate_chunk(X, y, selections, counts, c, args.dataset, None)
            plain_s = time.perf_counter() - start
            cache = {}
            start = time.perf_counter()
            cached = evaluate_chunk(X, y, selections, counts, c, args.dataset, cache)
            cached_s = time.perf_counter() - start
            timings = (f"{plain_s:.2f}", f"{cached_s:.2f}", f"{plain_s / cached_s:.1f}")
            runs = (len(plain), len(cache), plain.equals(cached))
            print(method, len(settings), *timings, *runs, sep="\t", flush=True)


if __name__ == "__main__":
    main()
