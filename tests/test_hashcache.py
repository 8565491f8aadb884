"""Code hashes kept between workflow commands (ufsbench.hashcache): the same hashes as a
fresh parse, recomputed after any source edit, never trusted from a damaged file."""

from __future__ import annotations

import json
import shutil

import pytest
from test_codehash import LIB, SCRIPTS, edit

from ufsbench.codehash import CodeBase
from ufsbench.hashcache import RememberedHashes, sources_digest

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
