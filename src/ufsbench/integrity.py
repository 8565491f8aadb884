"""Checks that an intermediate file of the workflow is whole before anything uses it.

Every output is written atomically (:func:`ufsbench.io.atomic_path`), so a damaged
intermediate comes from outside the workflow: a full disk, a copy cut short, a hand
edit. A reader that used it anyway would change the results without a word (a scores
file cut at a line boundary still parses). So every reader of an intermediate checks it
against what the run plan says it must hold, and stops with a
:class:`DamagedIntermediate` that names the file, the problem and the command that
rebuilds it. Nothing is deleted: the user decides.

Snakemake does not rebuild a missing intermediate whose downstream outputs are up to
date, so deleting the file alone is not enough; ``--forcerun FILE`` re-creates the file
and everything made from it.
"""

from __future__ import annotations

import zipfile
import zlib
from contextlib import contextmanager

import numpy as np


class DamagedIntermediate(RuntimeError):
    """An intermediate file is unreadable or does not hold what the run plan says."""


def rebuild_command(path) -> str:
    """The command line that re-creates ``path`` and every output made from it."""
    return f"snakemake --cores N --forcerun {path}"


def damaged(path, problem: str) -> DamagedIntermediate:
    """The error for a damaged ``path``: what is wrong and how to rebuild it."""
    return DamagedIntermediate(
        f"{path} is damaged: {problem}. It is an intermediate of this workflow, made by an "
        f"earlier job, and nothing was deleted. Rebuild it and everything made from it by "
        f"running your snakemake command again with --forcerun {path} added, e.g. "
        f"`{rebuild_command(path)}` (plus any --configfile/--config options you use); "
        f"deleting the file alone is not enough when the tables made from it are up to date"
    )


# What numpy, zipfile and zlib raise on a truncated or overwritten .npz file.
NPZ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, ValueError, KeyError, OSError)


@contextmanager
def open_npz(path, members=()):
    """``np.load(path)`` that turns a damaged file into a :class:`DamagedIntermediate`.

    ``members`` are keys the file must hold. Arrays read inside the ``with`` block are
    decompressed there, so a member cut short raises the same clear error.
    """
    try:
        f = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise
    except NPZ_ERRORS as exc:
        raise damaged(path, f"not a readable .npz file ({type(exc).__name__}: {exc})") from exc
    try:
        missing = [m for m in members if m not in f.files]
        if missing:
            raise damaged(path, f"it lacks the array(s) {', '.join(missing)}")
        yield f
    except DamagedIntermediate:
        raise
    except NPZ_ERRORS as exc:
        raise damaged(path, f"an array cannot be read ({type(exc).__name__}: {exc})") from exc
    finally:
        f.close()


def read_tsv(path, columns=()):  # -> pandas.DataFrame (imported on use)
    """A tab-separated table with at least ``columns``; a damaged one raises clearly.

    The workflow's tables end with a newline (:func:`ufsbench.io.write_table`): a file
    that does not was cut inside its last line.
    """
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        if fh.tell():
            fh.seek(-1, 2)
            if fh.read(1) != b"\n":
                raise damaged(path, "its last line is cut short (no final newline)")
    import pandas as pd  # here, not at the top: a selection job's io needs no pandas

    try:
        frame = pd.read_csv(path, sep="\t")
    except FileNotFoundError:
        raise
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        raise damaged(path, f"not a readable table ({type(exc).__name__}: {exc})") from exc
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise damaged(path, f"it lacks the column(s) {', '.join(missing)}")
    return frame


def check_selections(selections, path, settings, n_features: int) -> None:
    """Every setting id of ``settings`` has a ranking of ``n_features`` features.

    ``selections`` maps setting id to :class:`ufsbench.methods.base.Selection` (as
    :func:`ufsbench.io.load_selections` returns them).
    """
    missing = [s for s in settings if s not in selections.keys()]
    if missing:
        held = ", ".join(map(repr, selections)) or "nothing"
        raise damaged(
            path,
            f"it has no selection for setting(s) {', '.join(map(repr, missing))} (it holds "
            f"{held}); a run with --rerun-triggers mtime keeps a file of an older "
            "configuration, which this also rebuilds",
        )
    for setting in settings:
        sel = selections[setting]
        if sel.ranking.shape != (n_features,) or sel.scores.shape != (n_features,):
            raise damaged(
                path,
                f"setting {setting!r} ranks {sel.ranking.shape} features with scores of "
                f"shape {sel.scores.shape}, the data has {n_features}",
            )
        if not np.array_equal(np.sort(sel.ranking), np.arange(n_features)):
            raise damaged(
                path, f"the ranking of setting {setting!r} is not a permutation of the features"
            )
        for m, subset in (sel.subsets or {}).items():
            inside = ((subset >= 0) & (subset < n_features)).all()
            if not inside or len(np.unique(subset)) != len(subset):
                raise damaged(path, f"setting {setting!r}: the subset of {m} features is broken")


SCORE_KEYS = ("dataset", "method", "params", "n_features", "repeat")
SCORE_VALUES = ("acc", "nmi_max", "nmi_sqrt")


