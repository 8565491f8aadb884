"""WA* column selection (Arai et al. 2016), an approximate re-implementation.

Weighted best-first search over column subsets with epsilon = 0.5; the priority is the
reading the POCSS paper leaves open (``priority``, pocss.md section 3.5).
Numerics: :func:`ufsbench.css.baselines.wastar`.
"""

from __future__ import annotations

from ._css_selector import css_selection
from .params import COLUMNS, CSS_SCALE, NON_NEGATIVE, Declaration, Param


def select(
    X, *, graph=None, n_clusters=None, random_state=0, feature_counts=None, k=None,
    scale="unit_column", epsilon=0.5, priority="l_plus_eps_g", max_expansions=2000,
):  # fmt: skip
    """``subsets[m]`` per feature count; ranking from the ``k_max`` subset (spec 8 C)."""
    return css_selection(
        "wastar", X, feature_counts=feature_counts, k=k, scale=scale, epsilon=epsilon,
        priority=priority, max_expansions=max_expansions,
    )  # fmt: skip


METHODS = {
    "wastar": Declaration(
        title="WA*",
        params={
            "k": COLUMNS,
            "scale": CSS_SCALE,
            "epsilon": NON_NEGATIVE,
            "priority": Param(str, options=("l_plus_eps_g", "bounded")),
            "max_expansions": Param(int, low=1),
        },
        count_dependent=True,
        references=(
            (
                "H. Arai, C. Maung, K. Xu, H. Schweitzer. Unsupervised Feature Selection by "
                "Heuristic Search with Provable Bounds on Suboptimality. AAAI 2016."
            ),
            (
                "Implementation spec: shared/specs/pocss.md, section 3.5 (approximate "
                "re-implementation; priority inferred)."
            ),
        ),
    ),
}
