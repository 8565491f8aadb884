"""Publish a finished paper run's outputs and merge them with runs over other datasets.

A paper config can run as several runs, each on some of its datasets
(``--config datasets=[...]``), on different machines or days. This script copies one
finished run's paper outputs into a folder meant to be committed, then rebuilds the merged
tables from every run published there:

    ufsbench-publish-run RUN_DIR --config config/experiments/lsdcl.yaml \
        --into measured/lsdcl [--replace] [--root .]

``RUN_DIR`` is the folder the run ran in; its outputs are read from
``RUN_DIR/results/<experiment>/`` (the config's ``experiment``).
``INTO/runs/<datasets>/`` receives the run's Tables 2-3 (TSV), its comparison with the
paper, the convergence figure's data, the cross-validation tables, its per-dataset figures
(PNG), its cost per dataset and method (from the benchmark files), ``jobs.tsv`` (the commit
and code hash each job ran at, from the first line of its log: :mod:`ufsbench.provenance`)
``run.json`` (commit at publication, datasets, date, CPU and wall seconds, the jobs'
distinct commits and package versions) and ``tie_{settings,cells}.tsv`` (the settings
whose top features the tie rule completed, and the table cells that took them:
:mod:`ufsbench.tools.tied_rankings`). ``INTO/`` then holds the merged
``<paper>_{acc,nmi}.{tsv,md,tex}``, ``<paper>_vs_paper.tsv`` (notes from the config's notes
file, as they are now), ``<paper>_fidelity.tsv``, ``convergence.png`` (no PDF: its bytes
change at every merge), the cross-validation tables, ``runs.tsv`` (with the commits each
run's jobs ran at and how many of its jobs ran method code that has changed since),
``tie_{settings,cells}.tsv`` (every run's, with its run and commit) and
``provenance.tsv`` (every run's job groups, ``stale`` where the method's code hash at this
checkout differs from the one the jobs ran with); see
:mod:`ufsbench.papers.merge` for why these equal one run over all the datasets. A dataset
already published by another run is an error unless ``--replace`` drops that run. Without
``RUN_DIR`` the merged outputs are rebuilt only, e.g. after the notes file changed. With
``--crossval-part`` the run made the cross-validation alone, on some training sizes: its
tables merge with the other parts' sizes (:func:`ufsbench.papers.merge.merge_crossval`).

A leaderboard config (a ``leaderboard`` section, no ``paper``;
``config/experiments/leaderboard.yaml``) and the POCSS, SRSG and BLUFS configs (``css``,
``clustering``, ``blufs`` sections) produce tables that span all their datasets at once
(ranks, Friedman tests, the papers' side-by-side layouts): they publish from one run
(:mod:`ufsbench.tools.single_run` lists the files), into ``INTO/runs/<datasets>/`` with
``cost.tsv``, ``jobs.tsv`` and ``run.json``, and the files are copied up beside
``runs.tsv`` and ``provenance.tsv``, each Markdown table with its LaTeX and each
comparison with the paper with ``<paper>_fidelity.tsv``. A second published run is an
error (``--replace`` swaps a run of the same datasets), except for BLUFS: its runs over
disjoint datasets merge into what one run over all of them publishes, the side-by-side
tables and the Friedman test rendered again from the merged rows
(:mod:`ufsbench.tools.merge_blufs`).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
import yaml

from ufsbench.crossval import SUMMARY_COLUMNS
from ufsbench.io import write_table, write_text
from ufsbench.papers.crossval_report import crossval_markdown, crossval_versus
from ufsbench.papers.figures import best_traces, plot_traces, trace_panels
from ufsbench.papers.merge import (
    concat_disjoint,
    merge_crossval,
    merge_paper_tables,
    merge_vs_paper,
    renote,
)
from ufsbench.papers.tables import render_latex, render_markdown, table_title
from ufsbench.plan import grid_parameters
from ufsbench.plots import save_figure
from ufsbench.provenance import merge_provenance, run_provenance
from ufsbench.reference import load_notes, load_reference
from ufsbench.tools.merge_blufs import merge_runs
from ufsbench.tools.run_cost import job_costs
from ufsbench.tools.single_run import copy_up, kinds_of, run_outputs
from ufsbench.tools.tied_rankings import run_ties, with_tie_counts, write_run_ties

TABLES = ("acc", "nmi")


def results_of(run: Path, config: dict) -> Path:
    """The results folder of ``config``'s experiment in the run directory ``run``."""
    return run / "results" / config.get("experiment", "default")


