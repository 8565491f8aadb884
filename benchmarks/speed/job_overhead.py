"""Per-job overhead: CPU seconds a workflow job spends before its first line of work.

    python benchmarks/speed/job_overhead.py [--repeats 5] [--scripts select evaluate]

Three measurements per script of ``workflow/scripts/`` (its top-level imports read with ``ast``):

* ``python``: a bare interpreter, ``python -c pass``;
* ``imports``: ``python -c "<the script's imports>"``, this checkout's ``src`` first
  (``--src`` another tree, e.g. an older commit's ``git archive``, for before/after);
  a tree ``T/src`` beside a ``T/workflow/scripts`` is measured with its own scripts'
  imports (another commit's scripts may import names this one's library lacks);
* ``snakemake job``: one job of a throw-away workflow (``snakemake --cores 1``) whose
  ``script:`` holds the same imports and records its own CPU time (user + system, from
  ``resource.getrusage``) when it ends: the interpreter, Snakemake's script preamble and
  the imports. ``empty`` is the same job without imports.

Each cell is the median CPU time over ``--repeats`` processes (``--datasets`` and
``--mirror`` are accepted for a uniform command line and ignored). ``--compare OLD``: the
same cells for the source tree ``OLD`` too (e.g. ``git archive BASE src workflow | tar -x
-C /tmp/base``), the two trees alternating job by job, so both see the same load.

Rows ``select.py + <method>`` add the method's lookup (its module's imports);
``evaluate.py + ACC`` adds one ``clustering_accuracy`` call, which loads the assignment
solver where that is deferred to first use. The row ``numpy + scipy.sparse (floor)``
imports only what every ``select`` job needs whatever the library does (its data matrix
and sparse k-NN graph): the part of the overhead no change of ours can remove.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

SNAKEFILE = """\
rule all:
    input:
        expand("out/{{i}}.txt", i=range({n})),


rule job:
    output:
        "out/{{i}}.txt",
    script:
        "job.py"
"""
RECORD = """
import resource as _r
_u = _r.getrusage(_r.RUSAGE_SELF)
with open(snakemake.output[0], "w") as _f:
    _f.write(str(_u.ru_utime + _u.ru_stime))
"""


def script_imports(path: Path) -> str:
    """The top-level ``import``/``from`` statements of a script, as source lines."""
    tree = ast.parse(path.read_text())
    nodes = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    return "\n".join(ast.unparse(n) for n in nodes)


def scripts_of(tree: Path) -> Path:
    """The workflow scripts that go with the source tree ``tree`` (``T/src``): its sibling
    ``T/workflow/scripts`` when there is one, else this checkout's."""
    own = Path(tree).resolve().parent / "workflow" / "scripts"
    return own if own.is_dir() else _cli.ROOT / "workflow" / "scripts"


def snakemake_jobs(imports: str, n: int, env) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        (tmp / "Snakefile").write_text(SNAKEFILE.format(n=n))
        (tmp / "job.py").write_text(imports + "\n" + RECORD)
        subprocess.run(
            [sys.executable, "-m", "snakemake", "--cores", "1", "--quiet", "all"],
            cwd=tmp, env=env, check=True, capture_output=True,
        )  # fmt: skip
        return [float((tmp / "out" / f"{i}.txt").read_text()) for i in range(n)]


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], [], 5)
    p.add_argument("--scripts", nargs="+", default=["select", "evaluate"])
    p.add_argument("--methods", nargs="*", default=["lapscore", "ndfs", "mcfs", "lsdcl"])
    p.add_argument(
        "--src", type=Path, default=_cli.ROOT / "src", help="ufsbench source tree to import"
    )
    p.add_argument("--compare", type=Path, help="an older source tree, measured alternately")
    args = p.parse_args(argv)
    trees = [args.src] if args.compare is None else [args.compare, args.src]
    envs = []
    for tree in trees:
        env = dict(os.environ, PYTHONPATH=str(tree), MPLBACKEND="Agg")
        env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
        envs.append(env)
    env = envs[-1]
    python = np.median(
        [_cli.child_cpu([sys.executable, "-c", "pass"], env=env) for _ in range(args.repeats)]
    )
    empty = np.median(snakemake_jobs("", args.repeats, env))
    rows = [("(none)", python, "", empty) + ("",) * (2 * len(trees) - 2)]
    jobs = [("numpy + scipy.sparse (floor)", None, "import numpy\nimport scipy.sparse")]
    jobs += [(f"workflow/scripts/{name}.py", name, "") for name in args.scripts]
    lookup = "from ufsbench.methods.registry import get_method\nget_method({!r}).function"
    jobs += [(f"select.py + {m}", "select", lookup.format(m)) for m in args.methods]
    if "evaluate" in args.scripts:
        acc = "from ufsbench.metrics import clustering_accuracy as acc\nacc([0, 1], [1, 0])"
        jobs.append(("evaluate.py + ACC", "evaluate", acc))
    for label, name, extra in jobs:
        codes = []
        for tree in trees:
            imports = script_imports(scripts_of(tree) / f"{name}.py") if name else ""
            codes.append("\n".join(part for part in (imports, extra) if part))
        cpu, job = [[] for _ in trees], [[] for _ in trees]
        for _ in range(args.repeats):
            for i, (code, tree_env) in enumerate(zip(codes, envs, strict=True)):
                cpu[i].append(_cli.child_cpu([sys.executable, "-c", code], env=tree_env))
                job[i] += snakemake_jobs(code, 1, tree_env)
        cells = [np.median(cpu[-1]), np.median(job[-1])]
        if args.compare is not None:
            cells += [np.median(cpu[0]), np.median(job[0])]
        rows.append((label, python, *cells))
    columns = ("imports_of", "python_cpu_s", "imports_cpu_s", "snakemake_job_cpu_s")
    if args.compare is not None:
        columns += ("compare_imports_cpu_s", "compare_snakemake_job_cpu_s")
    _cli.write_tsv("job_overhead", columns, rows, args.out)


if __name__ == "__main__":
    main()
