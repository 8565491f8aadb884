"""What a workflow run computes, derived from the config alone (no Snakemake, no numerics).

The Snakefile asks a :class:`Plan` for datasets, hyper-parameter settings grouped into
chunks (one selection job each), graph specifications and seeds. Keeping this here makes
it testable and keeps the rules thin.
"""

from __future__ import annotations

import itertools
from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import NamedTuple

from .limits import check_plan_size
from .methods.external import resolve_method as resolve_external
from .methods.params import GRAPH_PARAMS, MethodSpec
from .seeding import derive_seed

PROTOCOLS = ("oracle", "default")
METRICS = ("acc", "nmi_max", "nmi_sqrt")


@dataclass(frozen=True)
class Setting:
    """One hyper-parameter setting of one method: every parameter, checked and complete."""

    id: str
    params: dict
    in_grid: bool
    is_default: bool


def format_value(value) -> str:
    """Short, unambiguous text for a parameter value (1e-05, 0.5, 100, binary)."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, float):
        return f"{value:.12g}"
    return str(value)


def setting_id(params: dict) -> str:
    """Canonical id of a setting: ``name=value`` pairs sorted by name (``default`` if none)."""
    if not params:
        return "default"
    return ",".join(f"{key}={format_value(params[key])}" for key in sorted(params))


def command_line_methods(config_files, overrides=None) -> dict | None:
    """The run's ``methods``, built from its config files in order (None if none sets it).

    ``config_files`` are the parsed YAML mappings in the order they apply: the
    Snakefile's default ``config/config.yaml`` first, then every ``--configfile`` in
    command-line order. Each file's ``methods`` edits the list so far, one method at a
    time: an entry replaces that method's whole grid (grids are not merged key by key,
    so coupled keys never clash), ``name: null`` drops the method, and a method not
    named keeps its entry. A file with ``replace_methods: true`` (a paper experiment)
    starts the list afresh with its own methods. ``--config methods=...``
    (``overrides``) is the complete list, like ``--config datasets=[...]``.

    Snakemake itself deep-merges config files, which would merge grids key by key and
    give no way to leave out a method; this function is applied instead.
    """
    methods = None
    for data in config_files:
        if not isinstance(data, dict) or "methods" not in data:
            continue
        entries = data["methods"] or {}
        if not isinstance(entries, dict):
            raise ValueError(f"config 'methods' must be a mapping, got {entries!r}")
        if methods is None or data.get("replace_methods", False):
            methods = {}
        for name, entry in entries.items():
            if entry is None:
                methods.pop(name, None)
            else:
                methods[name] = entry
    if overrides and "methods" in overrides:
        methods = {k: v for k, v in (overrides["methods"] or {}).items() if v is not None}
    return methods


def typed_overrides(config: dict, overrides: dict | None) -> dict:
    """``--config`` values typed as YAML, written into ``config``; returns the typed overrides.

    Snakemake reads a nested ``--config key='{a: 2}'`` value with YAML's base loader, so
    every scalar inside arrives as a string (``{'a': '2'}``) and fails the schema. Each
    such string is read again as a YAML scalar, as a config file would give it (``2`` an
    int, ``1.0e-3`` a float, ``true`` a bool, ``null`` None; anything that does not read
    as a scalar stays a string); top-level values, which Snakemake types itself, are kept.
    """
    import yaml

    def typed(value):
        if isinstance(value, dict):
            return {key: typed(item) for key, item in value.items()}
        if isinstance(value, list):
            return [typed(item) for item in value]
        if isinstance(value, str):
            try:
                parsed = yaml.safe_load(value)
            except yaml.YAMLError:
                return value
            if parsed is None or isinstance(parsed, bool | int | float | str):
                return parsed
        return value

    def merge(target, update):
        for key, value in update.items():
            if isinstance(value, dict) and isinstance(target.get(key), dict):
                merge(target[key], value)
            else:
                target[key] = value

    result = {}
    for key, value in (overrides or {}).items():
        result[key] = typed(value) if isinstance(value, dict | list) else value
        if isinstance(value, dict | list):
            merge(config, {key: result[key]})
    return result


# A method's config keys that are not parameters.
RESERVED_KEYS = ("datasets", "chunk_size", "callable")


class MethodOptions(NamedTuple):
    """A method's config entry split into its grid and its reserved keys."""

    grid: dict
    datasets: list[str] | None  # None: every dataset of the run
    chunk_size: int | None  # None: the run's chunk_size


