"""Two-stage CSS (Boutsidis, Mahoney & Drineas 2009) as a feature selector.

Randomised leverage sampling of about ``2m`` columns, then a column-pivoted QR picks
``m``. Numerics: :func:`ufsbench.css.baselines.two_stage`.
"""

from __future__ import annotations

from ._css_selector import css_selection
from .params import COLUMNS, CSS_SCALE, POSITIVE, SEED, Declaration


def select(
    X, *, graph=None, n_clusters=None, random_state=0, feature_counts=None, k=None,
    scale="unit_column", seed=0, c_factor=2.0,
):  # fmt: skip
    """``subsets[m]`` per feature count; ``seed`` is a grid of repeats."""
    return css_selection(
        "two_stage", X, random_state=random_state, feature_counts=feature_counts, k=k,
        scale=scale, seed=seed, c_factor=c_factor,
    )  # fmt: skip


METHODS = {
    "two_stage": Declaration(
        title="Two-stage",
        params={
            "k": COLUMNS,
            "scale": CSS_SCALE,
            "seed": SEED,
            "c_factor": POSITIVE,
        },
        grid={
            "seed": [0],
        },
        count_dependent=True,
        references=(
            (
                "C. Boutsidis, M. W. Mahoney, P. Drineas. An Improved Approximation Algorithm for "
                "the Column Subset Selection Problem. SODA 2009."
            ),
            "Implementation spec: shared/specs/pocss.md, section 3.3.",
        ),
    ),
}
