# A paper reproduction (config key `paper`): the paper's tables with p-values, our numbers
# beside the published ones, the paper's figures and its cross-validation experiment.
# Functions: paper_common.smk.


localrules:
    paper_tables,
    vs_paper,
    figure_ablation,
    figure_sensitivity,
    figure_paper_convergence,
    crossval_tables,
    crossval_vs_paper,
    readings,


rule paper_tables:
    input:
        res("tables/curves.tsv"),
    output:
        tsv=report(
            res("tables/{paper}_{table}.tsv"),
            caption="../report/paper_table.rst",
            category="Paper",
            labels={"table": "{paper} {table}"},
        ),
        md=res("tables/{paper}_{table}.md"),
        tex=res("tables/{paper}_{table}.tex"),
    log:
        logs("paper/{paper}_{table}.log"),
    wildcard_constraints:
        table="acc|nmi",
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        metric=lambda wc: PAPER.nmi if wc.table == "nmi" else "acc",
        methods=paper_methods(),
        protocol=lambda wc: PAPER.protocol,
        labels=lambda wc: PAPER.labels,
        code=code_hash("papers/tables.py", "stats.py", "io.py"),
    script:
        "../scripts/paper_tables.py"


rule vs_paper:
    input:
        summary=res("tables/summary.tsv"),
        scores=res("tables/scores.tsv"),
    output:
        table=report(
            res("tables/{paper}_vs_paper.tsv"),
            caption="../report/vs_paper.rst",
            category="Paper",
            labels={"table": "{paper}: ours vs paper"},
        ),
        fidelity=res("tables/{paper}_fidelity.tsv"),
    log:
        logs("paper/{paper}_vs_paper.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        reference=lambda wc: paper_path(PAPER.reference),
        notes=lambda wc: paper_path(PAPER.notes),
        metric_map=lambda wc: {"nmi": PAPER.nmi},
        protocol=lambda wc: PAPER.protocol,
        control=lambda wc: PAPER.control,
        datasets=PLAN.datasets,
        methods=PLAN.methods,
        code=code_hash("reference.py", "aggregate.py", "io.py"),
    script:
        "../scripts/vs_paper.py"


rule figure_ablation:
    input:
        res("tables/curves.tsv"),
    output:
        png=report(
            res("figures/{paper}/ablation_{dataset}.png"),
            caption="../report/ablation.rst",
            category="Paper",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "figure": "ablation"},
        ),
        pdf=res("figures/{paper}/ablation_{dataset}.pdf"),
    log:
        logs("paper/{paper}_ablation_{dataset}.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        dataset="{dataset}",
        methods=ablation_methods(),
        labels=lambda wc: PAPER.labels,
        code=code_hash("papers/figures.py", "plots.py"),
    script:
        "../scripts/figure_ablation.py"


rule figure_sensitivity:
    input:
        res("tables/scores.tsv"),
    output:
        png=report(
            res("figures/{paper}/sensitivity_{dataset}.png"),
            caption="../report/sensitivity.rst",
            category="Paper",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "figure": "sensitivity"},
        ),
        pdf=res("figures/{paper}/sensitivity_{dataset}.pdf"),
    log:
        logs("paper/{paper}_sensitivity_{dataset}.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        dataset="{dataset}",
        method=sensitivity_method(),
        params=paper_part("sensitivity").get("params", []),
        code=code_hash("papers/figures.py", "plots.py"),
    script:
        "../scripts/figure_sensitivity.py"


rule figure_paper_convergence:
    input:
        traces=res("tables/convergence.tsv"),
        scores=res("tables/scores.tsv"),
    output:
        png=report(
            res("figures/{paper}/convergence.png"),
            caption="../report/paper_convergence.rst",
            category="Paper",
            labels={"figure": "convergence"},
        ),
        pdf=res("figures/{paper}/convergence.pdf"),
    log:
        logs("paper/{paper}_convergence.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        method=convergence_method(),
        datasets=convergence_datasets(),
        parameters=convergence_parameters(),
        code=code_hash("papers/figures.py", "plots.py"),
    script:
        "../scripts/figure_paper_convergence.py"


rule crossval_draw:
    input:
        data=res("{dataset}/data.npz"),
    output:
        **crossval_outputs("{draw}"),
    log:
        logs("crossval/{dataset}/{method}/n{size}/d{draw}.log"),
    benchmark:
        res("benchmarks/crossval/{dataset}/{method}/n{size}/d{draw}.tsv")
    wildcard_constraints:
        size=r"\d+",
        draw=r"\d+",
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    resources:
        mem_mb=select_mem_mb,
        runtime=lambda wc: 60 * 6,
    params:
        method="{method}",
        n_train=lambda wc: int(wc.size),
        settings=crossval_settings,
        subsets=crossval_subsets,
        draws=lambda wc: [int(wc.draw)],
        select_by=lambda wc: crossval_plan()["select_by"],
        n_clusters=n_clusters_of,
        feature_counts=feature_counts_of,
        k=PLAN.graph.k,
        kmeans=PLAN.evaluation.kmeans_options,
        code=lambda wc: _method_code(wc.method)
        + code_hash("crossval.py", "evaluate.py", "kmeans.py"),
    script:
        "../scripts/crossval.py"


# A draw's rows depend on its index only: the size's table is its draws' rows in order.
rule crossval:
    input:
        unpack(crossval_draw_files),
    output:
        **crossval_outputs(),
    log:
        logs("crossval/{dataset}/{method}/n{size}.log"),
    wildcard_constraints:
        size=r"\d+",
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        code=lambda wc: _method_code(wc.method) + code_hash("crossval.py"),
    script:
        "../scripts/crossval_merge.py"


rule crossval_tables:
    input:
        lambda wc: crossval_files(),
    output:
        tsv=report(
            res("tables/{paper}_crossval.tsv"),
            caption="../report/crossval.rst",
            category="Paper",
            labels={"table": "{paper}: cross-validation"},
        ),
        md=res("tables/{paper}_crossval.md"),
    log:
        logs("paper/{paper}_crossval.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        dataset=lambda wc: crossval_plan()["dataset"],
        method=lambda wc: crossval_plan()["method"],
        selections=lambda wc: crossval_file_selections(),
        code=code_hash("crossval.py", "papers/crossval_report.py", "io.py"),
    script:
        "../scripts/crossval_tables.py"


rule crossval_vs_paper:
    input:
        res("tables/{paper}_crossval.tsv"),
    output:
        res("tables/{paper}_crossval_vs_paper.tsv"),
    log:
        logs("paper/{paper}_crossval_vs_paper.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        reference=lambda wc: paper_path(crossval_plan()["reference"]),
        notes=lambda wc: paper_path(crossval_plan()["notes"]),
        metric_map=lambda wc: {"nmi": PAPER.nmi},
        selections=lambda wc: crossval_selections(),
        code=code_hash(
            "reference.py", "crossval.py", "papers/crossval_report.py", "io.py"
        ),
    script:
        "../scripts/crossval_vs_paper.py"


rule readings:
    input:
        res("tables/scores.tsv"),
    output:
        report(
            res("tables/{paper}_readings.tsv"),
            caption="../report/readings.rst",
            category="Paper",
            labels={"table": "{paper}: readings"},
        ),
    log:
        logs("paper/{paper}_readings.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        method=readings_method(),
        readings=paper_part("readings").get("params", []),
        defaults=readings_defaults,
        code=code_hash("reference.py", "aggregate.py", "io.py"),
    script:
        "../scripts/readings.py"
