"""Public originals of the benchmark data sets, and the conversion that prepares them.

Most benchmark files circulate only in re-saved forms (an ``X``/``Y`` ``.mat``), so the
registry pins each data set's *origin* instead: one or more public files at immutable
addresses, each with its sha256, plus the conversion from those files to the arrays
``X`` and ``Y``, written as data. The result is checked by a *content digest* of the two
arrays, so any file that holds the same arrays, however it was saved, is accepted.

An origin in ``config/datasets.yaml``::

    origin:
      files:
        - {url: https://raw.githubusercontent.com/<repo>/<commit>/<path>, sha256: ..., bytes: ...,
           format: mat}
      X: {var: fea}
      Y: {var: gnd, transpose: true}
      digest: "sha256:..."

Origin file formats: ``mat`` (MATLAB v5, variables by name), ``arff`` (columns by index or
attribute name; nominal columns can be coded by their declared order) and ``text``
(delimited rows; ``delimiter`` is ``null`` for whitespace; ``header_rows``; ``na`` tokens
read as NaN; blank lines are skipped).

An array spec takes its values from exactly one of ``var`` (a ``.mat`` variable), ``cols``
(a ``"start:stop"`` slice or a list of column names), ``col`` (one column, kept as an
``(n, 1)`` matrix) or ``stack`` (a list of array specs stacked row-wise), in file ``file``
(an index into ``files``, default 0). Table cells are parsed by ``parse``: ``float``
(default), ``int`` or ``nominal`` (the 1-based position of the value in the ARFF header's
list). Then, in this order: ``transpose``, ``rows`` (a ``"start:stop"`` slice), ``map``
(value -> value), ``add`` (a constant), ``binarize: above_mean`` (2 where a value exceeds
the mean, else 1) and ``dtype`` (a cast that must keep every value).

The digest (``sha256:<hex>``) is one SHA-256 over X then Y; for each array it feeds the
numpy dtype string and a newline, the shape as comma-joined decimals and a newline, then
the little-endian, C-ordered element bytes, with every float NaN made the quiet NaN
``0x7FF8000000000000`` (see :func:`content_digest`).
"""

from __future__ import annotations

import hashlib
import io
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ORIGIN_FORMATS = ("mat", "arff", "text")
PARSERS = ("float", "int", "nominal")
_FILE_KEYS = {"url", "sha256", "bytes", "format", "delimiter", "header_rows", "na"}
_SOURCE_KEYS = ("var", "cols", "col", "stack")
_SPEC_KEYS = {*_SOURCE_KEYS, "file", "parse", "transpose", "rows", "map", "add", "binarize",
              "dtype"}  # fmt: skip
_DIGEST = re.compile(r"^sha256:[0-9a-f]{64}$")
_SLICE = re.compile(r"^(\d*):(\d*)$")
_QUIET_NAN = np.array([0x7FF8000000000000], dtype="<u8").view("<f8")[0]


@dataclass(frozen=True)
class OriginFile:
    """One public original: where it lives, what it must hash to, how to read it."""

    url: str
    sha256: str
    bytes: int
    format: str
    delimiter: str | None = None
    header_rows: int = 0
    na: tuple[str, ...] = ()

    @property
    def basename(self) -> str:
        """The file name at the end of the URL, unquoted (``01.%20UCI/zoo.mat`` -> ``zoo.mat``)."""
        from urllib.parse import unquote, urlsplit

        return unquote(urlsplit(self.url).path.rsplit("/", 1)[-1])


@dataclass(frozen=True)
class Origin:
    """A data set's public originals and the conversion from them to ``X`` and ``Y``."""

    files: tuple[OriginFile, ...]
    X: dict = field(hash=False, compare=False)
    Y: dict = field(hash=False, compare=False)
    digest: str = ""


# -- the registry form ---------------------------------------------------------------------


def parse_origin(where: str, spec) -> Origin:
    """Check an ``origin:`` mapping of the registry and return it as an :class:`Origin`.

    Every error is one line naming the data set and the key at fault, so a typo in a
    conversion stops the registry from loading rather than a job from running.
    """
    if not isinstance(spec, dict):
        raise ValueError(f"{where}: origin must be a mapping, found {type(spec).__name__}")
    _no_unknown_keys(f"{where}: origin", spec, {"files", "X", "Y", "digest"})
    for key in ("files", "X", "Y", "digest"):
        if key not in spec:
            raise ValueError(f"{where}: origin needs {key!r}")
    files = spec["files"]
    if not isinstance(files, list) or not files:
        raise ValueError(f"{where}: origin.files must be a non-empty list")
    parsed = tuple(_parse_file(f"{where}: origin.files[{i}]", f) for i, f in enumerate(files))
    digest = spec["digest"]
    if not isinstance(digest, str) or not _DIGEST.match(digest):
        raise ValueError(
            f"{where}: origin.digest must be 'sha256:' and 64 hex digits, found {digest!r}"
        )
    for name in ("X", "Y"):
        _check_spec(f"{where}: origin.{name}", spec[name], parsed)
    return Origin(files=parsed, X=dict(spec["X"]), Y=dict(spec["Y"]), digest=digest)


