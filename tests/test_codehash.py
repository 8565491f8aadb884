"""Code hashes follow the import graph and count numerics only (ufsbench.codehash)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from snakemake_cli import ROOT, needs_snakemake, snakemake_cmd, write_config

from ufsbench.codehash import CodeBase
from ufsbench.methods import REGISTRY

LIB = ROOT / "src" / "ufsbench"
SCRIPTS = sorted((ROOT / "workflow" / "scripts").glob("*.py"))


def method_roots(method):
    return ("api.py", f"methods/{REGISTRY[method].module}.py")


def method_hashes(lib, modules=False) -> dict[str, str]:
    """The code hash of every registered method's jobs, as the workflow computes it; with
    ``modules``, also that of every library module taken as a root (what rules hash)."""
    code = CodeBase(lib, readers=SCRIPTS)
    hashes = {method: code.hash(*method_roots(method)) for method in REGISTRY}
    if modules:
        hashes |= {rel: code.hash(rel) for rel in code.modules if not code.is_declaration(rel)}
    return hashes


@pytest.fixture
def lib(tmp_path):
    """A scratch copy of the library to edit."""
    copy = tmp_path / "src" / "ufsbench"
    shutil.copytree(LIB, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def edit(path: Path, old: str, new: str, count: int = 1):
    text = path.read_text()
    assert text.count(old) >= count, f"{old!r} not in {path.name}"
    path.write_text(text.replace(old, new, count))


@pytest.fixture(scope="module")
def code():
    return CodeBase(LIB, readers=SCRIPTS)


def test_ndfs_closure_is_its_module_and_what_it_imports(code):
    closure = code.closure(*method_roots("ndfs"))
    assert closure == [
        "api.py",
        "graph.py",
        "methods/base.py",
        "methods/ndfs.py",
        "validation.py",  # rank_features checks every input first
    ]


def test_blufs_closure_has_its_helpers_and_no_other(code):
    closure = set(code.closure(*method_roots("blufs")))
    assert {"methods/_blufs_pam.py", "methods/_blufs_steps.py"} <= closure
    assert not closure & {"methods/_dual_concept.py", "methods/_low_rank.py", "methods/ndfs.py"}


def test_no_closure_holds_the_registry_or_another_method(code):
    for method in REGISTRY:
        closure = code.closure(*method_roots(method))
        assert not [rel for rel in closure if Path(rel).name.startswith("registry")], method
        others = {f"methods/{spec.module}.py" for spec in REGISTRY.values()}
        others.discard(f"methods/{REGISTRY[method].module}.py")
        assert not set(closure) & others, method


def test_job_closures_hold_no_report_module(code):
    """Reports (comparison with the paper, notes, tables) are not in the code of the jobs
    that compute, so editing a note's wording never re-runs hours of cross-validation."""
    reports = {"reference.py", "aggregate.py", "stats.py", "plots.py"}
    for roots in (("crossval.py", "evaluate.py", "kmeans.py"), method_roots("lsdcl")):
        assert not set(code.closure(*roots)) & reports, roots


def test_hash_does_not_depend_on_where_the_library_lies(lib):
    assert method_hashes(lib) == method_hashes(LIB)


def test_unknown_root_is_an_error(code):
    with pytest.raises(ValueError, match="not a module"):
        code.hash("methods/no_such_method.py")


def test_docstrings_comments_layout_and_import_order_change_no_hash(lib):
    before = method_hashes(lib, modules=True)
    for helper in sorted((lib / "methods").glob("_*.py")):
        text = helper.read_text()
        text = re.sub(r'^"""', '"""Edited summary.\n\n', text, count=1)  # module docstring
        text = text.replace("\n\n\ndef ", "\n\n\n# a new comment\n\n\ndef ")
        text = re.sub(r"^( +)return ", r"\1# why\n\1return  ", text, flags=re.M)  # layout
        helper.write_text(text)
    edit(
        lib / "methods" / "_blufs_steps.py",
        '    """Frobenius norm',
        '    """The Frobenius norm, said differently.\n\n    Frobenius norm',
    )
    edit(  # isort-style reorder and a relative import written absolute
        lib / "methods" / "ndfs.py",
        "from ..graph import laplacian, spectral_eigenpairs\n"
        "from .base import EPSILON, Selection, l21_weights, row_norms\n",
        "from ufsbench.methods.base import row_norms, l21_weights, Selection, EPSILON\n"
        "from ..graph import spectral_eigenpairs, laplacian\n",
    )
    assert method_hashes(lib, modules=True) == before


def test_reordering_definitions_changes_no_hash(lib):
    before = method_hashes(lib, modules=True)
    steps = lib / "methods" / "_blufs_steps.py"
    text = steps.read_text()
    first = text.index("def _fro(")
    second = text.index("def row_support(")
    third = text.index("def simplex_columns(")
    steps.write_text(text[:first] + text[second:third] + text[first:second] + text[third:])
    assert method_hashes(lib, modules=True) == before


