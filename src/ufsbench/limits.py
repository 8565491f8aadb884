"""Bounds on the size of a run, checked from the config alone before anything expands.

A grid is a product of value lists, so a few innocent-looking keys can ask for billions
of settings (``random: {draws: 1000000000}`` once made ``snakemake -n`` grow to 23 GB)
or a job that never ends (``evaluation.repeats: 1000000000``). :func:`check_plan_size`
computes every grid's size as a product of list lengths, without expanding anything, and
refuses a run beyond the bounds below with a message naming the key, the size and how to
raise the bound deliberately (a ``limits:`` section of the config, e.g.
``--config limits='{settings_per_method: 50000}'``). Planning memory then stays bounded
by the limits, not by the grid's product.

Defaults (documented in config/README.md) are about 15x the largest shipped experiment:
``settings_per_method`` 20000 (LSDCL's grid has 1331), ``jobs`` 20000 selection and
evaluation jobs (the LSDCL run plans 2146), ``repeats`` 1000 (shipped runs use <= 50).
"""

from __future__ import annotations

import math

from .names import config_value

DEFAULT_LIMITS = {"settings_per_method": 20000, "repeats": 1000, "jobs": 20000}
RESERVED_KEYS = ("datasets", "chunk_size")

# Config keys that count repetitions of a job's work, each bounded by ``limits.repeats``.
REPEAT_KEYS = (
    "evaluation.repeats",
    "evaluation.n_init",
    "clustering.seeds",
    "clustering.n_init",
    "clustering.km_n_init",
    "css.seeds",
    "paper.crossval.draws",
    "blufs.reseeds",
    "blufs.knn.splits",
    "blufs.runtime.repeats",
)


class PlanTooLarge(ValueError):
    """A config asks for more than the run's limits allow."""


def limits_of(config: dict) -> dict:
    """The run's limits: the defaults, overridden by the config's ``limits`` section."""
    limits = dict(DEFAULT_LIMITS)
    for key, value in (config.get("limits") or {}).items():
        if key not in DEFAULT_LIMITS:
            raise ValueError(
                f"config 'limits': unknown key {key!r} (known: {', '.join(DEFAULT_LIMITS)})"
            )
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ValueError(f"config 'limits.{key}': must be an integer >= 1, got {value!r}")
        limits[key] = value
    return limits


def grid_size(grid) -> int:
    """Points of a grid (reserved keys left out), as the product of its list lengths."""
    sizes = [
        len(values) if isinstance(values, list | tuple) else 1
        for key, values in (grid or {}).items()
        if key not in RESERVED_KEYS
    ]
    return math.prod(sizes)


def _refuse(key: str, size: int, what: str, limit_key: str, limit: int):
    raise PlanTooLarge(
        f"config {key!r}: {size:,} {what} exceed the limit of {limit:,} "
        f"(limits.{limit_key}); if you mean it, raise the bound deliberately, e.g. "
        f"--config limits='{{{limit_key}: {size}}}' or a 'limits:' section in your config "
        f"(see config/README.md)"
    )


def method_grid_sizes(config: dict) -> dict[str, int]:
    """Upper bound of each configured method's settings (its grid, plus the default)."""
    methods = config.get("methods") or {}
    products = {name: grid_size(grid) for name, grid in methods.items()}
    sizes = {}
    for name, grid in methods.items():
        size = products[name]
        draws = (grid or {}).get("draws") if name == "random" else None
        if isinstance(draws, int) and not isinstance(draws, bool):
            size = draws
        elif draws == "max":
            size = max([products[m] for m in methods if m != "random"] or [1])
        elif isinstance(draws, str) and draws in products:
            size = products[draws]
        sizes[name] = size + 1  # the default setting may join the grid
    return sizes


def check_plan_size(config: dict) -> None:
    """Refuse a config whose plan exceeds its limits (see the module docstring).

    Raises :class:`PlanTooLarge` (a ``ValueError``) naming the config key at fault.
    """
    limits = limits_of(config)
    for key in REPEAT_KEYS:
        value = config_value(config, key)
        if isinstance(value, int | float) and not isinstance(value, bool):
            if value > limits["repeats"]:
                _refuse(key, int(value), "repetitions", "repeats", limits["repeats"])
    sizes = method_grid_sizes(config)
    for name, size in sizes.items():
        if size - 1 > limits["settings_per_method"]:
            key = "methods.random.draws" if name == "random" else f"methods.{name}"
            _refuse(key, size - 1, "settings", "settings_per_method", limits["settings_per_method"])
    for section in ("blufs.two_stage", "clustering.methods", "paper.crossval.grid"):
        grids = config_value(config, section) or {}
        if section == "paper.crossval.grid":
            grids = {"grid": grids}
        for name, grid in grids.items():
            size = grid_size(grid)
            if size > limits["settings_per_method"]:
                key = section if section == "paper.crossval.grid" else f"{section}.{name}"
                _refuse(key, size, "settings", "settings_per_method", limits["settings_per_method"])
    for key in ("css.k", "css.curves.k"):  # column budgets: one CSS job set each
        budgets = config_value(config, key)
        if isinstance(budgets, list) and len(budgets) > limits["settings_per_method"]:
            _refuse(
                key, len(budgets), "budgets", "settings_per_method", limits["settings_per_method"]
            )
    n_datasets = len(config.get("datasets") or [])
    run_chunk = config.get("chunk_size", 50)
    jobs = 0
    for name, grid in (config.get("methods") or {}).items():
        grid = grid or {}
        chunk = grid.get("chunk_size", run_chunk)
        chunk = chunk if isinstance(chunk, int) and chunk >= 1 else 1
        only = grid.get("datasets")
        datasets = len(only) if isinstance(only, list) else n_datasets
        jobs += 2 * datasets * math.ceil(sizes[name] / chunk)  # a select and an evaluate job
    if jobs > limits["jobs"]:
        _refuse("methods", jobs, "selection and evaluation jobs", "jobs", limits["jobs"])