def check_scores(frame, path, expected: dict) -> None:
    """A scores file of one evaluation job holds exactly the rows its plan says.

    Parameters
    ----------
    frame : pandas.DataFrame
        The file's rows: columns :data:`SCORE_KEYS` and :data:`SCORE_VALUES`.
    path : str
        Named in the error.
    expected : dict
        ``dataset`` and ``method``; ``repeats`` (int); ``settings``: the setting ids, or
        None when the plan does not fix them (a stage-2 search chooses them);
        ``counts``: the feature counts every setting is evaluated at, ``"one"`` (a single
        count, e.g. AllFea at m = d) or ``"subset"`` (each setting at some of
        ``feature_counts``).

    Every (setting, count, repeat) must be present exactly once with finite scores, and
    every setting must have each of its counts at repeats 0 .. repeats - 1.
    """
    missing = [c for c in (*SCORE_KEYS, *SCORE_VALUES) if c not in frame.columns]
    if missing:
        raise damaged(path, f"it lacks the column(s) {', '.join(missing)}")
    if frame.empty:
        raise damaged(path, "it holds no score rows")
    values = frame[list(SCORE_VALUES)]
    keys = frame[list(SCORE_KEYS)]
    if keys.isna().any().any() or values.isna().any().any():
        row = int(np.flatnonzero((keys.isna() | values.isna().values).any(axis=1))[0])
        raise damaged(path, f"line {row + 2} has empty fields: the file was cut short")
    if not np.isfinite(values.to_numpy(dtype=float)).all():
        raise damaged(path, "it holds non-finite scores")
    for column in ("dataset", "method"):
        other = set(frame[column].astype(str)) - {str(expected[column])}
        if other:
            raise damaged(
                path, f"{column} {sorted(other)[0]!r} where the plan has {expected[column]!r}"
            )
    duplicated = keys.duplicated()
    if duplicated.any():
        row = keys[duplicated].iloc[0]
        raise damaged(
            path,
            f"setting {row['params']!r} at {row['n_features']} features, repeat "
            f"{row['repeat']} appears more than once",
        )
    params = frame["params"].astype(str)
    settings = expected.get("settings")
    if settings is not None:
        absent = [s for s in settings if s not in set(params)]
        extra = sorted(set(params) - set(map(str, settings)))
        if absent:
            raise damaged(
                path, f"setting(s) {', '.join(map(repr, absent[:5]))} of the plan are missing"
            )
        if extra:
            raise damaged(path, f"setting {extra[0]!r} is not in the plan")
    repeats = int(expected["repeats"])
    runs = frame.groupby([params, frame["n_features"]], sort=False)["repeat"]
    per_count = runs.agg(["count", "min", "max"])
    whole = (per_count["count"] == repeats) & (per_count["min"] == 0)
    bad = per_count[~(whole & (per_count["max"] == repeats - 1))]
    if len(bad):
        (setting, count), row = bad.index[0], bad.iloc[0]
        raise damaged(
            path,
            f"setting {setting!r} at {count} features has {int(row['count'])} of {repeats} repeats",
        )
    counts = expected.get("counts")
    by_setting = frame.groupby(params, sort=False)["n_features"].agg(lambda c: sorted(set(c)))
    for setting, held in by_setting.items():
        if counts == "one":
            ok = len(held) == 1
            want = "one feature count"
        elif counts == "subset":
            allowed = set(map(int, expected["feature_counts"]))
            ok = set(map(int, held)) <= allowed
            want = f"counts among {sorted(allowed)}"
        else:
            ok = list(map(int, held)) == sorted(set(map(int, counts)))
            want = f"counts {sorted(set(map(int, counts)))}"
        if not ok:
            raise damaged(
                path, f"setting {setting!r} is evaluated at counts {held}, the plan has {want}"
            )


def expected_scores(plan: dict, dataset: str, method: str, chunk: str) -> dict:
    """The ``expected`` of :func:`check_scores` for one file of a score plan.

    ``plan`` holds ``settings`` (method -> chunk -> setting ids), ``feature_counts``
    (dataset -> counts), ``all_features`` (methods evaluated at m = d only) and
    ``repeats``; chunk ``"stage2"`` is a stage-2 search, whose settings the search picks.
    """
    expected = {"dataset": dataset, "method": method, "repeats": plan["repeats"]}
    counts = plan["feature_counts"][dataset]
    if chunk == "stage2":
        return {**expected, "settings": None, "counts": "subset", "feature_counts": counts}
    settings = plan["settings"][method][chunk]
    if method in plan["all_features"]:
        return {**expected, "settings": settings, "counts": "one"}
    return {**expected, "settings": settings, "counts": counts}


def read_scores(paths, plan: dict):  # -> pandas.DataFrame
    """Every scores file of ``paths``, each checked against ``plan`` (see
    :func:`expected_scores`; ``plan["files"]`` lists (dataset, method, chunk) in the order
    of ``paths``), concatenated in that order."""
    paths = list(paths)
    files = plan["files"]
    if len(files) != len(paths):
        raise ValueError(f"read_scores: {len(paths)} files but the plan lists {len(files)}")
    frames = []
    for path, (dataset, method, chunk) in zip(paths, files, strict=True):
        frame = read_tsv(path)
        check_scores(frame, path, expected_scores(plan, dataset, method, chunk))
        frames.append(frame)
    import pandas as pd

    return pd.concat(frames, ignore_index=True)
