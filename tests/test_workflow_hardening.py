"""Issue 25 items 1, 4 and 6 through the real snakemake CLI (``snakemake -n``).

Each bad config is refused while the Snakefile is read, before any job is planned or runs,
with a message naming the config key, and nothing is written outside the run's folder.
"""

from __future__ import annotations

import pytest
import yaml
from snakemake_cli import needs_snakemake, run_snakemake, write_config

pytestmark = [pytest.mark.slow, needs_snakemake]

TINY = {
    "datasets": ["wine"],
    "feature_counts": {"wine": [2, 4]},
    "methods": {"maxvariance": {}, "lapscore": {"t": [1.0]}},
    "evaluation": {"repeats": 2},
}


def _refused(workdir, *args, message):
    result = run_snakemake(workdir, "-n", "--cores", "1", *args, check=False)
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-3000:]
    assert message in output, output[-3000:]
    assert "Job stats" not in output and not (workdir / "results").exists()
    return output


def _escape(tmp_path):
    """A name that would write into a sibling of the run's folder, and that folder."""
    target = tmp_path.parent / f"{tmp_path.name}_escaped"
    return f"../{target.name}/x", target


def test_command_line_dataset_name_with_dotdot_is_refused(tmp_path):
    name, target = _escape(tmp_path)
    write_config(tmp_path, TINY)
    _refused(
        tmp_path,
        "--config",
        f"datasets=[{name}]",
        message=f"config 'datasets': dataset name '{name}' is not allowed",
    )
    assert not target.exists()


def test_registry_entry_with_dotdot_is_refused(tmp_path):
    name, target = _escape(tmp_path)
    registry = {
        "datasets": {
            name: {
                "description": "hostile",
                "source": "url",
                "url": "https://example.org/x.mat",
                "file": "x.mat",
                "sha256": None,
                "format": "mat",
                "n_samples": 10,
                "n_features": 3,
                "n_classes": 2,
                "feature_counts": [1, 2],
            }
        }
    }
    (tmp_path / "registry.yaml").write_text(yaml.safe_dump(registry))
    config = {**TINY, "datasets": ["wine"], "dataset_registry": str(tmp_path / "registry.yaml")}
    write_config(tmp_path, config)
    _refused(tmp_path, message=f"dataset registry entry '{name}'")
    assert not target.exists()


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ({"feature_counts": {"/tmp/abs": [2]}}, "config 'feature_counts': dataset name '/tmp/abs'"),
        ({"paper": {"name": "/tmp/abs", "reference": "x.tsv"}}, "'/tmp/abs' does not match"),
        ({"methods": {"max\0variance": {}}}, "config 'methods': method name 'max\\x00variance'"),
    ],
    ids=["absolute-dataset", "absolute-paper-name", "nul-in-method"],
)
def test_config_file_names_are_refused(tmp_path, section, message):
    write_config(tmp_path, {**TINY, **section})
    _refused(tmp_path, message=message)


def test_nested_command_line_config_is_typed_and_checked(tmp_path):
    write_config(tmp_path, TINY)
    # was "'2' is not of type 'integer'": nested --config values are read as YAML
    result = run_snakemake(tmp_path, "-n", "--cores", "1", "--config", "evaluation={repeats: 3}")
    assert "evaluate" in result.stdout
    _refused(
        tmp_path,
        "--config",
        "methods={random: {draws: 1000000000}}",
        message="config 'methods.random.draws': 1,000,000,000 settings exceed the limit",
    )


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {"evaluation": {"repeats": 1000000000}},
            "config 'evaluation.repeats': 1,000,000,000 repetitions exceed the limit of 1,000 "
            "(limits.repeats)",
        ),
        ({"graph": {"k": 178}}, "config 'graph.k': k=178 nearest neighbours"),
        ({"feature_counts": {"nosuch": [2]}}, "config 'feature_counts': unknown dataset 'nosuch'"),
    ],
    ids=["repeats", "graph-k", "feature-counts"],
)
def test_plans_are_refused_before_any_job(tmp_path, changes, message):
    write_config(tmp_path, {**TINY, **changes})
    output = _refused(tmp_path, message=message)
    if "repeats" in changes.get("evaluation", {}):
        assert "--config limits='{repeats: 1000000000}'" in output