def kind_of(config: dict, path) -> str:
    """``"paper"`` (merged across runs) or ``"single"`` (one run): what a config publishes."""
    if config.get("paper"):
        return "paper"
    if kinds_of(config):
        return "single"
    raise SystemExit(
        f"{path} has no paper section (and no leaderboard, css, clustering or blufs section)"
    )


def require(files: dict[str, Path], what: str) -> None:
    missing = [str(path) for path in files.values() if not path.is_file()]
    if missing:
        raise SystemExit(f"not a finished {what} run: missing {', '.join(missing)}")


def run_files(results: Path, paper: dict, *, crossval_part: bool = False) -> dict[str, Path]:
    """The run's paper outputs to publish: name in the published folder -> path. A
    cross-validation part publishes its cross-validation tables only."""
    name, tables = paper["name"], results / "tables"
    if crossval_part:
        files = {f"{name}_crossval.tsv": tables / f"{name}_crossval.tsv"}
        require(files, f"{name} cross-validation")
    else:
        files = {f"{name}_{t}.tsv": tables / f"{name}_{t}.tsv" for t in TABLES}
        files[f"{name}_vs_paper.tsv"] = tables / f"{name}_vs_paper.tsv"
        require(files, name)
    for path in sorted(tables.glob(f"{name}_crossval*")):
        files[path.name] = path
    if crossval_part:
        return files
    for path in sorted((results / "figures" / name).glob("*.png")):
        if path.name != "convergence.png":  # spans datasets: redrawn from the merged traces
            files[path.name] = path
    return files


def convergence_data(results: Path, paper: dict, datasets) -> pd.DataFrame | None:
    """The convergence figure's traces on the run's datasets, or None."""
    conv = paper.get("convergence") or {}
    wanted = [d for d in conv.get("datasets", []) if d in datasets]
    tables = results / "tables"
    if not wanted or not (tables / "convergence.tsv").is_file():
        return None
    traces = pd.read_csv(tables / "convergence.tsv", sep="\t")
    scores = pd.read_csv(tables / "scores.tsv", sep="\t")
    return best_traces(traces, scores, conv["method"], wanted)


def provenance(run: Path, datasets, jobs: pd.DataFrame, root: Path) -> dict:
    """Where the run's code came from, when it was published and what it cost."""
    # A run directory is a checkout of the project, or a work directory run with
    # --snakefile from the checkout ``root`` (the tests).
    for code in (run, root):
        head = subprocess.run(
            ["git", "-C", str(code), "rev-parse", "HEAD"], capture_output=True, text=True
        )
        if head.returncode == 0:
            break
    else:
        raise SystemExit(f"neither {run} nor {root} is a git checkout: the code is unknown")
    status = subprocess.run(
        ["git", "-C", str(code), "status", "--porcelain", "--untracked-files=no"],
        capture_output=True,
        text=True,
        check=True,
    )
    return {
        "datasets": list(datasets),
        "code": str(code.resolve()),
        "commit": head.stdout.strip(),
        "modified_files": status.stdout.splitlines(),
        "published": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "jobs_benchmarked": len(jobs),
        "cpu_seconds": round(float(jobs["cpu_s"].sum()), 1) if len(jobs) else None,
        "wall_seconds": round(float(jobs["wall_s"].sum()), 1) if len(jobs) else None,
    }


def read_crossval(path: Path) -> pd.DataFrame:
    """A published or run's cross-validation summary, with its ``protocol`` column."""
    return legacy_crossval(pd.read_csv(path, sep="\t"))


def crossval_cells(summary: pd.DataFrame) -> set[tuple[str, int]]:
    """The (selection, training size) pairs a cross-validation summary holds."""
    pairs = summary[["protocol", "n_train"]].drop_duplicates().itertuples(index=False)
    return {(p.protocol, int(p.n_train)) for p in pairs}


def crossval_part_name(dataset: str, summary: pd.DataFrame) -> str:
    """``<dataset>-crossval-<selections>-n<sizes>``: a cross-validation part's folder."""
    selections = "+".join(pd.unique(summary["protocol"]))  # the config's order
    sizes = "+".join(str(n) for n in sorted(pd.unique(summary["n_train"])))
    return f"{dataset}-crossval-{selections}-n{sizes}"


