"""Code hashes of workflow jobs: the library code a job runs, numerics only.

A job's code hash covers the modules it names as roots (e.g. ``api.py`` and the method's
own module) and every ``ufsbench`` module they import, transitively, found by parsing
``import`` statements (static: nothing is imported or run). Editing a helper of one method
therefore re-runs the jobs of the methods that import it, and no others.

What counts, precisely
----------------------
Each module in the closure enters the hash as its path relative to the package
(``methods/ndfs.py``, never an absolute path) and a normal form of its syntax tree:

- comments and layout never reach the tree; docstrings and every other bare string
  statement are removed; annotations of function arguments and return values are removed
  (class-level annotations stay: dataclasses read them);
- top-level imports are written once each, resolved (``from ..graph import x`` and
  ``from ufsbench.graph import x`` agree) and sorted, so reordering them changes nothing;
- a top-level assignment (``GRID = {...}``, ``REFERENCE = "..."``) or imported name that
  no code reads is left out. A name bound at the top of module M is read when the kept
  code of M names it, when kept code anywhere imports it from M by name, or when it is an
  attribute name or a word of a string in kept code anywhere (``x.NAME``,
  ``getattr(x, "NAME")``) -- "anywhere" being the library without the declarations
  (below), plus the reader files (the workflow's scripts). This is decided to a fixed
  point, so a constant read only by a dropped one is dropped too, and a module imported
  only for dropped statements (a ``Param`` used only in metadata) leaves the closure.
  Metadata read only by the method registry thus never counts: adding, editing, moving
  or reordering it changes no hash; what the registry makes of it reaches a job as its
  ``params``;
- everything else counts in source order: functions, classes, statements with effects,
  assignments whose target is not a plain name, and all code of a module that reads its
  own namespace dynamically (``globals()``, ``vars()``, ``__dict__``, ``import *``, or a
  ``getattr`` of a library module with a computed name).

Declarations (:data:`DECLARATIONS`, the method registry files) are neither hashed nor
followed: which method a name means and its parameters' defaults reach every job as its
``params``. Package ``__init__.py`` files count only when imported by name (``from
ufsbench import x`` where ``x`` is not a submodule), not for being the parent package.

Why this is sound: a job's result depends on the code that runs. Dropping a statement
that binds names nobody reads changes no value any kept code computes, provided (1) the
dropped right-hand side or import has no side effect the kept code observes
(module-level assignments in this library build constants, imports define functions;
neither mutates other state) and (2) no code looks names up by a computed string (such
modules keep all their code, above). Removed docstrings, string statements and function
annotations are never evaluated by the numerics (``from __future__ import annotations``
keeps annotations unevaluated). Not covered: the workflow files (``.smk``) and the
scripts' own code; a constant a rule reads reaches its jobs as ``params``.
"""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path

DECLARATIONS = ("methods/registry*.py",)
"""Glob patterns (relative to the package) of declaration modules: not hashed, not followed."""

_DYNAMIC_CALLS = {"globals", "vars"}
_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass
class _Unit:
    """A top-level statement of a module (an import: one imported name)."""

    node: ast.stmt
    defines: frozenset = frozenset()  # names it binds, when it may be left out
    uses: frozenset = frozenset()  # names it may read in its own module
    opened: frozenset = frozenset()  # attribute names and strings: reads of any module's
    reads_from: frozenset = frozenset()  # (module, name) it imports by name
    prunable: bool = False
    text: str = ""  # canonical text of an import unit
    kept: bool = True


@dataclass
class _Module:
    path: str  # relative to the package, posix
    dotted: str
    units: list = field(default_factory=list)
    dynamic: bool = False


