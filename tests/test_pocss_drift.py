"""POCSS's recursive residuals can drift on ill-conditioned data (found by the full run).

The full POCSS run (``config/experiments/pocss.yaml`` at d24506e) returned 49 columns and
error ratio 3.30 on Communities & Crime at k = 50, seed 9, where the other nine seeds give
1.486-1.496: with one BLAS thread (as every workflow job runs) the archive's recorded
``f`` values drift to just above the Eckart-Young floors while the members' exact ``f``
are 2-5x larger, so members with falsely low ``f`` dominate and evict the good ones. The
floor check catches drift below the floor, not drift that stays above it. With
``refresh=8`` (an exact recompute every 8 updates, at acceptance) the same seed gives
1.4855. Marked strict xfail until the kernel verifies what it accepts: the fix makes this
test pass, which fails the run, so the marker must go with the fix.
"""

from __future__ import annotations

import numpy as np
import pytest
from threadpoolctl import threadpool_limits

from ufsbench.css.evaluate import run_css
from ufsbench.data import load_dataset, normalize
from ufsbench.datasets import find_in_mirror, load_registry

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def communities(mirror):
    entry = load_registry()["communities_crime"]
    X, _, _ = load_dataset(entry, find_in_mirror(entry.file_entry, mirror))
    # pocss.yaml's normalisation
    X, _ = normalize(X, name=entry.name, scheme="unit_column", impute="mean", constant="keep")
    return X


@pytest.mark.xfail(strict=True, reason="recursive f drift above the Eckart-Young floor")
def test_pocss_keeps_k_columns_on_communities_seed_9_with_one_blas_thread(communities):
    with threadpool_limits(limits=1):
        rows, _ = run_css(communities, "pocss", [50], [9], dataset="communities_crime")
    assert rows["n_selected"].tolist() == [50]
    assert rows["error_ratio"].iloc[0] < 1.5


def test_an_exact_recompute_every_8_updates_keeps_the_answer(communities):
    with threadpool_limits(limits=1):
        rows, _ = run_css(
            communities, "pocss", [50], [9], dataset="communities_crime", params={"refresh": 8}
        )
    assert rows["n_selected"].tolist() == [50]
    assert np.isclose(rows["error_ratio"].iloc[0], 1.4855382225, rtol=1e-8)
