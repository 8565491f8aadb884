# Column subset selection (the POCSS paper): error ratio of each method's subset of at
# most k columns; reuses download + normalize, needs no graph. Enabled by config "css".


rule css_run:
    input:
        data=res("{dataset}/data.npz"),
    output:
        runs=res("css/{dataset}/{css_method}/k{k}/s{seed}.tsv"),
        trace=res("css/{dataset}/{css_method}/k{k}/s{seed}.trace.tsv"),
    log:
        logs("css/{dataset}/{css_method}/k{k}/s{seed}.log"),
    benchmark:
        res("benchmarks/css/{dataset}/{css_method}/k{k}/s{seed}.tsv")
    wildcard_constraints:
        css_method="|".join(CSS_PLAN.methods) or "none",
        seed=r"\d+",
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    resources:
        mem_mb=css_mem_mb,
        runtime=css_runtime,
    params:
        options=lambda wildcards: CSS_PLAN.methods[wildcards.css_method],
        code=CSS_CODE,
    script:
        "../scripts/css_run.py"


localrules:
    css_table,
    css_figure_curves,
    css_figure_anytime,


rule css_table:
    input:
        unpack(notes_input(CSS_PLAN.notes)),
        runs=css_runs(),
        traces=css_traces(),
        reference=css_reference(),
    output:
        runs=res("tables/css_runs.tsv"),
        timings=res("timings/css_seconds.tsv"),
        summary=report(
            res("tables/css_summary.tsv"),
            caption="../report/css_summary.rst",
            category="Column subset selection",
        ),
        markdown=res("tables/css_table1.md"),
        anytime=res("tables/css_anytime.tsv"),
        paper=report(
            res("tables/pocss_vs_paper.tsv"),
            caption="../report/pocss_vs_paper.rst",
            category="Column subset selection",
        ),
    log:
        logs("css/table.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        datasets=CSS_PLAN.datasets,
        ks=CSS_PLAN.ks,
        skipped=CSS_PLAN.skipped,
        code=code_hash("css/table.py", "reference.py", "io.py"),
    script:
        "../scripts/css_table.py"


rule css_figure_curves:
    input:
        res("tables/css_summary.tsv"),
    output:
        png=report(
            res("figures/css/{dataset}/error_ratio_vs_k.png"),
            caption="../report/css_curves.rst",
            category="Column subset selection",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "figure": "error ratio vs k"},
        ),
        pdf=res("figures/css/{dataset}/error_ratio_vs_k.pdf"),
    log:
        logs("css/figures/{dataset}/error_ratio_vs_k.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        ks=CSS_PLAN.curve_ks,
        code=code_hash("css/figures.py", "plots.py"),
    script:
        "../scripts/css_figure_curves.py"


rule css_figure_anytime:
    input:
        anytime=res("tables/css_anytime.tsv"),
        runs=res("tables/css_runs.tsv"),
    output:
        png=report(
            res("figures/css/{dataset}/anytime.png"),
            caption="../report/css_anytime.rst",
            category="Column subset selection",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "figure": "POCSS anytime curve"},
        ),
        pdf=res("figures/css/{dataset}/anytime.pdf"),
    log:
        logs("css/figures/{dataset}/anytime.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        k=lambda wildcards: CSS_PLAN.ks[0],
        code=code_hash("css/figures.py", "plots.py"),
    script:
        "../scripts/css_figure_anytime.py"
