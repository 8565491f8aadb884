# The CSS task's plan and the functions its rules call (rules: workflow/rules/css.smk).
from ufsbench.css.plan import (
    css_mem_mb as _css_mem_mb,
    css_runtime as _css_runtime,
)

CSS_PLAN = PLAN.css
# What a run computes: the module scripts/css_run.py runs and what it imports (the
# tables' and figures' rules hash their own), so editing a table re-runs no solver.
CSS_CODE = code_hash(*STAGE_MODULES["css"])
# With `unavailable: skip`, a dataset whose file is neither in the mirror nor under
# data/raw and whose URL does not answer is left out, with the registry's reason printed
# as "ufsbench: skipping dataset ..." and reported as not run in pocss_vs_paper.tsv.
if CSS_PLAN.enabled and SKIP_UNAVAILABLE:
    CSS_PLAN.skip(unavailable(CSS_PLAN.all_datasets))


def css_reference():
    """The paper's Table 1 (none when the run has no css section)."""
    return workflow_path(CSS_PLAN.reference) if CSS_PLAN.enabled else []


def css_runtime(wildcards):
    entry = REGISTRY[wildcards.dataset]
    k = int(wildcards.k)
    return _css_runtime(wildcards.css_method, entry.n_samples, entry.n_features, k)


def css_mem_mb(wildcards):
    entry = REGISTRY[wildcards.dataset]
    return _css_mem_mb(entry.n_samples, entry.n_features, int(wildcards.k))


def css_runs():
    return [res(f"{job.stem}.tsv") for job in CSS_PLAN.jobs()]


def css_traces():
    return [res(f"{job.stem}.trace.tsv") for job in CSS_PLAN.jobs()]


def css_outputs():
    """What `rule all` asks for when the config has a css section."""
    if not CSS_PLAN.enabled:
        return []
    outputs = [
        res("tables/css_summary.tsv"),
        res("tables/css_table1.md"),
        res("tables/pocss_vs_paper.tsv"),
    ]
    outputs += expand(
        res("figures/css/{dataset}/error_ratio_vs_k.png"),
        dataset=CSS_PLAN.curve_datasets,
    )
    outputs += expand(
        res("figures/css/{dataset}/anytime.png"), dataset=CSS_PLAN.anytime
    )
    return outputs
