# The leaderboard over datasets (config `leaderboard`; config/experiments/leaderboard.yaml):
# mean ranks, Friedman test and critical-difference diagrams from the run's summary.


def leaderboard_metrics():
    return list(config["leaderboard"]["metrics"])


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