def test_metadata_constants_no_numerics_read_change_no_hash(lib):
    before = method_hashes(lib)
    ndfs = lib / "methods" / "ndfs.py"
    text = ndfs.read_text()
    marker = "from .base import EPSILON, Selection, l21_weights, row_norms\n"
    metadata = (
        "from .params import Param\n"
        'REFERENCE = "Li et al., AAAI 2012"\n'
        'CONSTRAINTS = {"alpha": Param(float, 1.0)}\n'
        'GRID = {"alpha": [0.1, 1.0, 10.0], "beta": [0.1, 1.0]}\n'
        "NEEDS_GRAPH = True\n"
    )
    ndfs.write_text(text.replace(marker, marker + "\n" + metadata))
    assert method_hashes(lib) == before  # added
    assert "methods/params.py" not in CodeBase(lib).closure("methods/ndfs.py")
    reordered = "\n".join(reversed(metadata.splitlines())) + "\n"
    edited = reordered.replace("0.1, 1.0, 10.0", "1e-3, 1.0").replace("2012", "2012.")
    ndfs.write_text(text.replace(marker, marker + "\n" + edited))
    assert method_hashes(lib) == before  # reordered and edited
    ndfs.write_text(text + "\n" + metadata)
    assert method_hashes(lib) == before  # moved to the end


def test_registry_edits_change_no_hash(lib):
    before = method_hashes(lib, modules=True)
    registries = sorted((lib / "methods").glob("registry*.py"))
    assert registries
    for registry in registries:
        registry.write_text(registry.read_text() + "\n\ndef _new():\n    return 1\n")
    assert method_hashes(lib, modules=True) == before


@pytest.mark.slow  # about 30 CPU s (hashes of every method, twice); .ci/run includes it
def test_numeric_edit_of_a_blufs_helper_reruns_only_the_methods_importing_it(lib, code):
    before = method_hashes(lib)
    edit(
        lib / "methods" / "_blufs_pam.py",
        "np.maximum(degrees(S), 1e-7)",
        "np.maximum(degrees(S), 1e-8)",
    )
    after = method_hashes(lib)  # (a parse of the whole library: once, not per method)
    changed = {m for m in REGISTRY if after[m] != before[m]}
    importers = {m for m in REGISTRY if "methods/_blufs_pam.py" in code.closure(*method_roots(m))}
    assert "blufs" in changed
    assert "ndfs" not in changed and "blsfs" not in changed  # blsfs uses _blufs_steps only
    assert changed == importers


def test_numeric_edit_of_a_shared_step_reruns_only_the_methods_using_that_function(lib):
    before = method_hashes(lib)
    edit(lib / "methods" / "_blufs_steps.py", "Pb = ((P + P.T) * 0.5)", "Pb = ((P + P.T) / 2)")
    after = method_hashes(lib)
    changed = {m for m in REGISTRY if after[m] != before[m]}
    assert {"blufs", "blsfs"} <= changed  # both call laplacian_of
    assert "blsfe" not in changed  # imports simplex_columns alone from that module
    assert not changed & {"ndfs", "lapscore", "lsdcl", "udfs", "pocss"}
    edit(
        lib / "methods" / "_blufs_steps.py",
        "css = np.cumsum(U, axis=0) - 1.0",
        "css = U.cumsum(0) - 1.0",
    )
    assert method_hashes(lib)["blsfe"] != after["blsfe"]


def test_constant_read_by_the_numerics_counts(lib):
    before = method_hashes(lib)
    edit(lib / "methods" / "_blufs_steps.py", "P_BLOCK = 256", "P_BLOCK = 128")
    after = method_hashes(lib)
    assert after["blufs"] != before["blufs"]  # its P step reads P_BLOCK
    assert after["ndfs"] == before["ndfs"]


def test_constant_read_only_by_a_script_counts(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "core.py").write_text("LIMIT = 3\n\n\ndef f(x):\n    return x\n")
    script = tmp_path / "run.py"
    script.write_text("from pkg.core import LIMIT, f\n\nprint(f(LIMIT))\n")
    without, with_reader = CodeBase(pkg), CodeBase(pkg, readers=[script])
    (pkg / "core.py").write_text("LIMIT = 4\n\n\ndef f(x):\n    return x\n")
    assert CodeBase(pkg).hash("core.py") == without.hash("core.py")  # nobody reads it
    assert CodeBase(pkg, readers=[script]).hash("core.py") != with_reader.hash("core.py")


