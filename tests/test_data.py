"""Dataset registry, fetching, loading and normalisation: every bad input matches its message."""

from __future__ import annotations

import csv
import hashlib
import re
import threading
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import yaml
from scipy.io import savemat

from ufsbench import datasets
from ufsbench.data import load_dataset, normalize
from ufsbench.datasets import (
    DatasetEntry,
    fetch,
    find_in_mirror,
    get_entry,
    load_registry,
    sha256_file,
)

REGISTRY = load_registry()
ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "datasets.schema.yaml"

GOOD = b"the registered bytes\n" * 100
BAD = b"something else entirely\n" * 10
GOOD_SHA = hashlib.sha256(GOOD).hexdigest()
BAD_SHA = hashlib.sha256(BAD).hexdigest()


def make_entry(name="toy", **kw):
    fields = dict(
        name=name,
        description="a toy",
        source="url",
        n_samples=4,
        n_features=2,
        n_classes=2,
        feature_counts=(1, 2),
        url="http://127.0.0.1:9/toy.bin",
        file="toy.bin",
        sha256=GOOD_SHA,
        format="mat",
    )
    fields.update(kw)
    return DatasetEntry(**fields)


# -- a local HTTP server -------------------------------------------------------------------


class _Server:
    """Serves ``routes[path]``: a list of (status, body) answered in turn, the last repeated."""

    def __init__(self):
        self.routes = {}
        self.hits = {}
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                server.hits[self.path] = server.hits.get(self.path, 0) + 1
                queue = server.routes.get(self.path, [(404, b"")])
                status, body = queue.pop(0) if len(queue) > 1 else queue[0]
                self.send_response(status)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path):
        return f"http://127.0.0.1:{self.httpd.server_address[1]}{path}"

    def close(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def server():
    srv = _Server()
    yield srv
    srv.close()


def leftovers(folder: Path):
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".part"))


# -- fetching ------------------------------------------------------------------------------


def test_fetch_rejects_checksum_mismatch(tmp_path, server):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "toy.bin").write_bytes(BAD)  # right name, wrong content
    server.routes["/toy.bin"] = [(200, BAD)]
    entry = make_entry(url=server.url("/toy.bin"))
    dest = tmp_path / "raw" / "toy.bin"
    msg = f"dataset 'toy': checksum mismatch (expected {GOOD_SHA}, got {BAD_SHA})"
    with pytest.warns(UserWarning, match="mirror file .* has another checksum"):
        with pytest.raises(ValueError, match=re.escape(msg)):
            fetch(entry, dest, mirror=mirror, backoff=0)
    assert not dest.exists()
    assert leftovers(dest.parent) == []
    assert server.hits["/toy.bin"] == 1  # a wrong checksum is not retried


def test_fetch_keeps_a_wrong_file_and_says_so(tmp_path, server):
    server.routes["/toy.bin"] = [(200, GOOD)]
    dest = tmp_path / "toy.bin"
    dest.write_bytes(BAD)  # e.g. a hand-placed file with other content
    with pytest.raises(ValueError, match=r"toy.bin is not the registered file \(sha256 "):
        fetch(make_entry(url=server.url("/toy.bin")), dest, backoff=0)
    assert dest.read_bytes() == BAD  # nothing of the user's is deleted
    assert server.hits == {}


def test_fetch_retries_after_server_error(tmp_path, server):
    server.routes["/toy.bin"] = [(500, b"oops"), (200, GOOD)]
    dest = tmp_path / "raw" / "toy.bin"
    out = fetch(make_entry(url=server.url("/toy.bin")), dest, retries=3, backoff=0)
    assert out == dest
    assert dest.read_bytes() == GOOD
    assert server.hits["/toy.bin"] == 2
    assert leftovers(dest.parent) == []


