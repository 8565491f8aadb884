"""Tables II, III, V and VII of the BLUFS paper from our runs, and ours against theirs."""

import pandas as pd

from ufsbench import joblog
from ufsbench.integrity import read_tsv
from ufsbench.io import write_table, write_text
from ufsbench.papers.blufs import (
    default_best_count_cells,
    default_cells,
    markdown,
    oracle_cells,
    reseed_long,
    versus_paper,
    wide_table,
)
from ufsbench.reference import add_notes, load_notes, load_reference

log = joblog.setup(snakemake.log[0])
p = snakemake.params
scores = pd.read_csv(snakemake.input.scores, sep="\t")
main = scores[~scores["method"].isin(p.ablation)]
cells = oracle_cells(main)
write_table(snakemake.output.cells, cells)
write_text(snakemake.output.table2, markdown(wide_table(cells, "acc"),
           "Table II: k-means ACC %, oracle over settings and counts (count)"))  # fmt: skip
write_text(snakemake.output.table3, markdown(wide_table(cells, "nmi_max"),
           "Table III: k-means NMI (max-normalised) %, oracle (count)"))  # fmt: skip
if p.ablation:
    ablation = oracle_cells(scores[scores["method"].isin([*p.ablation, "blufs"])])
    title = "Table V: ablation, {} %, oracle (count)"
    text = markdown(wide_table(ablation, "acc"), title.format("ACC"))
    text += "\n" + markdown(wide_table(ablation, "nmi_max"), title.format("NMI"))
    write_text(snakemake.output.table5, text)
else:
    write_text(snakemake.output.table5, "No ablation configured (config blufs.ablation).\n")

knn = pd.concat([read_tsv(f) for f in snakemake.input.knn], ignore_index=True)
per_count = knn.groupby(["dataset", "method", "n_features"], sort=False)["accuracy"]
knn_cells = per_count.agg(mean="mean", std=lambda v: v.std(ddof=1)).reset_index()
knn_cells = knn_cells.sort_values("n_features", kind="stable")
best = knn_cells.loc[knn_cells.groupby(["dataset", "method"], sort=False)["mean"].idxmax()]
best = best.assign(metric="knn_acc", params="", mean=100 * best["mean"], std=100 * best["std"])
write_table(snakemake.output.table7_tsv, best)
write_text(
    snakemake.output.table7,
    markdown(
        wide_table(best, "knn_acc"),
        f"Table VII: {p.knn['k']}-NN accuracy %, {p.knn['splits']} stratified splits, "
        "oracle over counts (count)",
    ),
)

reference = load_reference(p.reference)
reseeds = [read_tsv(f) for f in snakemake.input.reseeds]
table = versus_paper(
    cells,
    reference,
    reseeds=reseed_long(reseeds),
    defaults=default_cells(main),
    default_best_count=default_best_count_cells(main),
)
knn_ref = versus_paper(best[["dataset", "method", "metric", "mean", "std", "n_features",
                             "params"]], reference, tables=("VII",))  # fmt: skip
if p.ablation:
    table = pd.concat([table, versus_paper(ablation, reference, tables=("V",))
                       .assign(metric=lambda t: t["metric"] + " (Table V)")])  # fmt: skip
table = pd.concat([table, knn_ref], ignore_index=True)
if "notes" in snakemake.input.keys():  # hand-written: why a cell misses
    table = add_notes(table, load_notes(snakemake.input.notes), column="notes")
write_table(snakemake.output.versus, table)
log.info("%d cells compared with the paper", int(table["paper"].notna().sum()))