def split_method_options(method: str, grid, registry) -> MethodOptions:
    """A method's grid without its reserved ``datasets`` and ``chunk_size`` keys.

    ``datasets: [coil20]`` runs the method on those datasets only (e.g. ablation variants
    needed by one figure); names outside the run's ``datasets`` are ignored, so subset
    runs keep working. ``chunk_size: 1`` gives the method its own number of settings per
    job, e.g. one for a solver whose single setting costs minutes on a large dataset, so
    its jobs stay short and a stopped run loses little; setting ids do not depend on it.
    """
    grid = dict(grid or {})
    grid.pop("callable", None)  # which function runs: see resolve_method
    only = grid.pop("datasets", None)
    size = grid.pop("chunk_size", None)
    if size is not None and (isinstance(size, bool) or not isinstance(size, int) or size < 1):
        raise ValueError(f"method {method!r}: 'chunk_size' must be an integer >= 1, got {size!r}")
    if only is not None:
        if not isinstance(only, list | tuple) or not only:
            raise ValueError(f"method {method!r}: 'datasets' must be a non-empty list of names")
        unknown = [name for name in only if name not in registry]
        if unknown:
            raise ValueError(f"method {method!r}: unknown dataset(s) in 'datasets': {unknown}")
        only = list(only)
    return MethodOptions(grid, only, size)


def grid_parameters(entry) -> list[str]:
    """The parameter names a method's config entry varies, reserved keys left out.

    A coupled key ``"weight, t"`` names two parameters.
    """
    grid = {k: v for k, v in (entry or {}).items() if k not in RESERVED_KEYS}
    return [name.strip() for key in grid for name in str(key).split(",")]


def expand_grid(method: str, grid: dict) -> list[dict]:
    """The product of a grid; a key ``"a, b"`` takes tuples of coupled values."""
    axes = []
    for key, values in grid.items():
        names = [name.strip() for name in key.split(",")]
        values = values if isinstance(values, list | tuple) else [values]
        if not values:
            raise ValueError(f"method {method!r}: grid of {key!r} is empty")
        if len(names) == 1:
            axes.append([{names[0]: value} for value in values])
            continue
        combos = []
        for combo in values:
            if not isinstance(combo, list | tuple) or len(combo) != len(names):
                raise ValueError(
                    f"method {method!r}: grid key {key!r} needs {len(names)}-tuples, got {combo!r}"
                )
            combos.append(dict(zip(names, combo, strict=True)))
        axes.append(combos)
    return [
        dict(itertools.chain.from_iterable(p.items() for p in parts))
        for parts in itertools.product(*axes)
    ]


def resolve_method(name: str, entry=None) -> MethodSpec:
    """The method a config names: the plan's one place that turns a name into a spec.

    Its ``callable: "module:function"`` when the config's ``entry`` gives one, else the
    built-in method or the installed ``ufsbench.methods`` entry point of that name
    (docs/own-method.md). Imports the function and checks its signature, so a wrong one
    fails before any job runs."""
    target = entry.get("callable") if isinstance(entry, dict) else None
    return resolve_external(name, name=name, target=target)


