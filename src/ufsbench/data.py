"""Loading, validation and normalisation of the benchmark data sets.

:func:`load_dataset` turns a registry entry (and its fetched raw file) into ``X`` float64,
``y`` int64 labels ``0..c-1`` (or ``None``) and an ``info`` dict, and checks the result
against the registry: shape, number of classes and number of missing values. Every error
is one line naming the dataset, the problem, what was expected and what was found.

:func:`normalize` is the pre-processing step of the workflow: imputation, constant
columns, and one scaling scheme.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .datasets import FORMATS, DatasetEntry, verify_file

SCHEMES = ("none", "zscore", "minmax", "unit_column", "unit_row")
IMPUTE = ("none", "mean", "median")
CONSTANT = ("keep", "drop", "error")


# -- loading -------------------------------------------------------------------------------


def load_dataset(entry: DatasetEntry, raw_path=None):
    """Load one registry entry as arrays and check it against the registry.

    Parameters
    ----------
    entry : DatasetEntry
    raw_path : path-like, default=None
        The fetched file for ``url`` entries, or the base entry's file for ``derived``
        ones; ignored for ``sklearn`` and ``synthetic`` entries.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features), float64
        As stored (not normalised); missing values are NaN.
    y : ndarray of shape (n_samples,), int64, or None
        Class labels recoded to ``0..c-1`` in the order of ``info["classes"]``; ``None``
        for multilabel sets (labels in ``info["Y_multilabel"]``) and unlabelled ones.
    info : dict
        ``name``, ``source``, ``format``, ``n_samples``, ``n_features``, ``n_classes``,
        ``classes`` (original label values), ``n_missing``, plus ``informative`` for
        generated data, ``label_rule`` for thresholded labels, ``Y_multilabel``.

    Raises
    ------
    ValueError
        A file that is not the registered one (:func:`ufsbench.datasets.verify_file`),
        an unreadable file, missing ``.mat`` variable, non-numeric column, or a shape,
        class count or missing-value count that differs from the registry.
    FileNotFoundError
        No ``raw_path`` for an entry that needs a file.
    """
    where = f"dataset {entry.name!r}"
    info = {"name": entry.name, "source": entry.source, "format": entry.format}
    if entry.source == "url":
        path = _need_path(entry, raw_path)
        verify_file(entry, path)  # a hand-placed or damaged file never reaches the results
        X, labels, extra = _load_file(entry, path)
    elif entry.source == "sklearn":
        X, labels, extra = _load_sklearn(entry)
    elif entry.source == "synthetic":
        X, labels, extra = _load_synthetic(entry)
    elif entry.source == "derived":
        X, y, base_info = load_dataset(entry.parent, raw_path)
        if entry.transform == "first_classes":
            X, y, classes, extra = _first_classes(entry, X, y, base_info["classes"])
            labels = (y, classes)
        else:
            X, extra = _derive(entry, X)
            labels = (y, base_info["classes"]) if y is not None else None
        if "Y_multilabel" in base_info:
            extra["Y_multilabel"] = base_info["Y_multilabel"]
    else:
        raise ValueError(f"{where}: unknown source {entry.source!r}")
    X = np.asarray(X, dtype=np.float64)
    y, classes = labels if labels is not None else (None, [])
    info.update(extra)
    info["classes"] = list(classes)
    _check_against_registry(entry, X, y, info)
    info.update(
        n_samples=X.shape[0],
        n_features=X.shape[1],
        n_classes=entry.n_classes,
        n_missing=int(np.count_nonzero(~np.isfinite(X))),
    )
    return X, y, info


def _need_path(entry: DatasetEntry, raw_path) -> Path:
    if raw_path is None:
        raise FileNotFoundError(
            f"dataset {entry.name!r}: no raw file given (fetch {entry.file} first)"
        )
    path = Path(raw_path)
    if not path.is_file():
        raise FileNotFoundError(f"dataset {entry.name!r}: raw file {path} does not exist")
    return path


def _load_file(entry: DatasetEntry, path: Path):
    if entry.format == "mat":
        return _load_mat(entry, path)
    if entry.format == "arff":
        return _load_arff(entry, path)
    if entry.format in ("csv", "uci_text"):
        return _load_table(entry, path)
    if entry.format == "image_zip":
        return _load_image_zip(entry, path)
    if entry.format == "mat_zip":
        return _load_mat_zip(entry, path)
    if entry.format == "svmlight":
        return _load_svmlight(entry, path)
    raise ValueError(
        f"dataset {entry.name!r}: unknown format {entry.format!r} (known: {', '.join(FORMATS)})"
    )


def _load_mat(entry: DatasetEntry, path: Path):
    from scipy.io import loadmat

    where = f"dataset {entry.name!r}"
    try:
        contents = loadmat(path)
    except NotImplementedError as err:  # MATLAB v7.3 files are HDF5
        raise ValueError(
            f"{where}: {path.name} is a MATLAB v7.3 (HDF5) file; expected v5 ({err})"
        ) from err
    except (ValueError, TypeError, OSError) as err:
        raise ValueError(f"{where}: cannot read {path.name} as a .mat file ({err})") from err
    found = ", ".join(k for k in contents if not k.startswith("__")) or "nothing"
    xname = entry.options.get("x_variable", "X")
    yname = entry.options.get("y_variable", "Y")
    for var in (xname, yname):
        if var not in contents:
            raise ValueError(f"{where}: .mat file has no variable {var!r} (found: {found})")
    X = contents[xname]
    X = X.toarray() if sp.issparse(X) else np.asarray(X)
    Y = contents[yname]
    Y = Y.toarray() if sp.issparse(Y) else np.asarray(Y)
    if X.ndim != 2 or X.dtype.kind not in "biuf":
        raise ValueError(
            f"{where}: variable {xname!r} must be a 2-D numeric matrix, found "
            f"{X.dtype} array of shape {X.shape}"
        )
    if entry.options.get("multilabel", False):
        if Y.ndim != 2 or not np.isin(Y, (0, 1)).all():
            raise ValueError(
                f"{where}: multilabel {yname!r} must be a 0/1 matrix, found shape {Y.shape}"
            )
        return X, None, {"Y_multilabel": Y.astype(np.int64)}
    if Y.ndim > 2 or (Y.ndim == 2 and min(Y.shape) > 1):
        raise ValueError(
            f"{where}: {yname!r} must be a label vector, found shape {Y.shape} "
            f"(set options.multilabel for a label matrix)"
        )
    return X, _recode(entry, Y.ravel()), {}


def _load_image_zip(entry: DatasetEntry, path: Path):
    """A zip archive of images, one sample each, labelled from the member names.

    The members whose file name matches ``options.member_pattern`` are read in the order
    (label, order group, name); each is decoded and converted by
    ``options.image_transform`` and flattened row by row (C order).
    """
    import re
    import zipfile

    from . import images

    where = f"dataset {entry.name!r}"
    opts = entry.options
    pattern = re.compile(opts["member_pattern"])
    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as err:
        raise ValueError(f"{where}: cannot read {path.name} as a zip archive ({err})") from None
    with archive:
        members = []
        for info in archive.infolist():
            if info.is_dir():
                continue
            match = pattern.fullmatch(Path(info.filename).name)
            if match is None:
                continue
            try:
                label = int(match["label"])
                order = int(match["order"]) if "order" in pattern.groupindex else 0
            except ValueError:
                raise ValueError(
                    f"{where}: member {info.filename} of {path.name}: the groups 'label' and "
                    f"'order' of options.member_pattern must match integers"
                ) from None
            members.append((label, order, info.filename, info))
        if not members:
            names = [i.filename for i in archive.infolist() if not i.is_dir()]
            shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "") or "none"
            raise ValueError(
                f"{where}: {path.name} has no member whose name matches "
                f"{opts['member_pattern']!r} ({len(names)} files: {shown})"
            )
        members.sort(key=lambda m: m[:3])
        transform = images.TRANSFORMS[opts["image_transform"]]
        params = opts.get("image_params") or {}
        rows = []
        budget = _ReadBudget(entry, path)
        for _, _, name, member in members:
            try:
                pixels = images.decode(budget.read(archive, member, name))
                rows.append(transform(pixels, **params).ravel())
            except ValueError as err:
                raise ValueError(f"{where}: member {name} of {path.name}: {err}") from None
    labels = np.array([label for label, *_ in members], dtype=np.int64)
    info = {"image_transform": {"name": opts["image_transform"], **params}}
    return np.vstack(rows), _recode(entry, labels), info


def _load_svmlight(entry: DatasetEntry, path: Path):
    """A LIBSVM / svmlight text file, optionally compressed (``.gz``, ``.bz2``).

    The file is sparse: a column absent from every line is all zero, so the registry's
    ``n_features`` sets the width (a file indexing beyond it is an error). Indices are
    1-based as LIBSVM writes them unless ``options.zero_based``.

    With ``options.multilabel`` (e.g. mediamill) a line lists several labels, so there is
    no single class label: ``y`` is ``None`` and ``info["Y_multilabel"]`` is the 0/1
    matrix with one column per label value present (sorted; ``info["label_values"]``),
    as for a multilabel ``.mat`` file. The k-means benchmark refuses such a set (see
    :class:`ufsbench.plan.Plan`); column subset selection needs no labels.
    """
    from sklearn.datasets import load_svmlight_file

    where = f"dataset {entry.name!r}"
    multilabel = entry.options.get("multilabel", False)
    try:
        # sklearn opens .gz and .bz2 files itself, by their suffix
        X, labels = load_svmlight_file(
            str(path),
            n_features=entry.n_features,
            multilabel=multilabel,
            zero_based=entry.options.get("zero_based", False),
        )
    except (ValueError, OSError, EOFError) as err:
        raise ValueError(f"{where}: cannot read {path.name} as svmlight ({err})") from None
    X = X.toarray()
    if not multilabel:
        return X, _recode(entry, labels), {}
    values = sorted({label for row in labels for label in row})
    column = {value: j for j, value in enumerate(values)}
    Y = np.zeros((len(labels), len(values)), dtype=np.int64)
    for i, row in enumerate(labels):
        Y[i, [column[label] for label in row]] = 1
    return X, None, {"Y_multilabel": Y, "label_values": [_plain(v) for v in values]}


class _ReadBudget:
    """Bytes an entry may read out of an archive: what its registered shape can need.

    Members are read into memory, so a small archive holding a huge (or lying) member
    must be stopped before it is read: 64 bytes a value, plus 16 MiB, is generous for
    text tables and images alike.
    """

    def __init__(self, entry: DatasetEntry, path: Path):
        self.total = 64 * entry.n_samples * entry.n_features + (16 << 20)
        self.left = self.total
        self.where = (
            f"dataset {entry.name!r}: {path.name} holds more than the {self.total} bytes its "
            f"registered shape ({entry.n_samples} x {entry.n_features}) can need"
        )

    def read(self, archive, info, name: str) -> bytes:
        if info.file_size > self.left:
            raise ValueError(f"{self.where} (member {name}: {info.file_size} bytes); not read")
        with archive.open(info) as fh:
            data = fh.read(self.left + 1)
        if len(data) > self.left:
            raise ValueError(f"{self.where} (member {name}); reading stopped")
        self.left -= len(data)
        return data


def _zip_members(
    path: Path, where: str, pattern: str, budget: _ReadBudget
) -> list[tuple[str, bytes]]:
    """(name, bytes) of the members of a zip archive matching a glob ``pattern``.

    A member matches when its path, or a trailing part of it after a ``/``, matches, so
    a top folder does not matter. Members that are zip archives are searched too (their
    members are named ``inner.zip/path``): repositories such as UCI wrap the data in a
    second zip. macOS resource forks (``__MACOSX/``) are ignored. Sorted by name, with
    digit runs compared as numbers (``day_2`` before ``day_10``).
    """
    import fnmatch
    import io
    import re
    import zipfile

    def walk(archive, prefix):
        for info in archive.infolist():
            name = prefix + info.filename
            if info.is_dir() or info.filename.startswith("__MACOSX/"):
                continue
            if info.filename.lower().endswith(".zip"):
                try:
                    inner = zipfile.ZipFile(io.BytesIO(budget.read(archive, info, name)))
                except zipfile.BadZipFile as err:
                    raise ValueError(f"{where}: member {name} of {path.name}: {err}") from None
                with inner:
                    yield from walk(inner, name + "/")
            else:
                yield name, lambda a=archive, i=info, n=name: budget.read(a, i, n)

    def natural(name):
        return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]

    try:
        archive = zipfile.ZipFile(path)
    except (zipfile.BadZipFile, OSError) as err:
        raise ValueError(f"{where}: cannot read {path.name} as a zip archive ({err})") from None
    with archive:
        seen, found = [], []
        for name, read in walk(archive, ""):
            seen.append(name)
            if fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(name, "*/" + pattern):
                found.append((name, read()))
    if not found:
        shown = ", ".join(seen[:5]) + (", ..." if len(seen) > 5 else "") or "none"
        raise ValueError(
            f"{where}: {path.name} has no member matching {pattern!r} ({len(seen)} files: {shown})"
        )
    return sorted(found, key=lambda item: natural(item[0]))


def _load_mat_zip(entry: DatasetEntry, path: Path):
    """A zip of ``.mat`` files, each holding one matrix of trials (rows) per class.

    For the sEMG set: ``Database 2/male_day_{1,2,3}.mat``, each with ``<grasp>_ch<c>``
    (100 trials x 2500 samples) for six grasps. Rows are stacked class by class (in the
    order of ``options.classes``, which gives the labels) and, within a class, file by
    file in name order. Every matrix must be 2-D, numeric and as wide as the others.
    """
    import io

    from scipy.io import loadmat
    from scipy.io.matlab import MatReadError

    where = f"dataset {entry.name!r}"
    opts = entry.options
    files = []
    for name, data in _zip_members(path, where, opts["member_glob"], _ReadBudget(entry, path)):
        try:
            files.append((name, loadmat(io.BytesIO(data))))
        except NotImplementedError:  # MATLAB v7.3 files are HDF5
            raise ValueError(
                f"{where}: member {name} of {path.name} is a MATLAB v7.3 (HDF5) file; expected v5"
            ) from None
        except (MatReadError, ValueError, TypeError, OSError) as err:
            raise ValueError(
                f"{where}: cannot read member {name} of {path.name} as a .mat file ({err})"
            ) from None
    blocks, labels = [], []
    for label, cls in enumerate(opts["classes"]):
        variable = opts["variable"].format(**{"class": cls, "channel": opts["channel"]})
        for name, contents in files:
            if variable not in contents:
                held = ", ".join(sorted(k for k in contents if not k.startswith("__"))) or "nothing"
                raise ValueError(
                    f"{where}: member {name} of {path.name} has no variable {variable!r} "
                    f"(it holds: {held})"
                )
            block = np.asarray(contents[variable])
            if block.ndim != 2 or block.dtype.kind not in "biuf":
                raise ValueError(
                    f"{where}: variable {variable!r} of {name} must be a 2-D numeric matrix, "
                    f"found {block.dtype} array of shape {block.shape}"
                )
            if blocks and block.shape[1] != blocks[0].shape[1]:
                raise ValueError(
                    f"{where}: variable {variable!r} of {name} has {block.shape[1]} columns, "
                    f"the first one read has {blocks[0].shape[1]}"
                )
            blocks.append(block)
            labels.append(np.full(block.shape[0], label, dtype=np.int64))
    info = {"members": [name for name, _ in files], "channel": opts["channel"]}
    return np.vstack(blocks), (np.concatenate(labels), list(opts["classes"])), info


def _load_arff(entry: DatasetEntry, path: Path):
    from scipy.io import arff

    where = f"dataset {entry.name!r}"
    try:
        records, meta = arff.loadarff(path)
    except (ValueError, TypeError, NotImplementedError, arff.ParseArffError) as err:
        raise ValueError(f"{where}: cannot parse ARFF file {path.name} ({err})") from err
    names = list(meta.names())
    types = dict(zip(names, meta.types(), strict=True))
    rule = entry.options.get("label_rule", "categorical")
    label = entry.options.get("label_column", names[-1] if types[names[-1]] == "nominal" else None)
    label = _column_name(entry, names, label) if label is not None else None
    drop = {_column_name(entry, names, c) for c in entry.options.get("drop_columns", [])}
    features = [n for n in names if n != label and n not in drop]
    for n in features:
        if types[n] != "numeric":
            raise ValueError(
                f"{where}: ARFF attribute {n!r} is {types[n]}, expected numeric "
                f"(drop it with options.drop_columns)"
            )
    X = np.column_stack([np.asarray(records[n], dtype=np.float64) for n in features])
    if label is None or rule == "none":
        return X, None, {}
    values = np.asarray(records[label])
    if types[label] == "nominal":
        declared = list(meta[label][1])
        text = np.array([v.decode() if isinstance(v, bytes) else str(v) for v in values])
        unknown = sorted(set(text) - set(declared))
        if unknown:
            raise ValueError(
                f"{where}: class column {label!r} has undeclared or missing values "
                f"{unknown[:3]} (declared: {', '.join(declared)})"
            )
        order = {v: i for i, v in enumerate(declared)}
        codes = np.array([order[v] for v in text])
        present = np.unique(codes)
        return X, (np.searchsorted(present, codes), [declared[i] for i in present]), {}
    return X, *_numeric_label(entry, values, label, rule)


def _load_table(entry: DatasetEntry, path: Path):
    import pandas as pd

    where = f"dataset {entry.name!r}"
    opts = entry.options
    sep = "," if entry.format == "csv" else r"\s+"
    source, name = path, path.name
    if "member" in opts:
        # the table is one member of a zip archive (e.g. UCI's download of CT slices)
        found = _zip_members(path, where, opts["member"], _ReadBudget(entry, path))
        if len(found) > 1:
            names = ", ".join(n for n, _ in found)
            raise ValueError(
                f"{where}: options.member {opts['member']!r} matches {len(found)} members of "
                f"{path.name} ({names}); make it match one"
            )
        import io

        ((member, data),) = found
        source, name = io.BytesIO(data), f"member {member} of {path.name}"
    try:
        frame = pd.read_csv(
            source,
            sep=sep,
            header=0 if opts.get("header", False) else None,
            na_values=list(opts.get("na_values", [])),
            skipinitialspace=True,
        )
    except (ValueError, pd.errors.ParserError) as err:
        raise ValueError(f"{where}: cannot parse {name} as {entry.format} ({err})") from err
    names = list(frame.columns)
    rule = opts.get("label_rule", "categorical")
    label = opts.get("label_column")
    label = _column_name(entry, names, label) if label is not None else None
    drop = {_column_name(entry, names, c) for c in opts.get("drop_columns", [])}
    features = [c for c in names if c != label and c not in drop]
    for c in features:
        if not pd.api.types.is_numeric_dtype(frame[c]):
            bad = next(v for v in frame[c] if _not_number(v))
            raise ValueError(
                f"{where}: column {c!r} is not numeric (found {bad!r}); drop it with "
                f"options.drop_columns or list the token in options.na_values"
            )
    X = frame[features].to_numpy(dtype=np.float64)
    if label is None or rule == "none":
        return X, None, {}
    values = frame[label].to_numpy()
    if rule == "categorical":
        return X, _recode(entry, values), {}
    return X, *_numeric_label(entry, values, label, rule)


def _not_number(value) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return True
    return False


def _column_name(entry: DatasetEntry, names: list, ref):
    """A column given by name or by 0-based position (negative counts from the end)."""
    if isinstance(ref, int) and not isinstance(ref, bool):
        if -len(names) <= ref < len(names):
            return names[ref]
    elif ref in names:
        return ref
    raise ValueError(
        f"dataset {entry.name!r}: no column {ref!r} (the file has {len(names)} columns)"
    )


def _numeric_label(entry: DatasetEntry, values, label, rule):
    values = np.asarray(values, dtype=np.float64)
    if rule == "above_mean":
        threshold = float(np.nanmean(values))
        codes = (values > threshold).astype(np.int64)
        text = f"column {label!r} > mean {threshold:.6g}"
        return (codes, [f"<= {threshold:.6g}", f"> {threshold:.6g}"]), {"label_rule": text}
    return _recode(entry, values), {}


def _recode(entry: DatasetEntry, values):
    """Labels as codes ``0..c-1`` (sorted original values) and the original values."""
    values = np.asarray(values)
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        n_bad = int(np.count_nonzero(~np.isfinite(values)))
        raise ValueError(f"dataset {entry.name!r}: labels have {n_bad} missing values")
    classes, codes = np.unique(values, return_inverse=True)
    return codes.astype(np.int64), [_plain(v) for v in classes]


def _plain(value):
    """A label value as a plain Python scalar (JSON-friendly)."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _load_sklearn(entry: DatasetEntry):
    import sklearn.datasets

    X, y = getattr(sklearn.datasets, entry.loader)(return_X_y=True)
    return X, _recode(entry, y), {}


