"""CPU seconds per (setting, draw) of the LSDCL cross-validation, and the whole search's cost.

    python benchmarks/speed/bench_crossval.py [--sizes 100 500 1000] [--settings 10]
        [--mirror PATH] [--out TSV]

The cross-validation of ``config/experiments/lsdcl.yaml`` (Tables 4-5 on USPS49) fits
every setting of its grid in each draw on the training samples, then scores it with
k-means on them: :func:`ufsbench.crossval.cross_validate_subsets`, the code its jobs run,
with the config's grid, graph and k-means options. Here it runs one draw on ``--settings``
settings drawn (seeded) from the ``nested`` grid, and on the ``full_data_oracle`` grid's
as many, at each training size; CPU seconds per (setting, draw), the imports excluded.
``projected_cpu_h`` multiplies the mean over the sizes measured by the selection's
settings, the draws and the configured sizes: an estimate of its whole search.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

CONFIG = _cli.ROOT / "config" / "experiments" / "lsdcl.yaml"


def settings_of(config: dict, selection: str, count: int, seed: int = 0) -> list[dict]:
    """``count`` settings of a selection's grid, drawn without replacement, in the form
    the cross-validation takes (id, hyper-parameters, graph weights)."""
    from ufsbench.crossval import selection_grid
    from ufsbench.methods.registry import get_method
    from ufsbench.plan import expand_grid, setting_id

    cv = config["paper"]["crossval"]
    grid = selection_grid(cv["grid"], selection, cv.get("full_data_oracle"))
    spec = get_method(cv["method"])
    settings = expand_grid(cv["method"], grid)
    picks = np.random.default_rng(seed).choice(len(settings), min(count, len(settings)), False)
    out = []
    for i in sorted(picks):
        _, hyper = spec.split_graph_params(settings[i])
        out.append({"id": setting_id(settings[i]), "hyper": hyper,
                    "graph": {"weight": config["graph"]["weight"]}})  # fmt: skip
    return out, len(settings)


def main(argv=None):
    from ufsbench.crossval import cross_validate_subsets
    from ufsbench.tools.config import load_config

    p = _cli.parser(__doc__.splitlines()[0], ["usps49"], repeats=1)
    p.add_argument("--sizes", type=int, nargs="+", default=[100, 500, 1000])
    p.add_argument("--settings", type=int, default=10, help="settings drawn per selection")
    args = p.parse_args(argv)
    config = load_config(CONFIG, root=_cli.ROOT)
    cv = config["paper"]["crossval"]
    evaluation = config["evaluation"]
    kmeans = {"repeats": evaluation["repeats"], "engine": evaluation["kmeans"],
              "n_init": evaluation["n_init"], "max_iter": evaluation["max_iter"],
              "init": evaluation["init"]}  # fmt: skip
    entry = _cli.registry_entry(cv["dataset"])
    X, y = _cli.load(cv["dataset"], args.mirror)
    rows = []
    with _cli.one_thread():
        for selection in cv["selection"]:
            settings, n_settings = settings_of(config, selection, args.settings)
            ids = [s["id"] for s in settings]
            per_size = []
            for n_train in args.sizes:
                start = time.process_time()
                cross_validate_subsets(
                    X, y, cv["method"], settings, {selection: ids}, n_train=n_train, draws=1,
                    feature_counts=config["feature_counts"][cv["dataset"]],
                    n_clusters=entry.n_classes, select_by=cv["select_by"],
                    k=config["graph"]["k"], seed_key=(cv["dataset"], cv["method"]), **kmeans,
                )  # fmt: skip
                per_size.append((time.process_time() - start) / len(settings))
                rows.append([selection, n_train, len(settings), per_size[-1], ""])
            whole = np.mean(per_size) * n_settings * cv["draws"] * len(cv["train_sizes"])
            rows.append([selection, "all", n_settings, np.mean(per_size), whole / 3600])
    columns = ["selection", "n_train", "settings", "cpu_s_per_setting_draw", "projected_cpu_h"]
    _cli.write_tsv("crossval", columns, rows, args.out)


if __name__ == "__main__":
    main()
