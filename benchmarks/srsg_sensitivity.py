"""How SC's kernel width and SRSG's step size move their accuracy, next to the paper.

    OMP_NUM_THREADS=1 python benchmarks/srsg_sensitivity.py sc-width \
        --datasets heart coil20_c4 yaleb_c10 --values 0.125 0.25 0.5 1 2 4 --seeds 10
    OMP_NUM_THREADS=1 python benchmarks/srsg_sensitivity.py srsg-step \
        --datasets coil20_c8 yaleb_c10 --values 0.99 4 16 64 --seeds 10

Both are readings the paper leaves open (spec srsg.md §3, §8): SC's Gaussian width (the
workflow's default is the median pairwise distance of the unit rows; ``sc-width`` uses
sigma = value x median) and SRSG's step (the default s = 0.99 / L_f is the bound of
Theorem 3.2; ``srsg-step`` uses ``step_scale`` = value). Everything else runs exactly as
the workflow does (registry loader, unit rows, NJW, the workflow's seeds; the default
value reproduces the workflow's scores). The study informs the comparison table's notes;
it does not pick defaults (a paper's number is a target, not a knob). Rows are appended
per dataset to ``--out``, so a long run can be read while it goes and resumed.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import pairwise_distances

from ufsbench.data import load_dataset
from ufsbench.datasets import load_registry
from ufsbench.reference import load_reference
from ufsbench.seeding import derive_seed
from ufsbench.sparse_graph import build_graph, cluster_with, scores
from ufsbench.sparse_graph._common import unit_rows
from ufsbench.sparse_graph.spectral import gaussian_kernel, median_distance

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_VALUES = {"sc-width": [0.125, 0.25, 0.5, 1, 2, 4], "srsg-step": [0.99, 4, 16, 64]}


def graphs(study, X, values):
    """``(method, value, setting id, affinity)`` per value; the default's id is the
    workflow's ("default"), so its seeds and scores are the workflow's."""
    if study == "sc-width":
        D = pairwise_distances(unit_rows(X))  # as gaussian_affinity, once for every width
        median = median_distance(D)  # SC's default width
        for value in values:
            sid = "default" if value == 1 else f"sigma={value:g}xmedian"
            yield "sc", value, sid, gaussian_kernel(D, value * median)
    else:
        for value in values:
            sid = "default" if value == 0.99 else f"step_scale={value:g}"
            yield "srsg", value, sid, build_graph("srsg", X, {"step_scale": float(value)})[0]


def study_rows(study, name, X, y, values, seeds, *, n_init=10):
    """ACC and NMI per (value, seed)."""
    c, rows = len(np.unique(y)), []
    for method, value, sid, W in graphs(study, X, values):
        for repeat in range(seeds):
            seed = derive_seed(name, method, sid, repeat)
            labels = cluster_with(method, X, c, W=W, seed=seed, n_init=n_init)
            rows.append({"dataset": name, "method": method, "value": value, "seed": repeat,
                         **scores(y, labels)})  # fmt: skip
    return rows


def summary_with_paper(runs: pd.DataFrame, reference: pd.DataFrame) -> pd.DataFrame:
    """One row per (dataset, method): mean ACC per value, the paper's ACC, the closest value."""
    acc = runs.groupby(["dataset", "method", "value"])["acc"].mean().unstack("value")
    acc.columns = [f"x{v:g}" for v in acc.columns]
    paper = reference[reference["metric"] == "acc"].set_index(["dataset", "method"])["mean"]
    acc["paper"] = [paper.get(key, np.nan) for key in acc.index]
    values = [c for c in acc.columns if c.startswith("x")]
    gaps = acc[values].sub(acc["paper"], axis=0).abs()
    acc["closest"] = gaps.idxmin(axis=1)
    acc["closest_gap"] = gaps.min(axis=1)
    return acc.reset_index()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study", choices=sorted(DEFAULT_VALUES))
    parser.add_argument("--mirror", default=str(ROOT.parent / "shared" / "datasets"))
    parser.add_argument("--out", default=None, help="default: results/srsg_<study>.tsv")
    parser.add_argument("--datasets", nargs="+", default=["heart", "coil20_c4"])
    parser.add_argument("--values", nargs="+", type=float, default=None)
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args(argv)
    values = args.values or DEFAULT_VALUES[args.study]

    registry = load_registry(ROOT / "config" / "datasets.yaml")
    out = Path(args.out or f"results/srsg_{args.study}.tsv")
    out.parent.mkdir(parents=True, exist_ok=True)
    frames = [pd.read_csv(out, sep="\t")] if out.exists() else []
    done = set(frames[0]["dataset"]) if frames else set()
    for name in args.datasets:
        if name in done:
            continue
        entry = registry[name]
        raw = entry.file_entry
        X, y, _ = load_dataset(entry, Path(args.mirror) / raw.file if raw else None)
        frames.append(pd.DataFrame(study_rows(args.study, name, X, y, values, args.seeds)))
        pd.concat(frames, ignore_index=True).to_csv(out, sep="\t", index=False)
        print(f"{name}: done", flush=True)
    runs = pd.concat(frames, ignore_index=True)
    reference = load_reference(ROOT / "resources" / "reference" / "srsg_paper.tsv")
    table = summary_with_paper(runs[runs["dataset"].isin(args.datasets)], reference)
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


if __name__ == "__main__":
    main()