def crossval_clashes(records, cells: set, name: str) -> tuple[list[Path], list[Path]]:
    """The published runs whose cross-validation shares a (selection, size) with
    ``cells``: parts (``--replace`` may drop them), and runs of datasets (never dropped)."""
    parts, whole = [], []
    for record in records:
        summary = record.parent / f"{name}_crossval.tsv"
        if summary.is_file() and cells & crossval_cells(read_crossval(summary)):
            has_datasets = bool(json.loads(record.read_text())["datasets"])
            (whole if has_datasets else parts).append(record)
    return parts, whole


def this_runs_jobs(others, sizes=None):
    """Which rows of a job table (costs or records) this run made, when earlier runs in
    its folder left theirs: not the jobs of the config's ``others`` datasets (an earlier
    part's), and for a cross-validation part of training ``sizes`` no crossval job of
    another size (job ``n<size>/d<draw>`` or ``n<size>``)."""
    names = {f"n{size}" for size in sizes or ()}

    def keep(jobs: pd.DataFrame) -> pd.Series:
        ours = ~jobs["dataset"].isin(list(others))
        if sizes is None:
            return ours
        size = jobs["job"].astype(str).str.split("/").str[0]
        return ours & ((jobs["stage"] != "crossval") | size.isin(names))

    return keep


def legacy_crossval(summary: pd.DataFrame) -> pd.DataFrame:
    """A summary from before the selections were named (no ``protocol`` column) is the
    full-data selection's, the only one run then (measured/lsdcl, 2026-11-26)."""
    if "protocol" in summary:
        return summary
    return summary.assign(protocol="full_data_oracle")[list(SUMMARY_COLUMNS)]


def publish(
    run: Path,
    config: dict,
    into: Path,
    *,
    root: Path,
    replace: bool = False,
    crossval_part: bool = False,
) -> Path:
    """Copy one run's outputs to ``into/runs/<datasets>`` and return that folder.

    ``crossval_part``: the run made the cross-validation only, on some training sizes
    (``--config 'paper={crossval: {train_sizes: [...]}}' --until crossval_vs_paper``);
    its tables go to ``into/runs/<dataset>-crossval-<selections>-n<sizes>`` and merge with
    the other runs' sizes."""
    paper = config["paper"] if kind_of(config, "the config") == "paper" else None
    if crossval_part and not (paper and paper.get("crossval")):
        raise SystemExit("--crossval-part: the config has no paper.crossval section")
    results = results_of(run, config)
    cells: set[tuple[str, int]] = set()
    if paper:
        files = run_files(results, paper, crossval_part=crossval_part)
        summary_file = files.get(f"{paper['name']}_crossval.tsv")
        summary = read_crossval(summary_file) if summary_file else None
        cells = crossval_cells(summary) if summary is not None else set()
    if crossval_part:
        datasets = []
        folder = crossval_part_name(paper["crossval"]["dataset"], summary)
    elif paper:
        acc = pd.read_csv(files[f"{paper['name']}_acc.tsv"], sep="\t")
        datasets = [d for d in pd.unique(acc["dataset"]) if d != "Average"]
        folder = run_folder_name(config, datasets)
    else:
        files = run_outputs(results, kinds_of(config))
        if kinds_of(config) == ["blufs"]:  # its parts may share one results folder
            files = without_other_datasets(files, config)
        datasets = run_datasets(config, files)
        folder = run_folder_name(config, datasets)
    records = sorted((into / "runs").glob("*/run.json"))
    clashes = [r for r in records if set(json.loads(r.read_text())["datasets"]) & set(datasets)]
    if cells:  # --replace drops an earlier part, never a run's selection cells with it
        rest = [r for r in records if r not in clashes]  # (those go with --replace)
        parts, whole = crossval_clashes(rest, cells, paper["name"])
        if whole:
            names = ", ".join(r.parent.name for r in whole)
            raise SystemExit(
                f"cross-validation sizes of this run are already published by {names}, with"
                " its datasets: publish the other selections or sizes only"
            )
        clashes += parts
    if clashes and not replace:
        names = ", ".join(c.parent.name for c in clashes)
        raise SystemExit(f"datasets of this run are already published by {names}; --replace")
    runs = into / "runs"
    # Built beside the published runs and renamed into place once complete, so a failure
    # leaves every earlier publication (and a replaced one) as it was.
    target = runs / folder
    staging = runs / f".{target.name}.part"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    for name, path in files.items():
        shutil.copy2(path, staging / name)
    traces = convergence_data(results, paper, datasets) if paper else None
    if paper and datasets:  # the selections the tie rule completed, and the cells they reach
        metrics = ("acc", paper.get("nmi", "nmi_sqrt"))
        write_run_ties(staging, *run_ties(results, datasets, metrics=metrics))
    if traces is not None:
        write_table(staging / f"{paper['name']}_convergence_traces.tsv", traces)
    # An earlier run in the same folder over other datasets of the config (a part) left
    # its jobs' benchmarks and logs there: they are that run's, not this one's.
    ran = set(datasets) | ({paper["crossval"]["dataset"]} if crossval_part else set())
    others = [d for d in config.get("datasets", []) if d not in ran]
    # A cross-validation part's folder also holds the draws of the parts made before it.
    keep = this_runs_jobs(others, {size for _, size in cells} if crossval_part else None)
    jobs = job_costs(results)
    if len(jobs):
        jobs = jobs[keep(jobs)]
    if len(jobs):
        cost = jobs.groupby(["dataset", "method", "stage"], as_index=False)[["cpu_s", "wall_s"]]
        write_table(staging / "cost.tsv", cost.sum())
    info = provenance(run, datasets, jobs, root)
    if cells:
        info["crossval"] = sorted([protocol, size] for protocol, size in cells)
    # Per job: the commit and code hash each job ran at (its log's first line).
    logs = run / "logs" / config.get("experiment", "default")
    recorded, info["jobs"] = run_provenance(logs, keep=keep)
    write_table(staging / "jobs.tsv", recorded)
    write_text(staging / "run.json", json.dumps(info, indent=2) + "\n")
    for clash in clashes:
        shutil.rmtree(clash.parent)
    staging.rename(target)
    return target


