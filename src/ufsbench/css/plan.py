"""The CSS task of a workflow run, derived from the config's ``css`` section (no numerics).

```yaml
css:
  datasets: [sonar_scale, dna]      # Table 1 datasets (registry names)
  methods: {pocss: {}, greedy_css: {}, iter_fs: {}}   # method -> options (no grids)
  k: [50]                            # Table 1 budgets
  seeds: 10                          # runs of each randomized method (seeds 0..seeds-1)
  curves: {datasets: [dna], k: [50, 60, 70, 80, 90, 100]}   # Figure 1
  anytime: [dna]                     # Figure 2: POCSS traces at the first k of css.k
  reference: resources/reference/pocss_table1.tsv              # the paper's Table 1
  notes: measured/pocss/notes.tsv                   # why cells miss (optional)
```

A dataset whose file cannot be had on this machine is left out with :meth:`CssPlan.skip`
(the workflow asks :func:`ufsbench.plan.unavailable_datasets` when the config says
``unavailable: skip``); :attr:`CssPlan.skipped` keeps the registry's reason, which the
tables report beside the paper's numbers.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from ..constraints import Param
from ..methods.registry import get_method

# The solvers (``.solvers``: METHODS, RANDOMIZED) are imported where a css section needs
# them: they load POCSS's compiled kernel (numba), ~0.4 CPU s that every command of a
# run without one would pay.

# Options each CSS method takes in ``css.methods`` (checked before any job runs): the
# constraints its selector module declares, but for what the CSS task sets itself (the
# subset size, the column scaling and the seed), and POCSS's fixed iteration count.
_SET_BY_THE_TASK = ("k", "scale", "seed")
_TASK_ONLY = {"pocss": {"iterations": Param(int, low=0, allow_none=True)}}


def _options(method: str) -> dict[str, Param]:
    declared = get_method(method).params
    own = {key: p for key, p in declared.items() if key not in _SET_BY_THE_TASK}
    return {**_TASK_ONLY.get(method, {}), **own}


@functools.cache
def method_options() -> dict[str, dict[str, Param]]:
    """Method -> the options it takes in ``css.methods``, every CSS method."""
    from .solvers import METHODS

    return {method: _options(method) for method in METHODS}


@dataclass(frozen=True)
class CssJob:
    dataset: str
    method: str
    k: int
    seed: int

    @property
    def stem(self) -> str:
        """The job's outputs' path stem inside the run's results folder."""
        return f"css/{self.dataset}/{self.method}/k{self.k}/s{self.seed}"


# What CssPlan reads of the css section (each has a schema default, but methods).
_SECTION_KEYS = ("datasets", "methods", "k", "seeds", "curves", "anytime", "reference", "notes")


