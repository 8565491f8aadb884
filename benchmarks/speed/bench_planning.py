"""Planning cost of large runs: ``snakemake -n`` time, job count and peak memory.

Plans every config in ``config/experiments/*.yaml`` and a synthetic scale config
(30 datasets x every registered method x 100 settings) in a scratch directory, without
running anything.

    python benchmarks/speed/bench_planning.py [--settings 100] [--n-datasets 30]
        [--datasets NAME ...] [--mirror PATH] [--configs lsdcl blufs] [--out TSV]

``--configs`` plans only the named experiment configs (stems of ``config/experiments``)
and skips the scale config. The scale config takes the first ``--n-datasets`` labelled
registry datasets, or the registry names given by ``--datasets``.

The dataset mirror (``--mirror``, default ``../shared/datasets`` beside the checkout or
``$UFSBENCH_MIRROR``, when present) is passed to every dry run, since the scratch
directory does not resolve relative paths. Wall seconds (a dry run is a subprocess).
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _cli  # noqa: E402

from ufsbench import REGISTRY  # noqa: E402
from ufsbench.datasets import load_registry  # noqa: E402

ROOT = _cli.ROOT


def scale_config(n_datasets: int, n_settings: int, names=()) -> dict:
    """Every registered method with ``n_settings`` settings of its first numeric parameter,
    on the registry datasets ``names`` or else the first ``n_datasets`` labelled ones."""
    registry = load_registry(ROOT / "config" / "datasets.yaml")
    labelled = (n for n, e in registry.items() if e.n_classes and e.n_features and not e.multilabel)
    datasets = [_cli.registry_entry(n).name for n in names] or list(labelled)[:n_datasets]
    methods = {}
    for name, spec in REGISTRY.items():
        numeric = [
            p
            for p, c in spec.params.items()
            if c.kind is float and not c.options and p not in ("max_iter", "k", "seed")
        ]
        if name == "random":
            methods[name] = {"seed": list(range(n_settings))}
        elif numeric:
            methods[name] = {numeric[0]: [0.01 * (i + 1) for i in range(n_settings)]}
        else:
            methods[name] = {}
    counts = {n: [min(5, registry[n].n_features)] for n in datasets}
    return {"datasets": datasets, "methods": methods, "feature_counts": counts}


def plan(config_path: Path, workdir: Path, mirror: Path | None) -> tuple[float, int, float]:
    """(seconds, jobs, peak MB of the snakemake process) of a dry run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    mirror_args = ["--config", f"mirror={mirror}"] if mirror else []
    result = subprocess.run(
        _cli.workflow_command(workdir, config_path, "-n", *mirror_args),
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - start
    if result.returncode != 0:
        raise RuntimeError(f"{config_path}: {result.stdout[-2000:]}{result.stderr[-2000:]}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    total = re.search(r"^total\s+(\d+)", result.stdout, re.MULTILINE)
    return seconds, int(total.group(1)) if total else 0, max(peak, before) / 1024


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], [], repeats=1)
    p.add_argument("--settings", type=int, default=100)
    p.add_argument("--n-datasets", type=int, default=30)
    p.add_argument("--configs", nargs="+", metavar="STEM", help="only these configs")
    args = p.parse_args(argv)
    mirror = args.mirror.resolve() if args.mirror.is_dir() else None
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        scratch = Path(scratch)
        configs = sorted((ROOT / "config" / "experiments").glob("*.yaml"))
        if args.configs:
            unknown = set(args.configs) - {c.stem for c in configs}
            if unknown:
                p.error(f"unknown config(s) {sorted(unknown)}")
            configs = [c for c in configs if c.stem in args.configs]
        else:
            scale = scratch / "scale.yaml"
            config = scale_config(args.n_datasets, args.settings, args.datasets)
            scale.write_text(yaml.safe_dump(config))
            configs.append(scale)
        for config in configs:
            workdir = scratch / config.stem
            workdir.mkdir()
            seconds, jobs, peak = plan(config, workdir, mirror)
            rows.append((config.stem, seconds, jobs, peak))
            print(config.stem, f"{seconds:.1f}", jobs, f"{peak:.0f}", sep="\t", flush=True)
    # peak MB: the largest snakemake process so far (ru_maxrss of children)
    _cli.write_tsv("planning", ["config", "wall_s", "jobs", "peak_mb"], rows, args.out)


if __name__ == "__main__":
    main()