def read_each(folders, filename: str) -> list[pd.DataFrame]:
    """The table ``filename`` of every published run that has it."""
    return [pd.read_csv(f / filename, sep="\t") for f in folders if (f / filename).is_file()]


def notes_of(section: dict, root: Path) -> pd.DataFrame | None:
    """The hand-written notes a config section names (``notes:``), or None."""
    return load_notes(root / section["notes"]) if section.get("notes") else None


def _natural(path: Path) -> list:
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", path.name)]


def published_runs(into: Path) -> list[Path]:
    """The run folders under ``into/runs``, numbers in their names in numeric order
    (``usps49-crossval-nested-n900`` before ``-n1000``)."""
    folders = sorted((p.parent for p in (into / "runs").glob("*/run.json")), key=_natural)
    if not folders:
        raise SystemExit(f"nothing published under {into / 'runs'}")
    return folders


def run_datasets(config: dict, files: dict[str, Path]) -> list[str]:
    """The datasets a single-run config's outputs hold, in the config's order (a dataset
    skipped for want of its file is not one: its tables say why it is missing)."""
    sections = [config.get(kind) or {} for kind in ("css", "clustering")]
    listed = [d for section in sections for d in section.get("datasets", [])]
    order = list(dict.fromkeys([*config.get("datasets", []), *listed]))
    found = set()
    for path in files.values():
        if path.suffix == ".tsv" and "vs_paper" not in path.name:
            columns = pd.read_csv(path, sep="\t", nrows=0).columns
            if "dataset" in columns:
                found |= set(pd.read_csv(path, sep="\t", usecols=["dataset"])["dataset"])
    return [d for d in order if d in found]


def without_other_datasets(files: dict[str, Path], config: dict) -> dict[str, Path]:
    """A BLUFS run's files without those of datasets its tables do not hold.

    Runs over parts of the datasets may share one checkout: a later part's results folder
    still holds the per-dataset figures and tables of an earlier part (named
    ``<kind>_<dataset>.<ext>`` or ``<dataset>_<kind>.<ext>``), which are that part's."""
    ran = set(pd.read_csv(files["blufs_cells.tsv"], sep="\t", usecols=["dataset"])["dataset"])
    others = [d for d in config.get("datasets", []) if d not in ran]
    if not others:
        return files
    stale = re.compile(rf"(^|_)({'|'.join(map(re.escape, others))})(_|\.)")
    left_out = sorted(name for name in files if stale.search(name))
    if left_out:
        print(f"left out, files of datasets this run's tables do not hold: {', '.join(left_out)}")
    return {name: path for name, path in files.items() if name not in left_out}