def _no_unknown_keys(where: str, spec: dict, known) -> None:
    unknown = sorted(set(spec) - set(known))
    if unknown:
        raise ValueError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(known))})")


def _parse_file(where: str, spec) -> OriginFile:
    if not isinstance(spec, dict):
        raise ValueError(f"{where}: expected a mapping with url, sha256, bytes, format")
    _no_unknown_keys(where, spec, _FILE_KEYS)
    missing = sorted({"url", "sha256", "bytes", "format"} - set(spec))
    if missing:
        raise ValueError(f"{where}: missing key(s) {', '.join(missing)}")
    url, sha, size, fmt = spec["url"], str(spec["sha256"]), spec["bytes"], spec["format"]
    if not isinstance(url, str) or not url.startswith("https://"):
        raise ValueError(f"{where}: url must be an https:// address, found {url!r}")
    if not re.fullmatch(r"[0-9a-f]{64}", sha):
        raise ValueError(f"{where}: sha256 must be 64 lower-case hex digits, found {sha!r}")
    if not isinstance(size, int) or isinstance(size, bool) or size < 1:
        raise ValueError(f"{where}: bytes must be a positive integer, found {size!r}")
    if fmt not in ORIGIN_FORMATS:
        raise ValueError(f"{where}: unknown format {fmt!r} (known: {', '.join(ORIGIN_FORMATS)})")
    header_rows = spec.get("header_rows", 0)
    if not isinstance(header_rows, int) or isinstance(header_rows, bool) or header_rows < 0:
        raise ValueError(f"{where}: header_rows must be a non-negative integer")
    delimiter = spec.get("delimiter")
    if delimiter is not None and (not isinstance(delimiter, str) or len(delimiter) != 1):
        raise ValueError(f"{where}: delimiter must be one character or null (whitespace)")
    if fmt != "text" and ({"delimiter", "header_rows"} & set(spec)):
        raise ValueError(f"{where}: delimiter and header_rows apply to format 'text' only")
    na = spec.get("na", [])
    if not isinstance(na, list) or not all(isinstance(t, str) for t in na):
        raise ValueError(f"{where}: na must be a list of strings")
    return OriginFile(url, sha, size, fmt, delimiter, header_rows, tuple(na))


def _check_spec(where: str, spec, files) -> None:
    if not isinstance(spec, dict):
        raise ValueError(f"{where}: expected a mapping (an array spec)")
    _no_unknown_keys(where, spec, _SPEC_KEYS)
    sources = [k for k in _SOURCE_KEYS if k in spec]
    if len(sources) != 1:
        raise ValueError(f"{where}: give exactly one of var, cols, col, stack (found {sources})")
    if "stack" in spec:
        parts = spec["stack"]
        if not isinstance(parts, list) or len(parts) < 2:
            raise ValueError(f"{where}: stack must list at least two array specs")
        for i, part in enumerate(parts):
            _check_spec(f"{where}.stack[{i}]", part, files)
        if {"file", "parse"} & set(spec):
            raise ValueError(f"{where}: file and parse belong to the stacked parts, not to stack")
    else:
        index = spec.get("file", 0)
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(files):
            raise ValueError(f"{where}: file must index origin.files (0..{len(files) - 1})")
        fmt = files[index].format
        if "var" in spec and fmt != "mat":
            raise ValueError(f"{where}: var reads a .mat variable, but file {index} is {fmt}")
        if ("cols" in spec or "col" in spec) and fmt == "mat":
            raise ValueError(f"{where}: cols/col read a table, but file {index} is a .mat")
        if "cols" in spec:
            cols = spec["cols"]
            if not (
                (isinstance(cols, str) and _SLICE.match(cols))
                or (isinstance(cols, list) and cols and all(isinstance(c, str) for c in cols))
            ):
                raise ValueError(
                    f"{where}: cols must be 'start:stop' or a list of names, found {cols!r}"
                )
        parse = spec.get("parse", "float")
        if parse not in PARSERS:
            raise ValueError(f"{where}: unknown parse {parse!r} (known: {', '.join(PARSERS)})")
        if parse == "nominal" and fmt != "arff":
            raise ValueError(
                f"{where}: parse 'nominal' needs an ARFF header (file {index} is {fmt})"
            )
    if "rows" in spec and not (isinstance(spec["rows"], str) and _SLICE.match(spec["rows"])):
        raise ValueError(f"{where}: rows must be a 'start:stop' slice, found {spec['rows']!r}")
    if "map" in spec and not isinstance(spec["map"], dict):
        raise ValueError(f"{where}: map must be a mapping of value -> value")
    if "binarize" in spec and spec["binarize"] != "above_mean":
        raise ValueError(f"{where}: binarize must be 'above_mean', found {spec['binarize']!r}")
    if "dtype" in spec:
        try:
            np.dtype(spec["dtype"])
        except TypeError:
            raise ValueError(f"{where}: unknown dtype {spec['dtype']!r}") from None


