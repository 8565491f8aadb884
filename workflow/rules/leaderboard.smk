# The leaderboard over datasets (config `leaderboard`; config/experiments/leaderboard.yaml):
# mean ranks, Friedman test and critical-difference diagrams from the run's summary.


def leaderboard_metrics():
    return list((config.get("leaderboard") or {}).get("metrics", ["acc"]))


def leaderboard_figures(ext):
    return expand(
        res("figures/leaderboard/cd_{protocol}_{metric}.{ext}"),
        protocol=PLAN.protocols,
        metric=leaderboard_metrics(),
        ext=ext,
    )


def leaderboard_outputs():
    if config.get("leaderboard") is None or "selection" not in TASKS:
        return []
    tables = [res("tables/leaderboard.tsv"), res("tables/leaderboard.md")]
    return tables + leaderboard_figures("png")


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
        alpha=(config.get("leaderboard") or {}).get("alpha", 0.05),
        code=code_hash("leaderboard.py", "plots.py", "io.py"),
    script:
        "../scripts/leaderboard.py"
