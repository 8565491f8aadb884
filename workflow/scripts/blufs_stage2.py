"""Stage 2 of the two-stage search, one part: its slice of the stage-2 grid at the best
stage-1 setting (every part finds the same winners; ``tuning.stage2_part`` slices)."""

from ufsbench import joblog
from ufsbench.integrity import read_scores
from ufsbench.io import load_data, load_knn, save_selections, write_table
from ufsbench.methods.registry import get_method
from ufsbench.tuning import (
    graph_from_knn,
    run_settings,
    stage1_winners,
    stage2_part,
    stage2_settings,
)

log = joblog.setup(snakemake.log[0], snakemake.threads, code=snakemake.params.code)
p = snakemake.params
X, y, _ = load_data(snakemake.input.data)
knn = load_knn(snakemake.input.knn) if "knn" in snakemake.input.keys() else None
stage1 = read_scores(snakemake.input.stage1, p.stage1)  # every chunk checked against the plan
winners = stage1_winners(stage1, metric=p.anchor_metric, anchor=p.anchor)
log.info("%s: stage-1 winners by %s (%s): %s", p.method, p.anchor_metric, p.anchor, winners)
settings = stage2_settings(get_method(p.method), p.settings, winners, p.grid)
mine = stage2_part(settings, p.part, p.parts)
log.info("%s: part %d of %d: %d of %d stage-2 settings, %d runs", p.method, p.part, p.parts,
         len(mine), len(settings), sum(len(counts) for _, _, counts in mine))  # fmt: skip
selections, scores = run_settings(
    X, y, p.method, mine, dataset=snakemake.wildcards.dataset, n_clusters=p.n_clusters,
    kmeans=p.kmeans, seeding=p.seeding,
    graph_of=graph_from_knn(p.method, knn, **p.graph), log=log,
)  # fmt: skip
save_selections(snakemake.output.selection, selections)
write_table(snakemake.output.scores, scores)
