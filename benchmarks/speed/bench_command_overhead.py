"""What every ``snakemake`` command pays before any job: the planning's CPU seconds.

    python benchmarks/speed/bench_command_overhead.py [--repeats 5] [--out TSV] [--compare OLD]

Each cost is measured both ways in one run (CPU seconds of the child processes, user +
system, so other load on the machine counts less than in wall time):

- ``dry run``: ``snakemake -n`` in a finished run folder of a small config, with the code
  hashes kept in ``.snakemake/ufsbench/code-hashes.json`` (:mod:`ufsbench.hashcache`)
  against the same with that file removed before each command (a fresh parse of the
  library, as every command did before);
- ``dry run, new run folder``: the same with the run folder's file removed before each
  command (as in a new folder of the same code), the machine's shared copy
  (``UFSBENCH_CACHE_DIR``) present against none (the other rows use no shared copy);
- with ``--compare OLD`` (a checkout of another commit, e.g. ``git worktree add
  /tmp/base REV``): the dry run with the hashes kept, this checkout against ``OLD`` (its
  Snakefile and ``src``), each in a finished run folder of its own, the two alternating;
- ``plan import``: a fresh interpreter importing ``ufsbench.plan`` and resolving one
  built-in method (``lapscore``, as the planning does per configured method) against the
  same building the whole method registry first (every method module and its SciPy,
  scikit-learn and numba imports, as importing ``ufsbench.plan`` did before).

``ratio`` = the second way / the first.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

from ufsbench.hashcache import CACHE_ENV

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

CONFIG = {
    "datasets": ["wine"],
    "feature_counts": {"wine": [2, 4]},
    "methods": {"allfea": {}, "maxvariance": {}, "lapscore": {"t": [1.0]}},
    "evaluation": {"repeats": 1},
}
RESOLVE = "from ufsbench.methods.external import resolve_method; resolve_method('lapscore')"
WHOLE = "from ufsbench.methods.registry import REGISTRY; " + RESOLVE


def snakemake(workdir: Path, *args, tree: Path | None = None) -> list[str]:
    """The workflow command of this checkout, or of the checkout ``tree``."""
    cmd = _cli.workflow_command(workdir, workdir / "config.yaml", *args)
    if tree is not None:
        cmd[cmd.index("--snakefile") + 1] = str(tree / "workflow" / "Snakefile")
    return cmd


def finished_run(workdir: Path, tree: Path | None = None, env=None) -> Path:
    """``workdir`` holding a finished run of :data:`CONFIG` (made by ``tree``'s code)."""
    workdir.mkdir()
    (workdir / "config.yaml").write_text(yaml.safe_dump(CONFIG))
    subprocess.run(
        snakemake(workdir, "--cores", "2", tree=tree), check=True, capture_output=True, env=env
    )
    assert (workdir / ".snakemake" / "ufsbench" / "code-hashes.json").is_file(), "no hashes kept"
    return workdir


def mean(values) -> float:
    return sum(values) / len(values)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--compare", type=Path, help="another checkout, for a dry run of each")
    args = parser.parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        # the run folder's own copy of the hashes only, unless a row says otherwise
        alone = {**os.environ, CACHE_ENV: ""}
        workdir = finished_run(Path(tmp) / "now", env=alone)
        cache = workdir / ".snakemake" / "ufsbench" / "code-hashes.json"
        kept, fresh = [], []
        for _ in range(args.repeats):
            kept.append(_cli.child_cpu(snakemake(workdir, "-n"), env=alone))
            cache.unlink()
            fresh.append(_cli.child_cpu(snakemake(workdir, "-n"), env=alone))
        rows.append(("dry run", mean(kept), mean(fresh)))
        # a new run folder of the same code: no copy of its own, the machine's shared one
        shared = {**os.environ, CACHE_ENV: str(Path(tmp) / "shared")}
        subprocess.run(snakemake(workdir, "-n"), check=True, capture_output=True, env=shared)
        found, none = [], []
        for _ in range(args.repeats):
            cache.unlink()
            found.append(_cli.child_cpu(snakemake(workdir, "-n"), env=shared))
            cache.unlink()
            none.append(_cli.child_cpu(snakemake(workdir, "-n"), env=alone))
        rows.append(("dry run, new run folder: shared hashes", mean(found), mean(none)))
        if args.compare:
            old = args.compare.resolve()
            env = {**alone, "PYTHONPATH": str(old / "src")}
            old_dir = finished_run(Path(tmp) / "old", tree=old, env=env)
            now, then = [], []
            for _ in range(args.repeats):
                now.append(_cli.child_cpu(snakemake(workdir, "-n"), env=alone))
                then.append(_cli.child_cpu(snakemake(old_dir, "-n", tree=old), env=env))
            commit = subprocess.run(
                ["git", "-C", str(old), "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
            ).stdout.strip()
            rows.append((f"dry run, this checkout vs {commit or old}", mean(now), mean(then)))
    one = [_cli.child_cpu([sys.executable, "-c", RESOLVE]) for _ in range(args.repeats)]
    whole = [_cli.child_cpu([sys.executable, "-c", WHOLE]) for _ in range(args.repeats)]
    rows.append(("plan import", mean(one), mean(whole)))
    lines = ["cost\tnow_cpu_s\tbefore_cpu_s\tratio"]
    lines += [f"{name}\t{a:.2f}\t{b:.2f}\t{b / a:.2f}" for name, a, b in rows]
    text = "\n".join(lines) + "\n"
    print(text, end="")
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
