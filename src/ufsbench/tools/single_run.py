"""What a run publishes when its tables span all its datasets at once.

A leaderboard ranks methods over every dataset, the POCSS Table 1 and the BLUFS tables
carry average ranks and Friedman tests over the datasets, and the SRSG tables lay the
datasets out side by side: unlike the LSDCL tables (one row per dataset, merged across
runs by :mod:`ufsbench.papers.merge`), such tables cannot be assembled from the finished
tables of runs over different datasets. These kinds are published from one run (BLUFS
also from several: :mod:`ufsbench.tools.merge_blufs` renders its tables again from the
merged rows): its files (:data:`REQUIRED`,
:data:`OPTIONAL`) are copied into ``INTO/runs/<datasets>/`` and then up into ``INTO/``
itself, each Markdown table with a LaTeX rendering beside it (:func:`markdown_to_latex`) and each
comparison with the paper with a per-method summary of how far its cells are
(:func:`fidelity_counts`). Both are formatting of finished tables, kept here rather than
in the modules the workflow's rules hash, so that they never make a published job stale.

The hand-written notes are inputs of the workflow's table jobs, so a changed notes file
re-runs those (cheap) jobs; publish again afterwards.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd

from ufsbench.io import write_table, write_text

# Per kind: (folder under the results, glob) pairs; a published file is named by its
# path below that folder, "/" read as "_" (figures/css/dna/anytime.png -> dna_anytime.png).
# REQUIRED patterns must each match a file, or the run is not finished.
REQUIRED = {
    "leaderboard": (
        ("tables", "leaderboard.tsv"),
        ("tables", "leaderboard.md"),
        ("tables", "summary.tsv"),
        ("figures/leaderboard", "cd_*.png"),
    ),
    "css": (
        ("tables", "css_table1.md"),
        ("tables", "css_summary.tsv"),
        ("tables", "pocss_vs_paper.tsv"),
    ),
    "clustering": (
        ("tables", "clustering.tsv"),
        ("tables", "srsg_vs_paper.tsv"),
        ("tables", "srsg_table*.md"),
    ),
    "blufs": (
        ("tables", "blufs_cells.tsv"),
        ("tables", "blufs_vs_paper.tsv"),
    ),
}
# The feature-selection side of a paper config (its k-means evaluation): the summary and
# t-tests, not the per-setting scores and curves (megabytes; a re-run makes them).
SELECTION = (("tables", "summary.tsv"), ("tables", "ttest_*.tsv"), ("figures", "*/curves.png"))
OPTIONAL = {
    "leaderboard": (),
    "css": (  # not css_anytime.tsv: every POCSS trace, 2 MB; its figures are published
        ("tables", "css_runs.tsv"),
        ("timings", "css_seconds.tsv"),
        ("figures/css", "*/*.png"),
        *SELECTION,
    ),
    "clustering": (("tables", "clustering_settings.tsv"),),  # every setting, not only the best
    "blufs": (
        ("tables", "blufs_*.tsv"),
        ("tables", "blufs_*.md"),
        ("timings", "blufs_table8.*"),
        ("figures/blufs", "*.png"),
        *SELECTION,
    ),
}
# Written by the publication itself, never copied up from a run's folder.
RUN_RECORDS = ("cost.tsv", "jobs.tsv", "run.json")


def kinds_of(config: dict) -> list[str]:
    """The single-run kinds a config's run produces (empty: none of them)."""
    if config.get("leaderboard") is not None:
        return ["leaderboard"]
    return [kind for kind in ("css", "clustering", "blufs") if config.get(kind)]


def _matches(results: Path, base: str, pattern: str) -> dict[str, Path]:
    folder = results / base
    found = sorted(p for p in folder.glob(pattern) if p.is_file())
    return {str(p.relative_to(folder)).replace("/", "_"): p for p in found}


def run_outputs(results: Path, kinds) -> dict[str, Path]:
    """The files of a finished run to publish: name in the published folder -> path."""
    files, missing = {}, []
    for kind in kinds:
        for base, pattern in REQUIRED[kind]:
            found = _matches(results, base, pattern)
            if not found:
                missing.append(str(results / base / pattern))
            files.update(found)
        for base, pattern in OPTIONAL[kind]:
            files.update(_matches(results, base, pattern))
    if missing:
        raise SystemExit(f"not a finished {'+'.join(kinds)} run: missing {', '.join(missing)}")
    return files


