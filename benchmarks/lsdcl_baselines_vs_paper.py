"""RUFS, SOGFS, ULAP and L1UFS under the LSDCL protocol, next to the paper's Table 2 ACC.

    python benchmarks/lsdcl_baselines_vs_paper.py [--datasets wine zoo jaffe]
        [--methods rufs sogfs ulap l1ufs] [--mirror PATH] [--out DIR] [--grid-step N]
        [--option METHOD:KEY=VALUE ...] [--grid-scale METHOD:KEY=FACTOR ...] [--tag TAG]

Protocol (shared/specs/lsdcl.md §6): raw features; the method's full paper grid (its
registry grid, 10^-5..10^5 per weight); 0-1 5-NN graph where the method takes one; the
Table 1 feature counts; 20 litekmeans runs per (setting, count), with one set of seeds per
(dataset, count, run) shared by every method and setting (the framework's common random
numbers); Hungarian ACC. "oracle" = for every count the best setting by mean ACC, then
mean and std (ddof 1) over the counts, as the paper's tables; "default" = the registry
defaults; "random" = the same oracle over as many seeded random rankings as the grid has
settings (the control). Writes ``<out>/<dataset>_<method>.tsv`` (every setting x count)
and prints one row per (dataset, method). ``--option`` fixes a named reading of a method
(e.g. ``sogfs:scale=none``) for every setting, ``--grid-scale`` multiplies one grid axis
(e.g. ``sogfs:gamma=2``: the decade grid of a code whose weight is twice ours), and ``--tag``
is appended to the output file names. The paper's values are read from
``resources/reference/lsdcl.tsv`` (Table 2, every dataset). Measurements and readings
(2026-11-24, full grids, quiet machine) are recorded in ``measured/lsdcl/notes.tsv``;
e.g. ``--datasets wine --methods rufs --option rufs:inner_iter=10 --tag inner10``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_limits

from ufsbench import rank_features
from ufsbench.data import load_dataset
from ufsbench.datasets import find_in_mirror, load_registry
from ufsbench.evaluate import evaluate_selection
from ufsbench.graph import knn_graph
from ufsbench.methods import get_method
from ufsbench.methods.base import Selection
from ufsbench.plan import expand_grid

ROOT = Path(__file__).resolve().parents[1]
REFERENCE = ROOT / "resources" / "reference" / "lsdcl.tsv"


def paper_acc():
    """``{(dataset, method): (mean, std)}`` of the LSDCL paper's Table 2 (ACC, %)."""
    table = pd.read_csv(REFERENCE, sep="\t", comment="#")
    table = table[(table.table == "table2") & (table.metric == "acc")]
    return {
        (row.dataset, row.method): (float(row["mean"]), float(row["std"]))
        for _, row in table.iterrows()
    }


def parse_assignments(items, convert):
    """``["m:k=v", ...]`` -> ``{m: {k: convert(v)}}``."""
    out = {}
    for item in items or []:
        method, _, assignment = item.partition(":")
        key, _, value = assignment.partition("=")
        if not (method and key and value):
            raise SystemExit(f"expected METHOD:KEY=VALUE, got {item!r}")
        out.setdefault(method, {})[key] = convert(value)
    return out


def literal(value):
    """A command-line value as int, float, None or str."""
    if value == "None":
        return None
    for kind in (int, float):
        try:
            return kind(value)
        except ValueError:
            pass
    return value


def load(name, mirror):
    registry = load_registry()
    entry = registry[name]
    path = find_in_mirror(entry, mirror) if entry.file_entry else None
    X, y, _ = load_dataset(entry, path)
    return X, y, list(entry.feature_counts)


class Evaluator:
    """Mean ACC of 20 shared-seed litekmeans runs per feature subset, cached by subset."""

    def __init__(self, X, y, dataset):
        self.X, self.y, self.dataset = X, y, dataset
        self.c = len(np.unique(y))
        self.cache = {}

    def acc(self, subset):
        key = tuple(sorted(int(j) for j in subset))
        if key not in self.cache:
            selection = Selection.from_scores(np.isin(np.arange(self.X.shape[1]), key) * 1.0)
            scores = evaluate_selection(
                self.X,
                self.y,
                selection,
                [len(key)],
                n_clusters=self.c,
                repeats=20,
                seed_key=(self.dataset,),
            )
            self.cache[key] = scores["acc"].mean()
        return self.cache[key]