def test_fetch_gives_up_after_retries(tmp_path, server):
    server.routes["/toy.bin"] = [(503, b"busy")]
    dest = tmp_path / "toy.bin"
    with pytest.raises(ConnectionError, match=r"dataset 'toy': download from .* failed after 3 "):
        fetch(make_entry(url=server.url("/toy.bin")), dest, retries=2, backoff=0)
    assert server.hits["/toy.bin"] == 3
    assert not dest.exists() and leftovers(tmp_path) == []


def test_fetch_client_error_is_not_retried(tmp_path, server):
    with pytest.raises(FileNotFoundError, match=r"dataset 'toy': download failed \(HTTP 404"):
        fetch(make_entry(url=server.url("/missing.bin")), tmp_path / "t.bin", backoff=0)
    assert server.hits["/missing.bin"] == 1


def test_fetch_prefers_mirror_without_network(tmp_path):
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "renamed.dat").write_bytes(GOOD)
    dest = tmp_path / "raw" / "toy.bin"
    # The URL points at a closed port: only the mirror can succeed.
    assert fetch(make_entry(), dest, mirror=mirror, retries=0) == dest
    assert sha256_file(dest) == GOOD_SHA
    assert leftovers(dest.parent) == []
    assert fetch(make_entry(), dest, retries=0) == dest  # already there and verified


def test_fetch_source_without_file(tmp_path):
    with pytest.raises(ValueError, match="dataset 'wine': source 'sklearn' has no file to fetch"):
        fetch(REGISTRY["wine"], tmp_path / "wine")


def test_find_in_mirror_finds_renamed_file_by_checksum(tmp_path, monkeypatch):
    (tmp_path / "a.bin").write_bytes(BAD)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "renamed.bin").write_bytes(GOOD)
    calls = []
    real = datasets.sha256_file
    monkeypatch.setattr(datasets, "sha256_file", lambda p: calls.append(p) or real(p))
    assert find_in_mirror(make_entry(), tmp_path) == tmp_path / "sub" / "renamed.bin"
    n_hashed = len(calls)
    assert find_in_mirror(make_entry(), tmp_path) == tmp_path / "sub" / "renamed.bin"
    assert len(calls) == n_hashed  # hashes cached per (path, size, mtime)
    assert find_in_mirror(make_entry(sha256="0" * 64), tmp_path) is None
    assert find_in_mirror(make_entry(), tmp_path / "absent") is None


# -- the registry --------------------------------------------------------------------------


def _manifest_rows(mirror):
    with open(mirror / "MANIFEST.tsv") as fh:
        return {row["name"]: row for row in csv.DictReader(fh, delimiter="\t")}


@pytest.mark.mirror
def test_registry_covers_manifest(mirror):
    rows = _manifest_rows(mirror)
    documentation_only = {"communities_crime_names"}
    assert set(rows) - documentation_only <= set(REGISTRY)
    for name in set(rows) - documentation_only:
        assert REGISTRY[name].file == rows[name]["file"], name
        assert REGISTRY[name].sha256 == rows[name]["sha256"], name
        assert REGISTRY[name].n_samples == int(rows[name]["n_samples"]), name


