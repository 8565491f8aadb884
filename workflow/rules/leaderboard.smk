# The leaderboard over datasets (config `leaderboard`); functions in leaderboard_common.smk.


localrules:
    leaderboard,


rule leaderboard:
    input:
        res("tables/summary.tsv"),
    output:
        tsv=res("tables/leaderboard.tsv"),
        md=report(
            res("tables/leaderboard.md"),
            caption="../report/leaderboard.rst",
            category="Tables",
            labels={"table": "leaderboard"},
        ),
        figures=leaderboard_figures("png"),
        pdfs=leaderboard_figures("pdf"),
    log:
        logs("leaderboard.log"),
    conda:
        "../envs/ufsbench.yaml"
    threads: 1
    params:
        protocols=PLAN.protocols,
        metrics=leaderboard_metrics(),
        alpha=config["leaderboard"]["alpha"],
        code=code_hash("leaderboard.py", "plots.py", "io.py"),
    script:
        "../scripts/leaderboard.py"