class CodeBase:
    """The parsed library below ``lib`` (the package folder), ready to hash job closures.

    ``readers``: files outside the library whose reads keep a constant (the workflow's
    scripts); ``.py`` files by their syntax tree, others by every identifier-like word.
    ``declarations``: glob patterns of modules neither hashed nor followed.
    """

    def __init__(self, lib, readers=(), declarations=DECLARATIONS):
        self.lib = Path(lib)
        self.package = self.lib.name
        self.declarations = tuple(declarations)
        self.modules: dict[str, _Module] = {}
        self.by_dotted: dict[str, str] = {}
        for file in sorted(self.lib.rglob("*.py")):
            rel = file.relative_to(self.lib).as_posix()
            parts = [self.package, *rel[: -len(".py")].split("/")]
            if parts[-1] == "__init__":
                parts.pop()
            self.modules[rel] = _Module(rel, ".".join(parts))
            self.by_dotted[".".join(parts)] = rel
        scans = {}
        for rel, module in self.modules.items():
            tree = ast.parse((self.lib / rel).read_bytes(), filename=rel)
            _strip_strings(tree)
            scans[rel] = _Scan()
            module.units = self._units(module, tree, scans[rel])
        self._mark_dynamic(scans)
        self._reader_opened, self._reader_from = set(), set()
        for reader in readers:
            self._read_reader(Path(reader))
        self._prune()
        self._imports: dict[str, set] = {}
        self._normal: dict[str, str] = {}

    # -- parsing ---------------------------------------------------------------------

    def _read_reader(self, path: Path) -> None:
        """What a file outside the library reads of it (a script; other files: every word)."""
        text = path.read_text()
        if path.suffix != ".py":
            self._reader_opened |= set(_WORD.findall(text))
            return
        _, opened, from_imports = _Scan().read(ast.parse(text, filename=str(path)))
        self._reader_opened |= opened
        for node in from_imports:
            target = self.by_dotted.get(node.module or "") if node.level == 0 else None
            if target is not None:
                self._reader_from |= {(target, alias.name) for alias in node.names}

    def is_declaration(self, rel: str) -> bool:
        return any(fnmatch.fnmatchcase(rel, pattern) for pattern in self.declarations)

    def _resolve_from(self, module: _Module, node: ast.ImportFrom) -> str | None:
        """The dotted module a ``from ... import`` reads from (None: not resolvable)."""
        if node.level == 0:
            return node.module
        package = module.dotted.split(".")
        if not module.path.endswith("__init__.py"):
            package = package[:-1]
        if node.level - 1 > len(package):
            return None
        base = package[: len(package) - (node.level - 1)]
        return ".".join(base + ([node.module] if node.module else []))

    def _targets(self, module: _Module, node) -> list[tuple[str, str | None, str]]:
        """(bound name, library module it leads to or None, canonical text) per alias."""
        out = []
        if isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                target = self.by_dotted.get(alias.name)
                out.append((bound, target, f"import {alias.name} as {bound}"))
            return out
        source = self._resolve_from(module, node) or ""
        for alias in node.names:
            bound = alias.asname or alias.name
            submodule = self.by_dotted.get(f"{source}.{alias.name}")
            target = submodule or self.by_dotted.get(source)
            text = f"from {source or '.' * node.level} import {alias.name} as {bound}"
            out.append((bound, target, text))
        return out

    def _units(self, module: _Module, tree: ast.Module, scan: _Scan) -> list[_Unit]:
        units = []
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                units.append(_Unit(node))
            elif isinstance(node, ast.Import | ast.ImportFrom):
                for (bound, target, text), alias in zip(
                    self._targets(module, node), node.names, strict=True
                ):
                    one = type(node)(**{**vars(node), "names": [alias]})
                    reads = {(target, alias.name)} if isinstance(node, ast.ImportFrom) else ()
                    units.append(
                        _Unit(one, frozenset({bound}), reads_from=frozenset(reads), text=text)
                    )
                    units[-1].prunable = True
            elif _plain_assignment(node):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                defines = frozenset(
                    n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)
                )
                parts = [node.value] if node.value is not None else []
                if isinstance(node, ast.AnnAssign):
                    parts.append(node.annotation)
                scan.read(node)  # strips it and finds dynamic lookups
                unit = _Unit(node, defines, prunable=True)
                for part in parts:
                    self._add_reads(module, unit, scan.read(part))
                units.append(unit)
            else:
                unit = _Unit(node)
                self._add_reads(module, unit, scan.read(node))
                units.append(unit)
        return units

    def _add_reads(self, module: _Module, unit: _Unit, reads) -> None:
        local, opened, from_imports = reads
        unit.uses |= local
        unit.opened |= opened
        unit.reads_from |= {
            (target, alias.name)
            for node in from_imports
            for (_, target, _), alias in zip(self._targets(module, node), node.names, strict=True)
        }

    def _mark_dynamic(self, scans: dict):
        """Keep all code of modules whose names are looked up by computed strings."""
        for rel, scan in scans.items():
            module = self.modules[rel]
            module.dynamic = module.dynamic or scan.dynamic
            for node in scan.star_imports:
                source = self.by_dotted.get(self._resolve_from(module, node) or "")
                if source is not None:
                    self.modules[source].dynamic = True
            for unit in module.units:
                if isinstance(unit.node, ast.Import | ast.ImportFrom):
                    for bound, target, _ in self._targets(module, unit.node):
                        if target is not None and bound in scan.getattr_of:
                            self.modules[target].dynamic = True

    # -- what counts -----------------------------------------------------------------

    def _prune(self):
        """Leave out, to a fixed point, the plain assignments and imports nobody reads.

        A name bound at the top of module M is read when M's kept code names it, when kept
        code anywhere imports it from M by name, or when it is an attribute name or a
        string in kept code anywhere (``x.NAME``, ``getattr(x, "NAME")``): declarations
        left out, readers included.
        """
        while True:
            opened = set(self._reader_opened)
            targeted = {rel: set() for rel in self.modules}
            for target, name in self._reader_from:
                targeted[target].add(name)
            local = {}
            for rel, module in self.modules.items():
                if self.is_declaration(rel):
                    continue
                local[rel] = set()
                for unit in module.units:
                    if unit.kept:
                        local[rel] |= unit.uses
                        opened |= unit.opened
                        for target, name in unit.reads_from:
                            if target is not None:
                                targeted[target].add(name)
            dropped = False
            for rel, module in self.modules.items():
                if module.dynamic:
                    continue
                live = local.get(rel, set()) | targeted[rel] | opened
                for unit in module.units:
                    if unit.kept and unit.prunable and not unit.defines & live:
                        unit.kept = False
                        dropped = True
            if not dropped:
                return

    def imports(self, rel: str) -> set[str]:
        """The library modules that the kept code of ``rel`` imports (declarations left out)."""
        if rel in self._imports:
            return self._imports[rel]
        module = self.modules[rel]
        found = set()
        for unit in module.units:
            if not unit.kept:
                continue
            for node in ast.walk(unit.node):
                if isinstance(node, ast.Import | ast.ImportFrom):
                    found |= {t for _, t, _ in self._targets(module, node) if t is not None}
        found = {t for t in found if not self.is_declaration(t) and t != rel}
        self._imports[rel] = found
        return found

    def closure(self, *roots) -> list[str]:
        """The roots and every library module they import, transitively, sorted."""
        todo = [self._check_root(root) for root in roots]
        seen = set()
        while todo:
            rel = todo.pop()
            if rel in seen:
                continue
            seen.add(rel)
            todo.extend(self.imports(rel) - seen)
        return sorted(seen)

    def normal_form(self, rel: str) -> str:
        """The text of ``rel`` that its hash is made of (see the module docstring)."""
        if rel in self._normal:
            return self._normal[rel]
        kept = [u for u in self.modules[rel].units if u.kept]
        imports = sorted({u.text for u in kept if u.text})
        future = [_dump(u.node) for u in kept if _is_future(u.node)]
        rest = [_dump(u.node) for u in kept if not u.text and not _is_future(u.node)]
        self._normal[rel] = "\n".join([*future, *imports, *rest])
        return self._normal[rel]

    def hash(self, *roots) -> str:
        """Short hash of the closure of ``roots``: relative paths and normal forms."""
        digest = hashlib.sha256()
        for rel in self.closure(*roots):
            digest.update(f"{rel}\0{self.normal_form(rel)}\0".encode())
        return digest.hexdigest()[:16]

    def _check_root(self, root) -> str:
        rel = Path(root).as_posix()
        if rel not in self.modules:
            raise ValueError(f"code hash root {root!r} is not a module under {self.lib}")
        return rel