def test_registry_matches_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = yaml.safe_load(SCHEMA.read_text())
    doc = yaml.safe_load((ROOT / "config" / "datasets.yaml").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(doc)


def test_registry_unknown_dataset_name():
    with pytest.raises(ValueError, match=r"dataset 'nope': not in the registry \(known: .*coil20"):
        get_entry(REGISTRY, "nope")


_TOY = {
    "description": "toy",
    "source": "url",
    "url": "https://example.org/toy.csv",
    "file": "toy.csv",
    "sha256": GOOD_SHA,
    "format": "csv",
    "n_samples": 4,
    "n_features": 2,
    "n_classes": 2,
    "feature_counts": [1, 2],
}


@pytest.mark.parametrize(
    "change, msg",
    [
        (
            {"format": "xls"},
            "dataset 'toy': unknown format 'xls' (known: arff, csv, image_zip, mat, mat_zip, "
            "svmlight, uci_text)",
        ),
        ({"source": "ftp"}, "dataset 'toy': unknown source 'ftp'"),
        ({"urll": "x"}, "dataset 'toy': unknown key 'urll' for source 'url'"),
        ({"sha256": "abc"}, "dataset 'toy': sha256 must be 64 lower-case hex digits, found 'abc'"),
        (
            {"feature_counts": [1, 5]},
            "dataset 'toy': feature_counts must be increasing integers in 1..2",
        ),
        ({"n_classes": 1}, "dataset 'toy': n_classes must be an integer >= 2 or null"),
        (
            {"options": {"x_variable": "A"}},
            "dataset 'toy': unknown option 'x_variable' for format 'csv'",
        ),
        ({"url": "ftp://x"}, "dataset 'toy': url must be an https:// address"),
        ({"sha256": None, "url": None}, "dataset 'toy': missing required key(s) sha256"),
        ({"url": None}, "dataset 'toy': give exactly one source of the file: url"),
        (
            {"origin": {"files": [], "X": {}, "Y": {}, "digest": "x"}},
            "dataset 'toy': give exactly one source of the file: url",
        ),
    ],
)
def test_registry_rejects_bad_entries(tmp_path, change, msg):
    spec = {**_TOY, **change}
    spec = {k: v for k, v in spec.items() if v is not None or k == "n_classes"}
    path = tmp_path / "datasets.yaml"
    path.write_text(yaml.safe_dump({"datasets": {"toy": spec}}))
    with pytest.raises(ValueError, match=re.escape(msg)):
        load_registry(path)


def test_registry_derived_base_must_exist(tmp_path):
    spec = {
        "description": "noise",
        "source": "derived",
        "base": "nowhere",
        "transform": "append_noise",
        "params": {"n_noise": 1},
        "n_samples": 4,
        "n_features": 3,
        "n_classes": 2,
        "feature_counts": [1],
    }
    path = tmp_path / "datasets.yaml"
    path.write_text(yaml.safe_dump({"datasets": {"toy": _TOY, "noisy": spec}}))
    with pytest.raises(ValueError, match="dataset 'noisy': base 'nowhere' is not a non-derived"):
        load_registry(path)


# -- loading: bad inputs -------------------------------------------------------------------


def test_load_mat_without_x_and_y(tmp_path):
    path = tmp_path / "toy.mat"
    savemat(path, {"fea": np.ones((4, 2)), "gnd": np.array([1, 1, 2, 2])})
    msg = "dataset 'toy': .mat file has no variable 'X' (found: fea, gnd)"
    with pytest.raises(ValueError, match=re.escape(msg)):
        load_dataset(make_entry(sha256=sha256_file(path)), path)


def test_load_mat_densifies_sparse_and_flattens_labels(tmp_path):
    path = tmp_path / "toy.mat"
    X = np.array([[0, 1.5], [2, 0], [0, 0], [3, 4]])
    savemat(path, {"X": sp.csc_matrix(X), "Y": np.array([[5, 5, 9, 9]])})
    Xl, y, info = load_dataset(make_entry(sha256=sha256_file(path)), path)
    assert Xl.dtype == np.float64 and np.array_equal(Xl, X)
    assert y.dtype == np.int64 and y.tolist() == [0, 0, 1, 1]
    assert info["classes"] == [5, 9]


def test_load_shape_differs_from_registry(tmp_path):
    path = tmp_path / "toy.mat"
    savemat(path, {"X": np.ones((4, 3)), "Y": np.array([1, 1, 2, 2])})
    msg = "dataset 'toy': shape mismatch (expected 4 x 2, found 4 x 3)"
    with pytest.raises(ValueError, match=re.escape(msg)):
        load_dataset(make_entry(sha256=sha256_file(path)), path)


def test_load_class_count_differs_from_registry(tmp_path):
    path = tmp_path / "toy.mat"
    savemat(path, {"X": np.ones((4, 2)), "Y": np.array([1, 2, 3, 3])})
    msg = "dataset 'toy': class count mismatch (expected 2, found 3)"
    with pytest.raises(ValueError, match=re.escape(msg)):
        load_dataset(make_entry(sha256=sha256_file(path)), path)


def test_load_unknown_format(tmp_path):
    path = tmp_path / "toy.xls"
    path.write_bytes(b"")
    msg = (
        "dataset 'toy': unknown format 'xls' (known: arff, csv, image_zip, mat, mat_zip, "
        "svmlight, uci_text)"
    )
    with pytest.raises(ValueError, match=re.escape(msg)):
        load_dataset(make_entry(format="xls", sha256=sha256_file(path)), path)


def test_load_missing_raw_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="dataset 'toy': raw file .* does not exist"):
        load_dataset(make_entry(), tmp_path / "absent.mat")
    with pytest.raises(FileNotFoundError, match=r"dataset 'toy': no raw file given"):
        load_dataset(make_entry())


