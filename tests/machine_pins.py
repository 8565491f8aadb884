"""The machine a byte-level pin was recorded on, and whether this one is that kind.

Floating-point results depend on the CPU: OpenBLAS picks its kernels by the instructions
the CPU has (AVX-512, AVX2 and FMA, ...), and so do the compiled paths of scikit-learn and
numba. A digest of a ranking, a score vector or an objective sequence therefore holds on
the kind of machine it was recorded on, and may differ elsewhere wherever a near-tie or
an iterative method amplifies the last bit. Measured on 2026-11-27: the same code and
library versions on an AMD EPYC (AVX2, FMA) differed from the earlier machine's pins in
19 of 270 pinned rankings (each a tie or near-tie broken the other way, or an iterative
solver started from a k-means split that moved) and in 19 digests of the speed pins.

So a byte pin is compared where the machine's fingerprint (:func:`fingerprint`) equals
the one recorded with the pins (``tests/data/pins_machine.json``) and skipped elsewhere,
saying which part differs. The fingerprint names the code paths that ran, not the CPU's
flags: the OpenBLAS kernels and NumPy's instruction-set paths, which ``ufsbench.blas`` pins
(``eval "$(python -m ufsbench.blas)"`` before pytest, as ``.ci/run`` does), so an AVX-512
CPU compares the pins recorded on an AVX2 one. Measured on an AVX-512 Xeon, 2026-12-07: all
134 pins hold with both pinned; with OpenBLAS alone, 12 of BLUFS's differ. Re-record after a
deliberate change of numbers, on the CI's kind of machine:

    PYTHONPATH=src python tests/test_pinned_rankings.py --regen
    PYTHONPATH=src python tests/machine_pins.py --record
"""

from __future__ import annotations

import json
import platform
import sys
from pathlib import Path

import pytest

RECORDED = Path(__file__).parent / "data" / "pins_machine.json"
PIN_COMMAND = 'eval "$(python -m ufsbench.blas)"'


def fingerprint() -> dict:
    """The CPU's architecture, the BLAS kernels and NumPy's instruction-set paths in use,
    and the versions of the libraries that compute the pinned numbers."""
    import numpy
    import scipy
    import scipy.linalg  # noqa: F401  (loads SciPy's own BLAS, listed below)
    import sklearn
    from threadpoolctl import threadpool_info

    from ufsbench.blas import numpy_simd

    blas = sorted(
        {
            f"{pool.get('internal_api')} {pool.get('version')} {pool.get('architecture')}"
            for pool in threadpool_info()
            if pool.get("user_api") == "blas"
        }
    )
    try:
        import numba

        numba_version = numba.__version__
    except ImportError:
        numba_version = None
    return {
        "machine": platform.machine(),
        "blas": blas,
        "numpy_simd": numpy_simd(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "scikit-learn": sklearn.__version__,
        "numba": numba_version,
    }


def difference() -> str | None:
    """None on the recorded kind of machine, else which parts of the fingerprint differ."""
    if not RECORDED.is_file():
        return f"no {RECORDED.name}: record the machine with `python {__file__} --record`"
    recorded, here = json.loads(RECORDED.read_text()), fingerprint()
    parts = [
        f"{key} {recorded.get(key)!r} (recorded) vs {here.get(key)!r} (here)"
        for key in sorted(set(recorded) | set(here))
        if recorded.get(key) != here.get(key)
    ]
    return "; ".join(parts) or None


def require_recorded_machine() -> None:
    """Skip the calling test, saying why, on a machine other than the pins' own kind."""
    why = difference()
    if why:
        pytest.skip(
            f"byte pin recorded on another kind of machine: {why}; where the kernels or "
            f"NumPy's paths differ, pin them before pytest: {PIN_COMMAND}"
        )


if __name__ == "__main__":
    if sys.argv[1:] != ["--record"]:
        sys.exit(f"usage: python {sys.argv[0]} --record  (rewrites {RECORDED})")
    RECORDED.write_text(json.dumps(fingerprint(), indent=1) + "\n")
    print(RECORDED.read_text(), end="")
