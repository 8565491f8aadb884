"""A damaged intermediate stops the real snakemake run, names the file and the command that
rebuilds it, and that command restores the very same tables (issue 25, item 2).

Before: a scores chunk cut at a line boundary was aggregated silently (fewer rows, other
means and t-tests); a cut selection.npz failed with a raw ``BadZipFile``.
"""

from __future__ import annotations

import shutil

import pytest
from snakemake_cli import needs_snakemake, run_snakemake, write_config

pytestmark = [pytest.mark.slow, needs_snakemake]

MINI = {
    "datasets": ["wine"],
    "feature_counts": {"wine": [2, 4]},
    "methods": {"maxvariance": {}, "lapscore": {"t": [0.5, 1.0]}},
    "evaluation": {"repeats": 2},
}


def tables(workdir) -> dict[str, bytes]:
    root = workdir / "results" / "default" / "tables"
    return {p.name: p.read_bytes() for p in sorted(root.iterdir())}


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("finished") / "run"
    workdir.mkdir()
    write_config(workdir, MINI)
    run_snakemake(workdir, "--cores", "1")
    return workdir


@pytest.fixture
def copy(finished, tmp_path):
    workdir = tmp_path / "run"
    shutil.copytree(finished, workdir, symlinks=True)
    return workdir


def fails_naming(workdir, damaged: str):
    """Run snakemake; it must fail naming ``damaged`` and the --forcerun that rebuilds it."""
    result = run_snakemake(workdir, "--cores", "1", check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert f"{damaged} is damaged" in output, output[-3000:]
    assert f"--forcerun {damaged}" in output, output[-3000:]
    assert "BadZipFile" not in output.split(f"{damaged} is damaged")[0][-200:]
    assert (workdir / damaged).exists(), "the damaged file was deleted"


def test_scores_chunk_cut_at_a_line_boundary_stops_the_run(finished, copy):
    damaged = "results/default/wine/lapscore/c0/scores.tsv"
    lines = (copy / damaged).read_text().splitlines(keepends=True)
    (copy / damaged).write_text("".join(lines[:-2]))  # still a well-formed table
    fails_naming(copy, damaged)
    run_snakemake(copy, "--cores", "1", "--forcerun", damaged)
    assert tables(copy) == tables(finished)


def test_cut_selection_file_stops_the_run(finished, copy):
    damaged = "results/default/wine/lapscore/c0/selection.npz"
    size = (copy / damaged).stat().st_size
    with open(copy / damaged, "r+b") as fh:
        fh.truncate(size // 2)
    fails_naming(copy, damaged)
    run_snakemake(copy, "--cores", "1", "--forcerun", damaged)
    assert tables(copy) == tables(finished)
