"""Every code block of docs/own-method.md and docs/own-data.md runs (issue #28 item 5).

Blocks run in document order in a scratch project folder (links to workflow/, config/,
examples/, profiles/): ``python`` blocks are executed in one namespace, ``yaml`` blocks
are parsed and, when their first line names a file (``# my.yaml``), written there,
``toml`` blocks are parsed, and ``bash`` blocks run with ``snakemake`` as a dry run
(``-n``), in the slow test.
"""

from __future__ import annotations

import os
import re
import subprocess
import tomllib

import pytest
import yaml
from snakemake_cli import ROOT, needs_snakemake

DOCS = [ROOT / "docs" / "own-method.md", ROOT / "docs" / "own-data.md"]
LINKED = ("workflow", "config", "examples", "profiles")


def blocks(path):
    """(language, code) of every fenced block of a Markdown file, in order."""
    return re.findall(r"^```(\w*)\n(.*?)^```", path.read_text(), re.S | re.M)


def scratch_project(tmp_path):
    for name in LINKED:
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


def run_block(language, code, namespace, workdir, *, shell):
    if language == "python":
        exec(compile(code, f"<{language} block>", "exec"), namespace)
    elif language == "yaml":
        data = yaml.safe_load(code)
        assert isinstance(data, dict)
        first = code.splitlines()[0]
        if first.startswith("# ") and first.endswith(".yaml"):
            (workdir / first[2:].strip()).write_text(code)
    elif language == "toml":
        tomllib.loads(code)
    elif language == "bash":
        if shell:
            env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "MPLBACKEND": "Agg"}
            script = 'snakemake() { command snakemake -n "$@"; }\n' + code
            result = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", script],
                cwd=workdir,
                env=env,
                capture_output=True,
                text=True,
                timeout=600,
            )
            assert result.returncode == 0, f"{code}\n{result.stdout[-3000:]}{result.stderr[-3000:]}"
    else:
        pytest.fail(f"no runner for a {language!r} block")


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_code_blocks_run(doc, tmp_path, monkeypatch):
    workdir = scratch_project(tmp_path)
    monkeypatch.chdir(workdir)
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    found = blocks(doc)
    assert found, f"{doc.name} has no code block"
    namespace = {"__name__": "__doc_block__"}
    for language, code in found:
        run_block(language, code, namespace, workdir, shell=False)


@pytest.mark.slow
@needs_snakemake
@pytest.mark.parametrize("doc", DOCS, ids=lambda p: p.name)
def test_code_blocks_run_with_their_commands(doc, tmp_path, monkeypatch):
    workdir = scratch_project(tmp_path)
    monkeypatch.chdir(workdir)
    monkeypatch.setattr("sys.path", list(__import__("sys").path))
    namespace = {"__name__": "__doc_block__"}
    languages = []
    for language, code in blocks(doc):
        run_block(language, code, namespace, workdir, shell=True)
        languages.append(language)
    assert "bash" in languages
