"""Code hashes remembered between runs of the workflow in one folder.

Parsing the library for :class:`~ufsbench.codehash.CodeBase` costs about a CPU second, and
every ``snakemake`` command pays it: each dry run, each run, and on a cluster each job,
which plans its own workflow again. The hashes depend on nothing but the source files, so
they are kept beside Snakemake's own records, under the digest of every file they were
computed from (the library, the reader scripts and the hashing code itself). Any edit of
those files gives another digest, and the hashes are computed afresh.
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
    folder) when the sources are those it was written for; the library is parsed only for
    a hash not found there. :meth:`save` writes what was added (atomically: concurrent
    jobs may save at once)."""

    def __init__(self, lib, readers=(), path=DEFAULT_PATH, declarations=DECLARATIONS):
        self.lib, self.readers = Path(lib), [Path(r) for r in readers]
        self.declarations = tuple(declarations)
        # absolute now: snakemake returns to the folder it was started in before exiting
        self.path = Path(path).absolute()
        self.sources = sources_digest(self.lib, self.readers, self.declarations)
        self.hashes = self._read()
        self.added = False
        self._code = None

    def _read(self) -> dict[str, str]:
        try:
            stored = json.loads(self.path.read_text())
        except (OSError, ValueError):  # absent, unreadable or cut: start afresh
            return {}
        if not isinstance(stored, dict) or stored.get("sources") != self.sources:
            return {}
        hashes = stored.get("hashes")
        return dict(hashes) if isinstance(hashes, dict) else {}

    def hash(self, *roots) -> str:
        key = "\0".join(Path(root).as_posix() for root in roots)
        if key not in self.hashes:
            if self._code is None:
                self._code = CodeBase(self.lib, self.readers, self.declarations)
            self.hashes[key] = self._code.hash(*roots)
            self.added = True
        return self.hashes[key]

    def save(self) -> None:
        """Write the hashes if any was computed here; a folder that cannot be written
        only loses the saving."""
        if not self.added:
            return
        text = json.dumps({"sources": self.sources, "hashes": self.hashes}, sort_keys=True)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # a name of its own: jobs on several nodes may save into one shared folder
            fd, part = tempfile.mkstemp(dir=self.path.parent, suffix=".part")
            with os.fdopen(fd, "w") as out:
                out.write(text)
            os.replace(part, self.path)
        except OSError:
            return
        self.added = False
