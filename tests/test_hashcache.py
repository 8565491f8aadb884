"""Code hashes kept between workflow commands (ufsbench.hashcache): the same hashes as a
fresh parse, recomputed after any source edit, never trusted from a damaged file."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from test_codehash import LIB, SCRIPTS, edit

from ufsbench.codehash import CodeBase
from ufsbench.hashcache import (
    CACHE_ENV,
    SHARED_KEPT,
    RememberedHashes,
    shared_folder,
    sources_digest,
)

ROOTS = [("api.py", "methods/ndfs.py"), ("api.py", "methods/blufs.py"), ("io.py",)]


@pytest.fixture(scope="module")
def parsed():
    """The checkout's library parsed afresh (each parse costs about a CPU second)."""
    return CodeBase(LIB, readers=SCRIPTS)


@pytest.fixture
def small(tmp_path):
    """A two-module library: quick to parse."""
    lib = tmp_path / "pkg"
    lib.mkdir()
    (lib / "__init__.py").write_text("")
    (lib / "core.py").write_text("LIMIT = 3\n\n\ndef f(x):\n    return x * LIMIT\n")
    (lib / "io.py").write_text("from .core import f\n\n\ndef g(x):\n    return f(x) + 1\n")
    return lib


def test_remembered_hashes_equal_a_fresh_parse_and_are_read_back_without_one(parsed, tmp_path):
    path = tmp_path / "cache" / "code-hashes.json"
    first = RememberedHashes(LIB, SCRIPTS, path=path)
    hashes = [first.hash(*roots) for roots in ROOTS]
    assert hashes == [parsed.hash(*roots) for roots in ROOTS]
    first.save()
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no part file left
    again = RememberedHashes(LIB, SCRIPTS, path=path)
    assert [again.hash(*roots) for roots in ROOTS] == hashes
    assert again._code is None  # read back: the library was not parsed
    again.save()  # nothing new: the file is left as it was
    assert json.loads(path.read_text())["sources"] == sources_digest(LIB, SCRIPTS)


def test_an_edit_of_any_source_computes_the_hashes_afresh(tmp_path):
    lib = tmp_path / "src" / "ufsbench"
    shutil.copytree(LIB, lib, ignore=shutil.ignore_patterns("__pycache__"))
    path = tmp_path / "code-hashes.json"
    before = RememberedHashes(lib, SCRIPTS, path=path)
    ndfs = before.hash(*ROOTS[0])
    before.save()
    # a numeric edit of the method: its remembered hash must not be served
    edit(lib / "methods" / "ndfs.py", "max_iter=100,", "max_iter=101,")
    after = RememberedHashes(lib, SCRIPTS, path=path)
    assert after.hashes == {}
    assert after.hash(*ROOTS[0]) == CodeBase(lib, readers=SCRIPTS).hash(*ROOTS[0]) != ndfs
    # a comment changes no hash, but the sources: computed again (to the same hash)
    edit(lib / "methods" / "base.py", "\n\n\ndef ", "\n\n\n# a comment\ndef ")
    assert sources_digest(lib, SCRIPTS) != after.sources
    # a reader script counts too
    script = tmp_path / "reader.py"
    script.write_text("from ufsbench.graph import knn_graph\n")
    digest = sources_digest(lib, [script])
    assert digest != sources_digest(lib, [])
    script.write_text("from ufsbench.graph import knn_graph, K\n")
    assert sources_digest(lib, [script]) != digest


@pytest.mark.parametrize(
    "content",
    ['{"sources": "', "[1, 2]", '{"sources": "x", "hashes": {"io.py": "0"}}', "\0\0"],
    ids=["cut", "not-a-mapping", "other-sources", "binary"],
)
def test_a_damaged_or_foreign_file_is_ignored(small, tmp_path, content):
    path = tmp_path / "code-hashes.json"
    path.write_text(content)
    hashes = RememberedHashes(small, path=path)
    assert hashes.hashes == {}
    assert hashes.hash("io.py") == CodeBase(small).hash("io.py")
    hashes.save()
    assert json.loads(path.read_text())["hashes"] == {"io.py": hashes.hash("io.py")}