def _load_synthetic(entry: DatasetEntry):
    from . import synthetic

    X, y, informative = getattr(synthetic, entry.generator)(**entry.params)
    return X, _recode(entry, y), {"informative": [int(j) for j in informative]}


def _derive(entry: DatasetEntry, X):
    from . import synthetic

    if entry.transform == "scale_range":
        return synthetic.scale_range(X, **entry.params), {"base": entry.base}
    if entry.transform == "append_sample_onehot":
        # One-hot code of an identifier unique to each sample (e.g. UCI Ecoli's sequence
        # name): one 0-1 column per sample, i.e. an identity block, in sample order.
        n, d = X.shape
        X = np.hstack([X, np.eye(n, dtype=X.dtype if X.dtype.kind == "f" else np.float64)])
        return X, {"onehot_columns": [d, d + n], "base": entry.base}
    if entry.transform != "append_noise":
        raise ValueError(f"dataset {entry.name!r}: unknown transform {entry.transform!r}")
    d = X.shape[1]
    X = synthetic.append_noise(X, **entry.params)
    return X, {"informative": list(range(d)), "base": entry.base}


def _first_classes(entry: DatasetEntry, X, y, classes):
    """The samples of the ``n_classes`` smallest label values (the SRSG paper's subsets)."""
    c = int(entry.params["n_classes"])
    if y is None or not 2 <= c <= len(classes):
        raise ValueError(
            f"dataset {entry.name!r}: first_classes needs a labelled base with at least {c} classes"
        )
    keep = y < c  # labels are recoded 0..C-1 in sorted order of the original values
    return X[keep], y[keep], list(classes)[:c], {"base": entry.base, "first_classes": c}


