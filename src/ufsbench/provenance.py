"""Where a result came from: the commit and code hash each job ran at, and what changed since.

A workflow job records, as the first line of its log, the commit of the library it
imports (``git rev-parse HEAD`` of the checkout holding it, ``"unknown"`` outside git),
how many of the library's tracked files differed from that commit, the job's code hash
(its rule's ``code`` param: what decides its re-runs) and the versions of the packages
the numbers depend on::

    2026-11-26 22:40:01,123 INFO provenance {"commit": "9eab4c1...", "modified": 0, ...}

The commit is read by the job when it runs, never at parse time and never as a param:
a new commit re-runs nothing (Snakemake re-runs a job when its params, inputs or code
change, not its log), and a job that did not re-run keeps the commit it ran at.

The publish tool (:mod:`ufsbench.tools.publish_run`) reads the records of a finished run
(:func:`read_job_records`), keeps one row per (stage, dataset, method, commit, code)
(:func:`summarise_jobs`) beside the published tables, and flags a published cell whose
method code has changed since its jobs ran (:func:`stale_cells`). A job's ``code`` param
of a method-running rule (select, crossval, the BLUFS stage-2 search) starts with the
method's own hash (``api.py`` and the method module, see :mod:`ufsbench.codehash`), so
the flag compares that prefix with the method's hash now. The column-subset and
sparse-graph jobs (stages ``css`` and ``cluster_graph``) run one code for every method:
their ``code`` is that stage's hash (:data:`STAGE_MODULES`), compared whole. A change of
the hashing scheme itself (:mod:`ufsbench.codehash`) flags every cell too: stale means
"not provably made by this checkout's code", to be re-run or checked.
"""

from __future__ import annotations

import json
import re
import subprocess
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pandas is imported where tables are read: a job's log line needs none
    import pandas as pd

LIBRARY = Path(__file__).resolve().parent
PACKAGES = ("numpy", "scipy", "scikit-learn", "pandas", "threadpoolctl", "snakemake")
"""Packages whose versions a job records (those not installed are left out)."""
MARKER = "provenance "
JOB_COLUMNS = ("stage", "dataset", "method", "job", "commit", "modified", "code", "versions")
UNKNOWN = "unknown"
NESTED_STAGES = ("blufs",)
"""Log folders whose stages are one level down (``blufs/stage2/<dataset>/...``)."""
METHOD_STAGES = (
    "select",
    "crossval",
    "blufs/stage2",
    "blufs/reseed",
    "blufs/synthetic",
    "blufs/runtime",
)
"""Stages whose jobs run a method: their ``code`` starts with the method's hash."""
LEAF_METHOD_STAGES = ("blufs/synthetic", "blufs/runtime")
"""Stages whose logs are ``<stage>/<dataset>/<method>.log``: one job per method."""
STAGE_MODULES = {
    "css": ("css/evaluate.py", "io.py"),
    "cluster_graph": ("graph.py", "io.py", "sparse_graph/__init__.py"),
}
"""Stages whose jobs run one code for all their methods: the library modules the
workflow hashes for them (``workflow/rules/css_common.smk``, ``clustering.smk``)."""
_RECORD = re.compile(re.escape(MARKER) + r"(\{.*\})\s*$")


