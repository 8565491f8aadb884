"""Measure Table 1 of the POCSS paper (k = 50) on the datasets of the local mirror.

Usage:
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/pocss_fidelity.py \
        --mirror ../shared/datasets --out results/pocss_fidelity.tsv \
        --datasets sonar_scale arrhythmia --methods greedy_css aprx_svd iter_fs pocss --seeds 10

Data are prepared exactly as the workflow's CSS branch does (registry loader, mean
imputation, unit-norm columns). Rows are appended per (dataset, method), so a long run
can be read while it goes; the comparison with the paper is printed at the end.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

import pandas as pd

from ufsbench.css import table
from ufsbench.css.evaluate import run_css
from ufsbench.css.objective import svd_tails
from ufsbench.css.solvers import GramCache
from ufsbench.data import load_dataset, normalize
from ufsbench.datasets import load_registry
from ufsbench.reference import load_reference

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", default=str(ROOT.parent / "shared" / "datasets"))
    parser.add_argument("--out", default="results/pocss_fidelity.tsv")
    parser.add_argument("--datasets", nargs="+", default=["sonar_scale"])
    parser.add_argument(
        "--methods", nargs="+", default=["greedy_css", "aprx_svd", "iter_fs", "pocss"]
    )
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--k", type=int, default=50)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stdout)

    registry = load_registry(ROOT / "config" / "datasets.yaml")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    frames = [pd.read_csv(out, sep="\t")] if out.exists() else []
    for name in args.datasets:
        entry = registry[name]
        raw = entry.file_entry
        X, _, _ = load_dataset(entry, Path(args.mirror) / raw.file if raw else None)
        X, _ = normalize(X, "unit_column", impute="mean", name=name)
        cache = GramCache(X)
        tails = svd_tails(cache.X)
        for method in args.methods:
            rows, _ = run_css(
                X, method, [args.k], range(args.seeds), dataset=name, tails=tails, cache=cache
            )
            frames.append(rows)
            pd.concat(frames, ignore_index=True).to_csv(out, sep="\t", index=False)
    runs = pd.concat(frames, ignore_index=True)
    reference = load_reference(ROOT / "resources" / "reference" / "pocss_table1.tsv")
    comparison = table.paper_comparison(table.summarize(runs), reference)
    print(comparison.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
