"""Datasets from a local file named in the config, without a registry entry.

``local_datasets: {<name>: {path: ..., label: ...}}`` in the config makes ``<name>`` a
dataset like those of ``config/datasets.yaml`` (docs/own-data.md). The file is read once
at planning time: its shape, class count and missing values become the entry's (source
``local``, checked with the registry's messages), and its sha256
pins the content, so a changed file re-runs its jobs and a file changed after planning
is refused. Formats, by suffix: ``.csv``, ``.tsv``, ``.npz``, ``.mat`` (MATLAB v5) and
``.parquet`` (when pandas has a parquet engine installed).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from .datasets import DatasetEntry, sha256_file
from .names import check_name

LOCAL_FORMATS = ("csv", "tsv", "npz", "mat", "parquet")
SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".npz": "npz", ".mat": "mat", ".parquet": "parquet"}
KEYS = ("path", "label", "features", "feature_counts", "description")


def default_feature_counts(n_features: int) -> list[int]:
    """5, 10, ..., 50 below ``n_features``; 1..d-1 for ten features or fewer."""
    if n_features <= 10:
        return list(range(1, n_features)) or [1]
    return [m for m in range(5, 55, 5) if m < n_features]


def local_datasets(specs, base_dir, registry) -> dict[str, DatasetEntry]:
    """The entries of the config's ``local_datasets`` (paths relative to ``base_dir``).

    Raises ``ValueError`` naming the dataset for a name the registry already has, an
    unknown key, a missing or unreadable file, an unknown suffix, a missing column or
    variable, a non-numeric feature or labels with missing values.
    """
    entries = {}
    for name, spec in (specs or {}).items():
        if name in registry:
            raise ValueError(
                f"config 'local_datasets': {name!r} is already a dataset of the registry; "
                f"give the local file another name"
            )
        entries[name] = local_entry(str(name), spec, base_dir)
    return entries


def local_entry(name: str, spec, base_dir) -> DatasetEntry:
    """The registry entry of one local file (see the module docstring)."""
    where = f"config 'local_datasets.{name}'"
    check_name("dataset", name, where=where)  # the name becomes a path component
    if not isinstance(spec, dict) or "path" not in spec:
        raise ValueError(f"{where}: expected a mapping with at least 'path', got {spec!r}")
    unknown = sorted(set(spec) - set(KEYS))
    if unknown:
        raise ValueError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(KEYS)})")
    path = Path(spec["path"]).expanduser()
    path = (path if path.is_absolute() else Path(base_dir) / path).resolve()
    if not path.is_file():
        raise ValueError(f"{where}: file {path} does not exist")
    fmt = SUFFIXES.get(path.suffix.lower())
    if fmt is None:
        raise ValueError(
            f"{where}: cannot tell the format of {path.name} (known suffixes: "
            f"{', '.join(SUFFIXES)})"
        )
    options = {key: spec[key] for key in ("label", "features") if spec.get(key) is not None}
    X, values = read_arrays(f"dataset {name!r}", fmt, path, options)
    n_classes = None
    if values is not None and len(values) != X.shape[0]:
        raise ValueError(f"dataset {name!r}: {len(values)} labels for {X.shape[0]} samples")
    if values is not None:
        from .data import _recode

        n_classes = len(_recode(_Named(name), values)[1])
    n_samples, n_features = X.shape
    where = f"dataset {name!r}"  # the registry's messages (ufsbench.datasets.load_registry)
    if n_classes is not None and n_classes < 2:
        raise ValueError(f"{where}: n_classes must be an integer >= 2 or null, found {n_classes}")
    counts = spec.get("feature_counts") or default_feature_counts(n_features)
    if (
        not isinstance(counts, list | tuple)
        or not all(isinstance(m, int) and not isinstance(m, bool) for m in counts)
        or not all(1 <= m <= n_features for m in counts)
        or list(counts) != sorted(set(counts))
    ):
        raise ValueError(
            f"{where}: feature_counts must be increasing integers in 1..{n_features}, "
            f"found {counts!r}"
        )
    return DatasetEntry(
        name=name,
        description=str(spec.get("description") or f"local file {path}"),
        source="local",
        n_samples=n_samples,
        n_features=n_features,
        n_classes=n_classes,
        feature_counts=tuple(counts),
        file=str(path),
        sha256=sha256_file(path),
        format=fmt,
        options=options,
        n_missing=int(np.count_nonzero(~np.isfinite(X))),
    )


class _Named:
    """What :func:`ufsbench.data._recode` reads of an entry: its name."""

    def __init__(self, name):
        self.name = name


def entry_from_fields(fields: dict) -> DatasetEntry:
    """A local entry rebuilt in a job from :func:`ufsbench.datasets.content_fields`."""
    kept = {k: v for k, v in fields.items() if k != "digest"}
    return DatasetEntry(**kept, description="", feature_counts=())


def load_local_dataset(entry: DatasetEntry):
    """``X``, ``y`` and ``info`` of a local entry, as :func:`ufsbench.data.load_dataset`
    gives them for a registry entry, checked against the entry with the same messages.

    Refuses a file whose content is not the one planned (its sha256 changed)."""
    from .data import _check_against_registry, _recode

    where = f"dataset {entry.name!r}"
    path = Path(entry.file)
    if not path.is_file():
        raise FileNotFoundError(f"{where}: local file {path} does not exist")
    found = sha256_file(path)
    if found != entry.sha256:
        raise ValueError(
            f"{where}: {path} changed after the run was planned (sha256 {entry.sha256}, "
            f"now {found}); start the run again"
        )
    X, values = read_arrays(where, entry.format, path, entry.options)
    y, classes = _recode(entry, values) if values is not None else (None, [])
    info = {"name": entry.name, "source": "local", "format": entry.format, "path": str(path)}
    info["classes"] = list(classes)
    _check_against_registry(entry, X, y, info)
    info.update(
        n_samples=X.shape[0],
        n_features=X.shape[1],
        n_classes=entry.n_classes,
        n_missing=int(np.count_nonzero(~np.isfinite(X))),
    )
    return X, y, info


def read_arrays(where: str, fmt: str, path: Path, options: dict):
    """``X`` (float64) and the raw label values (or None) of a local file."""
    if fmt not in LOCAL_FORMATS:
        raise ValueError(f"{where}: unknown format {fmt!r} (known: {', '.join(LOCAL_FORMATS)})")
    if fmt in ("npz", "mat"):
        return _read_variables(where, fmt, path, options)
    return _read_table(where, fmt, path, options)


def _read_table(where, fmt, path, options):
    import pandas as pd

    from .data import _not_number

    try:
        if fmt == "parquet":
            frame = pd.read_parquet(path)
        else:
            frame = pd.read_csv(path, sep="," if fmt == "csv" else "\t")
    except ImportError as err:
        raise ValueError(
            f"{where}: pandas cannot read {path.name} here ({str(err).splitlines()[0]}); "
            f"install pyarrow, or save the table as .csv, .tsv or .npz"
        ) from None
    except (ValueError, OSError, pd.errors.ParserError) as err:
        raise ValueError(f"{where}: cannot parse {path.name} as {fmt} ({err})") from None
    names = [str(c) for c in frame.columns]
    frame.columns = names
    label = options.get("label")
    if label is not None and str(label) not in names:
        raise ValueError(f"{where}: no column {label!r} in {path.name} (columns: {names})")
    features = [c for c in names if c != label]
    if not features:
        raise ValueError(f"{where}: {path.name} has no feature column")
    for c in features:
        if not pd.api.types.is_numeric_dtype(frame[c]):
            bad = next(v for v in frame[c] if _not_number(v))
            raise ValueError(
                f"{where}: column {c!r} is not numeric (found {bad!r}); remove it from the "
                f"file or name it as the label"
            )
    X = frame[features].to_numpy(dtype=np.float64)
    if label is None:
        return X, None
    n_bad = int(frame[str(label)].isna().sum())
    if n_bad:
        raise ValueError(f"{where}: labels have {n_bad} missing values")
    return X, frame[str(label)].to_numpy()


def _read_variables(where, fmt, path, options):
    import scipy.sparse as sp

    try:
        if fmt == "npz":
            with np.load(path, allow_pickle=False) as archive:
                contents = {key: archive[key] for key in archive.files}
        else:
            from scipy.io import loadmat

            contents = {k: v for k, v in loadmat(path).items() if not k.startswith("__")}
    except NotImplementedError as err:  # MATLAB v7.3 files are HDF5
        raise ValueError(
            f"{where}: {path.name} is a MATLAB v7.3 file; save it as v5 ({err})"
        ) from None
    except (ValueError, TypeError, OSError) as err:
        raise ValueError(f"{where}: cannot read {path.name} as .{fmt} ({err})") from None
    found = ", ".join(contents) or "nothing"
    xname = options.get("features", "X")
    yname = options.get("label")
    for var in (xname, yname):
        if var is not None and var not in contents:
            raise ValueError(f"{where}: {path.name} has no variable {var!r} (found: {found})")
    X = contents[xname]
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    if X.ndim != 2 or X.dtype.kind not in "biuf":
        raise ValueError(
            f"{where}: variable {xname!r} must be a 2-D numeric matrix, found {X.dtype} "
            f"array of shape {X.shape}"
        )
    if yname is None:
        return X.astype(np.float64), None
    Y = contents[yname]
    Y = Y.toarray() if sp.issparse(Y) else np.asarray(Y)
    if Y.ndim > 2 or (Y.ndim == 2 and min(Y.shape) > 1):
        raise ValueError(f"{where}: {yname!r} must be a label vector, found shape {Y.shape}")
    return X.astype(np.float64), Y.ravel()
