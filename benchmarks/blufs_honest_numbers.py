"""BLUFS oracle cell vs the paper's, with its honest companions, in one process.

    python benchmarks/blufs_honest_numbers.py warpar10p [--mirror PATH] [--grid full|quick]

The workflow (config/experiments/blufs.yaml) computes the same numbers job by job; this
script runs them in one process for a quick measurement on one dataset: the two-stage
search of spec blufs.md §2.8 (stage 1 (alpha, beta) at lam = mu = 1, stage 2 (mu, lam) at
the stage-1 winner of each feature count), the paper's k-means protocol (10 repeats, each
the best of 10 litekmeans starts, <= 50 iterations), the oracle ACC cell, its winner re-run
with 10 fresh seeds, the default setting at its best count and the RandomSubset oracle
over 127 random subsets per count. One BLAS thread.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.io
from threadpoolctl import threadpool_limits

from ufsbench import rank_features
from ufsbench.evaluate import evaluate_selection
from ufsbench.methods.registry import get_method
from ufsbench.papers.blufs import oracle_cells
from ufsbench.plan import expand_grid, parse_setting_id, setting_id
from ufsbench.reference import load_reference
from ufsbench.tuning import reseed, run_settings, stage1_winners, stage2_settings

ROOT = Path(__file__).resolve().parents[1]
EVALUATION = {"repeats": 10, "kmeans": "litekmeans", "n_init": 10, "max_iter": 50,
              "init": "random"}  # fmt: skip
GRIDS = {"full": [10.0**p for p in range(-4, 4)], "quick": [1e-2, 1.0, 1e2]}
COUNTS = list(range(10, 101, 10))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("--mirror", default=str(ROOT.parent / "shared" / "datasets"))
    parser.add_argument("--grid", choices=sorted(GRIDS), default="full")
    parser.add_argument("--random-draws", type=int, default=127)
    args = parser.parse_args()
    data = scipy.io.loadmat(Path(args.mirror) / f"{args.dataset}.mat")
    X, y = data["X"].astype(float), data["Y"].ravel()
    c, name, grid = len(np.unique(y)), args.dataset, GRIDS[args.grid]
    spec = get_method("blufs")
    start = time.perf_counter()
    with threadpool_limits(1):
        stage1 = {}
        for point in expand_grid("blufs", {"alpha": grid, "beta": grid}):
            params = spec.check_params(point)
            stage1[setting_id(params)] = params
        common = dict(dataset=name, n_clusters=c, evaluation=EVALUATION)
        _, scores1 = run_settings(X, y, "blufs", [(sid, p, COUNTS) for sid, p in stage1.items()],
                                  **common)  # fmt: skip
        winners = stage1_winners(scores1, anchor="per_count")
        settings2 = stage2_settings(spec, stage1, winners, {"mu": grid, "lam": grid})
        _, scores2 = run_settings(X, y, "blufs", settings2, **common)
        scores = pd.concat([scores1, scores2], ignore_index=True)
        scores["is_default"] = scores["params"] == setting_id(spec.check_params({}))
        cell = oracle_cells(scores, metrics=("acc",)).iloc[0]
        default = oracle_cells(scores[scores["is_default"]], metrics=("acc",)).iloc[0]
        again = reseed(X, y, "blufs", parse_setting_id(spec, cell["params"]),
                       int(cell["n_features"]), seeds=10, **common)  # fmt: skip
        random = []
        for seed in range(args.random_draws):
            sel = rank_features(X, "random", seed=seed)
            rows = evaluate_selection(X, y, sel, COUNTS, n_clusters=c,
                                      seed_key=(name, "random", seed), repeats=10,
                                      engine="litekmeans", n_init=10, max_iter=50)  # fmt: skip
            random.append(rows.groupby("n_features")["acc"].mean().max())
    ref = load_reference(ROOT / "resources" / "reference" / "blufs.tsv")
    paper = ref[(ref["table"] == "II") & (ref["dataset"] == name) & (ref["method"] == "blufs")]
    paper_acc = float(paper["mean"].iloc[0]) if len(paper) else float("nan")
    print(f"{name}: {len(stage1)} + {len(settings2)} settings ({args.grid} grid), "
          f"{time.perf_counter() - start:.0f} s")  # fmt: skip
    print(f"  oracle ACC      {cell['mean']:.2f} ± {cell['std']:.2f} (s={cell['n_features']}) "
          f"[{cell['params'].split(',graph_term')[0]}, lam/mu in params]")  # fmt: skip
    print(f"  paper ACC       {paper_acc:.2f}  difference {cell['mean'] - paper_acc:+.2f}")
    print(
        f"  winner, 10 seeds {100 * again['acc'].mean():.2f} ± {100 * again['acc'].std(ddof=1):.2f}"
        f"  (min {100 * again['acc'].min():.1f}, max {100 * again['acc'].max():.1f})"
    )
    print(f"  default setting {default['mean']:.2f} (s={default['n_features']})")
    print(
        f"  RandomSubset oracle over {args.random_draws} subsets per count: {100 * max(random):.2f}"
    )
    print(f"  winner: {cell['params']}")


if __name__ == "__main__":
    main()
