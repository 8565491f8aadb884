# ufsbench: unsupervised feature selection benchmark.
# dataset -> normalise -> k-NN graph -> select (per method, chunk of settings)
# -> k-means evaluation -> tables, t-tests -> figures and report.
from snakemake.utils import min_version

min_version("9.10")


configfile: "config/config.yaml"


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/clustering_common.smk"
include: "workflow/rules/datasets.smk"
include: "workflow/rules/graphs.smk"
include: "workflow/rules/selection.smk"
include: "workflow/rules/evaluation.smk"
include: "workflow/rules/statistics.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/css_common.smk"
include: "workflow/rules/css.smk"
include: "workflow/rules/clustering.smk"
include: "workflow/rules/paper_common.smk"
include: "workflow/rules/paper.smk"
include: "workflow/rules/blufs.smk"


rule all:
    default_target: True
    input:
        # every target resolves inside the run's folder (ufsbench.names.inside_run)
        inside_run(final_outputs() + paper_outputs() + blufs_outputs()),
