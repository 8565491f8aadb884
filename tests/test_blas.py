"""ufsbench.blas: which OpenBLAS kernels jobs run, and when the workflow pins them."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ufsbench import provenance
from ufsbench.blas import (
    ENV,
    NUMPY_ENV,
    NUMPY_TARGETS,
    blas_kernels,
    cpu_flags,
    numpy_features_to_disable,
    numpy_simd,
    pinned_coretype,
    pinned_environment,
    unpinned,
)

AVX2 = frozenset({"sse2", "pni", "avx", "avx2", "fma"})


def test_a_supported_cpu_gets_the_configured_kernels():
    core, why = pinned_coretype("Haswell", environ={}, machine="x86_64", flags=AVX2)
    assert core == "Haswell" and f"{ENV}=Haswell" in why
    assert pinned_coretype("Prescott", environ={}, machine="x86_64", flags=AVX2)[0] == "Prescott"


def test_the_users_own_coretype_wins_over_the_config():
    core, why = pinned_coretype("Haswell", environ={ENV: "Zen"}, machine="x86_64", flags=AVX2)
    assert core == "Zen" and "environment" in why
    assert pinned_coretype("native", environ={ENV: "Zen"})[0] == "Zen"


def test_native_pins_nothing():
    assert pinned_coretype("native", environ={}, machine="x86_64", flags=AVX2)[0] is None


@pytest.mark.parametrize(
    ("machine", "flags", "said"),
    [
        ("aarch64", AVX2, "x86-64"),
        ("x86_64", frozenset({"sse2", "avx"}), "avx2, fma"),
        ("x86_64", None, "avx2, fma"),  # flags unreadable: never force kernels blindly
    ],
)
def test_kernels_the_cpu_may_not_run_are_never_forced(machine, flags, said):
    core, why = pinned_coretype("Haswell", environ={}, machine=machine, flags=flags)
    assert core is None and said in why


def test_an_unknown_setting_is_an_error():
    with pytest.raises(ValueError, match="'Skylake' is not one of native, Haswell"):
        pinned_coretype("Skylake", environ={}, machine="x86_64", flags=AVX2)


def test_cpu_flags_reads_the_flags_line(tmp_path):
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: X\nflags\t\t: fpu sse2 avx2 fma\n\n")
    assert cpu_flags(info) == {"fpu", "sse2", "avx2", "fma"}
    assert cpu_flags(tmp_path / "absent") is None
    (tmp_path / "empty").write_text("processor\t: 0\n")
    assert cpu_flags(tmp_path / "empty") is None


def test_jobs_record_their_blas_kernels():
    from threadpoolctl import threadpool_info

    kernels = blas_kernels()
    blas = [p for p in threadpool_info() if p.get("user_api") == "blas"]
    assert blas and all(p["internal_api"] in kernels for p in blas)
    assert provenance.job_record("abc")["versions"]["blas"] == kernels


# NumPy's x86-64 dispatch targets: 2.4's levels, and 1.26's feature names.
DISPATCH_2 = ["X86_V3", "X86_V4", "AVX512_ICL", "AVX512_SPR"]
DISPATCH_1 = ["SSSE3", "SSE41", "POPCNT", "SSE42", "AVX", "F16C", "FMA3", "AVX2", "AVX512F",
              "AVX512CD", "AVX512_KNL", "AVX512_SKX", "AVX512_ICL"]  # fmt: skip


def test_numpy_is_capped_at_the_pinned_cpus_paths():
    assert numpy_features_to_disable("Haswell", DISPATCH_2) == DISPATCH_2[1:]
    assert numpy_features_to_disable("Sandybridge", DISPATCH_2) == DISPATCH_2
    assert numpy_features_to_disable("Haswell", DISPATCH_1) == DISPATCH_1[8:]
    assert numpy_features_to_disable("Sandybridge", DISPATCH_1) == DISPATCH_1[5:]
    assert numpy_features_to_disable("Prescott", DISPATCH_1) == DISPATCH_1
    # a core type the user named that this module does not know: NumPy left alone
    assert numpy_features_to_disable("Zen", DISPATCH_2) == []


def test_the_pinned_environment_names_both_libraries_and_keeps_the_users_own():
    pin = {"machine": "x86_64", "flags": AVX2, "dispatch": DISPATCH_2}
    variables, why = pinned_environment("Haswell", environ={}, **pin)
    assert variables == {ENV: "Haswell", NUMPY_ENV: "X86_V4 AVX512_ICL AVX512_SPR"}
    assert len(why) == 2
    # the user's OpenBLAS choice stays, and NumPy follows it where the core type is known
    assert pinned_environment("Haswell", environ={ENV: "Sandybridge"}, **pin)[0] == {
        NUMPY_ENV: " ".join(DISPATCH_2)
    }
    assert pinned_environment("Haswell", environ={ENV: "Zen"}, **pin)[0] == {}
    variables, why = pinned_environment("Haswell", environ={NUMPY_ENV: "AVX512_SPR"}, **pin)
    assert variables == {ENV: "Haswell"} and "set in the environment" in why[-1]
    assert pinned_environment("native", environ={}, **pin)[0] == {}
    assert pinned_environment("Haswell", environ={}, **{**pin, "machine": "aarch64"})[0] == {}


def _in_fresh_python(code: str, variables: dict) -> subprocess.CompletedProcess:
    env = unpinned()
    return subprocess.run(
        [sys.executable, "-W", "error::ImportWarning", "-c", code],
        env={**env, **variables},
        capture_output=True,
        text=True,
        check=True,
    )


def test_a_pinned_process_runs_numpy_on_the_pinned_paths_only():
    """On this CPU: NumPy accepts the variable (no warning of an unknown target) and runs
    no path above Haswell's; on an AVX-512 CPU its own pick is above them."""
    variables, why = pinned_environment("Haswell", environ={})
    if ENV not in variables:
        pytest.skip(f"the Haswell kernels are not pinned here: {why[0]}")
    code = "from ufsbench.blas import numpy_simd; print(numpy_simd())"
    running = _in_fresh_python(code, variables).stdout.split()
    assert running == ["baseline"] or set(running) <= NUMPY_TARGETS["Haswell"], running
    assert set(_in_fresh_python(code, {}).stdout.split()) >= set(running)


def test_python_m_ufsbench_blas_prints_export_lines():
    variables, _ = pinned_environment("Haswell", environ={})
    env = unpinned()
    done = subprocess.run(
        [sys.executable, "-m", "ufsbench.blas"], env=env, capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    assert done.stdout == "".join(f"export {k}='{v}'\n" for k, v in variables.items())
    bad = subprocess.run([sys.executable, "-m", "ufsbench.blas", "a", "b"], capture_output=True)
    assert bad.returncode != 0 and b"usage" in bad.stderr


def test_jobs_record_numpys_paths():
    assert provenance.job_record("abc")["versions"]["numpy_simd"] == numpy_simd()