def _check_against_registry(entry: DatasetEntry, X, y, info):
    where = f"dataset {entry.name!r}"
    expected = (entry.n_samples, entry.n_features)
    if X.ndim != 2 or X.shape != expected:
        found = " x ".join(map(str, X.shape))
        raise ValueError(
            f"{where}: shape mismatch (expected {expected[0]} x {expected[1]}, found {found})"
        )
    if "Y_multilabel" in info:
        n_found = info["Y_multilabel"].shape[1]
        if info["Y_multilabel"].shape[0] != entry.n_samples:
            raise ValueError(
                f"{where}: label matrix has {info['Y_multilabel'].shape[0]} rows, "
                f"expected {entry.n_samples}"
            )
    elif y is not None:
        if y.shape != (entry.n_samples,):
            raise ValueError(f"{where}: {y.shape[0]} labels for {entry.n_samples} samples")
        n_found = len(info["classes"])
    else:
        n_found = None
    if n_found != entry.n_classes:

        def show(n):
            return "none" if n is None else str(n)

        raise ValueError(
            f"{where}: class count mismatch (expected {show(entry.n_classes)}, "
            f"found {show(n_found)})"
        )
    n_missing = int(np.count_nonzero(~np.isfinite(X)))
    if n_missing != entry.n_missing:
        raise ValueError(
            f"{where}: missing-value count mismatch (expected {entry.n_missing}, found {n_missing})"
        )


