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

NumPy itself picks code paths per CPU too: its ufuncs are compiled for several instruction
sets and the fastest one the CPU runs is chosen at import (``numpy.show_runtime()``). On an
AVX-512 CPU ``exp``, ``log``, ``expm1``, ``log1p``, ``power`` and ``arctan2`` then differ
from the AVX2 paths in the last bit, and ``argsort``'s default quicksort orders ties
otherwise. With OpenBLAS pinned alone, 12 of the test suite's 134 byte pins (BLUFS's, which
reads a heat-kernel graph) differed on an AVX-512 Xeon; with NumPy's paths pinned as well,
none. So a pinned core type also caps NumPy's paths at that CPU's
(``NPY_DISABLE_CPU_FEATURES``, read when NumPy loads: :func:`numpy_features_to_disable`), and
each job records the paths it ran (:func:`numpy_simd`). ``python -m ufsbench.blas`` prints
both variables as shell ``export`` lines, for running the library outside the workflow as
its jobs run (``eval "$(python -m ufsbench.blas)"``).
"""

from __future__ import annotations

import os
import platform

ENV = "OPENBLAS_CORETYPE"
NUMPY_ENV = "NPY_DISABLE_CPU_FEATURES"
NATIVE = "native"
# What each pinnable core type needs of the CPU (flags of /proc/cpuinfo; "pni" is SSE3).
# Haswell is the default; the older two serve CPUs without AVX2, at some cost in speed.
REQUIRES = {"Haswell": ("avx2", "fma"), "Sandybridge": ("avx",), "Prescott": ("pni",)}
# NumPy's dispatch targets (NumPy 1.x feature names and NumPy 2's x86-64 levels) that a CPU
# of each core type runs; the others are disabled where the core type is pinned.
_UP_TO_PRESCOTT = ("SSE", "SSE2", "SSE3")
_UP_TO_SANDYBRIDGE = (*_UP_TO_PRESCOTT, "SSSE3", "SSE41", "POPCNT", "SSE42", "AVX", "X86_V2")
NUMPY_TARGETS = {
    "Prescott": frozenset(_UP_TO_PRESCOTT),
    "Sandybridge": frozenset(_UP_TO_SANDYBRIDGE),
    "Haswell": frozenset((*_UP_TO_SANDYBRIDGE, "F16C", "FMA3", "AVX2", "X86_V3")),
}


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


def _numpy_cpu() -> tuple[list[str], dict]:
    """NumPy's dispatch targets and its table of CPU features (True: present and enabled)."""
    try:
        from numpy._core import _multiarray_umath as core
    except ImportError:  # NumPy 1.x
        from numpy.core import _multiarray_umath as core
    return list(getattr(core, "__cpu_dispatch__", [])), dict(getattr(core, "__cpu_features__", {}))


def numpy_dispatch() -> list[str]:
    """NumPy's dispatch targets: the instruction sets its ufuncs were also compiled for,
    one of which it picks per CPU at import (empty where NumPy does not say)."""
    return _numpy_cpu()[0]


def numpy_features_to_disable(core: str, dispatch=None) -> list[str]:
    """NumPy's dispatch targets (``dispatch``, default :func:`numpy_dispatch`) above what a
    CPU of OpenBLAS core type ``core`` runs: the ``NPY_DISABLE_CPU_FEATURES`` that keeps NumPy
    on that CPU's paths. Empty for a core type this module does not know (e.g. one the user
    set), whose CPU's paths it cannot tell. Naming only dispatch targets matters: NumPy
    refuses to disable its baseline and warns of names it does not dispatch."""
    allowed = NUMPY_TARGETS.get(core)
    if allowed is None:
        return []
    dispatch = numpy_dispatch() if dispatch is None else dispatch
    return [target for target in dispatch if target not in allowed]


def pinned_environment(setting: str, environ=None, machine=None, flags=_THIS_CPU, dispatch=None):
    """``(variables, reasons)``: the environment that pins jobs to one CPU's numerics for
    the config's ``blas_coretype`` ``setting`` -- ``OPENBLAS_CORETYPE`` (:func:`pinned_coretype`)
    and, for a core type it knows, ``NPY_DISABLE_CPU_FEATURES`` -- and why. Variables the
    user set are kept (and not returned); ``environ``, ``machine``, ``flags`` and ``dispatch``
    default to this process's."""
    environ = os.environ if environ is None else environ
    core, why = pinned_coretype(setting, environ=environ, machine=machine, flags=flags)
    variables, reasons = {}, [why]
    if core is None:
        return variables, reasons
    if not environ.get(ENV):
        variables[ENV] = core
    if environ.get(NUMPY_ENV):
        reasons.append(f"{NUMPY_ENV}={environ[NUMPY_ENV]} set in the environment")
        return variables, reasons
    disabled = numpy_features_to_disable(core, dispatch)
    if disabled:
        variables[NUMPY_ENV] = " ".join(disabled)
        reasons.append(f"{NUMPY_ENV}={variables[NUMPY_ENV]} (NumPy on {core}'s paths)")
    return variables, reasons


def unpinned(environ=None) -> dict:
    """A copy of ``environ`` (default this process's) without either pinning variable: a
    child started with it runs OpenBLAS's and NumPy's own choice for the CPU."""
    environ = os.environ if environ is None else environ
    return {k: v for k, v in environ.items() if k not in (ENV, NUMPY_ENV)}


def numpy_simd() -> str:
    """The NumPy dispatch targets this process runs, e.g. ``X86_V3`` (``baseline`` when it
    runs none: the CPU has none of them, or they are disabled)."""
    dispatch, features = _numpy_cpu()
    return " ".join(target for target in dispatch if features.get(target)) or "baseline"


if __name__ == "__main__":  # export lines for a shell: eval "$(python -m ufsbench.blas)"
    import sys

    usage = "usage: python -m ufsbench.blas [CORETYPE]  (prints export lines; default Haswell)"
    if len(sys.argv) > 2 or sys.argv[1:2] in (["-h"], ["--help"]):
        sys.exit(usage)
    variables, reasons = pinned_environment(sys.argv[1] if len(sys.argv) == 2 else "Haswell")
    for name, value in variables.items():
        print(f"export {name}='{value}'")
    for reason in reasons:
        print(f"# {reason}", file=sys.stderr)