def test_imports_are_resolved_in_every_form(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    files = {
        "__init__.py": "",
        "a.py": "from . import b\nfrom .sub import c as cc\nimport pkg.d\n\n\n"
        "def f():\n    from .sub.e import g\n\n    return b, cc, pkg.d, g\n",
        "b.py": "X = 1\n",
        "d.py": "from .. import nothing_outside  # ignored: above the package\n",
        "unused.py": "Y = 2\n",
        "a2.py": "from .sub import h\n\n\ndef f():\n    return h()\n",
        "sub/__init__.py": "from .c import Z\n\n\ndef h():\n    return 0\n",
        "sub/c.py": "Z = 3\n",
        "sub/e.py": "def g():\n    return 0\n",
    }
    for name, text in files.items():
        (pkg / name).write_text(text)
    assert CodeBase(pkg).closure("a.py") == ["a.py", "b.py", "d.py", "sub/c.py", "sub/e.py"]
    # a2 reaches sub/__init__.py for h; its re-export of c.Z is read by nothing
    assert CodeBase(pkg).closure("a2.py") == ["a2.py", "sub/__init__.py"]


def test_dynamic_lookup_keeps_every_constant(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    body = "def f(name):\n    return globals()[name]\n"
    (pkg / "m.py").write_text("A = 1\n\n\n" + body)
    before = CodeBase(pkg).hash("m.py")
    (pkg / "m.py").write_text("A = 2\n\n\n" + body)
    assert CodeBase(pkg).hash("m.py") != before
    (pkg / "n.py").write_text("B = 1\n")
    (pkg / "user.py").write_text("from . import n\n\n\ndef f(name):\n    return getattr(n, name)\n")
    before = CodeBase(pkg).hash("user.py")
    (pkg / "n.py").write_text("B = 2\n")
    assert CodeBase(pkg).hash("user.py") != before
    lazy = "def f(name):\n    from . import n\n\n    return getattr(n, name)\n"
    (pkg / "user.py").write_text(lazy)  # the data loader's pattern: a lazy import
    before = CodeBase(pkg).hash("user.py")
    (pkg / "n.py").write_text("B = 3\n")
    assert CodeBase(pkg).hash("user.py") != before


def test_every_rule_root_of_the_workflow_exists(code):
    """Each module a rule names in code_hash(...) is a library module."""
    text = "\n".join(p.read_text() for p in (ROOT / "workflow" / "rules").glob("*.smk"))
    roots = set()
    for call in re.findall(r"code_hash\(([^)]*)\)", text):
        roots |= set(re.findall(r'"([\w/]+\.py)"', call))
    assert roots
    for root in roots:
        code.hash(root)


# -- end to end: the real snakemake CLI --------------------------------------------------

E2E = {
    "datasets": ["wine"],
    "feature_counts": {"wine": [2, 4]},
    "methods": {
        "maxvariance": {},
        "ndfs": {"alpha": [1.0], "beta": [1.0], "max_iter": [5]},
        "blufs": {"max_iter": [3]},
        "blsfs": {"max_iter": [3]},
    },
    "evaluation": {"repeats": 2},
}
SELECTIONS = [f"results/default/wine/{method}/c0/selection.npz" for method in E2E["methods"]]


def snakemake_with(lib, workdir, *args):
    env = {**os.environ, "PYTHONPATH": str(lib.parent), "MPLBACKEND": "Agg"}
    cmd = snakemake_cmd(workdir, *args)
    result = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=900)
    if result.returncode != 0:
        pytest.fail(f"{' '.join(cmd)} failed:\n{result.stdout[-3000:]}\n{result.stderr[-5000:]}")
    return result.stdout + result.stderr


def planned_selections(output: str) -> set[str]:
    """The methods whose ``select`` jobs a dry run plans."""
    methods, rule = set(), None
    for line in output.splitlines():
        match = re.match(r"^(?:local)?rule (\w+):", line.strip())
        if match:
            rule = match.group(1)
        elif rule == "select" and line.strip().startswith("wildcards:"):
            methods.add(re.search(r"method=(\w+)", line).group(1))
    return methods


@pytest.mark.slow
@needs_snakemake
def test_snakemake_reruns_only_the_methods_importing_an_edited_helper(lib, tmp_path):
    workdir = tmp_path / "run"
    workdir.mkdir()
    write_config(workdir, E2E)
    snakemake_with(lib, workdir, "--cores", "1", *SELECTIONS)
    assert "Nothing to be done" in snakemake_with(lib, workdir, "-n", *SELECTIONS)
    edit(lib / "methods" / "_blufs_pam.py", '"""', '"""A docstring edit. ', count=1)
    edit(lib / "methods" / "base.py", "\n\n\ndef ", "\n\n\n# a comment\ndef ")
    assert "Nothing to be done" in snakemake_with(lib, workdir, "-n", *SELECTIONS)
    edit(
        lib / "methods" / "_blufs_pam.py",
        "np.maximum(degrees(S), 1e-7)",
        "np.maximum(degrees(S), 1e-8)",
    )
    assert planned_selections(snakemake_with(lib, workdir, "-n", *SELECTIONS)) == {"blufs"}
    edit(lib / "methods" / "_blufs_steps.py", "Pb = ((P + P.T) * 0.5)", "Pb = ((P + P.T) / 2)")
    planned = planned_selections(snakemake_with(lib, workdir, "-n", *SELECTIONS))
    assert planned == {"blufs", "blsfs"}
    # --touch records the new hashes without recomputing (how finished runs take a hash
    # change known to move no number, e.g. this module's first use)
    snakemake_with(lib, workdir, "--touch", "--cores", "1", *SELECTIONS)
    assert "Nothing to be done" in snakemake_with(lib, workdir, "-n", *SELECTIONS)