def test_a_folder_that_cannot_be_written_only_loses_the_saving(small, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    hashes = RememberedHashes(small, path=blocker / "sub" / "code-hashes.json")
    assert hashes.hash("io.py") == CodeBase(small).hash("io.py")
    hashes.save()  # no error: the next command parses again
    assert not (blocker / "sub").exists()


def test_an_unknown_root_is_refused_as_by_a_fresh_parse(small, tmp_path):
    hashes = RememberedHashes(small, path=tmp_path / "h.json")
    with pytest.raises(ValueError, match="not a module under"):
        hashes.hash("methods/no_such_method.py")


def test_a_new_run_folder_reads_the_shared_copy_without_a_parse(small, tmp_path):
    shared = tmp_path / "shared"
    first = RememberedHashes(small, path=tmp_path / "run1" / "h.json", shared=shared)
    io_hash = first.hash("io.py")
    first.save()
    (copy,) = shared.iterdir()  # one file, named by the sources' digest
    assert copy.name == f"code-hashes-{first.sources}.json"
    second = RememberedHashes(small, path=tmp_path / "run2" / "h.json", shared=shared)
    assert second.hash("io.py") == io_hash and second._code is None  # not parsed
    # the run folder's own file is written all the same (a cluster job reads that one)
    second.save()
    assert json.loads((tmp_path / "run2" / "h.json").read_text())["hashes"] == {"io.py": io_hash}
    # a hash computed in one run folder reaches the shared copy for the next
    core = second.hash("core.py")
    second.save()
    third = RememberedHashes(small, path=tmp_path / "run3" / "h.json", shared=shared)
    assert third.hashes == {"io.py": io_hash, "core.py": core}


def test_the_shared_copy_of_other_sources_is_another_file(small, tmp_path):
    shared = tmp_path / "shared"
    before = RememberedHashes(small, path=tmp_path / "a.json", shared=shared)
    before.hash("io.py")
    before.save()
    (small / "core.py").write_text("LIMIT = 4\n\n\ndef f(x):\n    return x * LIMIT\n")
    after = RememberedHashes(small, path=tmp_path / "b.json", shared=shared)
    assert after.hashes == {}
    assert after.hash("io.py") == CodeBase(small).hash("io.py") != before.hash("io.py")


def test_a_damaged_shared_copy_is_ignored(small, tmp_path):
    shared = tmp_path / "shared"
    digest = sources_digest(small)
    shared.mkdir()
    (shared / f"code-hashes-{digest}.json").write_text('{"sources": "' + digest)
    hashes = RememberedHashes(small, path=tmp_path / "h.json", shared=shared)
    assert hashes.hashes == {}
    hashes.hash("io.py")
    hashes.save()  # and replaced by a whole one
    stored = json.loads((shared / f"code-hashes-{digest}.json").read_text())
    assert stored == {"sources": digest, "hashes": {"io.py": hashes.hash("io.py")}}


def test_the_shared_folder_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setattr(Path, "home", lambda: tmp_path / "home")
    assert shared_folder({}) == tmp_path / "home" / ".cache" / "ufsbench"
    assert shared_folder({"XDG_CACHE_HOME": "/c"}) == Path("/c/ufsbench")
    assert shared_folder({CACHE_ENV: "/h", "XDG_CACHE_HOME": "/c"}) == Path("/h")
    assert shared_folder({CACHE_ENV: ""}) is None  # no shared copy


def test_the_tests_share_hashes_in_their_own_folder(session_hash_folder):
    assert os.environ[CACHE_ENV] == str(session_hash_folder)
    assert shared_folder() == session_hash_folder


def test_the_shared_folder_keeps_the_newest_sources_only(small, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    old = [shared / f"code-hashes-{i:064x}.json" for i in range(SHARED_KEPT + 3)]
    for age, path in enumerate(old):  # old[0] the newest
        path.write_text("{}")
        os.utime(path, (1e9 - age, 1e9 - age))
    (shared / "notes.txt").write_text("not ours")
    hashes = RememberedHashes(small, path=tmp_path / "h.json", shared=shared)
    hashes.hash("io.py")
    hashes.save()
    kept = {p.name for p in shared.iterdir()}
    assert kept == {hashes.shared.name, "notes.txt", *(p.name for p in old[: SHARED_KEPT - 1])}


def test_a_failed_write_leaves_no_part_file(small, tmp_path, monkeypatch):
    def refuse(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", refuse)
    hashes = RememberedHashes(small, path=tmp_path / "run" / "h.json", shared=tmp_path / "sh")
    hashes.hash("io.py")
    hashes.save()  # no error: the next command computes them again
    written = [p for folder in ("run", "sh") for p in (tmp_path / folder).rglob("*")]
    assert written == []