def copy_up(run: Path, into: Path) -> list[Path]:
    """Copy the one published run's files into ``into`` with the LaTeX tables and the
    fidelity summaries; return the files written."""
    written = []
    for path in sorted(run.iterdir()):
        if path.name in RUN_RECORDS or not path.is_file():
            continue
        shutil.copy2(path, into / path.name)
        written.append(into / path.name)
        if path.suffix == ".md":
            tex = into / f"{path.stem}.tex"
            write_text(tex, markdown_to_latex(path.read_text()))
            written.append(tex)
        if path.name.endswith("_vs_paper.tsv"):
            paper = path.name.removesuffix("_vs_paper.tsv")
            fidelity = into / f"{paper}_fidelity.tsv"
            write_table(fidelity, fidelity_counts(pd.read_csv(path, sep="\t")))
            written.append(fidelity)
    return written


def fidelity_counts(table: pd.DataFrame) -> pd.DataFrame:
    """How far each method's cells are from the paper, for any ``*_vs_paper`` table.

    One row per group of the keys the table has (``table``, ``protocol``, ``method``,
    ``metric``, ``k``), over the paper's cells (rows with a paper value; rank rows such
    as POCSS's ``average_rank`` left out): ``cells``, how many ``ran`` (have ours),
    ``mean_diff``, ``mean_abs_diff`` and ``max_abs_diff`` (ours - paper, on the cells
    run), and where the table sorts cells itself, a count per verdict: ``fidelity``
    (SRSG: ``within target`` / ``within seed noise`` / ``miss``) or
    ``within_tolerance`` (POCSS).
    """
    ours = next(c for c in ("ours", "ours_mean") if c in table)
    paper = next(c for c in ("paper", "paper_mean") if c in table)
    diff = next(c for c in ("difference", "diff") if c in table)
    cells = table[table[paper].notna()]
    if "dataset" in cells:
        cells = cells[cells["dataset"] != "average_rank"]
    keys = [k for k in ("table", "protocol", "method", "metric", "k") if k in cells]
    rows = []
    for key, part in cells.groupby(keys, sort=False, dropna=False):
        ran = part[part[ours].notna()]
        signed = ran[diff].astype(float)  # mean and max of no cell: NaN
        row = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
        row.update(
            cells=len(part),
            ran=len(ran),
            mean_diff=signed.mean(),
            mean_abs_diff=signed.abs().mean(),
            max_abs_diff=signed.abs().max(),
        )
        if "fidelity" in ran:
            for verdict in ("within target", "within seed noise", "miss"):
                row[verdict.replace(" ", "_")] = int((ran["fidelity"] == verdict).sum())
        if "within_tolerance" in ran:
            row["within_tolerance"] = int(ran["within_tolerance"].astype(bool).sum())
        rows.append(row)
    columns = [*keys, "cells", "ran", "mean_diff", "mean_abs_diff", "max_abs_diff"]
    if "fidelity" in cells:
        columns += ["within_target", "within_seed_noise", "miss"]
    if "within_tolerance" in cells:
        columns.append("within_tolerance")
    return pd.DataFrame(rows, columns=columns)  # with its header when no paper cell ran


_LATEX_ESCAPES = {
    "\\": r"\textbackslash{}",
    **{char: "\\" + char for char in "&%$#_{}"},
}


def _latex_cell(text: str) -> str:
    text = re.sub(r"[\\&%$#_{}]", lambda m: _LATEX_ESCAPES[m.group()], text.strip())
    text = re.sub(r"\*\*(.+?)\*\*", r"\\textbf{\1}", text)
    return text.replace("±", r"$\pm$").replace("−", "$-$")


def _table_row(line: str) -> list[str]:
    return [_latex_cell(cell) for cell in line.strip().strip("|").split("|")]


def markdown_to_latex(markdown: str) -> str:
    """A Markdown document's pipe tables as LaTeX (booktabs) tabulars.

    Headings and other text become ``%`` comments beside the tables, so the result is a
    fragment to ``\\input`` that keeps the notes (e.g. which datasets were not run).
    """
    lines, out, i = markdown.splitlines(), [], 0
    while i < len(lines):
        line = lines[i]
        is_table = line.lstrip().startswith("|") and i + 1 < len(lines)
        if is_table and re.fullmatch(r"\s*\|?(\s*:?-+:?\s*\|)+\s*:?-*:?\s*", lines[i + 1]):
            head = _table_row(line)
            out += [r"\begin{tabular}{l" + "c" * (len(head) - 1) + "}", r"\toprule"]
            out += [" & ".join(head) + r" \\", r"\midrule"]
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                out.append(" & ".join(_table_row(lines[i])) + r" \\")
                i += 1
            out += [r"\bottomrule", r"\end{tabular}"]
            continue
        if line.strip():
            out.append("% " + line.lstrip("#").strip())
        i += 1
    return "\n".join(out) + "\n"
