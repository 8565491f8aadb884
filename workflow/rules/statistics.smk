localrules:
    ttest,
    convergence,


rule ttest:
    input:
        res("tables/curves.tsv"),
    output:
        report(
            res("tables/ttest_{metric}.tsv"),
            caption="../report/ttest.rst",
            category="Tables",
            labels={"table": "paired t-tests", "metric": "{metric}"},
        ),
    log:
        logs("ttest/{metric}.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        metric="{metric}",
        code=code_hash("stats.py", "io.py"),
    script:
        "../scripts/ttest.py"


rule convergence:
    input:
        iterative_selections(),
    output:
        res("tables/convergence.tsv"),
    log:
        logs("convergence.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        sources=iterative_sources(),
    script:
        "../scripts/convergence.py"
