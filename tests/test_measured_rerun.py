"""A published single-run paper re-made on one small dataset at this checkout (issue #29):
the cells must equal the committed ones in ``measured/<paper>/``, so the published numbers
are what this code computes, not only what it once computed."""

from __future__ import annotations

import pandas as pd
import pytest
import yaml
from snakemake_cli import ROOT, needs_snakemake, run_snakemake, write_config

pytestmark = [pytest.mark.slow, needs_snakemake]

# paper -> (its small dataset, the config's overrides, the table compared, its key columns).
# A case may run part of a grid: the table is then one with a row per setting, and the
# published rows of the settings run are compared.
CASES = {
    "pocss": (
        "sonar_scale",
        {
            "datasets": ["sonar_scale"],
            "css": {"datasets": ["sonar_scale"], "curves": {"datasets": []}, "anytime": []},
        },
        "css_summary.tsv",
        ["dataset", "method", "k"],
    ),
    # LR-l1's 4 corner settings of its 25 (the 25 cost 146 of Heart's 180 graph CPU s)
    "srsg": (
        "heart",
        {
            "clustering": {
                "datasets": ["heart"],
                "methods": {"lr_l1graph": {"lam": [0.1, 1.0], "gamma_l2": [0.1, 1.0]}},
            }
        },
        "clustering_settings.tsv",
        ["dataset", "method", "setting"],
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
    dataset, override, table, keys = CASES[paper]
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
    theirs = theirs[theirs["dataset"] == dataset]
    if "setting" in keys:  # a grid run in part: its settings' rows
        theirs = theirs.merge(ours[keys], on=keys)
    assert len(theirs) and len(ours) == len(theirs)
    ours, theirs = (t.sort_values(keys).reset_index(drop=True) for t in (ours, theirs))
    pd.testing.assert_frame_equal(ours[theirs.columns], theirs, check_exact=True)
