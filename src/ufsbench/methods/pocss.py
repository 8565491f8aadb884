"""POCSS (Feng, Qian & Tang, AAAI-19) as a feature selector: Pareto optimisation for CSS.

One run at ``k_max`` (``k``, default the largest feature count) with the paper's budget
``2 e k^2 n`` (or ``budget_factor * k n``); every feature count reads its subset from the
final archive. Algorithm and numerics: :mod:`ufsbench.css.pocss`.
"""

from __future__ import annotations

from ._css_selector import css_selection
from .params import COLUMNS, CSS_SCALE, SEED, Declaration, Param


def select(
    X,
    *,
    graph=None,
    n_clusters=None,
    random_state=0,
    feature_counts=None,
    k=None,
    scale="unit_column",
    seed=0,
    budget_factor=None,
    engine="auto",
    refresh=0,
):
    """Select columns with POCSS; ``subsets[m]`` per feature count, ranking by spec 8 C.

    ``graph`` and ``n_clusters`` are ignored (common signature). ``seed`` is a grid of
    repeats; ``budget_factor`` None is the paper's budget.
    """
    return css_selection(
        "pocss",
        X,
        random_state=random_state,
        feature_counts=feature_counts,
        k=k,
        scale=scale,
        seed=seed,
        budget_factor=budget_factor,
        engine=engine,
        refresh=refresh,
    )


METHODS = {
    "pocss": Declaration(
        title="POCSS",
        params={
            "k": COLUMNS,
            "scale": CSS_SCALE,
            "seed": SEED,
            "budget_factor": Param(float, positive=True, allow_none=True),
            "engine": Param(str, options=("auto", "numba", "numpy")),
            "refresh": Param(int, low=0),
        },
        grid={
            "seed": [0],
        },
        count_dependent=True,
        references=(
            (
                "C. Feng, C. Qian, K. Tang. Unsupervised Feature Selection by Pareto Optimization. "
                "AAAI 2019."
            ),
            (
                "Implementation spec: shared/specs/pocss.md, section 2 (budget 2ek^2n unless "
                "budget_factor)."
            ),
        ),
    ),
}
