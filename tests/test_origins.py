"""Datasets from their pinned public originals: the conversion engine, digests and downloads."""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest
from conftest import MIRROR
from scipy.io import loadmat, savemat
from snakemake_cli import needs_snakemake, run_snakemake, write_config

from ufsbench.data import load_dataset
from ufsbench.datasets import (
    fetch,
    find_in_mirror,
    find_origins_in_mirror,
    load_registry,
    rebase,
    unavailable_reason,
    verify_file,
)
from ufsbench.origins import content_digest, convert, parse_origin, prepare_arrays

REGISTRY = load_registry()
WITH_ORIGIN = sorted(name for name, e in REGISTRY.items() if e.origin is not None)
ORIGINS = MIRROR / "origins"


@pytest.fixture(scope="module")
def origins():
    if not ORIGINS.is_dir():
        pytest.skip(f"origins mirror not found at {ORIGINS} (set UFSBENCH_MIRROR)")
    return ORIGINS


def _digest_by_hand(*arrays) -> str:
    """The registry's digest recipe, written out once more, for the engine to agree with."""
    h = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<"))
        h.update(a.dtype.str.encode() + b"\n")
        h.update(",".join(map(str, a.shape)).encode() + b"\n")
        h.update(a.tobytes())
    return "sha256:" + h.hexdigest()


def _origin(files, X, Y, digest="sha256:" + "0" * 64):
    return parse_origin("dataset 'toy'", {"files": files, "X": X, "Y": Y, "digest": digest})


def _file(fmt, **kw):
    return {"url": "https://example.org/r/c/f", "sha256": "a" * 64, "bytes": 1, "format": fmt, **kw}


# -- the digest ----------------------------------------------------------------------------


def test_digest_follows_the_recipe():
    X = np.arange(6, dtype=">f8").reshape(2, 3)  # big-endian input is made little-endian
    Y = np.array([[1], [2]], dtype=np.uint8)
    assert content_digest(X, Y) == _digest_by_hand(X.astype("<f8"), Y)
    assert content_digest(X, Y) != content_digest(X, Y.astype(np.int16))  # dtype counts
    assert content_digest(X, Y) != content_digest(X.reshape(3, 2), Y)  # shape counts


def test_digest_canonicalises_nan_payloads():
    a = np.array([1.0, np.nan])
    b = a.copy()
    b.view(np.uint64)[1] = 0x7FF8000000000001  # another NaN bit pattern
    assert content_digest(a) == content_digest(b)
    assert content_digest(a) == _digest_by_hand(a)  # numpy's NaN is the quiet NaN already


# -- the conversion engine, one step kind at a time -----------------------------------------


def test_mat_variables_transpose_rows_map_and_dtype(tmp_path):
    path = tmp_path / "o.mat"
    savemat(path, {"fea": np.arange(12.0).reshape(4, 3), "gnd": np.array([[-1, 1, 1, -1]])})
    origin = _origin(
        [_file("mat")],
        {"var": "fea", "rows": "1:3"},
        {"var": "gnd", "transpose": True, "rows": "1:3", "map": {-1: 1, 1: 2}, "dtype": "uint8"},
    )
    X, Y = convert(origin, [path])
    assert np.array_equal(X, [[3.0, 4.0, 5.0], [6.0, 7.0, 8.0]])
    assert Y.dtype == np.uint8 and Y.shape == (2, 1) and Y.ravel().tolist() == [2, 2]


def test_stack_mat_and_text_with_add(tmp_path):
    mat, text = tmp_path / "a.mat", tmp_path / "b.data"
    savemat(mat, {"data": np.array([[5, 6]], dtype=np.int16), "label": np.array([[2]], np.uint8)})
    text.write_text("m1,x,1,2,0.\n\nm2,y,3,4,1.\n")  # blank lines are skipped
    origin = _origin(
        [_file("mat"), _file("text", delimiter=",")],
        {"stack": [{"file": 1, "cols": "2:4", "parse": "int", "dtype": "int16"}, {"var": "data"}]},
        {"stack": [{"file": 1, "col": 4, "add": 1, "dtype": "uint8"}, {"var": "label"}]},
    )
    X, Y = convert(origin, [mat, text])
    assert X.dtype == np.int16 and X.tolist() == [[1, 2], [3, 4], [5, 6]]
    assert Y.dtype == np.uint8 and Y.ravel().tolist() == [1, 2, 2]