def run_folder_name(config: dict, datasets) -> str:
    """``<dataset>+<dataset>...``, or ``<experiment>-<n>-datasets`` when that is too long
    for a readable folder name."""
    name = "+".join(datasets)
    if len(name) <= 64:
        return name
    return f"{config.get('experiment', 'default')}-{len(datasets)}-datasets"


def merge_single(config: dict, into: Path, root: Path) -> None:
    """The published run's files copied up (with LaTeX and fidelity), and the index.

    Only BLUFS runs over disjoint datasets merge (:mod:`ufsbench.tools.merge_blufs`, also
    for one run: it applies the notes file as it is now); the other single-run kinds are
    published from one run."""
    folders = published_runs(into)
    if kinds_of(config) == ["blufs"]:  # its notes are applied afresh, even for one run
        staging = into / ".merged.part"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir()
        try:
            merge_runs(folders, staging, config, root)
            copy_up(staging, into)
        finally:
            shutil.rmtree(staging)
    elif len(folders) == 1:
        copy_up(folders[0], into)
    else:
        names = ", ".join(f.name for f in folders)
        raise SystemExit(
            f"these tables span all their datasets: they are published from one run; found {names}"
        )
    write_index(folders, into, root)


def merge(config: dict, into: Path, root: Path) -> None:
    """Rebuild the merged outputs in ``into`` from every run published under it."""
    if kind_of(config, "the config") == "single":
        merge_single(config, into, root)
        return
    paper = config["paper"]
    name = paper["name"]
    folders = published_runs(into)
    # Cross-validation parts hold no dataset's tables: there may be none yet.
    datasets = [f for f in folders if (f / f"{name}_acc.tsv").is_file()]
    ties = merge_ties(folders, into)
    if datasets:
        merge_dataset_tables(config, datasets, into, root, ties=ties)
    crossval = [f for f in folders if (f / f"{name}_crossval.tsv").is_file()]
    if len(crossval) == 1:  # one run's tables as it wrote them, with the current notes
        for path in crossval[0].glob(f"{name}_crossval*"):
            if path.name == f"{name}_crossval_vs_paper.tsv":
                cv_notes = notes_of(paper.get("crossval") or {}, root)
                write_table(into / path.name, renote(pd.read_csv(path, sep="\t"), cv_notes))
            else:
                shutil.copy2(path, into / path.name)
    elif crossval:  # runs over disjoint sizes: rendered again from the merged summary
        merge_crossval_parts(crossval, paper, into, root)
    write_index(folders, into, root)


def merge_ties(folders, into: Path) -> tuple[pd.DataFrame, list[str]] | None:
    """``tie_settings.tsv`` and ``tie_cells.tsv`` of every run that has them, with the
    run and its commit (runs published before the scan existed have none); returns the
    merged cells and the datasets those runs cover, or None when no run has them."""
    scanned = [f for f in folders if (f / "tie_cells.tsv").is_file()]
    if not scanned:
        return None
    info = {folder: json.loads((folder / "run.json").read_text()) for folder in scanned}
    merged = {}
    for name in ("tie_settings.tsv", "tie_cells.tsv"):
        tables = [
            pd.read_csv(folder / name, sep="\t").assign(
                run=folder.name, commit=info[folder]["commit"][:12]
            )
            for folder in scanned
        ]
        table = pd.concat(tables, ignore_index=True)
        order = ["run", "commit"] + [c for c in table.columns if c not in ("run", "commit")]
        merged[name] = table[order]
        write_table(into / name, merged[name])
    datasets = [d for folder in scanned for d in info[folder]["datasets"]]
    return merged["tie_cells.tsv"], datasets


