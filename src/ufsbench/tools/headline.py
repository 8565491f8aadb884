"""The headline tables of ``measured/README.md``, made from the committed result files.

``measured/README.md`` shows, per paper, a few generated blocks, each between
``<!-- headline: NAME -->`` and ``<!-- end headline -->``; :func:`blocks` makes every
block from the files under ``measured/`` and :func:`check_page` says which block of the
page differs, so the page cannot drift from the files (``tests/test_headline.py``).
Regenerate the page's blocks with ``ufsbench-headline measured/README.md``; ``--check``
changes nothing and exits 1 naming the blocks that differ.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import numpy as np
import pandas as pd

_BLOCK = re.compile(r"<!-- headline: (\S+) -->\n(.*?)<!-- end headline -->", re.DOTALL)


def _number(value, signed=False, digits=2) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "—"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def cells_table(versus: pd.DataFrame, method: str, metric: str, labels=None) -> str:
    """Markdown: one row per dataset of ``method``'s ``metric`` cells in a
    ``*_vs_paper.tsv`` table (ours, the paper's, the difference, the default setting and
    the random control), then the mean over the datasets."""
    part = versus[(versus["method"] == method) & (versus["metric"] == metric)]
    if part.empty:
        raise ValueError(f"headline: no {method} {metric} cells in the comparison table")
    labels = labels or {}
    lines = [
        "| dataset | ours (oracle) | paper | difference | default setting | random control |",
        "|---|---|---|---|---|---|",
    ]
    columns = ["ours", "paper", "diff", "default", "random_control"]
    for row in part.itertuples(index=False):
        values = [getattr(row, c) for c in columns]
        cells = [_number(v, signed=c == "diff") for c, v in zip(columns, values, strict=True)]
        lines.append(f"| {labels.get(row.dataset, row.dataset)} | " + " | ".join(cells) + " |")
    means = part[columns].mean()
    cells = [_number(means[c], signed=c == "diff") for c in columns]
    lines.append("| **mean** | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def fidelity_table(versus: pd.DataFrame, metric: str, labels=None) -> str:
    """Markdown: per method of a ``*_vs_paper.tsv`` table, its ``metric`` cells' mean
    difference from the paper, its worst cell and whether it meets the target of
    :func:`ufsbench.reference.fidelity_summary` (mean within 2, every cell within 3.5)."""
    from ufsbench.reference import fidelity_summary

    part = versus[versus["metric"] == metric]
    if part.empty:
        raise ValueError(f"headline: no {metric} cells in the comparison table")
    summary = fidelity_summary(part).set_index("method")
    labels = labels or {}
    lines = [
        "| method | cells | mean difference | worst cell | within target |",
        "|---|---|---|---|---|",
    ]
    for method, cells in part.dropna(subset=["diff"]).groupby("method", sort=False):
        worst = cells.loc[cells["diff"].abs().idxmax()]
        row = summary.loc[method]
        lines.append(
            f"| {method} | {int(row['cells'])} | {_number(row['mean_diff'], signed=True)} | "
            f"{_number(worst['diff'], signed=True)} "
            f"({labels.get(worst['dataset'], worst['dataset'])}) | "
            f"{'yes' if row['within_target'] else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def _crossval_selections(versus: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """``versus`` with today's selection names, and the selections that stand beside the
    compared one in columns of their name
    (:func:`ufsbench.papers.crossval_report.vs_paper_columns`)."""
    from ufsbench.crossval import SELECTIONS

    # Tables published before the selections were named call the full-data one "oracle".
    versus = versus.replace({"protocol": {"oracle": "full_data_oracle"}})
    return versus, [name for name in SELECTIONS if name in versus.columns]


def crossval_line(versus: pd.DataFrame) -> str:
    """One sentence per metric and selection of a ``*_crossval_vs_paper.tsv`` table: the
    mean over its cells of ours and the paper's, and how many cells it has. The compared
    selection is the ``ours`` column; another one stands beside it in a column of its
    name (:func:`ufsbench.papers.crossval_report.vs_paper_columns`)."""
    lines = []
    versus, beside = _crossval_selections(versus)
    for (protocol, metric), part in versus.groupby(["protocol", "metric"], sort=False):
        for name, column in [(protocol, "ours"), *((b, b) for b in beside)]:
            ran = part.dropna(subset=[column])
            if ran.empty:
                lines.append(f"- {metric}, selection `{name}`: not run.")
                continue
            ours, paper = ran[column].mean(), ran["paper"].mean()
            lines.append(
                f"- test {metric}, selection `{name}`: {ours:.2f} against the paper's "
                f"{paper:.2f} ({ours - paper:+.2f}), mean over {len(ran)} cells."
            )
    return "\n".join(lines) + "\n"


def crossval_sizes_table(versus: pd.DataFrame) -> str:
    """Markdown: per training size of a ``*_crossval_vs_paper.tsv`` table, each metric's
    test score under the compared selection (``ours``, "—" where that size is not run),
    under the one beside it, and the paper's, each the mean over the size's feature
    counts. Every mean is over the same cells, so a row compares like with like."""
    versus, beside = _crossval_selections(versus)
    protocols = versus["protocol"].unique()
    if len(protocols) != 1:
        raise ValueError(f"headline: one compared selection expected, found {list(protocols)}")
    compared = protocols[0]
    beside = [name for name in beside if name != compared]
    metrics = sorted(versus["metric"].unique())
    columns = [(compared, "ours"), *((name, name) for name in beside), ("paper", "paper")]
    header = [f"{metric} {name}" for metric in metrics for name, _ in columns]
    lines = ["| n_train | " + " | ".join(header) + " |", "|---" * (len(header) + 1) + "|"]
    above = {(metric, name): [] for metric in metrics for name in beside}
    for size, part in versus.groupby("n_train", sort=True):
        cells = []
        for metric in metrics:
            rows = part[part["metric"] == metric]
            means = {
                column: rows[column].mean() if rows[column].notna().all() else None
                for _, column in columns
            }
            cells += [_number(means[column]) for _, column in columns]
            for name in beside:
                if means["ours"] is not None and means[name] is not None:
                    above[metric, name].append(means["ours"] > means[name])
        lines.append(f"| {size} | " + " | ".join(cells) + " |")
    lines.append("")
    for (metric, name), wins in above.items():
        lines.append(
            f"- {metric}: `{compared}` above `{name}` at {sum(wins)} of the {len(wins)} "
            "sizes where both are published."
        )
    return "\n".join(lines) + "\n"


def cost_table(runs: pd.DataFrame) -> str:
    """Markdown: CPU and wall hours and commits of every published run, and the total."""
    lines = ["| run | commit | CPU hours | wall hours |", "|---|---|---|---|"]
    for row in runs.itertuples(index=False):
        lines.append(f"| {row.run} | {row.commit} | {row.cpu_hours:.2f} | {row.wall_hours:.2f} |")
    lines.append(
        f"| **total** | {runs['commit'].nunique()} commits | {runs['cpu_hours'].sum():.2f} "
        f"| {runs['wall_hours'].sum():.2f} |"
    )
    return "\n".join(lines) + "\n"


def leaderboard_lines(board: pd.DataFrame, metric: str = "acc", top: int = 5) -> str:
    """Markdown: per protocol of a ``leaderboard.tsv``, the Friedman test, the ``top``
    methods by mean rank and where the budget-matched random control stands."""
    lines = [
        f"| protocol | Friedman p | CD | best {top} by mean rank ({metric}) | random control |",
        "|---|---|---|---|---|",
    ]
    for protocol, part in board[board["metric"] == metric].groupby("protocol", sort=False):
        part = part.sort_values("rank", kind="stable").reset_index(drop=True)
        best = ", ".join(f"{r.method} {r.rank:.2f}" for r in part.head(top).itertuples())
        control = part.index[part["method"] == "random"]
        where = (
            f"{control[0] + 1} of {len(part)} (mean rank {part['rank'][control[0]]:.2f})"
            if len(control)
            else "not run"
        )
        first = part.iloc[0]
        lines.append(
            f"| {protocol} | {first['p_value']:.2g} | {_number(first['cd'])} | {best} | {where} |"
        )
    return "\n".join(lines) + "\n"


def _lowest(rows: pd.DataFrame, column: str) -> str:
    """The method(s) with the lowest ``column``, ties joined by ``=`` (the paper prints
    three decimals: its ties are real at that precision)."""
    low = rows[column].min()
    return "=".join(rows.loc[rows[column] <= low + 1e-12, "method"])


def css_lines(versus: pd.DataFrame, method: str = "pocss", k: int = 50) -> str:
    """Markdown from a ``pocss_vs_paper.tsv``: per dataset run, ``method``'s error ratio
    (ours, the paper's, the difference) and the best method by ours and by the paper;
    then every method's average rank, ours and the paper's, and how many cells are
    within the comparison's tolerance."""
    part = versus[versus["k"] == k]
    cells = part[part["dataset"] != "average_rank"]
    ran = cells.dropna(subset=["ours_mean"])
    if ran.empty:
        raise ValueError(f"headline: no cell with k = {k} ran in the comparison table")
    lines = [
        f"| dataset | {method} (ours) | paper | difference | best (ours) | best (paper) |",
        "|---|---|---|---|---|---|",
    ]
    for dataset, rows in ran.groupby("dataset", sort=False):
        mine = rows[rows["method"] == method].iloc[0]
        paper = cells[cells["dataset"] == dataset]
        best, best_paper = _lowest(rows, "ours_mean"), _lowest(paper, "paper_mean")
        lines.append(
            f"| {dataset} | {mine['ours_mean']:.3f} | {mine['paper_mean']:.3f} "
            f"| {mine['difference']:+.3f} | {best} | {best_paper} |"
        )
    ranks = part[part["dataset"] == "average_rank"].sort_values("ours_mean", kind="stable")
    ours = ", ".join(f"{r.method} {r.ours_mean:.2f}" for r in ranks.itertuples())
    theirs = ", ".join(
        f"{r.method} {r.paper_mean:.2f}"
        for r in ranks.sort_values("paper_mean", kind="stable").itertuples()
    )
    within = int(ran["within_tolerance"].astype(bool).sum())
    lines += [
        "",
        f"Average rank over the {ran['dataset'].nunique()} datasets run (1 = best): ours "
        f"{ours}; the paper's {theirs}. Cells within 0.005 of the paper: {within} of "
        f"{len(ran)} (k = {k}, every method).",
    ]
    return "\n".join(lines) + "\n"


def graph_fidelity_lines(versus: pd.DataFrame, metric: str = "acc") -> str:
    """Markdown from a ``srsg_vs_paper.tsv``: per method, its ``metric`` cells run of the
    paper's, how the table sorts them (within target, within seed noise, miss) and the
    mean difference of the oracle and of the default setting."""
    cells = versus[versus["metric"] == metric]
    lines = [
        "| method | cells run (of the paper's) | within ±0.02 | within seed noise | miss "
        "| mean difference (oracle) | mean difference (default) |",
        "|---|---|---|---|---|---|---|",
    ]
    for method, part in cells.groupby("method", sort=False):
        ran = part.dropna(subset=["ours"])
        counts = ran["fidelity"].value_counts()
        default = (ran["ours_default"] - ran["paper"]).mean()
        lines.append(
            f"| {method} | {len(ran)} ({len(part)}) | {counts.get('within target', 0)} "
            f"| {counts.get('within seed noise', 0)} | {counts.get('miss', 0)} "
            f"| {_number(ran['difference'].mean(), signed=True)} "
            f"| {_number(default, signed=True)} |"
        )
    return "\n".join(lines) + "\n"


def blufs_lines(versus: pd.DataFrame, friedman: pd.DataFrame, metric: str = "acc") -> str:
    """Markdown from a ``blufs_vs_paper.tsv`` and its Friedman ranks: per dataset BLUFS's
    ``metric`` cell (the oracle, the paper's, the default setting averaged over the
    counts, the RandomSubset oracle, the winner re-run with fresh seeds), then how many
    of the paper's cells of selection methods lie below our RandomSubset oracle, and the
    mean ranks."""
    cells = versus[(versus["metric"] == metric) & versus["paper"].notna()]
    blufs = cells[(cells["method"] == "blufs") & cells["ours"].notna()]
    if blufs.empty:
        raise ValueError(f"headline: no blufs {metric} cells with a paper value")
    lines = [
        "| dataset | ours (oracle) | paper | difference | default setting | random control "
        "| winner re-seeded | re-seeded - paper |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for row in blufs.itertuples(index=False):
        reseed = "—"
        if not np.isnan(row.reseed_mean):
            reseed = f"{row.reseed_mean:.2f} ± {row.reseed_std:.2f} ({int(row.reseeds)})"
        lines.append(
            f"| {row.dataset} | {_number(row.ours)} | {_number(row.paper)} "
            f"| {_number(row.difference, signed=True)} | {_number(row.default)} "
            f"| {_number(row.random_oracle)} | {reseed} "
            f"| {_number(row.reseed_difference, signed=True)} |"
        )
    selection = cells[(cells["method"] != "allfea") & cells["random_oracle"].notna()]
    below = int((selection["paper"] < selection["random_oracle"]).sum())
    counted = (
        f"The paper's cells of selection methods below our RandomSubset oracle: {below} of "
        f"{len(selection)} ({metric}, datasets run)."
    )
    if friedman["mean_rank"].isna().all():  # one dataset published: nothing to rank
        lines += ["", f"{counted} Friedman ranks: not yet, they need two datasets."]
        return "\n".join(lines) + "\n"
    ranks = ", ".join(
        f"{row.method} {row.mean_rank:.2f}"
        for row in friedman.sort_values("mean_rank", kind="stable").itertuples(index=False)
    )
    # Published parts may cover some datasets only: the ranks say over how many.
    n_datasets = friedman.get("n_datasets")
    over = f" over {int(n_datasets.iloc[0])} datasets" if n_datasets is not None else ""
    lines += ["", f"{counted} Friedman mean ranks on {metric}{over} (1 = best): {ranks}."]
    return "\n".join(lines) + "\n"


def _setting_key(sid: str):
    """Sort key of a setting id: by its value when it sets one number, else by name."""
    name, _, value = sid.partition("=")
    try:
        return (0, name, float(value)) if "," not in sid else (1, sid, 0.0)
    except ValueError:
        return (1, sid, 0.0)


def sweep_lines(settings: pd.DataFrame, versus: pd.DataFrame, method: str, metric="acc") -> str:
    """Markdown: ``method``'s ``metric`` mean at every setting of a sweep
    (``clustering_settings.tsv``) per dataset, beside the paper's cell
    (``srsg_vs_paper.tsv``); the default setting's column is marked, each row's best is
    bold."""
    part = settings[settings["method"] == method]
    if part.empty:
        raise ValueError(f"headline: no {method} settings in the sweep")
    sids = sorted(part["setting"].unique(), key=_setting_key)
    defaults = set(part.loc[part["default"].astype(bool), "setting"])
    paper = versus[(versus["method"] == method) & (versus["metric"] == metric)]
    paper = paper.set_index("dataset")["paper"]
    names = [f"{sid} (default)" if sid in defaults else sid for sid in sids]
    lines = [
        "| dataset | paper | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(sids),
    ]
    for dataset, rows in part.groupby("dataset", sort=False):
        means = rows.set_index("setting")[f"{metric}_mean"].reindex(sids)
        best = means.max()
        cells = [
            f"**{_number(v, digits=4)}**" if v == best else _number(v, digits=4) for v in means
        ]
        value = paper.get(dataset, np.nan)
        lines.append(f"| {dataset} | {_number(value, digits=4)} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def blocks(measured) -> dict[str, str]:
    """Every headline block, by name, from the committed files under ``measured``."""
    measured = Path(measured)
    lsdcl = measured / "lsdcl"
    versus = pd.read_csv(lsdcl / "lsdcl_vs_paper.tsv", sep="\t")
    crossval = pd.read_csv(lsdcl / "lsdcl_crossval_vs_paper.tsv", sep="\t")
    made = {
        "lsdcl-acc": cells_table(versus, "lsdcl", "acc"),
        "lsdcl-nmi": cells_table(versus, "lsdcl", "nmi"),
        "lsdcl-fidelity": fidelity_table(versus, "acc"),
        "lsdcl-crossval": crossval_line(crossval),
        "lsdcl-crossval-sizes": crossval_sizes_table(crossval),
        "lsdcl-cost": cost_table(pd.read_csv(lsdcl / "runs.tsv", sep="\t")),
    }
    board = measured / "leaderboard"
    if (board / "leaderboard.tsv").is_file():
        made["leaderboard-ranks"] = leaderboard_lines(
            pd.read_csv(board / "leaderboard.tsv", sep="\t")
        )
        made["leaderboard-cost"] = cost_table(pd.read_csv(board / "runs.tsv", sep="\t"))
    step = measured / "srsg-step"
    if (step / "clustering_settings.tsv").is_file():
        made["srsg-step"] = sweep_lines(
            pd.read_csv(step / "clustering_settings.tsv", sep="\t"),
            pd.read_csv(step / "srsg_vs_paper.tsv", sep="\t", dtype={"table": str}),
            "srsg",
        )
    blufs = measured / "blufs"
    if (blufs / "blufs_vs_paper.tsv").is_file():
        made["blufs-acc"] = blufs_lines(
            pd.read_csv(blufs / "blufs_vs_paper.tsv", sep="\t"),
            pd.read_csv(blufs / "blufs_friedman_acc.tsv", sep="\t"),
        )
        made["blufs-cost"] = cost_table(pd.read_csv(blufs / "runs.tsv", sep="\t"))
    pocss, srsg = measured / "pocss", measured / "srsg"
    if (pocss / "pocss_vs_paper.tsv").is_file():
        made["pocss-table1"] = css_lines(pd.read_csv(pocss / "pocss_vs_paper.tsv", sep="\t"))
        made["pocss-cost"] = cost_table(pd.read_csv(pocss / "runs.tsv", sep="\t"))
    if (srsg / "srsg_vs_paper.tsv").is_file():
        versus = pd.read_csv(srsg / "srsg_vs_paper.tsv", sep="\t", dtype={"table": str})
        made["srsg-acc"] = graph_fidelity_lines(versus, "acc")
        made["srsg-nmi"] = graph_fidelity_lines(versus, "nmi_max")
        made["srsg-cost"] = cost_table(pd.read_csv(srsg / "runs.tsv", sep="\t"))
    return made


def render_page(text: str, made: dict[str, str]) -> str:
    """``text`` with every headline block replaced by its generated content."""
    unknown = [name for name in _BLOCK.findall(text) if name[0] not in made]
    if unknown:
        raise ValueError(f"headline: unknown blocks {[u[0] for u in unknown]}")
    return _BLOCK.sub(
        lambda m: f"<!-- headline: {m.group(1)} -->\n{made[m.group(1)]}<!-- end headline -->",
        text,
    )


def check_page(text: str, made: dict[str, str]) -> list[str]:
    """The names of the page's blocks that differ from the generated ones, and of the
    generated blocks the page lacks."""
    found = dict(_BLOCK.findall(text))
    stale = [name for name, body in found.items() if made.get(name) != body]
    return stale + [name for name in made if name not in found]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path, help="the page, e.g. measured/README.md")
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 naming the blocks that differ from the files",
    )
    args = parser.parse_args(argv)
    text, made = args.page.read_text(), blocks(args.page.parent)
    if args.check:
        stale = check_page(text, made)
        if stale:
            raise SystemExit(f"{args.page}: blocks differ from the files: {', '.join(stale)}")
        return
    args.page.write_text(render_page(text, made))


if __name__ == "__main__":
    main()
