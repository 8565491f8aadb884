"""Greedy CSS (Farahat, Ghodsi & Kamel 2011) as a feature selector.

Columns in the order the greedy reconstruction-error criterion adds them (a nested
ranking, computed once for every feature count).
Numerics: :func:`ufsbench.css.baselines.greedy_css`.
"""

from __future__ import annotations

from ._css_selector import css_selection
from .params import CSS_SCALE, Declaration


def select(
    X, *, graph=None, n_clusters=None, random_state=0, feature_counts=None, scale="unit_column"
):
    """Rank every column by the step at which greedy CSS selects it (dependent ones last)."""
    return css_selection("greedy_css", X, feature_counts=feature_counts, scale=scale)


METHODS = {
    "greedy_css": Declaration(
        title="Greedy",
        params={
            "scale": CSS_SCALE,
        },
        references=(
            (
                "A. K. Farahat, A. Ghodsi, M. S. Kamel. An Efficient Greedy Method for "
                "Unsupervised Feature Selection. ICDM 2011."
            ),
            "Implementation spec: shared/specs/pocss.md, section 3.1.",
        ),
    ),
}
