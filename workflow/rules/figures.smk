localrules:
    figure_curves,
    figure_convergence,


rule figure_curves:
    input:
        curves=res("tables/curves.tsv"),
        scores=res("tables/scores.tsv"),
    output:
        png=report(
            res("figures/{dataset}/curves.png"),
            caption="../report/curves.rst",
            category="Figures",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "figure": "scores vs number of features"},
        ),
        pdf=res("figures/{dataset}/curves.pdf"),
    log:
        logs("figures/{dataset}/curves.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        dataset="{dataset}",
        code=code_hash("plots.py", "aggregate.py"),
    script:
        "../scripts/figure_curves.py"


rule figure_convergence:
    input:
        res("tables/convergence.tsv"),
    output:
        png=report(
            res("figures/{dataset}/convergence.png"),
            caption="../report/convergence.rst",
            category="Figures",
            subcategory="{dataset}",
            labels={"dataset": "{dataset}", "figure": "convergence"},
        ),
        pdf=res("figures/{dataset}/convergence.pdf"),
    log:
        logs("figures/{dataset}/convergence.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        dataset="{dataset}",
        code=code_hash("plots.py"),
    script:
        "../scripts/figure_convergence.py"