def grid_settings(spec: MethodSpec, grid: dict, base: dict | None = None) -> list[tuple]:
    """``[(setting id, checked params)]`` of a grid, in expansion order, each id once.

    ``base`` (e.g. the config's graph weighting) is completed by every grid point before
    the method checks it; the one grid expansion of the plan, the cross-validation and
    the grid sizes the ``random`` control draws.
    """
    base = base or {}
    seen, settings = set(), []
    for point in expand_grid(spec.name, grid or {}):
        checked = spec.check_params({**base, **point})
        sid = setting_id(checked)
        if sid not in seen:
            seen.add(sid)
            settings.append((sid, checked))
    return settings


# -- typed sections of the validated config ----------------------------------------------
# Each section holds what the schema (workflow/schemas/config.schema.yaml) states, read
# once; the schema is the only place a default is written: snakemake's ``validate`` fills
# it in before the plan reads the config, so a section never restates one.


def _section(cls, values, where: str):
    """``cls`` built from the mapping ``values`` of config key ``where``; lists become
    tuples, so a section is frozen all through."""
    values = values or {}
    missing = [f.name for f in fields(cls) if f.name not in values and f.default is MISSING]
    if missing:
        raise ValueError(
            f"config '{where}.{missing[0]}' is missing: the plan reads a config validated "
            f"against workflow/schemas/config.schema.yaml, which fills in the defaults"
        )
    return cls(**{f.name: _frozen(values[f.name]) for f in fields(cls) if f.name in values})


def _frozen(value):
    return tuple(value) if isinstance(value, list) else value


@dataclass(frozen=True)
class EvaluationSection:
    """Config ``evaluation``: the k-means evaluation and the aggregation protocols."""

    repeats: int
    kmeans: str
    n_init: int
    max_iter: int
    init: str
    seeding: str
    protocol: tuple

    @property
    def kmeans_options(self) -> dict:
        """The k-means runs' options, which every job that clusters uses, as the library's
        keyword arguments (``evaluate_selection``, ``cross_validate``, ``ufsbench.tuning``):
        the one place the config's names meet the library's."""
        return {
            "repeats": self.repeats,
            "engine": self.kmeans,
            "n_init": self.n_init,
            "max_iter": self.max_iter,
            "init": self.init,
        }


def graph_weights(spec: MethodSpec, params: dict, *, sigma0: str, width: str) -> dict | None:
    """How a setting weights the shared k-NN graph (None: the method needs none).

    The one graph weighting of the workflow (select, stage 2, re-seeds, cross-validation):
    ``weight``, and for heat weights ``t``, ``sigma0`` and ``width`` (named only when it is
    not ``sigma``, so default runs keep their job parameters).
    """
    if spec.graph is None:
        return None
    graph, _ = spec.split_graph_params(params)
    weights = {"weight": graph["weight"]}
    if graph["weight"] == "heat":
        # a fixed-heat method without its own t uses the kernel at sigma0 (t = 1)
        weights["t"] = float(graph.get("t", 1.0))
        weights["sigma0"] = sigma0
        if width != "sigma":
            weights["width"] = width
    return weights


@dataclass(frozen=True)
class GraphSection:
    """Config ``graph``: the shared k-NN graph and how methods weight it."""

    k: int
    weight: str
    t: float
    sigma0: str
    source: str
    params: dict
    connect: float
    width: str

    @property
    def knn_stem(self) -> str:
        """File stem of the shared k-NN table, e.g. ``knn5``."""
        return f"knn{self.k}"

    @property
    def weighting(self) -> dict:
        """The fields a job that weights a k-NN table itself uses (stage 2, re-seeds)."""
        return {"sigma0": self.sigma0, "width": self.width}

    def weights(self, spec: MethodSpec, params: dict) -> dict | None:
        return graph_weights(spec, params, **self.weighting)


