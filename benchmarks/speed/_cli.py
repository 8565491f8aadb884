"""Shared command line of the speed benchmarks (issue 27): data, threads, timings, output.

Every script under ``benchmarks/speed/`` takes ``--datasets``, ``--mirror`` and
``--repeats``, loads its data through the checked loader (the dataset registry's entry,
the mirror's file, :func:`ufsbench.data.load_dataset`, which verifies the file's digest
and shape), runs BLAS and OpenMP on one thread (:func:`one_thread`) and writes its table
atomically to ``benchmarks/speed/results/<name>.tsv``.
"""

from __future__ import annotations

import argparse
import os
import platform
import resource
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

# One thread for every BLAS and OpenMP runtime, including those loaded later (scikit-learn's
# OpenMP runtime reads OMP_NUM_THREADS when it loads; a threadpoolctl limit entered before
# that load does not reach it, and its idle threads then spin on a busy machine).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MIRROR = Path(os.environ.get("UFSBENCH_MIRROR", ROOT.parent / "shared" / "datasets"))
RESULTS = Path(__file__).resolve().parent / "results"


def parser(description: str, datasets, repeats: int = 5) -> argparse.ArgumentParser:
    """The common arguments; a script adds its own before ``parse_args``."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--datasets", nargs="+", default=list(datasets), help="registry names")
    p.add_argument(
        "--mirror", type=Path, default=DEFAULT_MIRROR, help="dataset mirror ($UFSBENCH_MIRROR)"
    )
    p.add_argument(
        "--repeats", type=int, default=repeats, help="timings per side; the best is kept"
    )
    p.add_argument("--out", type=Path, default=None, help="TSV path (default: results/)")
    return p


def workflow_command(workdir, configfile, *args) -> list[str]:
    """The snakemake CLI running this checkout's workflow in ``workdir`` with
    ``configfile``."""
    snakefile = ROOT / "workflow" / "Snakefile"
    return [shutil.which("snakemake"), "--snakefile", str(snakefile), "--directory",
            str(workdir), "--configfile", str(configfile), *args]  # fmt: skip


def registry_entry(name: str):
    """The dataset registry's entry ``name`` (its feature counts, classes, file)."""
    from ufsbench.datasets import load_registry

    registry = load_registry()
    if name not in registry:
        raise SystemExit(f"dataset {name!r} is not in the registry (config/datasets.yaml)")
    return registry[name]


def load(name: str, mirror: Path, c_order: bool = True):
    """``(X, y)`` of a registry dataset from the mirror, checked, X float64: C-ordered, or
    with ``c_order=False`` in the loader's own layout (the workflow's)."""
    from ufsbench.data import load_dataset
    from ufsbench.datasets import find_in_mirror

    entry = registry_entry(name)
    path = find_in_mirror(entry, mirror) if entry.file_entry else None
    if entry.file_entry and path is None:
        raise SystemExit(f"dataset {name!r}: no verified file in the mirror {mirror}")
    X, y, _ = load_dataset(entry, path)
    X = np.ascontiguousarray(X, dtype=np.float64) if c_order else np.asarray(X, np.float64)
    return X, np.asarray(y)


def load_with_graph(name: str, mirror: Path, weight: str = "binary"):
    """``(X, y, n_classes, graph)``: :func:`load`'s data and its symmetric 5-NN graph
    (``ufsbench.graph.knn_graph``, ``weight`` 0-1 or heat), as most scripts here take them."""
    from ufsbench.graph import knn_graph

    X, y = load(name, mirror)
    return X, y, len(np.unique(y)), knn_graph(X, 5, weight=weight)


def one_thread():
    """Context: BLAS and OpenMP pools limited to one thread (see the environment above)."""
    from threadpoolctl import threadpool_limits

    return threadpool_limits(limits=1)


def child_cpu(command, **kwargs) -> float:
    """CPU seconds (user + system) of running ``command`` to completion (output captured;
    ``kwargs`` go to :func:`subprocess.run`, e.g. ``env``, ``cwd``)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, capture_output=True, **kwargs)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def best_time(function, repeats: int):
    """``(seconds, result)``: the least CPU time of ``repeats`` calls of ``function()``.

    CPU time of this process (``time.process_time``), not wall time: on a shared machine
    the wall time mostly measures the other processes; with one thread the two agree.
    """
    best, result = np.inf, None
    for _ in range(max(1, repeats)):
        start = time.process_time()
        result = function()
        best = min(best, time.process_time() - start)
    return best, result


def write_tsv(name: str, columns, rows, out: Path | None = None) -> Path:
    """Write ``rows`` (sequences) under ``columns`` atomically; print and return the path."""
    path = out or RESULTS / f"{name}.tsv"
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["\t".join(columns)] + ["\t".join(_cell(v) for v in row) for row in rows]
    text = "\n".join(lines) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    with os.fdopen(fd, "w") as handle:
        handle.write(text)
    os.replace(tmp, path)
    print(text, end="")
    print(f"# {platform.node()} {platform.processor() or platform.machine()}; wrote {path}")
    return path


def _cell(value) -> str:
    if isinstance(value, float | np.floating):
        return f"{value:.4g}"
    return str(value)