def test_text_whitespace_na_tokens_header_names_and_above_mean(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("a b target\n1 ? 10\n2 5 20\n3 6 40\n")
    origin = _origin(
        [_file("text", header_rows=1, na=["?"])],
        {"cols": ["a", "b"]},
        {"col": "target", "binarize": "above_mean", "dtype": "uint8"},
    )
    X, Y = convert(origin, [path])
    assert np.isnan(X[0, 1]) and X[2].tolist() == [3.0, 6.0]
    assert Y.ravel().tolist() == [1, 1, 2]  # mean 23.3: only 40 is above it


def test_arff_nominal_codes_follow_the_declared_order(tmp_path):
    path = tmp_path / "t.arff"
    path.write_text(
        "% comment\n@relation t\n@attribute 'x 1' real\n@attribute id integer\n"
        "@attribute class { Rock, Mine}\n@data\n0.5,7,Mine\n1.5,8, Rock\n"
    )
    origin = _origin(
        [_file("arff")], {"cols": "0:1"}, {"col": "class", "parse": "nominal", "dtype": "uint8"}
    )
    X, Y = convert(origin, [path])
    assert X.ravel().tolist() == [0.5, 1.5]
    assert Y.ravel().tolist() == [2, 1]  # Rock = 1, Mine = 2, as declared


def test_lossy_cast_and_undeclared_values_are_errors(tmp_path):
    path = tmp_path / "o.mat"
    savemat(path, {"X": np.array([[1.5, 300.0]]), "Y": np.array([[1]])})
    origin = _origin([_file("mat")], {"var": "X", "dtype": "uint8"}, {"var": "Y"})
    with pytest.raises(ValueError, match=r"origin.X: values do not fit dtype uint8"):
        convert(origin, [path])
    arff = tmp_path / "t.arff"
    arff.write_text("@relation t\n@attribute x real\n@attribute c {a,b}\n@data\n1,z\n")
    origin = _origin([_file("arff")], {"cols": "0:1"}, {"col": 1, "parse": "nominal"})
    with pytest.raises(ValueError, match=r"value 'z' is not declared for 'c'"):
        convert(origin, [arff])


def test_digest_mismatch_names_both_digests(tmp_path):
    path = tmp_path / "o.mat"
    savemat(path, {"X": np.ones((2, 2)), "Y": np.array([[1], [2]])})
    origin = _origin([_file("mat")], {"var": "X"}, {"var": "Y"})
    with pytest.raises(ValueError, match=r"content digest sha256:[0-9a-f]{64}, expected sha256:0+"):
        prepare_arrays(origin, [path], name="toy")


@pytest.mark.parametrize(
    "X, msg",
    [
        ({"var": "X", "col": 1}, "give exactly one of var, cols, col, stack"),
        ({"var": "X", "flip": True}, "unknown key 'flip'"),
        ({"var": "X", "file": 3}, "file must index origin.files"),
        ({"cols": "0:2"}, "cols/col read a table, but file 0 is a .mat"),
        ({"var": "X", "rows": "first"}, "rows must be a 'start:stop' slice"),
        ({"var": "X", "dtype": "uint9"}, "unknown dtype 'uint9'"),
        ({"stack": [{"var": "X"}]}, "stack must list at least two array specs"),
    ],
)
def test_bad_specs_fail_when_the_registry_loads(X, msg):
    with pytest.raises(ValueError, match=rf"dataset 'toy': origin.X: {msg}"):
        _origin([_file("mat")], X, {"var": "Y"})


def test_origin_urls_must_be_https():
    with pytest.raises(ValueError, match=r"origin.files\[0\]: url must be an https:// address"):
        _origin([{**_file("mat"), "url": "http://example.org/x"}], {"var": "X"}, {"var": "Y"})


def test_rebase_keeps_host_and_path():
    url = "https://raw.githubusercontent.com/o/r/abc/01.%20UCI/zoo.mat"
    assert rebase(url, None) == url
    assert rebase(url, "http://127.0.0.1:8/cache/") == (
        "http://127.0.0.1:8/cache/raw.githubusercontent.com/o/r/abc/01.%20UCI/zoo.mat"
    )


# -- every registry entry with an origin, from the real originals ---------------------------


def test_no_entry_needs_an_exact_mirror_copy():
    text = (Path(__file__).resolve().parents[1] / "config" / "datasets.yaml").read_text()
    assert "url_exact" not in text
    for name, entry in REGISTRY.items():
        if entry.source == "url":
            assert entry.url is not None or entry.origin is not None or entry.access, name


@pytest.mark.mirror
@pytest.mark.parametrize("name", WITH_ORIGIN)
def test_every_origin_converts_to_its_digest(name, origins):
    entry = REGISTRY[name]
    paths = find_origins_in_mirror(entry, origins)
    assert None not in paths, f"{name}: origin file missing from {origins}"
    X, Y = prepare_arrays(entry.origin, paths, name=name)
    assert X.shape == (entry.n_samples, entry.n_features)


@pytest.mark.mirror
@pytest.mark.parametrize("name", ["jaffe", "musk", "housing"])
def test_origin_mirror_gives_the_converted_mirrors_arrays(name, origins, tmp_path):
    entry = REGISTRY[name]
    dest = tmp_path / "raw" / entry.file
    fetch(entry, dest, mirror=origins)  # origins only: converted, digest-checked
    assert sorted(p.name for p in dest.parent.iterdir()) == [entry.file]  # no leftovers
    ours = load_dataset(entry, dest)
    theirs = load_dataset(entry, find_in_mirror(entry, MIRROR))
    assert np.array_equal(ours[0], theirs[0], equal_nan=True)
    assert np.array_equal(ours[1], theirs[1])
    assert fetch(entry, dest) == dest  # already there: verified by its content digest


@pytest.mark.mirror
def test_a_wrong_hand_placed_file_is_refused_everywhere(origins, tmp_path):
    entry = REGISTRY["zoo"]
    path = tmp_path / "zoo.mat"
    fetch(entry, path, mirror=origins)
    contents = loadmat(path)
    savemat(path, {"X": contents["X"], "Y": contents["Y"]}, do_compression=True)  # re-saved
    verify_file(entry, path)  # same arrays, other bytes: accepted by digest
    X = contents["X"].copy()
    X[0, 0] += 1
    savemat(path, {"X": X, "Y": contents["Y"]})
    with pytest.raises(ValueError, match=r"zoo.mat is not the registered file .*content digest"):
        verify_file(entry, path)
    with pytest.raises(ValueError, match=r"is not the registered file"):
        load_dataset(entry, path)
    with pytest.raises(ValueError, match=r"is not the registered file"):
        fetch(entry, path, mirror=origins)
    assert np.array_equal(loadmat(path)["X"], X)  # the user's file is left as it was


# -- downloads from a loopback server --------------------------------------------------------


class _OriginServer:
    """Serves a copy of the public sources, laid out as ``<host>/<path>`` of each origin URL."""

    def __init__(self, root: Path):
        self.root = root
        self.httpd = ThreadingHTTPServer(
            ("127.0.0.1", 0),
            functools.partial(_QuietHandler, directory=str(root)),
        )
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def place(self, url: str, data: bytes):
        parts = urlsplit(url)
        path = self.root / parts.netloc / unquote(parts.path.lstrip("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def origin_server(tmp_path, origins):
    """A server holding every registry origin file (the originals, copied by URL path)."""
    server = _OriginServer(tmp_path / "served")
    for name in WITH_ORIGIN:
        entry = REGISTRY[name]
        for spec, path in zip(
            entry.origin.files, find_origins_in_mirror(entry, origins), strict=True
        ):
            server.place(spec.url, path.read_bytes())
    yield server
    server.close()


def _no_leftovers(folder: Path):
    return [p.name for p in folder.iterdir()] if folder.exists() else []


@pytest.mark.mirror
def test_download_from_a_source_base_converts_and_verifies(origin_server, tmp_path):
    entry = REGISTRY["musk"]  # two originals, one .mat and one text file
    dest = tmp_path / "raw" / "musk.mat"
    assert unavailable_reason(entry, None, source_base=origin_server.base) is None
    fetch(entry, dest, source_base=origin_server.base, retries=0)
    assert _no_leftovers(dest.parent) == ["musk.mat"]
    verify_file(entry, dest)


@pytest.mark.mirror
@pytest.mark.parametrize(
    "damage, error",
    [
        (lambda b: b[:-100], r"sent \d+ bytes, expected \d+"),  # truncated
        (lambda b: b[:50] + b"x" + b[51:], r"origin .* has sha256 [0-9a-f]{64}, expected"),
        (lambda b: b + b"more", r"larger than the registered \d+ bytes"),
        (None, r"download failed \(HTTP 404"),
    ],
    ids=["truncated", "wrong-bytes", "too-long", "missing"],
)
def test_bad_downloads_leave_nothing_behind(origin_server, tmp_path, damage, error):
    entry = REGISTRY["glioma"]
    spec = entry.origin.files[0]
    served = origin_server.root / urlsplit(spec.url).netloc / unquote(urlsplit(spec.url).path[1:])
    if damage is None:
        served.unlink()
    else:
        served.write_bytes(damage(served.read_bytes()))
    dest = tmp_path / "raw" / "glioma.mat"
    with pytest.raises((ValueError, FileNotFoundError), match=error):
        fetch(entry, dest, source_base=origin_server.base, retries=0)
    assert _no_leftovers(dest.parent) == []


@pytest.mark.slow
@pytest.mark.mirror
@needs_snakemake
def test_workflow_prepares_datasets_from_downloaded_origins(origin_server, tmp_path):
    """Two datasets downloaded from the loopback server, converted and run to the tables."""
    work = tmp_path / "run"
    work.mkdir()
    write_config(
        work,
        {
            "datasets": ["zoo", "housing"],
            "mirror": None,
            "source_base": origin_server.base,
            "methods": {"allfea": {}, "maxvariance": {}, "lapscore": {}},
            "evaluation": {"repeats": 2},
            "unavailable": "fetch",
        },
    )
    run_snakemake(work, "--cores", "2")
    for name in ("zoo", "housing"):
        raw = work / "data" / "raw" / name / f"{name}.mat"
        verify_file(REGISTRY[name], raw)
        assert _no_leftovers(raw.parent) == [f"{name}.mat"]
    summary = sorted(work.glob("results/**/summary.tsv"))
    assert summary, "the run made no summary table"
    text = summary[0].read_text()
    assert "zoo" in text and "housing" in text


@pytest.mark.mirror
def test_derived_entries_find_their_base_in_an_origins_mirror(origins):
    for name in ("coil20_c4", "ecoli343", "sonar_scale", "dartboard1_noise"):
        assert unavailable_reason(REGISTRY[name], None, mirror=origins, probe=False) is None


def test_entries_without_a_known_origin_keep_their_url():
    for name in ("lung", "gisette", "coil100", "mediamill"):
        entry = REGISTRY[name]
        assert entry.origin is None and entry.url is not None and entry.sha256 is None


def test_content_fields_ignore_how_a_file_is_obtained():
    from ufsbench.datasets import content_fields

    entry = REGISTRY["coil20"]
    moved = dataclasses.replace(entry, notes="elsewhere", description="x", feature_counts=(1,))
    assert content_fields(moved) == content_fields(entry)
    other = dataclasses.replace(entry, sha256="0" * 64)
    assert content_fields(other) != content_fields(entry)


@pytest.mark.mirror
@pytest.mark.parametrize("paper", ["lsdcl", "blufs", "pocss", "srsg"])
def test_an_origins_mirror_serves_every_pinned_dataset_of_each_paper(paper, origins, tmp_path):
    """Only the datasets nobody has pinned (sha256 null) or that are gated stay missing."""
    import yaml

    from ufsbench.plan import unavailable_datasets

    root = Path(__file__).resolve().parents[1]
    text = (root / "config" / "experiments" / f"{paper}.yaml").read_text()
    names = {n for n in REGISTRY if re.search(rf"\b{re.escape(n)}\b", text)}
    assert names, f"{paper}.yaml names no registry dataset"
    yaml.safe_load(text)  # the config parses
    missing = unavailable_datasets(sorted(names), REGISTRY, origins, raw_root=tmp_path, probe=False)
    for name in missing:
        assert REGISTRY[name].file_entry.sha256 is None, f"{name}: {missing[name]}"