def test_load_csv_with_missing_values_and_label_rule(tmp_path):
    path = tmp_path / "toy.csv"
    path.write_text("a,1,?,10\nb,2,3,20\nc,3,4,30\nd,?,5,40\n")
    entry = make_entry(
        format="csv",
        n_features=2,
        n_missing=2,
        options={"na_values": ["?"], "drop_columns": [0], "label_column": 3,
                 "label_rule": "above_mean"},
    )  # fmt: skip
    X, y, info = load_dataset(replace(entry, sha256=sha256_file(path)), path)
    assert np.isnan(X).sum() == 2
    assert y.tolist() == [0, 0, 1, 1]  # 30 and 40 are above the mean 25
    assert info["label_rule"] == "column 3 > mean 25"


def test_load_csv_non_numeric_column(tmp_path):
    path = tmp_path / "toy.csv"
    path.write_text("a,1,0\nb,2,0\nc,3,1\nd,4,1\n")
    entry = make_entry(format="csv", options={"label_column": -1})
    with pytest.raises(ValueError, match=r"dataset 'toy': column 0 is not numeric \(found 'a'\)"):
        load_dataset(replace(entry, sha256=sha256_file(path)), path)


def test_load_arff_nominal_class_in_declared_order(tmp_path):
    path = tmp_path / "toy.arff"
    path.write_text(
        "@RELATION toy\n@ATTRIBUTE a REAL\n@ATTRIBUTE b REAL\n@ATTRIBUTE class {z,y,x}\n"
        "@DATA\n1,2,z\n3,4,x\n5,6,x\n7,8,z\n"
    )
    X, y, info = load_dataset(make_entry(format="arff", sha256=sha256_file(path)), path)
    assert X.tolist() == [[1, 2], [3, 4], [5, 6], [7, 8]]
    assert y.tolist() == [0, 1, 1, 0] and info["classes"] == ["z", "x"]


def test_load_missing_value_count_differs_from_registry(tmp_path):
    path = tmp_path / "toy.mat"
    savemat(path, {"X": np.array([[np.nan, 1], [1, 2], [3, 4], [5, 6]]), "Y": [1, 1, 2, 2]})
    msg = "dataset 'toy': missing-value count mismatch (expected 0, found 1)"
    with pytest.raises(ValueError, match=re.escape(msg)):
        load_dataset(make_entry(sha256=sha256_file(path)), path)


# -- loading: every registry entry ---------------------------------------------------------


def _n_classes_found(y, info):
    return info["Y_multilabel"].shape[1] if "Y_multilabel" in info else len(np.unique(y))


@pytest.mark.mirror
@pytest.mark.parametrize("name", sorted(n for n, e in REGISTRY.items() if e.file_entry))
def test_registry_file_loads_with_declared_shape(name, mirror):
    entry = REGISTRY[name]
    path = find_in_mirror(entry, mirror)
    if path is None:
        pytest.skip(f"dataset {name!r}: {entry.file_entry.file} not in the mirror {mirror}")
    X, y, info = load_dataset(replace(entry, sha256=sha256_file(path)), path)
    assert X.dtype == np.float64
    assert X.shape == (entry.n_samples, entry.n_features)
    assert np.count_nonzero(np.isnan(X)) == entry.n_missing
    if entry.n_classes is None:
        assert y is None
    else:
        assert _n_classes_found(y, info) == entry.n_classes
    if y is not None:
        assert y.dtype == np.int64 and y.min() == 0 and y.max() == entry.n_classes - 1


