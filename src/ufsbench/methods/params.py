"""The types a method module declares itself with: a hyper-parameter's constraint and its entry.

A method module ``ufsbench/methods/<module>.py`` holds ``select`` and, beside it,

    METHODS = {"<name>": Declaration(title=..., params={...}, grid={...}, ...)}

the registry entries that ``select`` serves (a family's variants are further entries
that ``bind`` fixed options of the same ``select``). :mod:`.registry` discovers them.
Defaults are never declared: a hyper-parameter's default is the default of its keyword
in ``select`` (graph hyper-parameters: of :func:`ufsbench.graph.knn_graph`, which builds
the graph), read by :meth:`MethodSpec.declared`.
"""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass, field

from ..constraints import Param
from ..graph import knn_graph

# Hyper-parameters that describe the sample graph; the caller builds the graph with them.
GRAPH_PARAMS = ("weight", "t")
# Arguments of every select(); never hyper-parameters.
COMMON_ARGS = ("X", "graph", "n_clusters", "random_state", "feature_counts")


POSITIVE = Param(float, positive=True)
NON_NEGATIVE = Param(float, low=0.0)
ITERATIONS = Param(int, low=1)
WIDTH = Param(float, positive=True)
NEIGHBOURS = Param(int, low=1)
COMPONENTS = Param(int, low=1, allow_none=True)  # None: the method's own choice
SEED = Param(int, low=0)
GRAPH_WEIGHT = Param(str, options=("binary", "heat"))
# Column subset selection: the size k of the solved subset (None: the largest feature
# count) and the scaling of the columns before it.
COLUMNS = Param(int, low=1, allow_none=True)
CSS_SCALE = Param(str, options=("unit_column", "none"))


def decades(low: int, high: int) -> list[float]:
    """``[10^low, ..., 10^high]``, the usual grid of a regularisation weight."""
    return [10.0**p for p in range(low, high + 1)]


def pick(catalogue: dict, *names: str) -> dict:
    """The constraints of ``names`` from a family's catalogue of constraints."""
    return {name: catalogue[name] for name in names}


@dataclass(frozen=True)
class Declaration:
    """One registry entry as its method module declares it (everything but defaults).

    ``params`` are the hyper-parameters the entry exposes, each with its constraint;
    every one must be a keyword of ``select`` with a default (or a graph parameter).
    ``bind`` fixes other keywords of ``select`` (a variant of a family). ``graph`` is None
    (no sample graph), ``"binary"`` or ``"heat"`` (fixed weights) or ``"param"`` (weights
    chosen by the ``weight`` hyper-parameter). ``grid`` is the default grid; a key
    ``"a, b"`` holds tuples of coupled values, so the grid contains no invalid combination.
    ``seed_free(n_samples, n_features)`` is true for data shapes on which ``random_state``
    cannot change the selection (a re-seeding then fits once); None: it always may.
    """

    title: str
    params: dict[str, Param] = field(default_factory=dict)
    grid: dict = field(default_factory=dict)
    graph: str | None = None
    needs_n_clusters: bool = False
    count_dependent: bool = False
    iterative: bool = False
    uses_all_features: bool = False
    references: tuple[str, ...] = ()
    bind: dict = field(default_factory=dict)
    seed_free: Callable[[int, int], bool] | None = None


def signature_defaults(select) -> dict:
    """The keyword defaults of a ``select`` function (its hyper-parameters and options)."""
    return {
        name: p.default
        for name, p in inspect.signature(select).parameters.items()
        if name not in COMMON_ARGS and p.default is not inspect.Parameter.empty
    }


_GRAPH_DEFAULTS = {name: signature_defaults(knn_graph)[name] for name in GRAPH_PARAMS}


@dataclass(frozen=True, kw_only=True)
class MethodSpec(Declaration):
    """Registry entry of one method: a module's declaration with its derived defaults.

    ``bind`` holds the keywords passed to ``select`` besides the hyper-parameters: a
    variant's fixed options and, when ``select`` takes one, ``method`` (the entry's name,
    for its error messages).
    """

    name: str
    module: str
    defaults: dict = field(default_factory=dict)

    @classmethod
    def declared(cls, name: str, module: str, declaration: Declaration, select) -> MethodSpec:
        """The entry of ``declaration`` in ``module``; defaults read from ``select``.

        Raises ``ValueError`` for a hyper-parameter without a default in ``select`` and
        for a bound option that ``select`` does not take or that is also a parameter.
        """
        own = signature_defaults(select)
        defaults = {}
        for key in declaration.params:
            if key in GRAPH_PARAMS and key not in own:
                defaults[key] = _GRAPH_DEFAULTS[key]
            elif key in own:
                defaults[key] = own[key]
            else:
                raise ValueError(f"method {name!r}: parameter {key!r} has no default in select()")
        bind = dict(declaration.bind)
        if "method" in own:
            bind["method"] = name
        for key in bind:
            if key not in own or key in declaration.params:
                raise ValueError(f"method {name!r}: cannot bind {key!r} of {module}.select()")
        fields = {k: getattr(declaration, k) for k in Declaration.__dataclass_fields__}
        fields.update(defaults=defaults, bind=bind)
        return cls(name=name, module=module, **fields)

    @property
    def function(self):
        select = importlib.import_module(f"ufsbench.methods.{self.module}").select
        return functools.partial(select, **self.bind) if self.bind else select

    @property
    def source_file(self) -> str:
        return importlib.import_module(f"ufsbench.methods.{self.module}").__file__

    def check_params(self, params: dict) -> dict:
        """Defaults completed with ``params``, each checked; unknown names raise."""
        unknown = sorted(set(params) - set(self.params))
        if unknown:
            known = ", ".join(sorted(self.params)) or "none"
            raise ValueError(
                f"method {self.name!r}: unknown parameter {unknown[0]!r} (known: {known})"
            )
        merged = {**self.defaults, **params}
        return {key: self.params[key].check(self.name, key, value) for key, value in merged.items()}

    def split_graph_params(self, params: dict) -> tuple[dict, dict]:
        """(graph hyper-parameters, method hyper-parameters) of a checked parameter dict."""
        graph = {k: v for k, v in params.items() if k in GRAPH_PARAMS}
        if self.graph in ("binary", "heat"):
            graph["weight"] = self.graph
        hyper = {k: v for k, v in params.items() if k not in GRAPH_PARAMS}
        return graph, hyper