@dataclass(frozen=True)
class BlufsSection:
    """Config ``blufs``: the BLUFS paper's experiment (``enabled`` False: none of it runs).

    The workflow validates an empty section too, so every field holds the schema's value.
    """

    enabled: bool
    two_stage: dict
    anchor: str
    anchor_metric: str
    reseeds: int
    reseed_methods: tuple
    ablation: tuple
    knn: dict
    cd_alpha: float
    reference: str
    notes: str | None
    figures: dict
    runtime: dict
    synthetic: dict

    @classmethod
    def read(cls, section: dict, enabled: bool) -> BlufsSection:
        return _section(cls, {**section, "enabled": enabled}, "blufs")

    def two_stage_methods(self, methods) -> list[str]:
        """Methods that get a stage-2 search (spec blufs.md §2.8); each must be configured."""
        unknown = [m for m in self.two_stage if m not in methods]
        if unknown:
            raise ValueError(f"config 'blufs.two_stage': method {unknown[0]!r} is not in 'methods'")
        return list(self.two_stage)

    def stage2_grid_size(self, method: str) -> int:
        """Points of a method's stage-2 grid (its jobs' budget: duplicates counted)."""
        return len(expand_grid(method, self.two_stage[method]))


@dataclass(frozen=True)
class PaperSection:
    """Config ``paper``: a paper reproduction's outputs. A sub-section left out of the
    config (no schema default: the output is not made) is None."""

    name: str
    reference: str
    notes: str | None
    nmi: str
    protocol: str
    control: str
    labels: dict
    methods: tuple | None = None
    ablation: dict | None = None
    sensitivity: dict | None = None
    convergence: dict | None = None
    readings: dict | None = None
    crossval: dict | None = None

    @classmethod
    def read(cls, section: dict | None) -> PaperSection | None:
        return _section(cls, section, "paper") if section else None