# -- the conversion engine -----------------------------------------------------------------


def convert(origin: Origin, paths, *, name: str = "dataset") -> tuple[np.ndarray, np.ndarray]:
    """``X`` and ``Y`` built from the origin files at ``paths`` (in ``origin.files`` order).

    The files are read once each. The caller checks :func:`content_digest` against
    ``origin.digest``; :func:`prepare_arrays` does both.
    """
    where = f"dataset {name!r}"
    if len(paths) != len(origin.files):
        raise ValueError(f"{where}: {len(origin.files)} origin file(s) expected, got {len(paths)}")
    sources = [_read(where, f, Path(p)) for f, p in zip(origin.files, paths, strict=True)]
    return (
        _build(f"{where}: origin.X", origin.X, sources),
        _build(f"{where}: origin.Y", origin.Y, sources),
    )


def prepare_arrays(origin: Origin, paths, *, name: str = "dataset"):
    """:func:`convert`, then the digest check: a mismatch raises before anything is written."""
    X, Y = convert(origin, paths, name=name)
    found = content_digest(X, Y)
    if found != origin.digest:
        raise ValueError(
            f"dataset {name!r}: the arrays converted from its origin have content digest "
            f"{found}, expected {origin.digest}; the origin or its conversion changed"
        )
    return X, Y


def content_digest(*arrays) -> str:
    """``sha256:<hex>`` of the arrays' dtypes, shapes and bytes (the registry's recipe)."""
    digest = hashlib.sha256()
    for array in arrays:
        array = np.asarray(array)
        little = array.dtype.newbyteorder("<") if array.dtype.byteorder == ">" else array.dtype
        array = np.ascontiguousarray(array, dtype=little)
        if array.dtype.kind == "f" and np.isnan(array).any():
            array = np.where(np.isnan(array), _QUIET_NAN.astype(array.dtype), array)
        digest.update(f"{array.dtype.str}\n".encode())
        digest.update((",".join(str(n) for n in array.shape) + "\n").encode())
        digest.update(array.tobytes(order="C"))
    return f"sha256:{digest.hexdigest()}"


@dataclass
class _Table:
    """A parsed text or ARFF file: string cells, column names, nominal value lists."""

    rows: list[list[str]]
    names: list[str]
    nominal: dict[int, list[str]]
    na: tuple[str, ...]


def _read(where: str, spec: OriginFile, path: Path):
    if spec.format == "mat":
        from scipy.io import loadmat

        try:
            return loadmat(path)
        except (ValueError, TypeError, OSError, NotImplementedError) as err:
            raise ValueError(
                f"{where}: cannot read origin {path.name} as a .mat file ({err})"
            ) from err
    text = path.read_text(encoding="utf-8", errors="strict")
    if spec.format == "arff":
        return _parse_arff(where, path.name, text)
    lines = [line for line in text.splitlines() if line.strip()][spec.header_rows :]
    header = [line for line in text.splitlines() if line.strip()][: spec.header_rows]
    split = (lambda s: s.split()) if spec.delimiter is None else (lambda s: s.split(spec.delimiter))
    rows = [[cell.strip() for cell in split(line)] for line in lines]
    names = [c.strip() for c in split(header[-1])] if header else []
    return _Table(rows, names, {}, spec.na)


_ATTRIBUTE = re.compile(r"^@attribute\s+('[^']*'|\"[^\"]*\"|\S+)\s+(.*)$", re.IGNORECASE)


def _parse_arff(where: str, filename: str, text: str) -> _Table:
    names, nominal, rows, in_data = [], {}, [], False
    for line in io.StringIO(text):
        line = line.strip()
        if not line or line.startswith("%"):
            continue
        if in_data:
            rows.append([cell.strip() for cell in line.split(",")])
            continue
        lower = line.lower()
        if lower.startswith("@data"):
            in_data = True
        elif lower.startswith("@attribute"):
            match = _ATTRIBUTE.match(line)
            if match is None:
                raise ValueError(f"{where}: malformed ARFF attribute line in {filename}: {line!r}")
            name, kind = match.group(1).strip("'\""), match.group(2).strip()
            if kind.startswith("{"):
                nominal[len(names)] = [v.strip().strip("'\"") for v in kind.strip("{}").split(",")]
            names.append(name)
    if not in_data:
        raise ValueError(f"{where}: {filename} has no @data section")
    return _Table(rows, names, nominal, ())


