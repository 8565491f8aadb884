"""k-means evaluation of every setting of a chunk at every feature count."""

from ufsbench import joblog
from ufsbench.evaluate import SCORE_COLUMNS, evaluate_selection, write_rows
from ufsbench.integrity import check_selections
from ufsbench.io import load_data, load_selections

log = joblog.setup(snakemake.log[0], snakemake.threads, code=snakemake.params.code)
X, y, _ = load_data(snakemake.input.data)
selections = load_selections(snakemake.input.selection)
settings = [setting["id"] for setting in snakemake.params.settings]
check_selections(selections, snakemake.input.selection, settings, X.shape[1])
dataset, method = snakemake.wildcards.dataset, snakemake.params.method
per_run = snakemake.params.seeding == "per_run"
columns = ("dataset", "method", "params", "in_grid", "is_default", *SCORE_COLUMNS)
table, runs = [], {}  # runs: k-means scores by (columns, seed), reused across settings
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
        as_frame=False,
    )
    acc = sum(row[SCORE_COLUMNS.index("acc")] for row in rows) / len(rows)
    log.info("%s [%s]: mean ACC %.2f", method, setting["id"], 100 * acc)
    head = (dataset, method, setting["id"], setting["in_grid"], setting["is_default"])
    table += [(*head, *row, sel.seconds) for row in rows]
log.info(
    "%d k-means runs scored, %d clustered (others repeat columns and seed)", len(table), len(runs)
)
write_rows(snakemake.output[0], (*columns, "select_seconds"), table)