def run(dataset, method, X, y, counts, evaluator, grid_step=1, options=None, grid_scale=None):
    spec = get_method(method)
    graph = knn_graph(X, 5, weight="binary") if spec.graph else None
    grid = {key: values[::grid_step] for key, values in spec.grid.items()}
    for key, factor in (grid_scale or {}).items():
        grid[key] = [factor * value for value in grid[key]]
    settings = expand_grid(method, grid)
    options = options or {}
    rows = []
    for index, params in enumerate([{}] + settings):
        selection = rank_features(
            X,
            method,
            graph=graph,
            n_clusters=evaluator.c,
            random_state=0,
            feature_counts=counts,
            **{**options, **params},
        )
        for m in counts:
            rows.append(
                {
                    "setting": "default" if index == 0 else index,
                    **params,
                    "n_features": m,
                    "acc": evaluator.acc(selection.top(m)),
                    "seconds": selection.seconds,
                }
            )
    rng = np.random.default_rng(0)
    for draw in range(len(settings)):
        ranking = rng.permutation(X.shape[1])
        for m in counts:
            rows.append(
                {"setting": f"random{draw}", "n_features": m, "acc": evaluator.acc(ranking[:m])}
            )
    return pd.DataFrame(rows)


def summarise(frame):
    grid = frame[frame.setting.map(lambda s: isinstance(s, (int, np.integer)))]
    random = frame[frame.setting.astype(str).str.startswith("random")]
    default = frame[frame.setting == "default"]
    oracle = 100 * grid.groupby("n_features").acc.max()
    control = 100 * random.groupby("n_features").acc.max()
    plain = 100 * default.groupby("n_features").acc.mean()
    return oracle.mean(), oracle.std(ddof=1), plain.mean(), control.mean()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", nargs="+", default=["wine", "zoo", "jaffe"])
    parser.add_argument("--methods", nargs="+", default=["sogfs", "ulap", "rufs", "l1ufs"])
    parser.add_argument("--mirror", type=Path, default=ROOT.parent / "shared" / "datasets")
    parser.add_argument("--out", type=Path, default=Path("lsdcl_baselines_results"))
    parser.add_argument(
        "--grid-step",
        type=int,
        default=1,
        help="keep every n-th grid value (a budget subset: the oracle is then a lower bound)",
    )
    parser.add_argument("--option", nargs="*", default=[], help="METHOD:KEY=VALUE readings")
    parser.add_argument(
        "--grid-scale", nargs="*", default=[], help="METHOD:KEY=FACTOR multiplies a grid axis"
    )
    parser.add_argument("--tag", default="", help="suffix of the output file names")
    args = parser.parse_args(argv)
    options = parse_assignments(args.option, literal)
    scales = parse_assignments(args.grid_scale, float)
    paper_values = paper_acc()
    suffix = f"_{args.tag}" if args.tag else ""
    args.out.mkdir(parents=True, exist_ok=True)
    print(
        "dataset\tmethod\tsettings\toracle ACC\tpaper ACC\tdiff\tdefault ACC\t"
        "random-control ACC\tselect s",
        flush=True,
    )
    with threadpool_limits(limits=1):
        for dataset in args.datasets:
            X, y, counts = load(dataset, args.mirror)
            evaluator = Evaluator(X, y, dataset)
            for method in args.methods:
                start = time.perf_counter()
                frame = run(
                    dataset,
                    method,
                    X,
                    y,
                    counts,
                    evaluator,
                    args.grid_step,
                    options.get(method),
                    scales.get(method),
                )
                frame.to_csv(args.out / f"{dataset}_{method}{suffix}.tsv", sep="\t", index=False)
                mean, std, plain, control = summarise(frame)
                paper = paper_values.get((dataset, method), (np.nan, np.nan))
                n_settings = frame.setting.map(lambda s: isinstance(s, (int, np.integer))).sum()
                print(
                    f"{dataset}\t{method}\t{n_settings // len(counts)}\t{mean:.2f} +- {std:.2f}"
                    f"\t{paper[0]:.2f} +- {paper[1]:.2f}\t{mean - paper[0]:+.2f}\t{plain:.2f}"
                    f"\t{control:.2f}\t{time.perf_counter() - start:.0f}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
