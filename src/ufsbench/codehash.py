"""Code hashes of workflow jobs: the library code a job runs, numerics only.

A job's code hash covers the modules it names as roots (e.g. ``api.py`` and the method's
own module) and the ``ufsbench`` code they use, transitively, found by parsing the source
(static: nothing is imported or run). Editing a helper re-runs the jobs of the methods
whose code uses it, and no others.

What counts, precisely
----------------------
A module's top-level statements are its units (an import statement: one unit per
imported name). Starting from the roots, to a fixed point:

- a module is reached when a counted unit imports it (at the top or inside a function);
- in a reached module, a unit counts unless it is a plain assignment (``GRID = {...}``),
  an import, or a function or class definition (undecorated, or decorated only by
  ``dataclass``/``contextmanager``/``cache``/``lru_cache``/``cached_property``), whose
  names nothing that counts reads; in a root, definitions always count;
- a name bound at the top of module M is read when counted code of M names it, when
  counted code anywhere imports it from M by name, or when it is an attribute name or a
  word of a string in counted code anywhere (``x.NAME``, ``getattr(x, "NAME")``), or in
  a reader file (the workflow's scripts: what they read of the library counts);
- every unit of a module that looks its own names up dynamically (``globals()``,
  ``vars()``, ``__dict__``, ``import *``, or ``getattr`` of it by a computed name) counts.

The hash is made of each reached module's path relative to the package
(``methods/ndfs.py``, never an absolute path) and a normal form of its counted units:
syntax trees (so comments and layout never count) without docstrings or other bare
string statements and without function argument and return annotations (class-level
annotations stay: dataclasses read them), imports resolved (``from ..graph import x`` and
``from ufsbench.graph import x`` agree) and sorted, the rest in source order -- but for
definitions, sorted by name when their order is immaterial (every top-level statement is
an import, a plain assignment or a definition, each binding its own names); a text
without positions and empty fields, stable across machines and Python versions.

So metadata beside a method (``GRID``, ``REFERENCE``, a ``Param(...)`` table and the
imports only they use) counts for no job: adding, editing, moving or reordering it
changes no hash, and what the registry makes of it reaches each job as its ``params``.
Declarations (:data:`DECLARATIONS`, the method registry files) are neither hashed nor
followed, and their reads do not count. A package ``__init__.py`` is reached only when
imported by name (``from ufsbench import x``, ``x`` not a submodule), not for being a
parent package.

Why this is sound: a job's result depends on the code that runs. Leaving out a unit that
binds names nothing counted reads changes no value counted code computes, provided (1)
evaluating the unit has no side effect counted code observes (module-level assignments
here build constants, definitions and imports define things; none registers itself or
mutates other state: the decorators allowed above only wrap) and (2) no code looks names
up by a computed string (such modules count whole, above). Docstrings, string statements
and function annotations are never evaluated by the numerics (``from __future__ import
annotations``). Not covered: the workflow files (``.smk``) and the scripts' own code; a
constant a rule reads reaches its jobs as ``params``.
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
_DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Decorators that only wrap or describe what they decorate (no registration elsewhere).
_PURE_DECORATORS = {"dataclass", "contextmanager", "cache", "lru_cache", "cached_property"}


def _pure(decorator) -> bool:
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", None)
    return name in _PURE_DECORATORS


_WORD = re.compile(r"[A-Za-z_]\w*")


@dataclass
class _Unit:
    """A top-level statement of a module (an import: one imported name)."""

    node: ast.stmt
    defines: frozenset = frozenset()  # names it binds, when it may be left out
    uses: frozenset = frozenset()  # names it may read in its own module
    opened: frozenset = frozenset()  # attribute names and strings: reads of any module's
    reads_from: frozenset = frozenset()  # (module, name) it imports by name
    reaches: frozenset = frozenset()  # library modules it imports
    prunable: bool = False
    text: str = ""  # canonical text of an import unit


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
        self._slices: dict[tuple, dict] = {}
        self._normal: dict[tuple, str] = {}

    # -- parsing ---------------------------------------------------------------------

    def _read_reader(self, path: Path) -> None:
        """What a file outside the library reads of it (a script; other files: every word)."""
        text = path.read_text()
        if path.suffix != ".py":
            self._reader_opened |= set(_WORD.findall(text))
            return
        _, opened, imports = _Scan().read(ast.parse(text, filename=str(path)))
        self._reader_opened |= opened
        for node in imports:
            if not isinstance(node, ast.ImportFrom) or node.level:
                continue
            target = self.by_dotted.get(node.module or "")
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
                    unit = _Unit(one, frozenset({bound}), prunable=True, text=text)
                    unit.reads_from = frozenset(reads)
                    unit.reaches = frozenset({target} - {None})
                    units.append(unit)
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
            elif isinstance(node, _DEFINITIONS) and all(map(_pure, node.decorator_list)):
                unit = _Unit(node, frozenset({node.name}), prunable=True)
                self._add_reads(module, unit, scan.read(node))
                units.append(unit)
            else:
                unit = _Unit(node)
                self._add_reads(module, unit, scan.read(node))
                units.append(unit)
        return units

    def _add_reads(self, module: _Module, unit: _Unit, reads) -> None:
        local, opened, imports = reads
        unit.uses |= local
        unit.opened |= opened
        for node in imports:
            targets = self._targets(module, node)
            unit.reaches |= {target for _, target, _ in targets if target is not None}
            if isinstance(node, ast.ImportFrom):
                unit.reads_from |= {
                    (target, alias.name)
                    for (_, target, _), alias in zip(targets, node.names, strict=True)
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
            imports = [
                u.node for u in module.units if isinstance(u.node, ast.Import | ast.ImportFrom)
            ]
            for node in imports + scan.imports:
                for bound, target, _ in self._targets(module, node):
                    if target is not None and bound in scan.getattr_of:
                        self.modules[target].dynamic = True

    # -- what counts -----------------------------------------------------------------

    def slice(self, *roots) -> dict[str, frozenset]:
        """Module -> indices of its top-level units that count for these roots (see the
        module docstring: reached modules, counted units, names read)."""
        key = tuple(sorted({self._check_root(root) for root in roots}))
        if key in self._slices:
            return self._slices[key]
        needed = {rel: set() for rel in key}
        changed = True
        while changed:
            changed = False
            opened = set(self._reader_opened)
            targeted = {}
            for target, name in self._reader_from:
                targeted.setdefault(target, set()).add(name)
            local, reach = {}, set()
            for rel, have in needed.items():
                units = self.modules[rel].units
                local[rel] = set()
                for i in have:
                    local[rel] |= units[i].uses
                    opened |= units[i].opened
                    reach |= units[i].reaches
                    for target, name in units[i].reads_from:
                        targeted.setdefault(target, set()).add(name)
            for rel in reach:
                if rel not in needed and not self.is_declaration(rel):
                    needed[rel] = set()
                    changed = True
            for rel, have in needed.items():
                module = self.modules[rel]
                live = local.get(rel, set()) | targeted.get(rel, set()) | opened
                for i, unit in enumerate(module.units):
                    if i not in have and (
                        (rel in key and isinstance(unit.node, _DEFINITIONS))
                        or module.dynamic
                        or not unit.prunable
                        or unit.defines & live
                    ):
                        have.add(i)
                        changed = True
        self._slices[key] = {rel: frozenset(have) for rel, have in needed.items()}
        return self._slices[key]

    def closure(self, *roots) -> list[str]:
        """The roots and every library module their code imports, transitively, sorted."""
        return sorted(self.slice(*roots))

    def normal_form(self, rel: str, units=None) -> str:
        """The text of ``rel`` (of these units of it; default: all) that hashes are made of."""
        units = frozenset(range(len(self.modules[rel].units)) if units is None else units)
        if (rel, units) in self._normal:
            return self._normal[rel, units]
        module = self.modules[rel]
        kept = [u for i, u in enumerate(module.units) if i in units]
        imports = sorted({u.text for u in kept if u.text})
        future = [_dump(u.node) for u in kept if _is_future(u.node)]
        rest = [u for u in kept if not u.text and not _is_future(u.node)]
        if self._definitions_commute(module):
            definitions = sorted(
                (u for u in rest if isinstance(u.node, _DEFINITIONS)), key=lambda u: u.node.name
            )
            rest = [u for u in rest if not isinstance(u.node, _DEFINITIONS)] + definitions
        body = [*future, *imports, *(_dump(u.node) for u in rest)]
        self._normal[rel, units] = "\n".join(body)
        return self._normal[rel, units]

    @staticmethod
    def _definitions_commute(module: _Module) -> bool:
        """Whether the order of the module's definitions is immaterial: every top-level
        statement is an import, a plain assignment or a purely decorated definition, and
        each binds names no other binds. Then every name has one value ever, and any order
        of the definitions that imports gives the same namespace."""
        bound = []
        for unit in module.units:
            if not unit.prunable and not _is_future(unit.node):
                return False
            bound.extend(unit.defines)
        return len(bound) == len(set(bound))

    def hash(self, *roots) -> str:
        """Short hash of what the roots' code needs: relative paths and normal forms."""
        digest = hashlib.sha256()
        for rel, units in sorted(self.slice(*roots).items()):
            digest.update(f"{rel}\0{self.normal_form(rel, units)}\0".encode())
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
        self.imports = []  # every import statement seen, at the top or nested

    def read(self, node) -> tuple[frozenset, frozenset, list]:
        """What ``node`` may read: every name in it (names, attributes, imported names,
        identifier-like words of strings); the attribute names and string words alone,
        which may read another module's names; its import statements."""
        local, opened, imports = set(), set(), []
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
            elif isinstance(sub, ast.Import | ast.ImportFrom):
                imports.append(sub)
                self.imports.append(sub)
                if isinstance(sub, ast.ImportFrom) and any(a.name == "*" for a in sub.names):
                    self.star_imports.append(sub)
        return frozenset(local | opened), frozenset(opened), imports

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