# -- normalisation -------------------------------------------------------------------------


def normalize(X, scheme="none", *, impute="none", constant="keep", name=None):
    """Impute missing values, handle constant columns, then scale.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    scheme : {"none", "zscore", "minmax", "unit_column", "unit_row"}, default="none"
        ``zscore``: zero mean, unit (population) standard deviation per column;
        ``minmax``: each column to [0, 1]; ``unit_column``: each column to unit ℓ2 norm;
        ``unit_row``: each row to unit ℓ2 norm. Constant columns (zscore, minmax) and
        zero columns or rows (unit_column, unit_row) become 0, never NaN.
    impute : {"none", "mean", "median"}, default="none"
        Replace NaN and ±inf by the column mean or median of the finite values
        (0 for a column with none).
    constant : {"keep", "drop", "error"}, default="keep"
        What to do with constant columns, detected after imputation.
    name : str, default=None
        Dataset name for error messages.

    Returns
    -------
    X : ndarray of shape (n_samples, n_features_out), float64
        A new array.
    report : dict
        ``scheme``, ``impute``, ``constant``, ``n_imputed``, ``imputed_columns``,
        ``constant_columns`` (indices in the input), ``kept_columns`` (input index of each
        output column), ``n_features_in``, ``n_features_out``.

    Raises
    ------
    ValueError
        Non-finite values with ``impute="none"``; constant columns with
        ``constant="error"``; an unknown option.
    """
    where = f"dataset {name!r}" if name is not None else "normalize"
    for option, value, known in (
        ("scheme", scheme, SCHEMES),
        ("impute", impute, IMPUTE),
        ("constant", constant, CONSTANT),
    ):
        if value not in known:
            raise ValueError(f"{where}: unknown {option} {value!r} (known: {', '.join(known)})")
    X = np.array(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"{where}: X must be a non-empty 2-D matrix, found shape {X.shape}")
    report = {"scheme": scheme, "impute": impute, "constant": constant, "n_features_in": X.shape[1]}

    bad = ~np.isfinite(X)
    n_bad = int(bad.sum())
    report["n_imputed"] = 0
    report["imputed_columns"] = []
    if n_bad:
        if impute == "none":
            n_nan = int(np.isnan(X).sum())
            n_inf = n_bad - n_nan
            parts = [f"{n_nan} NaN"] if n_nan else []
            parts += [f"{n_inf} infinite"] if n_inf else []
            raise ValueError(
                f"{where}: X has {' and '.join(parts)} values; "
                f"set normalize.impute to mean or median"
            )
        X[bad] = np.nan
        cols = np.flatnonzero(bad.any(axis=0))
        for j in cols:
            finite = X[~bad[:, j], j]
            fill = (
                0.0
                if finite.size == 0
                else (finite.mean() if impute == "mean" else np.median(finite))
            )
            X[bad[:, j], j] = fill
        report["n_imputed"] = n_bad
        report["imputed_columns"] = cols.tolist()

    is_constant = X.max(axis=0) == X.min(axis=0)
    report["constant_columns"] = np.flatnonzero(is_constant).tolist()
    kept = np.arange(X.shape[1])
    if is_constant.any():
        if constant == "error":
            shown = ", ".join(map(str, report["constant_columns"][:10]))
            more = ", ..." if is_constant.sum() > 10 else ""
            raise ValueError(
                f"{where}: {int(is_constant.sum())} constant feature(s) (columns {shown}{more}); "
                f"set normalize.constant to keep or drop"
            )
        if constant == "drop":
            if is_constant.all():
                raise ValueError(f"{where}: every feature is constant; nothing left after drop")
            kept = np.flatnonzero(~is_constant)
            X = X[:, kept]
            is_constant = np.zeros(X.shape[1], dtype=bool)
    report["kept_columns"] = kept.tolist()

    if scheme == "zscore":
        X -= X.mean(axis=0)
        # The mean of equal values can differ from them by an ulp: zero them exactly.
        X[:, is_constant] = 0.0
        X /= _safe(X.std(axis=0))
    elif scheme == "minmax":
        low = X.min(axis=0)
        X -= low
        X /= _safe(X.max(axis=0))
    elif scheme == "unit_column":
        X /= _safe(np.linalg.norm(X, axis=0))
    elif scheme == "unit_row":
        X /= _safe(np.linalg.norm(X, axis=1))[:, None]
    report["n_features_out"] = X.shape[1]
    return X, report


def _safe(denominator):
    """Zero denominators replaced by 1, so the zero numerators they belong to stay 0."""
    denominator = np.asarray(denominator, dtype=np.float64).copy()
    denominator[denominator == 0] = 1.0
    return denominator
