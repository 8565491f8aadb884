"""One BLUFS publication from runs over disjoint dataset subsets.

The BLUFS reproduction costs about ten CPU hours, more than one sitting of a small
machine, so it can run as several runs of ``config/experiments/blufs.yaml``, each on some
of its datasets (``--config datasets=[...]``), each published into the same folder by
:mod:`ufsbench.tools.publish_run`. Seeds derive from (dataset, method, params, count,
repeat), so a dataset's rows do not depend on which other datasets shared its run, and
the merged folder holds what one run over all the datasets would publish:

- a table with a ``dataset`` column whose datasets differ between the runs is stacked,
  datasets in the config's order, block by block where one run writes blocks
  (:data:`BLOCKS`);
- a file only one run has (a dataset's figure) is copied;
- a file every run has with the same bytes (the synthetic data's picks and figures) is
  copied once. One that differs was made by different code or settings: it is taken
  from the run whose jobs for it (those of the dataset its name ends with, in each run's
  ``jobs.tsv``) ran at the newest commit, when each run's jobs for it ran at one commit
  and git orders those commits (a re-made part brings today's code's synthetic picks);
  otherwise it is an error;
- the tables that lay datasets side by side (Tables II, III, V, VII, VIII) and the
  Friedman test with its diagram (Fig. 7) are rendered again from the merged rows by
  :mod:`ufsbench.papers.blufs_report`, the workflow's own renderer;
- ``blufs_vs_paper.tsv``'s notes are made again (:func:`ufsbench.papers.blufs.renote`)
  with the config's notes file as it is now, as one run made today would write them.
"""

from __future__ import annotations

import filecmp
import shutil
from pathlib import Path

import pandas as pd

from ufsbench.io import write_table, write_text
from ufsbench.papers.blufs import renote
from ufsbench.papers.blufs_report import (
    friedman_outputs,
    table2_markdown,
    table3_markdown,
    table5_markdown,
    table7_markdown,
    table8_markdown,
)
from ufsbench.plan import BlufsSection
from ufsbench.plots import save_figure
from ufsbench.provenance import is_ancestor
from ufsbench.reference import load_notes
from ufsbench.tools.config import find_schema, validate_config
from ufsbench.tools.single_run import RUN_RECORDS

# Rendered from the merged rows below, never copied from a run.
RENDERED = (
    "blufs_table2.md",
    "blufs_table3.md",
    "blufs_table5.md",
    "blufs_table7.md",
    "blufs_table8.md",
    "blufs_friedman_acc.tsv",
    "blufs_nemenyi_acc.tsv",
    "cd_acc.png",
)
# Tables a run writes block by block (all datasets of the first block, then the next):
# file -> the column whose values are the blocks. Other tables are dataset after dataset.
BLOCKS = {
    "blufs_cells.tsv": "metric",
    "blufs_table5.tsv": "metric",
    "blufs_vs_paper.tsv": "metric",
}


def stack(tables: list[pd.DataFrame], order, block: str | None = None) -> pd.DataFrame:
    """Row-bind tables over disjoint datasets in one run's order: by ``block`` (values in
    the order met), then by dataset (``order`` first, then as met), rows kept in order."""
    owner: dict[str, int] = {}
    for i, table in enumerate(tables):
        for dataset in pd.unique(table["dataset"]):
            if owner.setdefault(dataset, i) != i:
                raise SystemExit(
                    f"dataset {dataset!r} is in two published runs; each dataset must come"
                    " from one run (publish again with --replace)"
                )
    merged = pd.concat(tables, ignore_index=True)
    known = list(order or [])
    datasets = known + [d for d in pd.unique(merged["dataset"]) if d not in known]
    keys = [merged["dataset"].map({d: r for r, d in enumerate(datasets)})]
    if block is not None:
        keys.insert(0, merged[block].map({b: r for r, b in enumerate(pd.unique(merged[block]))}))
    position = pd.DataFrame({i: key.to_numpy() for i, key in enumerate(keys)})
    return merged.iloc[position.sort_values(list(position), kind="stable").index].reset_index(
        drop=True
    )


def _per_dataset(paths: list[Path]) -> list[pd.DataFrame] | None:
    """The runs' tables when each has a ``dataset`` column and their datasets differ."""
    if any(p.suffix != ".tsv" for p in paths):
        return None
    tables = [pd.read_csv(p, sep="\t") for p in paths]
    if not all("dataset" in t for t in tables):
        return None
    seen = [set(t["dataset"]) for t in tables]
    if any(a & b for i, a in enumerate(seen) for b in seen[i + 1 :]):
        return None
    return tables


