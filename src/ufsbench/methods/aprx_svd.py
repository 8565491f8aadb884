"""Aprx SVD (Civril & Magdon-Ismail 2012) as a feature selector.

For every feature count ``m``: ``m`` columns greedily approximating ``U_m Sigma_m``.
Numerics: :func:`ufsbench.css.baselines.aprx_svd`.
"""

from __future__ import annotations

from ._css_selector import css_selection
from .params import COLUMNS, CSS_SCALE, Declaration


def select(
    X, *, graph=None, n_clusters=None, random_state=0, feature_counts=None, k=None,
    scale="unit_column",
):  # fmt: skip
    """``subsets[m]`` per feature count; ranking from the ``k_max`` subset (spec 8 C)."""
    return css_selection("aprx_svd", X, feature_counts=feature_counts, k=k, scale=scale)


METHODS = {
    "aprx_svd": Declaration(
        title="Aprx SVD",
        params={
            "k": COLUMNS,
            "scale": CSS_SCALE,
        },
        count_dependent=True,
        references=(
            (
                "A. Civril, M. Magdon-Ismail. Column Subset Selection via Sparse Approximation of "
                "SVD. Theoretical Computer Science 2012."
            ),
            "Implementation spec: shared/specs/pocss.md, section 3.4.",
        ),
    ),
}
