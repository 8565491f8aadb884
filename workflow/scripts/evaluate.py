"""k-means evaluation of every setting of a chunk at every feature count."""

import pandas as pd

from ufsbench import joblog
from ufsbench.evaluate import evaluate_selection
from ufsbench.integrity import check_selections
from ufsbench.io import load_data, load_selections, write_table

log = joblog.setup(snakemake.log[0], snakemake.threads, code=snakemake.params.code)
X, y, _ = load_data(snakemake.input.data)
selections = load_selections(snakemake.input.selection)
settings = [setting["id"] for setting in snakemake.params.settings]
check_selections(selections, snakemake.input.selection, settings, X.shape[1])
dataset, method = snakemake.wildcards.dataset, snakemake.params.method
per_run = snakemake.params.seeding == "per_run"
frames, runs = [], {}  # runs: k-means scores by (columns, seed), reused across settings
for setting in snakemake.params.settings:
    sel = selections[setting["id"]]
    # per_run seeds identify the run completely; shared seeds give every method the same
    # k-means starts for a (count, repeat): the papers' common random numbers.
    seed_key = (dataset, method, setting["id"]) if per_run else (dataset,)
    rows = evaluate_selection(
        X,
        y,
        sel,
        snakemake.params.feature_counts,
        n_clusters=snakemake.params.n_clusters,
        **snakemake.params.kmeans,
        seed_key=seed_key,
        all_features=snakemake.params.all_features,
        cache=runs,
    )
    log.info("%s [%s]: mean ACC %.2f", method, setting["id"], 100 * rows["acc"].mean())
    rows.insert(0, "dataset", dataset)
    rows.insert(1, "method", method)
    rows.insert(2, "params", setting["id"])
    rows.insert(3, "in_grid", setting["in_grid"])
    rows.insert(4, "is_default", setting["is_default"])
    rows["select_seconds"] = sel.seconds
    frames.append(rows)
total = sum(len(frame) for frame in frames)
log.info("%d k-means runs scored, %d clustered (others repeat columns and seed)", total, len(runs))
write_table(snakemake.output[0], pd.concat(frames, ignore_index=True))
