"""Do a method's rankings depend on the CPU's BLAS kernels? One run per OpenBLAS core type.

    python benchmarks/blas_kernels.py [--datasets zoo wine] [--methods blsfe l1ufs ...]
        [--coretypes native Haswell Sandybridge Prescott Haswell+numpy] [--mirror PATH]
        [--out TSV]

A core type ``X`` pins OpenBLAS alone (``OPENBLAS_CORETYPE=X``), NumPy keeping the paths
it picks for this CPU; ``X+numpy`` pins NumPy's paths to that CPU's as well
(``NPY_DISABLE_CPU_FEATURES``), as the workflow's jobs run (``ufsbench.blas``); ``native``
pins neither. On an AVX2 CPU ``Haswell`` and ``Haswell+numpy`` are one environment; on an
AVX-512 CPU they differ in NumPy's ``exp``, ``log``, ``power`` and ``argsort``.

NumPy's OpenBLAS picks its kernels for the CPU it runs on (``DYNAMIC_ARCH``); kernels for
other instruction sets sum in other orders, so the same code and seed give results that
differ in the last bits. Most methods' rankings absorb that; an iterative solver on a
non-convex problem can amplify it into another ranking (the leaderboard's re-make of
2026-12-07, on another VM: ``measured/README.md``). This script ranks each dataset's
features with each method at its default setting and a fixed seed, once per core type
(``OPENBLAS_CORETYPE`` in a fresh interpreter: OpenBLAS reads it when it loads; one
thread, as in the workflow's jobs), and compares every ranking with the first core type's:
``same_ranking``, the first position where they differ, and the overlap of the top
``count`` features (the dataset's largest feature count). Data: the mirror's file through
the checked loader, normalised, with the feature counts and k-NN graph that
``config/experiments/leaderboard.yaml`` gives; the seed is the workflow's for the default
setting (``derive_seed(dataset, method, setting_id)``), so each ranking is the leaderboard's
``default``-protocol selection.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent / "speed"))
import _cli  # noqa: E402

CONFIG = _cli.ROOT / "config" / "experiments" / "leaderboard.yaml"
# The leaderboard's methods that rank by a fitted model (allfea and random do not).
METHODS = ["maxvariance", "lapscore", "spec", "mcfs", "udfs", "ndfs", "rufs", "sogfs", "ulap",
           "l1ufs", "lsdcl", "blufs", "blsfs", "blsfe", "spcafs", "fspca", "rne"]  # fmt: skip
NATIVE = "native"  # neither pinned: the kernels and paths OpenBLAS and NumPy pick here
WITH_NUMPY = "+numpy"  # suffix of a core type: NumPy's paths pinned too


def rank_all(datasets, methods, mirror, flip_layout=False) -> dict:
    """``{dataset: {method: ranking}}`` of every method's default setting and the BLAS
    kernels that ran them, in this process."""
    from ufsbench import get_method, rank_features
    from ufsbench.blas import blas_kernels, numpy_simd
    from ufsbench.data import normalize
    from ufsbench.plan import setting_id
    from ufsbench.seeding import derive_seed
    from ufsbench.tools.config import load_config

    config = load_config(CONFIG, root=_cli.ROOT)
    rankings, layouts, feature_counts = {}, {}, {}
    with _cli.one_thread():
        for name in datasets:
            entry = _cli.registry_entry(name)
            X, _ = _cli.load(name, mirror, c_order=False)  # the workflow's memory layout
            X, _ = normalize(X, name=name, **config["normalize"])
            if flip_layout:
                X = np.asfortranarray(X) if X.flags.c_contiguous else np.ascontiguousarray(X)
            layouts[name] = "F" if X.flags.f_contiguous else "C"
            counts = list(config["feature_counts"].get(name, entry.feature_counts))
            feature_counts[name] = counts
            rankings[name] = {}
            for method in methods:
                default = setting_id(get_method(method).check_params({}))
                selection = rank_features(
                    X,
                    method,
                    n_clusters=entry.n_classes,
                    random_state=derive_seed(name, method, default),
                    feature_counts=counts,
                    n_neighbors=config["graph"]["k"],
                )
                rankings[name][method] = selection.ranking.tolist()
    return {
        "kernels": f"{blas_kernels()}; numpy {numpy_simd()}",
        "layouts": layouts,
        "counts": feature_counts,
        "rankings": rankings,
    }


def variant_environment(variant: str, environ=None) -> dict:
    """``environ`` (default this process's) with OpenBLAS and NumPy pinned as ``variant``
    says: ``native``, a core type, or a core type with ``+numpy`` (module docstring)."""
    from ufsbench.blas import ENV, pinned_environment, unpinned

    env = unpinned(environ)
    if variant == NATIVE:
        return env
    core = variant.removesuffix(WITH_NUMPY)
    if core == variant:
        return {**env, ENV: core}
    variables, _ = pinned_environment(core, environ={})
    return {**env, ENV: core, **variables}


def run_worker(variant: str | None, args, flip_layout=False) -> dict:
    """:func:`rank_all` in a fresh interpreter pinned as ``variant`` says
    (:func:`variant_environment`; None: this process's environment as it is)."""
    env = dict(os.environ) if variant is None else variant_environment(variant)
    command = [sys.executable, __file__, "--worker", "--mirror", str(args.mirror),
               "--datasets", *args.datasets, "--methods", *args.methods]  # fmt: skip
    if flip_layout:
        command.append("--flip-layout")
    done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def compare(reference: list[int], other: list[int], count: int) -> tuple[bool, object, float]:
    """Equal rankings; the first position that differs (None if none); top-``count`` overlap."""
    a, b = np.asarray(reference), np.asarray(other)
    differ = np.flatnonzero(a != b)
    overlap = len(set(a[:count]) & set(b[:count])) / count
    return differ.size == 0, (int(differ[0]) if differ.size else None), overlap


def main(argv=None):
    p = _cli.parser(__doc__.splitlines()[0], ["zoo", "wine"], repeats=1)
    p.add_argument("--methods", nargs="+", default=METHODS)
    p.add_argument(
        "--coretypes",
        nargs="+",
        default=[NATIVE, "Haswell", "Sandybridge", "Prescott"],
        help=f"OpenBLAS core types, '{WITH_NUMPY}' pinning NumPy's paths too; the first "
        f"is the reference ({NATIVE!r}: this CPU's own)",
    )
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--flip-layout", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        print(json.dumps(rank_all(args.datasets, args.methods, args.mirror, args.flip_layout)))
        return
    reference = run_worker(args.coretypes[0], args)
    variants = [(coretype, run_worker(coretype, args)) for coretype in args.coretypes[1:]]
    flipped = run_worker(args.coretypes[0], args, flip_layout=True)
    variants.append((f"{args.coretypes[0]}, other layout", flipped))
    rows = []
    for name in args.datasets:
        count = max(reference["counts"][name])
        for method in args.methods:
            for variant, run in variants:
                same, first, overlap = compare(
                    reference["rankings"][name][method], run["rankings"][name][method], count
                )
                rows.append([name, method, variant, run["kernels"], run["layouts"][name],
                             same, "" if first is None else first, count, overlap])  # fmt: skip
    columns = ["dataset", "method", "variant", "kernels", "layout", "same_ranking",
               "first_difference", "count", "top_count_overlap"]  # fmt: skip
    print(f"# reference: {reference['kernels']}, layouts {reference['layouts']}")
    _cli.write_tsv("blas_kernels", columns, rows, args.out)


if __name__ == "__main__":
    main()
