"""POCSS's recursive residuals can drift on ill-conditioned data (found by the full run).

The full POCSS run (``config/experiments/pocss.yaml`` at d24506e) returned 49 columns and
error ratio 3.30 on Communities & Crime at k = 50, seed 9, where the other nine seeds gave
1.486-1.496: with one BLAS thread (as every workflow job runs) and a refresh only every 64
updates, the archive's recorded ``f`` values drifted to just above the Eckart-Young floors
while the members' exact ``f`` were 2-5x larger, so members with falsely low ``f``
dominated and evicted the good ones. The kernel now recomputes every offspring from
scratch before the archive accepts it (``refresh=0``, the default); a periodic refresh
every 8 updates also avoids this seed's failure.

The run is an evolutionary search: round-off that differs between CPUs changes its path.
So the behaviour (k columns, an error ratio inside the other seeds' band) is checked
everywhere, and the exact values only on the kind of machine that recorded them.
"""

from __future__ import annotations

import numpy as np
import pytest
from machine_pins import require_recorded_machine
from threadpoolctl import threadpool_limits

from ufsbench.css.evaluate import run_css
from ufsbench.data import load_dataset, normalize
from ufsbench.datasets import find_in_mirror, load_registry

pytestmark = pytest.mark.slow

# the other nine seeds' error ratios at k = 50 were 1.486-1.496; the drifted run gave 3.30
SEEDS_BAND_TOP = 1.5


@pytest.fixture(scope="module")
def communities(mirror):
    entry = load_registry()["communities_crime"]
    X, _, _ = load_dataset(entry, find_in_mirror(entry.file_entry, mirror))
    # pocss.yaml's normalisation
    X, _ = normalize(X, name=entry.name, scheme="unit_column", impute="mean", constant="keep")
    return X


@pytest.fixture(scope="module")
def seed_9_k_50(communities):
    """Seed 9 at k = 50 with one BLAS thread (as every workflow job runs), per refresh."""
    runs = {}

    def run(refresh: int | None):
        if refresh not in runs:
            params = {} if refresh is None else {"refresh": refresh}
            with threadpool_limits(limits=1):
                rows, _ = run_css(
                    communities, "pocss", [50], [9], dataset="communities_crime", params=params
                )
            runs[refresh] = (int(rows["n_selected"].iloc[0]), float(rows["error_ratio"].iloc[0]))
        return runs[refresh]

    return run


@pytest.mark.parametrize("refresh", [None, 8], ids=["default-exact", "refresh-8"])
def test_pocss_keeps_k_columns_on_communities_seed_9(seed_9_k_50, refresh):
    n_selected, ratio = seed_9_k_50(refresh)
    assert n_selected == 50
    assert ratio < SEEDS_BAND_TOP


@pytest.mark.parametrize(
    "refresh, pinned",
    [(None, 1.485538222534549), (8, 1.4859293072308155)],
    ids=["default-exact", "refresh-8"],
)
def test_pocss_error_ratio_pins_on_the_recorded_machine(seed_9_k_50, refresh, pinned):
    require_recorded_machine()
    assert np.isclose(seed_9_k_50(refresh)[1], pinned, rtol=1e-8)


def test_the_spec_refresh_every_64_updates_loses_the_answer(seed_9_k_50):
    # The failure itself, kept reproducible: the option still exists. Measured: 49
    # columns, error ratio 3.30 on the AVX-512 machine of d24506e; 50 columns, 1.854 on
    # the AMD EPYC (AVX2) one, after its exact recompute met a singular G_cc (now rejected
    # instead of raising LinAlgError).
    require_recorded_machine()
    n_selected, ratio = seed_9_k_50(64)
    assert n_selected < 50 or ratio > SEEDS_BAND_TOP
