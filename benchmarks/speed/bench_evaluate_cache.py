"""Time one evaluate job's k-means protocol with and without the repeated-run cache.

    python benchmarks/speed/bench_evaluate_cache.py [--datasets jaffe] [--methods rufs mcfs lsdcl]
        [--settings 16] [--mirror PATH] [--out TSV]

An evaluate job scores every setting of a chunk (``chunk_size`` settings, 16 in the
paper configs) at every feature count with ``repeats`` k-means runs. Under ``shared``
seeding (the LSDCL protocol: one seed per dataset, count and run, whatever the setting),
a run is fully determined by its columns and its seed, so settings whose top-m features
repeat need not be clustered again (``evaluate_selection(..., cache=...)``).

Protocol: the dataset's Table 1 feature counts, 20 litekmeans runs, the first
``--settings`` settings of the method's grid in ``config/experiments/lsdcl.yaml`` (in the
workflow's order, so one select/evaluate chunk) on the 0-1 5-NN graph, BLAS on one
thread, CPU seconds. Both sides evaluate the same selections, computed once beforehand;
the script checks that the score tables are identical and reports, per method, both
timings, their ratio and the number of k-means runs each side clustered.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pandas as pd
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

from ufsbench import rank_features  # noqa: E402
from ufsbench.datasets import load_registry  # noqa: E402
from ufsbench.evaluate import evaluate_selection  # noqa: E402
from ufsbench.methods import get_method  # noqa: E402
from ufsbench.plan import expand_grid, split_method_options  # noqa: E402

GRIDS = _cli.ROOT / "config" / "experiments" / "lsdcl.yaml"


def evaluate_chunk(X, y, selections, counts, c, dataset, cache):
    frames = [
        evaluate_selection(
            X, y, sel, counts, n_clusters=c, repeats=20, seed_key=(dataset,), cache=cache
        )
        for sel in selections
    ]
    return pd.concat(frames, ignore_index=True)


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], ["jaffe"], repeats=1)
    p.add_argument("--methods", nargs="+", default=["rufs", "mcfs", "lsdcl"])
    p.add_argument("--settings", type=int, default=16)
    args = p.parse_args(argv)
    grids = yaml.safe_load(GRIDS.read_text())["methods"]
    columns = ["dataset", "method", "settings", "plain_s", "cached_s", "ratio", "runs_plain",
               "runs_cached", "identical"]  # fmt: skip
    rows = []
    with _cli.one_thread():
        for dataset in args.datasets:
            X, y, c, graph = _cli.load_with_graph(dataset, args.mirror)
            counts = list(_cli.registry_entry(dataset).feature_counts)
            for method in args.methods:
                spec = get_method(method)
                grid = split_method_options(method, grids[method], load_registry()).grid
                settings = expand_grid(method, grid)[: args.settings]
                selections = [
                    rank_features(X, method, graph=graph if spec.graph else None, n_clusters=c,
                                  random_state=0, feature_counts=counts, **params)
                    for params in settings
                ]  # fmt: skip
                start = time.process_time()
                plain = evaluate_chunk(X, y, selections, counts, c, dataset, None)
                plain_s = time.process_time() - start
                cache = {}
                start = time.process_time()
                cached = evaluate_chunk(X, y, selections, counts, c, dataset, cache)
                cached_s = time.process_time() - start
                ratio, same = plain_s / cached_s, plain.equals(cached)
                rows.append((dataset, method, len(settings), plain_s, cached_s, ratio,
                             len(plain), len(cache), same))  # fmt: skip
    _cli.write_tsv("evaluate_cache", columns, rows, args.out)


if __name__ == "__main__":
    main()