def _git(*args, cwd) -> str | None:
    """Output of a git command in ``cwd``, or None (no git, not a checkout)."""
    try:
        out = subprocess.run(
            # --no-optional-locks: a job's `git status` never takes the index lock, so
            # jobs running while the user commits cannot make the commit fail.
            ["git", "--no-optional-locks", "-C", str(cwd), *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout if out.returncode == 0 else None


def is_ancestor(old: str, new: str, cwd) -> bool:
    """Whether commit ``old`` is ``new`` or an ancestor of it in the checkout ``cwd``
    (False when git cannot tell: no git, not a checkout, unknown commit)."""
    return _git("merge-base", "--is-ancestor", old, new, cwd=cwd) is not None


def code_commit(path=LIBRARY) -> tuple[str, int]:
    """The commit of the checkout holding ``path`` and how many of the tracked files
    below ``path`` differ from it; ``("unknown", 0)`` outside a git checkout."""
    head = _git("rev-parse", "HEAD", cwd=path)
    if head is None:
        return UNKNOWN, 0
    status = _git("status", "--porcelain", "--untracked-files=no", "--", ".", cwd=path) or ""
    return head.strip(), len(status.splitlines())


def foreign_library(workflow_dir, library=LIBRARY) -> str | None:
    """Why the jobs of the workflow in ``workflow_dir`` would run another checkout's code,
    or None.

    A checkout's workflow imports whichever ``ufsbench`` Python finds: with the package
    installed editable from one clone, a second clone (or a git worktree of another
    commit) runs and records the first one's library. None when ``workflow_dir`` has no
    ``src/ufsbench`` beside it (an installed workflow) or it is ``library`` itself.
    """
    own = Path(workflow_dir).resolve().parent / "src" / "ufsbench"
    if not own.is_dir() or own.resolve() == Path(library).resolve():
        return None
    return (
        f"ufsbench: the workflow in {Path(workflow_dir).resolve()} imports the library at "
        f"{Path(library).resolve()}, not its own checkout's {own}: its jobs run, hash and "
        f"record that code. To run this checkout's, set PYTHONPATH={own.parent} (or "
        f"install it: pip install -e {own.parent.parent})."
    )


def package_versions(packages=PACKAGES) -> dict[str, str]:
    """Installed versions of ``packages`` (absent ones left out)."""
    versions = {}
    for name in packages:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def job_record(code: str | None = None) -> dict:
    """What a job records of itself: commit, modified library files, code hash, versions
    (with ``blas``: the BLAS kernels it runs, and ``numpy_simd``: NumPy's instruction-set
    paths, both of which can change iterative methods' rankings; :mod:`ufsbench.blas`)."""
    from .blas import blas_kernels, numpy_simd

    commit, modified = code_commit()
    return {
        "commit": commit,
        "modified": modified,
        "code": code,
        "versions": {**package_versions(), "blas": blas_kernels(), "numpy_simd": numpy_simd()},
    }


def format_record(record: dict) -> str:
    """The log line's message: the marker and the record as one line of JSON."""
    return MARKER + json.dumps(record, sort_keys=True)


def parse_record(line: str) -> dict | None:
    """The record of a log line written by :func:`format_record`, or None."""
    found = _RECORD.search(line)
    return json.loads(found.group(1)) if found else None


def read_log_record(path) -> dict | None:
    """The record of a job's log: the first provenance line in it, or None."""
    with open(path, errors="replace") as log:
        for line in log:
            record = parse_record(line)
            if record is not None:
                return record
    return None


def read_job_records(logs) -> pd.DataFrame:
    """One row per job log under ``logs`` (a run's ``logs/<experiment>``) that holds a
    record; the log's path gives ``stage/dataset/method/job`` (shorter paths leave the
    rest empty). Columns :data:`JOB_COLUMNS`; ``versions`` as sorted JSON."""
    import pandas as pd

    logs = Path(logs)
    rows = []
    for path in sorted(logs.rglob("*.log")) if logs.is_dir() else ():
        record = read_log_record(path)
        if record is None:
            continue
        parts = list(path.relative_to(logs).with_suffix("").parts)
        if parts[0] in NESTED_STAGES and len(parts) > 2:
            parts = [f"{parts[0]}/{parts[1]}", *parts[2:]]
        stage, *middle, job = parts if len(parts) > 1 else ["", *parts]
        if stage in LEAF_METHOD_STAGES and len(middle) == 1:
            middle, job = [*middle, job], ""  # the log's name is the method's
        dataset, method = (middle + ["", ""])[:2]
        job = "/".join([*middle[2:], job]) if job else ""  # crossval/<d>/<m>/n300/d6: "n300/d6"
        rows.append(
            (
                stage,
                dataset,
                method,
                job,
                record.get("commit") or UNKNOWN,
                int(record.get("modified") or 0),
                record.get("code") or "",
                json.dumps(record.get("versions") or {}, sort_keys=True),
            )
        )
    return pd.DataFrame(rows, columns=list(JOB_COLUMNS))


def summarise_jobs(jobs: pd.DataFrame) -> pd.DataFrame:
    """One row per (stage, dataset, method, commit, modified, code) with its job count."""
    import pandas as pd

    keys = ["stage", "dataset", "method", "commit", "modified", "code"]
    if not len(jobs):
        return pd.DataFrame(columns=[*keys, "jobs"])
    return jobs.groupby(keys, as_index=False, dropna=False).size().rename(columns={"size": "jobs"})


def distinct_commits(jobs: pd.DataFrame) -> list[str]:
    """The commits the jobs ran at, most jobs first (ties: by name)."""
    if not len(jobs):
        return []
    weight = "jobs" if "jobs" in jobs else None
    counts = jobs.groupby("commit")[weight].sum() if weight else jobs["commit"].value_counts()
    return sorted(counts.index, key=lambda c: (-int(counts[c]), c))


def distinct_versions(jobs: pd.DataFrame) -> list[dict]:
    """The distinct package-version sets the jobs ran with."""
    return [json.loads(v) for v in sorted(set(jobs["versions"]))] if len(jobs) else []


def method_hashes(codebase, methods) -> dict[str, str]:
    """Each method's code hash now, as the workflow's select jobs get it (``api.py`` and
    the method's module; ``codebase`` a :class:`ufsbench.codehash.CodeBase`)."""
    from .methods.registry import REGISTRY

    return {
        m: codebase.hash("api.py", f"methods/{REGISTRY[m].module}.py")
        for m in methods
        if m in REGISTRY
    }


def stale_cells(
    jobs: pd.DataFrame,
    current: dict[str, str],
    stages=METHOD_STAGES,
    stage_code: dict[str, str] | None = None,
) -> pd.DataFrame:
    """Flag the method-running job groups whose method code has changed since they ran.

    Parameters
    ----------
    jobs : pandas.DataFrame
        :func:`summarise_jobs` rows (or :func:`read_job_records` rows).
    current : dict
        Method -> its code hash now (:func:`method_hashes`).
    stages : sequence of str
        The stages whose code starts with the method's hash.
    stage_code : dict, optional
        Stage -> its whole code hash now (:func:`stage_hashes`), for the stages that
        run one code for every method.

    Returns
    -------
    pandas.DataFrame
        The rows of ``jobs`` of ``stages`` whose method is in ``current`` (or of a stage
        in ``stage_code``) and whose code was recorded, with ``code_now`` and ``stale``
        (the recorded code does not start with, or equal, the hash now: the cell was
        made by other code than HEAD's).
    """
    stage_code = stage_code or {}
    by_method = jobs["stage"].isin(list(stages)) & jobs["method"].isin(list(current))
    by_stage = jobs["stage"].isin(list(stage_code))
    rows = jobs[(by_method | by_stage) & (jobs["code"].fillna("") != "")].copy()
    whole = rows["stage"].isin(list(stage_code)).to_numpy()
    rows["code_now"] = [
        stage_code[stage] if is_whole else current[method]
        for stage, method, is_whole in zip(rows["stage"], rows["method"], whole, strict=True)
    ]
    rows["stale"] = [
        code != now if is_whole else not str(code).startswith(now)
        for code, now, is_whole in zip(rows["code"], rows["code_now"], whole, strict=True)
    ]
    return rows.reset_index(drop=True)


def stage_hashes(codebase) -> dict[str, str]:
    """The code hash now of each stage in :data:`STAGE_MODULES`, as its jobs get it."""
    return {stage: codebase.hash(*modules) for stage, modules in STAGE_MODULES.items()}


def workflow_codebase(lib=LIBRARY, scripts=None):
    """The library parsed as the workflow hashes it (``workflow/rules/common.smk``): the
    workflow's scripts (``scripts``, a folder) as readers."""
    from .codehash import CodeBase

    readers = sorted(Path(scripts).glob("*.py")) if scripts is not None else []
    return CodeBase(lib, readers=readers)


def run_provenance(logs, exclude_datasets=(), keep=None) -> tuple[pd.DataFrame, dict]:
    """A finished run's job records (its ``logs/<experiment>`` folder), summarised, and
    what its ``run.json`` says of them: the distinct commits and package-version sets.
    ``exclude_datasets``: datasets whose jobs belong to another run made in the same
    folder (an earlier part of the config's datasets), left out; ``keep``: a function of
    the job table giving the rows to keep (all if None)."""
    jobs = read_job_records(logs)
    if len(jobs) and exclude_datasets:
        jobs = jobs[~jobs["dataset"].isin(list(exclude_datasets))]
    if len(jobs) and keep is not None:
        jobs = jobs[keep(jobs)]
    summary = summarise_jobs(jobs)
    return summary, {
        "jobs_recorded": len(jobs),
        "job_commits": distinct_commits(jobs),
        "versions": distinct_versions(jobs),
    }


def published_provenance(
    runs: dict, current: dict[str, str], stage_code: dict[str, str] | None = None
) -> pd.DataFrame:
    """The job groups of every published run (``{run name: summarise_jobs table}``) with
    ``run`` first and, for method-running stages, ``code_now`` and ``stale``."""
    import pandas as pd

    columns = ["run", "stage", "dataset", "method", "commit", "modified", "code", "jobs"]
    frames = [table.assign(run=name) for name, table in runs.items() if len(table)]
    if not frames:
        return pd.DataFrame(columns=[*columns, "code_now", "stale"])
    table = pd.concat(frames, ignore_index=True)[columns]
    flagged = stale_cells(table, current, stage_code=stage_code)
    keys = columns[:-1]
    table = table.merge(flagged[[*keys, "code_now", "stale"]], on=keys, how="left")
    return table


def read_jobs_table(path) -> pd.DataFrame:
    """A published ``jobs.tsv`` (:func:`summarise_jobs`), hashes and commits as text."""
    import pandas as pd

    table = pd.read_csv(path, sep="\t", dtype={"commit": str, "code": str}, keep_default_na=False)
    table["modified"] = table["modified"].astype(int)
    return table


def merge_provenance(folders, scripts=None) -> tuple[pd.DataFrame, dict]:
    """The provenance of every published run folder (each with ``run.json`` and, when
    its jobs recorded it, ``jobs.tsv``): the :func:`published_provenance` table against
    the method code hashes of this checkout, and per run the columns ``runs.tsv`` adds,
    ``job_commits`` (``"unrecorded"`` for runs published before jobs kept them) and
    ``stale_jobs`` (jobs whose method code has changed since; empty when unrecorded)."""
    recorded, info = {}, {}
    for folder in map(Path, folders):
        if (folder / "jobs.tsv").is_file():
            recorded[folder.name] = read_jobs_table(folder / "jobs.tsv")
        run = json.loads((folder / "run.json").read_text())
        commits = (run.get("jobs") or {}).get("job_commits")
        info[folder.name] = {
            "job_commits": ",".join(c[:12] for c in commits) if commits else "unrecorded",
            "stale_jobs": None,
        }
    methods = sorted({m for table in recorded.values() for m in table["method"] if m})
    codebase = workflow_codebase(scripts=scripts)
    current = method_hashes(codebase, methods)
    table = published_provenance(recorded, current, stage_hashes(codebase))
    for name in recorded:
        mine = table[(table["run"] == name) & table["stale"].eq(True)]
        info[name]["stale_jobs"] = int(mine["jobs"].sum())
    return table, info