@pytest.mark.parametrize("name", sorted(n for n, e in REGISTRY.items() if not e.file_entry))
def test_registry_generated_loads_with_declared_shape(name):
    entry = REGISTRY[name]
    X, y, info = load_dataset(entry)
    assert X.shape == (entry.n_samples, entry.n_features)
    assert len(np.unique(y)) == entry.n_classes
    X2, y2, _ = load_dataset(entry)
    assert np.array_equal(X, X2) and np.array_equal(y, y2)  # seeded


@pytest.mark.mirror
@pytest.mark.parametrize("base", ["dartboard1", "diamond9"])
def test_blufs_noise_sets_keep_base_columns(base, mirror):
    X0, y0, _ = load_dataset(REGISTRY[base], find_in_mirror(REGISTRY[base], mirror))
    X, y, info = load_dataset(REGISTRY[f"{base}_noise"], find_in_mirror(REGISTRY[base], mirror))
    assert np.array_equal(X[:, :2], X0) and np.array_equal(y, y0)
    assert info["informative"] == [0, 1]
    assert abs(X[:, 2:].std() - 1.0) < 0.05  # unit Gaussian noise, not rescaled


@pytest.mark.mirror
@pytest.mark.parametrize(
    "raw, converted", [("housing_raw", "housing"), ("dartboard1_arff", "dartboard1")]
)
def test_raw_sources_match_converted_files(raw, converted, mirror):
    a = load_dataset(REGISTRY[raw], find_in_mirror(REGISTRY[raw], mirror))
    b = load_dataset(REGISTRY[converted], find_in_mirror(REGISTRY[converted], mirror))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


# -- normalisation -------------------------------------------------------------------------

# Column 0 varies, column 1 is constant, column 2 has one non-zero value.
HAND = np.array([[1.0, 4.0, 0.0], [3.0, 4.0, 3.0], [5.0, 4.0, 0.0]])


_S15, _S2, _S35, _S3 = np.sqrt(1.5), np.sqrt(2), np.sqrt(35), np.sqrt(3)
_R1, _R2, _R3 = np.sqrt(17), np.sqrt(34), np.sqrt(41)
HAND_EXPECTED = {
    "none": HAND,
    "zscore": [[-_S15, 0, -1 / _S2], [0, 0, _S2], [_S15, 0, -1 / _S2]],
    "minmax": [[0, 0, 0], [0.5, 0, 1], [1, 0, 0]],
    "unit_column": [[1 / _S35, 1 / _S3, 0], [3 / _S35, 1 / _S3, 1], [5 / _S35, 1 / _S3, 0]],
    "unit_row": [[1 / _R1, 4 / _R1, 0], [3 / _R2, 4 / _R2, 3 / _R2], [5 / _R3, 4 / _R3, 0]],
}


@pytest.mark.parametrize("scheme, expected", HAND_EXPECTED.items())
def test_normalize_schemes_on_hand_example(scheme, expected):
    X, report = normalize(HAND, scheme)
    np.testing.assert_allclose(X, expected, atol=1e-12)
    assert report["constant_columns"] == [1]
    assert report["kept_columns"] == [0, 1, 2]
    assert HAND[0, 0] == 1.0  # input untouched


@pytest.mark.parametrize("scheme", ["zscore", "minmax", "unit_column", "unit_row"])
def test_normalize_zero_and_constant_columns_give_no_nan(scheme):
    X = np.array([[0.1, 0.0, 1.0], [0.1, 0.0, 2.0], [0.1, 0.0, 4.0]])
    Xn, _ = normalize(X, scheme)
    assert np.isfinite(Xn).all()
    assert (Xn[:, 1] == 0).all()
    if scheme in ("zscore", "minmax"):
        assert (Xn[:, 0] == 0).all()  # exactly, though mean(0.1, 0.1, 0.1) != 0.1


