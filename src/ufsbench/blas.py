"""Which BLAS kernels a process runs, and pinning them so that runs agree across CPUs.

NumPy's and SciPy's OpenBLAS are built for every x86 instruction set at once and pick
their kernels for the CPU they load on. Kernels for other instruction sets sum in another
order, and iterative solvers amplify those last-bit differences into other rankings: on
the leaderboard's five datasets, 24 and 27 of 85 default-setting rankings change from
the Haswell kernels to the Sandybridge and Prescott ones, and ULAP's top 50 on JAFFE keeps
16-18 of its features (``measured/blas-kernels/``, ``benchmarks/blas_kernels.py``). The
same code and seed then give other published cells on another machine.

The workflow therefore pins the kernels (config ``blas_coretype``, default ``Haswell``:
AVX2 and FMA, Intel CPUs since 2013 and AMD's since 2015, where OpenBLAS picks them
anyway unless the CPU has AVX-512) by setting ``OPENBLAS_CORETYPE`` for its jobs, which
OpenBLAS reads when it loads. A core type the CPU cannot run is never forced (OpenBLAS would stop
on an illegal instruction), nor on other architectures; an ``OPENBLAS_CORETYPE`` the user
set wins. Other BLAS libraries (MKL in conda's NumPy) ignore the variable: each job's
provenance records the kernels it ran (:func:`blas_kernels`).
"""

from __future__ import annotations

import os
import platform

ENV = "OPENBLAS_CORETYPE"
NATIVE = "native"
# What each pinnable core type needs of the CPU (flags of /proc/cpuinfo; "pni" is SSE3).
# Haswell is the default; the older two serve CPUs without AVX2, at some cost in speed.
REQUIRES = {"Haswell": ("avx2", "fma"), "Sandybridge": ("avx",), "Prescott": ("pni",)}


def cpu_flags(path="/proc/cpuinfo") -> frozenset[str] | None:
    """The CPU's feature flags (Linux), or None where they cannot be read."""
    try:
        with open(path) as info:
            for line in info:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        return None
    return None


_THIS_CPU = object()


def pinned_coretype(setting: str, environ=None, machine=None, flags=_THIS_CPU):
    """``(core, reason)``: the OpenBLAS core type jobs should run (None: leave OpenBLAS's
    own choice) and why, for the config's ``blas_coretype`` ``setting``.

    ``environ``, ``machine`` and ``flags`` default to this process's environment,
    ``platform.machine()`` and :func:`cpu_flags` (``flags=None``: they cannot be read).
    """
    environ = os.environ if environ is None else environ
    if environ.get(ENV):
        return environ[ENV], f"{ENV}={environ[ENV]} set in the environment"
    if setting == NATIVE:
        return None, "blas_coretype: native (OpenBLAS picks kernels for this CPU)"
    if setting not in REQUIRES:
        known = ", ".join([NATIVE, *REQUIRES])
        raise ValueError(f"blas_coretype: {setting!r} is not one of {known}")
    machine = platform.machine() if machine is None else machine
    if machine.lower() not in ("x86_64", "amd64"):
        return None, f"blas_coretype: {setting} is an x86-64 core type; this is {machine}"
    flags = cpu_flags() if flags is _THIS_CPU else flags
    missing = [flag for flag in REQUIRES[setting] if flags is None or flag not in flags]
    if missing:
        return None, (
            f"blas_coretype: {setting} needs the CPU flags {', '.join(missing)}, which this "
            "CPU does not report; OpenBLAS picks kernels for it, so rankings of iterative "
            "methods may differ from runs on other machines"
        )
    return setting, f"{ENV}={setting} (config blas_coretype)"


def blas_kernels() -> str:
    """The BLAS libraries loaded so far (NumPy's at least; SciPy brings its own) and their
    kernels, e.g. ``openblas 0.3.31 Haswell``."""
    import numpy  # noqa: F401 - loads its BLAS, which threadpoolctl then reports
    from threadpoolctl import threadpool_info

    found = {
        " ".join(str(pool.get(key) or "") for key in ("internal_api", "version", "architecture"))
        for pool in threadpool_info()
        if pool.get("user_api") == "blas"
    }
    return "; ".join(sorted(item.strip() for item in found)) or "unknown"