def _build(where: str, spec: dict, sources) -> np.ndarray:
    if "stack" in spec:
        parts = [
            _build(f"{where}.stack[{i}]", part, sources) for i, part in enumerate(spec["stack"])
        ]
        widths = {p.shape[1] for p in parts}
        if len(widths) != 1:
            raise ValueError(f"{where}: stacked parts have different widths {sorted(widths)}")
        array = np.vstack(parts)
    else:
        source = sources[spec.get("file", 0)]
        if "var" in spec:
            array = _variable(where, source, spec["var"])
        else:
            array = _columns(where, source, spec)
    return _post_process(where, spec, array)


def _variable(where: str, contents: dict, name: str) -> np.ndarray:
    import scipy.sparse as sp

    if name not in contents:
        found = ", ".join(k for k in contents if not k.startswith("__")) or "nothing"
        raise ValueError(f"{where}: origin .mat has no variable {name!r} (found: {found})")
    value = contents[name]
    return value.toarray() if sp.issparse(value) else np.asarray(value)


def _columns(where: str, table: _Table, spec: dict) -> np.ndarray:
    if not table.rows:
        raise ValueError(f"{where}: the origin table has no data rows")
    width = len(table.rows[0])
    ragged = next((i for i, r in enumerate(table.rows) if len(r) != width), None)
    if ragged is not None:
        raise ValueError(
            f"{where}: origin row {ragged + 1} has {len(table.rows[ragged])} cells, "
            f"expected {width}"
        )
    if "col" in spec:
        index = [_column_index(where, table, spec["col"], width)]
    elif isinstance(spec["cols"], str):
        start, stop = _slice(spec["cols"], width)
        index = list(range(start, stop))
    else:
        index = [_column_index(where, table, c, width) for c in spec["cols"]]
    parse = spec.get("parse", "float")
    cells = [[row[j] for j in index] for row in table.rows]
    if parse == "nominal":
        out = np.empty((len(cells), len(index)), dtype=np.int64)
        for k, j in enumerate(index):
            if j not in table.nominal:
                raise ValueError(f"{where}: column {table.names[j]!r} is not nominal")
            order = {v: i + 1 for i, v in enumerate(table.nominal[j])}
            for i, row in enumerate(cells):
                value = row[k].strip("'\"")
                if value not in order:
                    raise ValueError(
                        f"{where}: value {value!r} is not declared for {table.names[j]!r}"
                    )
                out[i, k] = order[value]
        return out
    try:
        if parse == "int":
            return np.array([[int(c) for c in row] for row in cells], dtype=np.int64)
        na = set(table.na)
        return np.array(
            [[np.nan if c in na else float(c) for c in row] for row in cells], dtype=np.float64
        )
    except ValueError as err:
        raise ValueError(f"{where}: cannot parse a cell as {parse} ({err})") from None


def _column_index(where: str, table: _Table, ref, width: int) -> int:
    if isinstance(ref, int) and not isinstance(ref, bool):
        if not 0 <= ref < width:
            raise ValueError(f"{where}: column {ref} is outside 0..{width - 1}")
        return ref
    if ref not in table.names:
        raise ValueError(
            f"{where}: no column named {ref!r} (known: {', '.join(table.names[:8])}, ...)"
        )
    return table.names.index(ref)


def _slice(text: str, length: int) -> tuple[int, int]:
    start, stop = _SLICE.match(text).groups()
    start = int(start) if start else 0
    stop = int(stop) if stop else length
    return start, stop


def _post_process(where: str, spec: dict, array: np.ndarray) -> np.ndarray:
    if spec.get("transpose", False):
        array = array.T
    if "rows" in spec:
        start, stop = _slice(spec["rows"], array.shape[0])
        if stop > array.shape[0]:
            raise ValueError(
                f"{where}: rows {spec['rows']} past the {array.shape[0]} rows there are"
            )
        array = array[start:stop]
    if "map" in spec:
        mapped = array.copy()
        for old, new in spec["map"].items():
            mapped[array == old] = new
        array = mapped
    if "add" in spec:
        array = array + spec["add"]
    if spec.get("binarize") == "above_mean":
        array = np.where(array > array.mean(), 2, 1)
    if "dtype" in spec:
        cast = array.astype(spec["dtype"])
        if not np.array_equal(cast, array, equal_nan=array.dtype.kind == "f"):
            raise ValueError(f"{where}: values do not fit dtype {spec['dtype']}")
        array = cast
    return np.ascontiguousarray(array)


__all__ = [
    "ORIGIN_FORMATS",
    "Origin",
    "OriginFile",
    "content_digest",
    "convert",
    "parse_origin",
    "prepare_arrays",
]
