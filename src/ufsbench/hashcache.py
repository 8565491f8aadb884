"""Code hashes remembered between runs of the workflow in one folder.

Parsing the library for :class:`~ufsbench.codehash.CodeBase` costs about a CPU second, and
every ``snakemake`` command pays it: each dry run, each run, and on a cluster each job,
which plans its own workflow again. The hashes depend on nothing but the source files, so
they are kept beside Snakemake's own records, under the digest of every file they were
computed from (the library, the reader scripts and the hashing code itself). Any edit of
those files gives another digest, and the hashes are computed afresh.

Since they depend on the sources alone, a copy is also kept in a folder every run folder
of the machine shares (:func:`shared_folder`, one file per digest), so a new run folder
of the same code (a second experiment, a test's) finds them too.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from . import codehash
from .codehash import DECLARATIONS, CodeBase

DEFAULT_PATH = Path(".snakemake") / "ufsbench" / "code-hashes.json"
"""Where the workflow keeps them, relative to its working folder."""
CACHE_ENV = "UFSBENCH_CACHE_DIR"
SHARED_KEPT = 16
"""How many sources' files the shared folder keeps (the newest): one per edit of the code."""


def shared_folder(environ=os.environ) -> Path | None:
    """The folder of hashes shared by the run folders: ``$UFSBENCH_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/ufsbench``, else ``~/.cache/ufsbench``; None (no shared copy) when
    ``UFSBENCH_CACHE_DIR`` is set empty or there is no home folder."""
    if CACHE_ENV in environ:
        return Path(environ[CACHE_ENV]) if environ[CACHE_ENV] else None
    if environ.get("XDG_CACHE_HOME"):
        return Path(environ["XDG_CACHE_HOME"]) / "ufsbench"
    try:
        return Path.home() / ".cache" / "ufsbench"
    except RuntimeError:  # no home folder to be found
        return None


def sources_digest(lib, readers=(), declarations=DECLARATIONS) -> str:
    """sha256 of every file the hashes are computed from, with their relative names."""
    lib = Path(lib)
    digest = hashlib.sha256(repr(tuple(declarations)).encode())
    files = [(f"lib/{p.relative_to(lib).as_posix()}", p) for p in sorted(lib.rglob("*.py"))]
    files += [(f"reader/{Path(p).name}", Path(p)) for p in readers]
    files.append(("codehash", Path(codehash.__file__)))
    for name, path in files:
        data = path.read_bytes()
        digest.update(f"{name}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


class RememberedHashes:
    """:meth:`CodeBase.hash` of ``lib``, read from ``path`` (relative: to the current
    folder) or from the ``shared`` folder's file of the same sources, when the sources are
    those it was written for; the library is parsed only for a hash found in neither.
    :meth:`save` writes each file that lacks a hash (atomically: concurrent jobs may save
    at once)."""

    def __init__(self, lib, readers=(), path=DEFAULT_PATH, declarations=DECLARATIONS, shared=None):
        self.lib, self.readers = Path(lib), [Path(r) for r in readers]
        self.declarations = tuple(declarations)
        # absolute now: snakemake returns to the folder it was started in before exiting
        self.path = Path(path).absolute()
        self.sources = sources_digest(self.lib, self.readers, self.declarations)
        self.shared = (
            Path(shared).absolute() / f"code-hashes-{self.sources}.json" if shared else None
        )
        # what each file holds: a file is written again only when it lacks a hash
        self._stored = {file: self._read(file) for file in (self.path, self.shared) if file}
        self.hashes = {k: v for stored in self._stored.values() for k, v in stored.items()}
        self._code = None

    def _read(self, file: Path) -> dict[str, str]:
        try:
            stored = json.loads(file.read_text())
        except (OSError, ValueError):  # absent, unreadable or cut: start afresh
            return {}
        if not isinstance(stored, dict) or stored.get("sources") != self.sources:
            return {}
        hashes = stored.get("hashes")
        if not isinstance(hashes, dict):
            return {}
        return {k: v for k, v in hashes.items() if isinstance(k, str) and isinstance(v, str)}

    def hash(self, *roots) -> str:
        key = "\0".join(Path(root).as_posix() for root in roots)
        if key not in self.hashes:
            if self._code is None:
                self._code = CodeBase(self.lib, self.readers, self.declarations)
            self.hashes[key] = self._code.hash(*roots)
        return self.hashes[key]

    def save(self) -> None:
        """Write each file that lacks one of the hashes; a folder that cannot be written
        only loses the saving."""
        text = json.dumps({"sources": self.sources, "hashes": self.hashes}, sort_keys=True)
        for file, stored in self._stored.items():
            if self.hashes.keys() <= stored.keys():
                continue
            if not _write_whole(file, text):
                continue
            self._stored[file] = dict(self.hashes)
            if file == self.shared:
                prune(file.parent)


def _write_whole(file: Path, text: str) -> bool:
    """Write ``text`` to ``file`` through a part file renamed into place; False, leaving
    no part file behind, when the folder cannot be written."""
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        # a name of its own: jobs on several nodes may save into one shared folder
        fd, part = tempfile.mkstemp(dir=file.parent, suffix=".part")
    except OSError:
        return False
    try:
        with os.fdopen(fd, "w") as out:
            out.write(text)
        os.replace(part, file)
    except OSError:
        Path(part).unlink(missing_ok=True)
        return False
    return True


def prune(folder: Path, keep: int = SHARED_KEPT) -> None:
    """Remove all but the ``keep`` newest files of hashes from the shared ``folder`` (a
    file another command is reading or writing at once is only computed again)."""
    files = []
    for path in folder.glob("code-hashes-*.json"):
        try:
            files.append((path.stat().st_mtime, path))
        except OSError:  # removed meanwhile
            continue
    for _, path in sorted(files, reverse=True)[keep:]:
        path.unlink(missing_ok=True)