def _is_future(node) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def _plain_assignment(node) -> bool:
    """``NAME = ...``, ``A, B = ...`` or ``NAME: T = ...``: binds names, mutates nothing."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign):
        targets = [node.target]
    else:
        return False
    for target in targets:
        for sub in ast.walk(target):
            if not isinstance(sub, ast.Name | ast.Tuple | ast.List | ast.Store):
                return False
    return True


class _Scan:
    """One walk over a module: strips it, finds the names it reads and dynamic lookups."""

    def __init__(self):
        self.dynamic = False  # globals(), vars(), __dict__ or import *
        self.star_imports = []  # ImportFrom nodes with *
        self.getattr_of = set()  # names whose attributes getattr reads by a computed name

    def read(self, node) -> tuple[frozenset, frozenset, list]:
        """What ``node`` may read: every name in it (names, attributes, imported names,
        identifier-like words of strings); the attribute names and string words alone,
        which may read another module's names; its ``from ... import`` statements."""
        local, opened, from_imports = set(), set(), []
        stack = [node]
        while stack:
            sub = stack.pop()
            if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
                _strip_annotations(sub)
            _strip_strings(sub)
            stack.extend(ast.iter_child_nodes(sub))
            if isinstance(sub, ast.Name):
                local.add(sub.id)
            elif isinstance(sub, ast.Attribute):
                opened.add(sub.attr)
                if sub.attr == "__dict__":
                    self.dynamic = True
            elif isinstance(sub, ast.alias):
                local.update((sub.name.split(".")[0], sub.name))
                if sub.name == "*":
                    self.dynamic = True
            elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
                opened.update(_WORD.findall(sub.value))
            elif isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name):
                self._call(sub)
            elif isinstance(sub, ast.ImportFrom):
                from_imports.append(sub)
                if any(a.name == "*" for a in sub.names):
                    self.star_imports.append(sub)
        return frozenset(local | opened), frozenset(opened), from_imports

    def _call(self, call: ast.Call):
        if call.func.id in _DYNAMIC_CALLS:
            self.dynamic = True
        elif (
            call.func.id == "getattr"
            and len(call.args) >= 2
            and not isinstance(call.args[1], ast.Constant)
            and isinstance(call.args[0], ast.Name)
        ):
            self.getattr_of.add(call.args[0].id)


