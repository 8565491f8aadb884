"""Importing a script of ``benchmarks/`` (not a package) as a module, for its tests."""

from __future__ import annotations

import importlib.util
import sys

from snakemake_cli import ROOT


def load_benchmark(relative: str):
    """The module of ``benchmarks/<relative>``; its shared ``_cli`` module importable."""
    speed = str(ROOT / "benchmarks" / "speed")
    if speed not in sys.path:
        sys.path.insert(0, speed)
    path = ROOT / "benchmarks" / relative
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