def merge_dataset_tables(config: dict, folders, into: Path, root: Path, *, ties=None) -> None:
    """Tables 2-3, the comparison with the paper and the convergence figure of the runs
    ``folders``, merged over their datasets. ``ties``: the merged tie scan of the runs
    (:func:`merge_ties`), whose counts the comparison's cells then carry."""
    paper = config["paper"]
    name = paper["name"]
    order = config.get("datasets")
    labels = paper.get("labels", {})
    protocol = paper.get("protocol", "oracle")
    for table, metric in zip(TABLES, ("acc", paper.get("nmi", "nmi_sqrt")), strict=True):
        merged = merge_paper_tables(
            read_each(folders, f"{name}_{table}.tsv"),
            methods=paper.get("methods"),
            order=order,
        )
        title = table_title(metric, protocol)
        write_table(into / f"{name}_{table}.tsv", merged)
        write_text(into / f"{name}_{table}.md", render_markdown(merged, title, labels=labels))
        write_text(into / f"{name}_{table}.tex", render_latex(merged, title, labels=labels))
    notes = notes_of(paper, root)
    # The cells one run over the whole config would compare: unanswered ones show as such.
    reference = load_reference(root / paper["reference"])
    ran = reference["dataset"].isin(order or []) & reference["method"].isin(config["methods"])
    reference = reference[ran.to_numpy()]
    vs, fidelity = merge_vs_paper(
        read_each(folders, f"{name}_vs_paper.tsv"),
        notes=notes,
        order=order,
        reference=reference,
    )
    if ties is not None:
        vs = renote(with_tie_counts(vs, *ties), notes)
    write_table(into / f"{name}_vs_paper.tsv", vs)
    write_table(into / f"{name}_fidelity.tsv", fidelity)
    traces = read_each(folders, f"{name}_convergence_traces.tsv")
    if traces:
        conv = paper["convergence"]
        merged = concat_disjoint(traces, order=conv.get("datasets"), what="convergence traces")
        shown = grid_parameters(config["methods"].get(conv["method"]))
        figure = plot_traces(trace_panels(merged), conv["method"], parameters=shown)
        save_figure(figure, into / "convergence.png")


def merge_crossval_parts(folders, paper: dict, into: Path, root: Path) -> None:
    """The cross-validation tables of runs over disjoint (selection, size) pairs, as one
    run over all of them writes them (:mod:`ufsbench.papers.crossval_report`)."""
    name, section = paper["name"], paper["crossval"]
    selections = list(section.get("selection") or ["nested"])
    summaries = [read_crossval(f / f"{name}_crossval.tsv") for f in folders]
    try:
        summary = merge_crossval(summaries, selections)
    except ValueError as error:
        raise SystemExit(str(error)) from None
    write_table(into / f"{name}_crossval.tsv", summary)
    write_text(into / f"{name}_crossval.md", crossval_markdown(summary))
    versus = crossval_versus(
        summary,
        load_reference(root / section["reference"]),
        selections=selections,
        metric_map={"nmi": paper.get("nmi", "nmi_sqrt")},
        notes=notes_of(section, root),
    )
    write_table(into / f"{name}_crossval_vs_paper.tsv", versus)


def write_index(folders, into: Path, root: Path) -> None:
    """``runs.tsv`` (one row per published run) and ``provenance.tsv`` of ``into``."""
    # Which published cells were made by method code other than this checkout's.
    jobs, per_run = merge_provenance(folders, scripts=root / "workflow" / "scripts")
    write_table(into / "provenance.tsv", jobs)
    rows = []
    for folder in folders:
        info = json.loads((folder / "run.json").read_text())
        rows.append(
            {
                "run": folder.name,
                "commit": info["commit"][:12],
                "modified": len(info["modified_files"]),
                "published": info["published"],
                "datasets": ",".join(info["datasets"]),
                "cpu_hours": (info["cpu_seconds"] or 0.0) / 3600,
                "wall_hours": (info["wall_seconds"] or 0.0) / 3600,
                **per_run[folder.name],
            }
        )
    write_table(into / "runs.tsv", pd.DataFrame(rows))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "run", type=Path, nargs="?", help="a finished run directory; omitted: merge again only"
    )
    parser.add_argument(
        "--config",
        type=Path,
        required=True,
        help="the run's config (paper, leaderboard, css, clustering or blufs)",
    )
    parser.add_argument("--into", type=Path, required=True, help="the published folder")
    parser.add_argument("--replace", action="store_true", help="drop runs of the same datasets")
    parser.add_argument(
        "--crossval-part",
        action="store_true",
        help="the run made the cross-validation only, on some training sizes",
    )
    parser.add_argument(
        "--root",
        type=Path,
        default=Path.cwd(),
        help="the project checkout the config's paths are relative to (default: here)",
    )
    args = parser.parse_args(argv)
    config = yaml.safe_load(args.config.read_text())
    kind_of(config, args.config)
    if args.run is not None:
        folder = publish(
            args.run,
            config,
            args.into,
            root=args.root,
            replace=args.replace,
            crossval_part=args.crossval_part,
        )
        print(f"published {folder}")
    merge(config, args.into, root=args.root)
    print(f"merged {args.into}")


if __name__ == "__main__":
    main()