def test_normalize_nan_without_imputation():
    X = np.array([[np.nan, 1.0], [2.0, np.nan], [3.0, 4.0], [np.nan, 5.0]])
    msg = "dataset 'arrhythmia': X has 3 NaN values; set normalize.impute to mean or median"
    with pytest.raises(ValueError, match=re.escape(msg)):
        normalize(X, "zscore", name="arrhythmia")
    X[2, 0] = np.inf
    with pytest.raises(ValueError, match="X has 3 NaN and 1 infinite values"):
        normalize(X, name="arrhythmia")


@pytest.mark.parametrize("impute, fill", [("mean", 7.0), ("median", 8.0)])
def test_normalize_imputes(impute, fill):
    X = np.array([[1.0, np.nan], [2.0, 4.0], [3.0, 8.0], [4.0, 9.0]])
    Xn, report = normalize(X, impute=impute)
    assert Xn[0, 1] == fill
    assert report["n_imputed"] == 1 and report["imputed_columns"] == [1]


def test_normalize_constant_features_reported_dropped_or_rejected():
    _, report = normalize(HAND, "minmax", constant="keep")
    assert report["constant_columns"] == [1] and report["n_features_out"] == 3
    X, report = normalize(HAND, "minmax", constant="drop")
    assert X.shape == (3, 2)
    assert report["kept_columns"] == [0, 2] and report["constant_columns"] == [1]
    np.testing.assert_allclose(X, [[0, 0], [0.5, 1], [1, 0]])
    msg = "dataset 'toy': 1 constant feature(s) (columns 1); set normalize.constant to keep or drop"
    with pytest.raises(ValueError, match=re.escape(msg)):
        normalize(HAND, constant="error", name="toy")


def test_normalize_unknown_option():
    with pytest.raises(ValueError, match=r"dataset 'toy': unknown scheme 'l2' \(known: none, "):
        normalize(HAND, "l2", name="toy")


def test_entry_replace_keeps_frozen_contract():
    entry = make_entry()
    with pytest.raises(AttributeError):
        entry.name = "other"
    assert replace(entry, format="arff").format == "arff"


# -- unverified downloads and archive bounds -------------------------------------------------


def test_unverified_download_needs_opt_in_and_is_locked(tmp_path, server):
    server.routes["/toy.bin"] = [(200, GOOD)]
    entry = make_entry(url=server.url("/toy.bin"), sha256=None)
    dest = tmp_path / "raw" / "toy.bin"
    with pytest.raises(ValueError, match=r"no sha256 is registered, .* allow_unverified: true"):
        fetch(entry, dest, backoff=0)
    assert server.hits == {} and not dest.exists()
    with pytest.warns(UserWarning, match=f"register sha256: {GOOD_SHA}"):
        fetch(entry, dest, allow_unverified=True, backoff=0)
    lock = datasets.lock_path(dest)
    assert lock.read_text().split()[0] == GOOD_SHA
    datasets.verify_file(entry, dest)  # as recorded
    dest.write_bytes(BAD)  # swapped later: caught wherever the file is used
    with pytest.raises(ValueError, match=r"changed since it was fetched unverified"):
        datasets.verify_file(entry, dest)


def test_archive_member_larger_than_the_shape_needs_is_not_read(tmp_path):
    import zipfile

    path = tmp_path / "bomb.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        with archive.open("table.csv", "w", force_zip64=True) as fh:
            for _ in range(40):  # 40 MiB of zeros, about 40 KiB compressed
                fh.write(b"0" * (1 << 20))
    assert path.stat().st_size < (1 << 20)
    entry = make_entry(
        format="csv", sha256=sha256_file(path), options={"member": "table.csv"}
    )  # 4 x 2 values: a budget of 16 MiB and a bit
    with pytest.raises(ValueError, match=r"holds more than the \d+ bytes its registered shape"):
        load_dataset(entry, path)
