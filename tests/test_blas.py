"""ufsbench.blas: which OpenBLAS kernels jobs run, and when the workflow pins them."""

from __future__ import annotations

import pytest

from ufsbench import provenance
from ufsbench.blas import ENV, blas_kernels, cpu_flags, pinned_coretype

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