def _strip_annotations(node) -> None:
    """Remove the annotations of a function's arguments and return value."""
    node.returns = None
    args = node.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
        if arg is not None:
            arg.annotation = None


def _strip_strings(node) -> None:
    """Remove the bare string statements (docstrings included) of ``node``'s bodies."""
    for name in ("body", "orelse", "finalbody"):
        body = getattr(node, name, None)
        if not isinstance(body, list) or not body or not isinstance(body[0], ast.stmt):
            continue
        kept = [
            s
            for s in body
            if not (
                isinstance(s, ast.Expr)
                and isinstance(s.value, ast.Constant)
                and isinstance(s.value.value, str)
            )
        ]
        if len(kept) < len(body):
            setattr(node, name, kept or ([] if isinstance(node, ast.Module) else [ast.Pass()]))


def _dump(node) -> str:
    """A syntax tree as text without positions; empty fields left out, so the text does
    not change with Python versions that add fields."""
    if isinstance(node, ast.AST):
        parts = []
        for name in node._fields:
            value = getattr(node, name, None)
            if value is None or (isinstance(value, list) and not value):
                continue
            parts.append(f"{name}={_dump(value)}")
        return f"{type(node).__name__}({', '.join(parts)})"
    if isinstance(node, list):
        return "[" + ", ".join(_dump(item) for item in node) + "]"
    return repr(node)


def code_closure(lib, *roots, declarations=DECLARATIONS) -> list[str]:
    """The modules whose code a job with these roots runs (see :class:`CodeBase`)."""
    return CodeBase(lib, declarations=declarations).closure(*roots)
