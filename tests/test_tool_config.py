"""ufsbench.tools.config reads a config file as the workflow does (schema defaults filled)."""

from __future__ import annotations

import pytest
import yaml
from conftest import ROOT
from snakemake_cli import validated

from ufsbench.tools.config import find_schema, load_config, validate_config

CONFIGS = [
    ROOT / "config" / "config.yaml",
    *sorted((ROOT / "config" / "experiments").glob("*.yaml")),
]


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_defaults_are_filled_as_snakemake_validate_fills_them(path):
    assert load_config(path) == validated(yaml.safe_load(path.read_text()))


def test_a_bad_value_names_its_key():
    with pytest.raises(ValueError, match=r"config 'graph.k'"):
        validate_config({"graph": {"k": "five"}}, find_schema(ROOT))


def test_a_config_outside_a_checkout_uses_the_given_or_working_checkout(tmp_path, monkeypatch):
    path = tmp_path / "c.yaml"
    path.write_text("datasets: [wine]\nmethods: {lapscore: {}}\n")
    assert load_config(path, root=ROOT)["graph"]["k"] == 5
    monkeypatch.chdir(ROOT)
    assert load_config(path)["datasets"] == ["wine"]
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError, match="not a checkout"):
        load_config(path)