class CssPlan:
    """Jobs of the CSS task; raises ``ValueError`` naming the offending ``css`` key."""

    def __init__(self, config: dict, registry: dict):
        css = config.get("css") or {}  # absent or empty: the task does not run
        self.enabled = bool(css)
        if self.enabled:
            # a validated section: workflow/schemas/config.schema.yaml filled its defaults
            missing = [key for key in _SECTION_KEYS if key not in css]
            if missing:
                raise ValueError(
                    f"config 'css.{missing[0]}' is missing: the plan reads a config validated "
                    f"against workflow/schemas/config.schema.yaml, which fills in the defaults"
                )
        else:
            css = dict.fromkeys(_SECTION_KEYS)
        self.datasets = list(css["datasets"] or [])
        self.methods = {}
        for name, given in (css["methods"] or {}).items():
            if name not in method_options():
                raise ValueError(
                    f"config 'css.methods': unknown CSS method {name!r} (known: "
                    f"{', '.join(method_options())})"
                )
            self.methods[name] = self._check_options(name, given or {})
        self.ks = [int(k) for k in css["k"] or []]
        self.seeds = css["seeds"] or 0
        curves = css["curves"] or dict.fromkeys(("datasets", "k"))
        self.curve_datasets = list(curves["datasets"] or [])
        self.curve_ks = [int(k) for k in curves["k"] or []]
        self.anytime = list(css["anytime"] or [])
        self.reference = css["reference"]
        self.notes = css["notes"]
        self.skipped: dict[str, str] = {}
        for key, names in (
            ("css.datasets", self.datasets),
            ("css.curves.datasets", self.curve_datasets),
            ("css.anytime", self.anytime),
        ):
            for name in names:
                if name not in registry:
                    raise ValueError(f"config '{key}': unknown dataset {name!r}")
        if self.anytime and "pocss" not in self.methods:
            raise ValueError("config 'css.anytime' needs method pocss in 'css.methods'")
        if self.enabled and not self.methods:
            raise ValueError("config 'css.methods' is empty")
        for dataset, k in self._pairs():
            entry = registry[dataset]
            limit = min(entry.n_samples, entry.n_features)
            if not 1 <= k <= limit:
                raise ValueError(
                    f"config 'css': k={k} does not fit dataset {dataset!r} "
                    f"({entry.n_samples} x {entry.n_features})"
                )

    def skip(self, reasons: dict[str, str]):
        """Leave out the datasets of ``reasons`` (name -> why its file cannot be had).

        They are removed from Table 1, the curves and the anytime figure, and kept in
        :attr:`skipped` with their reason. Raises ``ValueError`` when no dataset is left.
        """
        for name, reason in reasons.items():
            if name not in self.all_datasets:
                continue
            self.skipped[name] = reason
            for names in (self.datasets, self.curve_datasets, self.anytime):
                if name in names:
                    names.remove(name)
        if self.enabled and self.skipped and not self.all_datasets:
            raise ValueError(
                f"config 'css': none of the datasets can be had on this machine "
                f"({', '.join(self.skipped)}; see the skip lines above)"
            )

    @staticmethod
    def _check_options(method: str, options: dict) -> dict:
        known = method_options()[method]
        for key, value in options.items():
            if key not in known:
                names = ", ".join(sorted(known)) or "none"
                raise ValueError(
                    f"config 'css.methods.{method}': unknown option {key!r} (known: {names})"
                )
            options[key] = known[key].check(method, key, value)
        return dict(options)

    def _pairs(self):
        pairs = [(d, k) for d in self.datasets for k in self.ks]
        pairs += [(d, k) for d in self.curve_datasets for k in self.curve_ks]
        pairs += [(d, self.ks[0]) for d in self.anytime]
        return list(dict.fromkeys(pairs))

    @property
    def all_datasets(self) -> list[str]:
        return list(dict.fromkeys([*self.datasets, *self.curve_datasets, *self.anytime]))

    def seeds_of(self, method: str) -> list[int]:
        from .solvers import RANDOMIZED

        return list(range(self.seeds)) if method in RANDOMIZED else [0]

    def jobs(self) -> list[CssJob]:
        jobs = []
        for dataset, k in self._pairs():
            methods = self.methods
            if (dataset, k) not in [(d, kk) for d in self.datasets for kk in self.ks] and (
                dataset not in self.curve_datasets or k not in self.curve_ks
            ):
                # anytime-only datasets: POCSS and the two baselines of Figure 2
                methods = [m for m in self.methods if m in ("pocss", "greedy_css", "iter_fs")]
            for method in methods:
                for seed in self.seeds_of(method):
                    jobs.append(CssJob(dataset, method, k, seed))
        return jobs


def css_runtime(method: str, n_samples: int, n_features: int, k: int) -> int:
    """Minutes for one CSS run. POCSS: 2ek^2n iterations at 2 us (k/50)^2 each (compiled
    kernel: its matrix-vector products grow with the archive's sizes; measured 1.4 us on
    madelon at k = 50, 4.0 on dna at k = 90, 6.7 on scene at k = 100, CPU time), with a 5x
    margin for loaded machines; the others are O(k n^2 + m n^2) and take seconds at the
    paper's sizes, WA* excepted (one eigendecomposition per expansion)."""
    gram = n_samples * n_features**2 / 2e9  # seconds for X^T X and the SVD
    if method == "pocss":
        per_iteration = 2e-6 * max(1.0, (k / 50) ** 2)
        seconds = 2 * math.e * k * k * n_features * per_iteration * 5
    elif method == "wastar":
        seconds = 50 * k * (n_features**3 / 1e9 + k * n_features**2 * 60 / 1e9)
    else:
        seconds = 100 * k * n_features**2 / 1e9 * 10
    return 5 + math.ceil((seconds + gram) / 60)


def css_mem_mb(n_samples: int, n_features: int, k: int) -> int:
    """Data, G and G2 (n x n), and POCSS's archive: two (2k)^3 arrays and the one-flip
    value cache (2k x n)."""
    slots = min(2 * k, n_features + 1)
    floats = 3 * n_samples * n_features + 4 * n_features**2 + 2 * slots**3 + slots * n_features
    return 400 + math.ceil(floats * 8 / 1e6)
