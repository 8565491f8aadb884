"""A published single-run paper re-made on one small dataset at this checkout (issue #29):
the cells must equal the committed ones in ``measured/<paper>/``, so the published numbers
are what this code computes, not only what it once computed."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from snakemake_cli import ROOT, needs_snakemake, run_snakemake, write_config

pytestmark = [pytest.mark.slow, needs_snakemake]

# paper -> (the config's overrides: one small dataset, table to compare, its key columns)
CASES = {
    "pocss": (
        {
            "datasets": ["sonar_scale"],
            "css": {"datasets": ["sonar_scale"], "curves": {"datasets": []}, "anytime": []},
        },
        "css_summary.tsv",
        ["dataset", "method", "k"],
    ),
    "srsg": (
        {"clustering": {"datasets": ["heart"]}},
        "clustering.tsv",
        ["dataset", "method", "setting", "protocol"],
    ),
}


def merged(base: dict, override: dict) -> dict:
    out = dict(base)
    for key, value in override.items():
        nested = isinstance(value, dict) and isinstance(base.get(key), dict)
        out[key] = merged(base[key], value) if nested else value
    return out


@pytest.mark.parametrize("paper", sorted(CASES))
def test_one_dataset_rerun_at_head_equals_the_published_cells(paper, mirror, tmp_path):
    published = ROOT / "measured" / paper
    override, table, keys = CASES[paper]
    if not (published / table).is_file():
        pytest.skip(f"{paper} has no published run under {published}")
    config = yaml.safe_load((ROOT / "config" / "experiments" / f"{paper}.yaml").read_text())
    # (its notes and reference paths are relative to the project: the workflow's folder)
    config = merged(config, {**override, "mirror": str(mirror)})
    write_config(tmp_path, config)
    # only the compared table and what it needs (not, e.g., POCSS's k-means benchmark)
    run_snakemake(tmp_path, "--cores", "2", f"results/{paper}/tables/{table}", timeout=3000)
    ours = pd.read_csv(tmp_path / "results" / paper / "tables" / table, sep="\t")
    theirs = pd.read_csv(published / table, sep="\t")
    dataset = override.get("css", override.get("clustering"))["datasets"][0]
    theirs = theirs[theirs["dataset"] == dataset]
    assert len(theirs) and len(ours) == len(theirs)
    ours, theirs = (t.sort_values(keys).reset_index(drop=True) for t in (ours, theirs))
    pd.testing.assert_frame_equal(ours[theirs.columns], theirs, check_exact=True)