class Plan:
    """The run described by a validated config and the dataset registry.

    Raises ``ValueError`` naming the offending key for unknown datasets, datasets without
    one class label per sample (unlabelled or multilabel), unknown methods, unknown or
    ill-typed hyper-parameters, and feature counts that do not fit a dataset.
    """

    def __init__(self, config: dict, registry: dict):
        check_plan_size(config)  # before any grid expands (ufsbench.limits)
        self.config = config
        self.registry = registry
        self.datasets = list(config["datasets"])
        for name in self.datasets:
            if name not in registry:
                known = ", ".join(sorted(registry))
                raise ValueError(f"config 'datasets': unknown dataset {name!r} (known: {known})")
            entry = registry[name]
            if entry.n_classes is None or entry.multilabel:
                # the k-means evaluation scores clusters against one class label per sample
                kind = "multilabel" if entry.n_classes is not None else "unlabelled"
                raise ValueError(
                    f"config 'datasets': dataset {name!r} is {kind} and the k-means "
                    f"evaluation needs one class label per sample (use it in css.datasets)"
                )
        self.graph = _section(GraphSection, config["graph"], "graph")
        self.evaluation = _section(EvaluationSection, config["evaluation"], "evaluation")
        self.protocols = list(self.evaluation.protocol)
        run_chunk_size = int(config["chunk_size"])
        self.specs: dict[str, MethodSpec] = {}
        self.settings: dict[str, list[Setting]] = {}
        self.method_datasets: dict[str, list[str]] = {}
        self.method_chunk_size: dict[str, int] = {}
        grids = {}
        for name, entry in config["methods"].items():
            self.specs[name] = resolve_method(name, entry)
            grids[name], only, size = split_method_options(name, entry, registry)
            self.method_datasets[name] = [d for d in self.datasets if only is None or d in only]
            self.method_chunk_size[name] = run_chunk_size if size is None else size
        for name, grid in grids.items():
            self.settings[name] = self._settings(self.specs[name], grid, grids)
        unknown = [name for name in config["feature_counts"] if name not in registry]
        if unknown:
            raise ValueError(
                f"config 'feature_counts': unknown dataset {unknown[0]!r} "
                f"(known: {', '.join(sorted(registry))})"
            )
        for dataset in self.datasets:
            self.feature_counts(dataset)
        self._check_neighbour_counts()
        # The run's other tasks, read from the same validated config: column subset
        # selection (config css) and graph-based clustering (config clustering).
        from .clustering import ClusterPlan  # they import this module's grid functions
        from .css.plan import CssPlan

        self.css = CssPlan(config, registry)
        self.clustering = ClusterPlan(config, registry)

    def _check_neighbour_counts(self):
        """Each k of a k-NN graph (``graph.k``, a method's neighbour count ``k``) must be
        below the n_samples of every dataset it runs on, so no job fails on it later."""
        graph_k = self.graph.k
        for dataset, method in self.runs():
            n = getattr(self.registry[dataset], "n_samples", None)  # a registry states it
            if n is None:
                continue
            spec = self.specs[method]
            if spec.graph is not None and graph_k >= n:
                raise ValueError(
                    f"config 'graph.k': k={graph_k} nearest neighbours need more samples than "
                    f"dataset {dataset!r} has (n_samples={n}, method {method!r})"
                )
            kind = spec.params.get("k")
            if kind is None or kind.allow_none:  # k of the CSS methods is a column budget
                continue
            for s in self.settings[method]:
                k = s.params.get("k")
                if isinstance(k, int) and k >= n:
                    raise ValueError(
                        f"config 'methods.{method}': setting {s.id!r} has k={k} nearest "
                        f"neighbours, which needs more samples than dataset {dataset!r} has "
                        f"(n_samples={n})"
                    )

    # -- methods and settings -------------------------------------------------------
    def graph_defaults(self, spec: MethodSpec) -> dict:
        """Graph hyper-parameters (``weight``, ``t``) the config's ``graph`` section
        supplies to a method that has them: the base every grid point completes."""
        return {key: getattr(self.graph, key) for key in GRAPH_PARAMS if key in spec.params}

    def _settings(self, spec: MethodSpec, grid: dict, grids: dict) -> list[Setting]:
        grid = dict(grid)
        if spec.name == "random" and "draws" in grid:
            grid["seed"] = list(range(self._random_draws(grid.pop("draws"), grids)))
        base = self.graph_defaults(spec)
        default = spec.check_params(base)
        settings = [
            Setting(sid, checked, True, checked == default)
            for sid, checked in grid_settings(spec, grid, base)
        ]
        if "default" in self.protocols and setting_id(default) not in {s.id for s in settings}:
            settings.append(Setting(setting_id(default), default, False, True))
        return settings

    def _random_draws(self, draws, grids) -> int:
        """``draws`` is a count, or a method name: as many draws as it has settings."""
        if isinstance(draws, int) and not isinstance(draws, bool):
            if draws < 1:
                raise ValueError(f"method 'random': draws={draws} must be >= 1")
            return draws
        if draws == "max":
            others = [m for m in grids if m != "random"]
            return max([self._grid_size(m, grids[m]) for m in others] or [1])
        if draws not in grids or draws == "random":
            raise ValueError(
                f"method 'random': draws={draws!r} must be an integer, 'max' or a configured "
                f"method name"
            )
        return self._grid_size(draws, grids[draws])

    def _grid_size(self, method, grid) -> int:
        spec = self.specs[method]
        return len(grid_settings(spec, grid, self.graph_defaults(spec)))

    @property
    def methods(self) -> list[str]:
        return list(self.settings)

    def runs_on(self, dataset: str, method: str) -> bool:
        """Whether the run has ``method`` and runs it on ``dataset``."""
        return method in self.settings and dataset in self.method_datasets[method]

    def runs(self, methods=None) -> list[tuple[str, str]]:
        """The (dataset, method) pairs of the run, dataset-major, in the order of
        ``methods`` (default: every method); methods the run lacks are left out."""
        methods = self.methods if methods is None else methods
        return [(d, m) for d in self.datasets for m in methods if self.runs_on(d, m)]

    def chunks(self, method: str) -> dict[str, list[Setting]]:
        """Settings grouped into jobs: ``{"c0": [...], "c1": [...]}``."""
        settings = self.settings[method]
        size = self.method_chunk_size[method]
        return {
            f"c{i}": settings[i * size : (i + 1) * size]
            for i in range((len(settings) + size - 1) // size)
        }

    # -- datasets -------------------------------------------------------------------
    def n_clusters(self, dataset: str) -> int | None:
        return self.registry[dataset].n_classes

    def feature_counts(self, dataset: str) -> list[int]:
        entry = self.registry[dataset]
        counts = self.config["feature_counts"].get(dataset, entry.feature_counts)
        d = entry.n_features
        if d is not None and counts and max(counts) > d:
            raise ValueError(
                f"config 'feature_counts' of dataset {dataset!r}: cannot select "
                f"{max(counts)} features, the dataset has {d}"
            )
        return sorted(counts)

    # -- graphs ---------------------------------------------------------------------
    @property
    def knn_stem(self) -> str:
        """File stem of the shared k-NN table, e.g. ``knn5``."""
        return self.graph.knn_stem

    def graph_weights(self, method: str, params: dict) -> dict | None:
        """How a setting weights the shared k-NN graph (None: the method needs none)."""
        return self.graph.weights(self.specs[method], params)

    def seed(self, dataset: str, method: str, sid: str) -> int:
        return derive_seed(dataset, method, sid)


def unavailable_datasets(
    names, registry, mirror, *, raw_root="data/raw", probe=True, source_base=None
) -> dict[str, str]:
    """Name -> why its file cannot be had now, for each of ``names`` that cannot.

    Each one is printed as ``ufsbench: skipping dataset '<name>': <why>`` on stderr. A
    name unknown to the registry is left out (the plans report it). ``probe``: try the
    public URL (see :func:`ufsbench.datasets.unavailable_reason`); without it, only the
    mirror and ``raw_root`` count.
    """
    import sys

    from .datasets import unavailable_reason

    reasons = {}
    for name in names:
        entry = registry.get(name)
        if entry is None:
            continue
        target = entry.file_entry
        raw = Path(raw_root) / target.name / target.file if target is not None else None
        reason = unavailable_reason(entry, raw, mirror=mirror, probe=probe, source_base=source_base)
        if reason is not None:
            reasons[name] = reason
            print(f"ufsbench: skipping {reason}", file=sys.stderr)
    return reasons


def available_datasets(
    names, registry, mirror, *, required=True, raw_root="data/raw", source_base=None
) -> list:
    """``names`` without the datasets whose file cannot be had now, each skip printed.

    A name unknown to the registry is kept (the Plan reports it). ``required``: raise
    when nothing is left, rather than run an empty experiment.
    """
    skipped = unavailable_datasets(
        names, registry, mirror, raw_root=raw_root, source_base=source_base
    )
    kept = [name for name in names if name not in skipped]
    if required and names and not kept:
        raise ValueError(f"config 'datasets': none of {list(names)} can be fetched (see above)")
    return kept


def parse_setting_id(spec: MethodSpec, sid: str) -> dict:
    """The parameters of a canonical setting id (inverse of :func:`setting_id`), checked."""
    if sid == "default":
        return spec.check_params({})
    params = {}
    for pair in sid.split(","):
        name, sep, text = pair.partition("=")
        if not sep or name not in spec.params:
            raise ValueError(f"method {spec.name!r}: cannot read setting id {sid!r} at {pair!r}")
        kind = spec.params[name]
        if text == "None" and kind.allow_none:
            params[name] = None
        elif kind.kind is bool:
            params[name] = text == "True"
        elif kind.kind is int:
            params[name] = int(text)
        elif kind.kind is float:
            params[name] = float(text)
        else:
            params[name] = text
    return spec.check_params(params)