def merge_runs(folders: list[Path], staging: Path, config: dict, root: Path) -> None:
    """Write into ``staging`` the files one run over every published run's datasets
    would publish (``folders``: the published runs; ``config``: the BLUFS config, read
    with the defaults of the schema of the checkout ``root``)."""
    order = config.get("datasets")
    names = sorted({p.name for f in folders for p in f.iterdir() if p.is_file()})
    for name in names:
        if name in RUN_RECORDS or name in RENDERED:
            continue
        holders = [f / name for f in folders if (f / name).is_file()]
        if len(holders) == 1:
            shutil.copy2(holders[0], staging / name)
            continue
        tables = _per_dataset(holders)
        if tables is not None:
            write_table(staging / name, stack(tables, order, BLOCKS.get(name)))
        elif all(filecmp.cmp(holders[0], p, shallow=False) for p in holders[1:]):
            shutil.copy2(holders[0], staging / name)
        else:
            newest = newest_holder(holders, root)
            if newest is None:
                runs = ", ".join(p.parent.name for p in holders)
                raise SystemExit(
                    f"{name} differs between the published runs {runs} and is not one table"
                    " per dataset: they ran different code or settings, in an order their"
                    " jobs.tsv do not tell; re-run one so they agree"
                )
            others = ", ".join(p.parent.name for p in holders if p != newest)
            print(f"{name}: taken from {newest.parent.name} (newest code), not {others}")
            shutil.copy2(newest, staging / name)
    section = validate_config(config, find_schema(root))["blufs"]
    blufs = BlufsSection.read(section, True)
    _render(folders, staging, blufs)
    _renote(staging / "blufs_vs_paper.tsv", blufs, root)


def _renote(path: Path, blufs: BlufsSection, root: Path) -> None:
    """The comparison's notes from the notes file as it is now: each run's tables job
    read it as it was when the run was made."""
    if path.is_file():
        notes = load_notes(root / blufs.notes) if blufs.notes else None
        write_table(path, renote(pd.read_csv(path, sep="\t"), notes))


def _job_commits(holder: Path) -> set[str] | None:
    """The commits at which ``holder``'s run ran the jobs that made it: those of the
    dataset its file name ends with (``blufs_synthetic_<dataset>.tsv``), from the run's
    ``jobs.tsv``; None when the run recorded none."""
    jobs_file = holder.parent / "jobs.tsv"
    if not jobs_file.is_file():
        return None
    jobs = pd.read_csv(jobs_file, sep="\t", dtype=str, keep_default_na=False)
    named = [d for d in set(jobs["dataset"]) if d and holder.stem.endswith(f"_{d}")]
    if not named:
        return None
    dataset = max(named, key=len)  # dartboard1_noise_centred, not dartboard1_noise
    return set(jobs.loc[jobs["dataset"] == dataset, "commit"])


def newest_holder(holders: list[Path], root: Path) -> Path | None:
    """Of the runs' copies of one file, the copy made at the newest code: each run ran
    the file's jobs at one commit, and one of those commits descends from all the others
    (git, in the checkout ``root``). None when that cannot be told."""
    commits = []
    for holder in holders:
        made_at = _job_commits(holder)
        if not made_at or len(made_at) != 1:
            return None
        commits.append(made_at.pop())
    for holder, commit in zip(holders, commits, strict=True):
        if all(is_ancestor(other, commit, root) for other in commits):
            # Copies made at that same commit must agree: same code, same bytes.
            same = [h for h, c in zip(holders, commits, strict=True) if c == commit]
            if all(filecmp.cmp(holder, h, shallow=False) for h in same):
                return holder
            return None
    return None


def _render(folders: list[Path], staging: Path, blufs: BlufsSection) -> None:
    """The cross-dataset tables and Fig. 7 from the merged rows in ``staging``."""
    lacking = [f.name for f in folders if not (f / "blufs_table5.tsv").is_file()]
    if lacking:
        raise SystemExit(
            f"published runs {', '.join(lacking)} lack blufs_table5.tsv (Table V's cells, "
            "written since the BLUFS tables could merge): re-run their tables job "
            "(snakemake in the run directory re-makes it alone) and publish them again"
        )
    cells = pd.read_csv(staging / "blufs_cells.tsv", sep="\t")
    write_text(staging / "blufs_table2.md", table2_markdown(cells))
    write_text(staging / "blufs_table3.md", table3_markdown(cells))
    ablation = pd.read_csv(staging / "blufs_table5.tsv", sep="\t")
    write_text(staging / "blufs_table5.md", table5_markdown(ablation))
    winners = pd.read_csv(staging / "blufs_table7.tsv", sep="\t")
    write_text(staging / "blufs_table7.md", table7_markdown(winners, blufs.knn))
    if (staging / "blufs_table8.tsv").is_file():
        seconds = pd.read_csv(staging / "blufs_table8.tsv", sep="\t")
        write_text(staging / "blufs_table8.md", table8_markdown(seconds))
    ranks, pairwise, figure, _ = friedman_outputs(cells, alpha=blufs.cd_alpha)
    write_table(staging / "blufs_friedman_acc.tsv", ranks)
    write_table(staging / "blufs_nemenyi_acc.tsv", pairwise)
    save_figure(figure, staging / "cd_acc.png")
