"""Column subset selection: objective, recursive updates, POCSS and the five baselines."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from conftest import assert_permutation
from snakemake_cli import validated

from ufsbench import rank_features
from ufsbench.css import baselines, table
from ufsbench.css._pocss_kernel import HAVE_NUMBA
from ufsbench.css.objective import error_ratio, residual_sq, svd_tails
from ufsbench.css.pocss import gram_pair, paper_budget, pocss, residual_floor
from ufsbench.css.ranking import subset_ranking
from ufsbench.css.solvers import METHODS, solve
from ufsbench.css.updates import GramState, PinvState, exact_state
from ufsbench.reference import load_reference

ROOT = Path(__file__).resolve().parents[1]
CSS_SELECTORS = ("pocss", "greedy_css", "aprx_svd", "two_stage", "iter_fs", "wastar")


def unit_columns(X):
    return X / np.linalg.norm(X, axis=0)


@pytest.fixture(scope="module")
def tricky():
    """30 x 20 of rank 18: an exact duplicate, a zero column and a column 8% off the span
    of two others (closer ones exceed the 1e-9 target: the Gram form's error grows as
    eps cond(S)^2 -- measured 2e-9 at 2.5%)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 20))
    X[:, 7] = X[:, 3]  # duplicate
    X[:, 11] = 0.0  # zero column
    X[:, 5] = X[:, 1] + 0.5 * X[:, 2] + 0.1 * rng.normal(size=30)  # nearly in the span
    return X


def random_walk(n, steps, rng):
    """A long random sequence of ('insert' | 'delete', column) operations."""
    chosen: set[int] = set()
    for _ in range(steps):
        if chosen and (len(chosen) >= n - 1 or rng.random() < 0.45):
            j = int(rng.choice(sorted(chosen)))
            chosen.discard(j)
            yield "delete", j
        else:
            j = int(rng.choice(sorted(set(range(n)) - chosen)))
            chosen.add(j)
            yield "insert", j


@pytest.mark.parametrize("form", ["gram", "gram2", "pinv"])
def test_recursive_updates_match_direct_recomputation(tricky, form):
    X = tricky
    G = X.T @ X
    if form == "pinv":
        state = PinvState(X)
    else:
        state = GramState(G, G @ G if form == "gram2" else None)
    rng = np.random.default_rng(0)
    rejected = 0
    # the paper's S+ form drifts faster over long chains (5e-9 after 1000 steps)
    steps = 250 if form == "pinv" else 1500
    for op, j in random_walk(X.shape[1], steps, rng):
        if op == "insert":
            if not state.insert(j):
                rejected += 1
                continue
        elif j in state.cols:
            state.delete(j)
        else:
            continue  # a rejected insert was never added
        direct = residual_sq(X, state.cols)
        # relative to f, or to ||A||^2 once the subset spans A (f = 0 up to round-off)
        assert abs(state.f - direct) <= 1e-9 * max(direct, 1e-3 * np.trace(G))
        if form == "pinv":
            np.testing.assert_allclose(
                state.P, np.linalg.pinv(X[:, state.cols]), rtol=1e-6, atol=1e-8
            )
        elif state.cols:
            H, f = exact_state(G, state.cols)
            np.testing.assert_allclose(state.H, H, rtol=1e-6, atol=1e-6 * np.abs(H).max())
    assert rejected > 0  # the duplicate and the zero column were refused at some point


def test_dependent_columns_are_refused():
    X = np.random.default_rng(1).normal(size=(10, 4))
    X[:, 2] = 2.0 * X[:, 0]
    X[:, 3] = 0.0
    for state in (GramState(X.T @ X), PinvState(X)):
        assert state.insert(0)
        f = state.f
        assert not state.insert(2) and not state.insert(3)
        assert state.f == f and state.cols == [0]


def test_error_ratio_at_least_one_and_one_at_low_rank():
    rng = np.random.default_rng(2)
    X = unit_columns(rng.normal(size=(40, 25)))
    tails = svd_tails(X)
    for k in (1, 5, 12):
        for _ in range(5):
            idx = rng.choice(25, size=k, replace=False)
            assert error_ratio(X, idx, k, tails=tails) >= 1.0
            assert error_ratio(X, idx[: k // 2], k, tails=tails) >= 1.0
    low = rng.normal(size=(30, 3)) @ rng.normal(size=(3, 12))  # rank 3
    assert error_ratio(low, [0, 4, 9], 3) == 1.0
    assert error_ratio(low, [0, 4, 9], 5) == 1.0
    # the greedy subset of a rank-3 matrix spans it
    assert error_ratio(low, baselines.greedy_css(low.T @ low, 3), 3) == 1.0


def test_error_ratio_matches_its_definition():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(15, 8))
    idx = [1, 3, 6]
    S = X[:, idx]
    numerator = np.linalg.norm(X - S @ np.linalg.pinv(S) @ X) ** 2
    s = np.linalg.svd(X, compute_uv=False)
    assert error_ratio(X, idx, 4) == pytest.approx(numerator / (s[4:] ** 2).sum(), rel=1e-10)


def test_bad_input_raises():
    X = np.random.default_rng(5).normal(size=(10, 6))
    with pytest.raises(ValueError, match="at most k"):
        error_ratio(X, [0, 1, 2], 2)
    with pytest.raises(ValueError, match="repeat"):
        residual_sq(X, [1, 1])
    with pytest.raises(ValueError, match="must lie in"):
        residual_sq(X, [6])
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        pocss(bad, 2)
    with pytest.raises(ValueError, match="k=0"):
        pocss(X, 0)
    with pytest.raises(ValueError, match="k=7"):
        baselines.greedy_css(X.T @ X, 7)
    with pytest.raises(ValueError, match="engine"):
        pocss(X, 2, engine="fortran")
    with pytest.raises(ValueError, match="unknown CSS method"):
        solve("lasso", X, 2)
    with pytest.raises(ValueError, match="priority"):
        baselines.wastar(X.T @ X, 2, priority="greedy")
    with pytest.raises(ValueError, match="parameter 'engine'"):
        rank_features(X, "pocss", engine="fortran")


def naive_greedy(X, k):
    chosen = []
    for _ in range(k):
        rest = [j for j in range(X.shape[1]) if j not in chosen]
        chosen.append(min(rest, key=lambda j: residual_sq(X, [*chosen, j])))
    return chosen


def test_greedy_matches_brute_force_greedy():
    X = unit_columns(np.random.default_rng(6).normal(size=(40, 25)))
    assert baselines.greedy_css(X.T @ X, 8).tolist() == naive_greedy(X, 8)


def best_subset(X, k):
    return min(itertools.combinations(range(X.shape[1]), k), key=lambda s: residual_sq(X, s))


def test_pocss_finds_the_optimum_of_a_tiny_matrix():
    X = unit_columns(np.random.default_rng(7).normal(size=(12, 9)))
    result = pocss(X, 3, seed=1, engine="numpy")  # paper budget: 2e * 9 * 9 = 440
    assert sorted(result.subset.tolist()) == list(best_subset(X, 3))
    assert result.f == pytest.approx(residual_sq(X, best_subset(X, 3)), rel=1e-12)


def test_pocss_archive_is_mutually_non_dominated():
    X = unit_columns(np.random.default_rng(8).normal(size=(30, 16)))
    result = pocss(X, 4, iterations=3000, seed=2, engine="numpy", refresh=8)
    sizes = sorted(result.archive)
    assert sizes[0] == 0 and max(sizes) < 2 * 4
    values = [result.archive_f[s] for s in sizes]
    assert all(b < a for a, b in itertools.pairwise(values))  # f falls as size grows
    for s in sizes:  # every member is what its slot says, and its f is right
        assert len(result.archive[s]) == s
        assert result.archive_f[s] == pytest.approx(residual_sq(X, result.archive[s]), rel=1e-9)
    trace = result.trace
    assert trace[0, 0] == 0 and trace[0, 2] == pytest.approx(np.trace(X.T @ X))
    assert np.all(np.diff(trace[:, 0]) > 0) and np.all(np.diff(trace[:, 2]) <= 1e-12)
    assert np.all(trace[:, 3] <= 4)
    assert result.evaluations < result.iterations


def near_low_rank(seed, n=120, rank=12, d=48, noise=1e-2):
    """Unit columns that all lie within ``noise`` of a rank-``rank`` space: the chains of
    rank-1 updates lose digits as ``cond(G_cc)^2`` here."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, rank)) @ rng.normal(size=(rank, d))
    return unit_columns(X + noise * rng.normal(size=(n, d)))


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed (extra 'fast')")
@pytest.mark.parametrize("seed", [0, 3])
def test_pocss_archive_compares_exact_residuals_on_ill_conditioned_columns(seed):
    # With only a periodic refresh (the spec's 64 updates) the recorded f of these members
    # was off by 67-70 % and the answer worse by up to 45 %; verified acceptance keeps them
    # within 1e-3 of the exact values (measured 2-3e-5: the Gram form's own round-off
    # here), and the front is a front by exact f.
    X = near_low_rank(seed)
    result = pocss(X, 20, iterations=100_000, seed=seed)
    sizes = sorted(result.archive)
    for s in sizes[1:]:
        assert result.extra["recorded_f"][s] == pytest.approx(result.archive_f[s], rel=1e-3)
    values = [result.archive_f[s] for s in sizes]
    assert all(b < a for a, b in itertools.pairwise(values))
    periodic = pocss(X, 20, iterations=100_000, seed=seed, refresh=64)
    assert result.f <= periodic.f * (1 + 1e-9)


def test_pocss_is_seeded():
    X = unit_columns(np.random.default_rng(9).normal(size=(25, 14)))
    a = pocss(X, 3, iterations=2000, seed=4, engine="numpy")
    b = pocss(X, 3, iterations=2000, seed=4, engine="numpy")
    assert np.array_equal(a.trace, b.trace) and np.array_equal(a.subset, b.subset)
    for method in ("two_stage", "iter_fs"):
        first = solve(method, X, 4, seed=3).subset
        assert np.array_equal(first, solve(method, X, 4, seed=3).subset)


@pytest.mark.skipif(not HAVE_NUMBA, reason="numba is not installed (extra 'fast')")
def test_numba_and_numpy_builds_agree():
    X = unit_columns(np.random.default_rng(10).normal(size=(40, 24)))
    X[:, 4] = 0.0  # a zero column, so rejections happen in both builds (no ties)
    fast = pocss(X, 5, iterations=6000, seed=11, engine="numba", refresh=16)
    plain = pocss(X, 5, iterations=6000, seed=11, engine="numpy", refresh=16)
    assert fast.evaluations == plain.evaluations
    assert fast.archive.keys() == plain.archive.keys()
    for s in fast.archive:
        assert np.array_equal(fast.archive[s], plain.archive[s])
    np.testing.assert_allclose(fast.trace, plain.trace, rtol=1e-9)


def kernel_builds(helper: str):
    from ufsbench.css import _pocss_kernel as kernel

    builds = [("numpy", kernel._numpy_helpers()[helper])]
    if HAVE_NUMBA:
        builds.append(("numba", getattr(kernel, helper)))
    return builds


def screen_builds():
    return kernel_builds("screen")


@pytest.mark.parametrize("build, exact", kernel_builds("exact"))
def test_exact_recompute_rejects_a_singular_subset_instead_of_raising(build, exact):
    """The drift control's recompute from scratch meets an exactly singular G_cc when
    round-off let dependent columns in (refresh=64 on Communities & Crime did): the
    offspring is rejected (f = inf), the run goes on."""
    G = np.array([[1.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 0.0, 2.0]])
    Hy, My = np.zeros((3, 3)), np.eye(3)
    assert exact(G, np.array([0, 1]), 2, Hy, My, 4.0) == np.inf
    assert exact(G, np.array([0, 2]), 2, Hy, My, 4.0) == pytest.approx(4.0 - 1.5)


@pytest.mark.parametrize("build, screen", screen_builds())
def test_block_screen_matches_direct_recomputation(tricky, build, screen):
    """The read-only f of a few-flip offspring (block formulas on the parent's state)
    equals f of the offspring's columns from scratch; NaN when it is rank-deficient."""
    from ufsbench.css._pocss_kernel import SCREEN_MAX_FLIPS

    X = tricky
    G, G2 = gram_pair(X)
    n, K = X.shape[1], 12
    rng = np.random.default_rng(5)
    blk = np.zeros((5, SCREEN_MAX_FLIPS, K + 1))
    small = np.zeros((3, SCREEN_MAX_FLIPS, SCREEN_MAX_FLIPS))
    flips = np.zeros((2, SCREEN_MAX_FLIPS), dtype=np.int64)
    independent = [j for j in range(n) if j not in (7, 11)]  # no duplicate, no zero
    checked = refused = 0
    for trial in range(300):
        p = int(rng.integers(1, K - SCREEN_MAX_FLIPS))
        parent = rng.choice(independent, size=p, replace=False)
        H, f_parent = exact_state(G, parent)
        Hp, Mp, cols = np.zeros((K, K)), np.zeros((K, K)), np.zeros(K, dtype=np.int64)
        Hp[:p, :p], Mp[:p, :p], cols[:p] = H, G2[np.ix_(parent, parent)], parent
        nd = int(rng.integers(0, min(p, SCREEN_MAX_FLIPS) + 1))
        ni = int(rng.integers(0 if nd else 1, SCREEN_MAX_FLIPS - nd + 1))
        deleted = rng.choice(p, size=nd, replace=False)
        pool = [j for j in range(n) if j not in parent] if trial % 3 else independent
        inserted = rng.choice([j for j in pool if j not in parent], size=ni, replace=False)
        flips[0, :nd], flips[1, :ni] = deleted, inserted
        f = screen(G, G2, Hp, Mp, cols, p, f_parent, 1e-10, flips[0], nd, flips[1], ni, blk, small)
        child = np.concatenate([np.delete(parent, deleted), inserted]).astype(int)
        if np.linalg.matrix_rank(X[:, child], tol=1e-8) < child.size:
            assert np.isnan(f), (build, trial)  # the sequential updates refuse it too
            refused += 1
            continue
        direct = residual_sq(X, child)
        assert f == pytest.approx(direct, rel=1e-9, abs=1e-9 * np.trace(G)), (build, trial)
        checked += 1
    assert checked > 150 and refused > 10  # both branches were exercised


@pytest.mark.parametrize("engine", ["numpy", "numba"] if HAVE_NUMBA else ["numpy"])
def test_screen_does_not_change_the_run(engine, monkeypatch):
    """Screening multi-flip offspring only skips work: the archive and trace are those of
    building every offspring's state (SCREEN_MAX_FLIPS = 0 turns the screen off)."""
    import ufsbench.css.pocss as pocss_module

    X = unit_columns(np.random.default_rng(12).normal(size=(40, 16)))
    X[:, 6] = X[:, 2]  # a duplicate: rank-deficient offspring occur
    runs = []
    for flips in (4, 0):
        monkeypatch.setattr(pocss_module, "SCREEN_MAX_FLIPS", flips)
        runs.append(pocss(X, 5, iterations=20_000, seed=7, engine=engine, refresh=16))
    screened, built = runs
    assert screened.evaluations == built.evaluations
    assert {s: m.tolist() for s, m in screened.archive.items()} == {
        s: m.tolist() for s, m in built.archive.items()
    }
    np.testing.assert_allclose(screened.trace, built.trace, rtol=1e-9)


def test_budget_is_the_papers():
    assert paper_budget(50, 60) == 815_485
    assert paper_budget(50, 500) == 6_795_705


@pytest.mark.parametrize("method", CSS_SELECTORS)
def test_css_selectors_give_permutations_and_subsets(method):
    X = np.random.default_rng(12).normal(size=(50, 18))
    X[:, 6] = 0.0
    params = {"budget_factor": 10.0, "engine": "numpy"} if method == "pocss" else {}
    sel = rank_features(X, method, feature_counts=[2, 4], **params)
    assert_permutation(sel.ranking, 18)
    assert sel.ranking[-1] == 6 or method == "greedy_css" and 6 not in sel.ranking[:17]
    for m in (2, 4):
        subset = sel.top(m)
        assert len(subset) <= m and len(set(subset.tolist())) == len(subset)
        assert 6 not in subset.tolist()


def test_subset_ranking_starts_with_the_subset():
    X = unit_columns(np.random.default_rng(13).normal(size=(30, 12)))
    G = X.T @ X
    ranking = subset_ranking(G, [7, 2, 9])
    assert_permutation(ranking, 12)
    assert set(ranking[:3].tolist()) == {2, 7, 9}
    # backward elimination: the first two are the best pair inside the subset
    pairs = itertools.combinations([2, 7, 9], 2)
    assert set(ranking[:2].tolist()) == set(min(pairs, key=lambda p: residual_sq(X, p)))


def test_solvers_respect_k():
    X = unit_columns(np.random.default_rng(14).normal(size=(40, 20)))
    for method in METHODS:
        params = {"iterations": 2000, "engine": "numpy"} if method == "pocss" else {}
        subset = solve(method, X, 5, seed=0, **params).subset
        assert len(subset) <= 5 and len(set(subset.tolist())) == len(subset)
        assert error_ratio(X, subset, 5) >= 1.0


def test_average_ranks_reproduce_the_papers_row():
    ref = load_reference(ROOT / "resources" / "reference" / "pocss_table1.tsv")
    ranks = table.average_ranks(ref)
    expected = {
        "two_stage": 5.7,
        "aprx_svd": 4.55,
        "greedy_css": 3.3,
        "wastar": 3.8,
        "iter_fs": 2.45,
        "pocss": 1.2,
    }
    for method, value in expected.items():
        assert ranks[method] == pytest.approx(value)


def test_sonar_reproduces_table_1(mirror):
    from ufsbench.data import load_dataset, normalize
    from ufsbench.datasets import load_registry

    entry = load_registry(ROOT / "config" / "datasets.yaml")["sonar_scale"]
    X, _, _ = load_dataset(entry, mirror / "sonar.mat")
    X, _ = normalize(X, "unit_column")
    tails = svd_tails(X)

    def ratio(method, seed=0, **params):
        return error_ratio(X, solve(method, X, 50, seed=seed, **params).subset, 50, tails=tails)

    assert ratio("greedy_css") == pytest.approx(2.852, abs=5e-4)
    assert ratio("aprx_svd") == pytest.approx(2.860, abs=5e-4)
    assert ratio("two_stage", seed=0) == pytest.approx(2.656, abs=2e-3)
    assert ratio("iter_fs", seed=0) == pytest.approx(2.524, abs=5e-4)
    if HAVE_NUMBA:  # the paper budget takes ~2 s compiled, ~1 min in plain numpy
        assert ratio("pocss", seed=0) == pytest.approx(2.524, abs=2e-3)
    else:
        assert ratio("pocss", seed=0, budget_factor=20.0) < 2.53


def test_residual_floor_is_the_best_any_subset_can_do():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 7)) @ np.diag([5.0, 3.0, 2.0, 1.0, 0.5, 0.2, 0.1])
    G, _ = gram_pair(X)
    floor = residual_floor(G, 8)
    sigma2 = np.linalg.svd(X, compute_uv=False) ** 2
    assert floor == pytest.approx([sigma2[s:].sum() for s in range(8)], rel=1e-10, abs=1e-10)
    for s in range(1, 8):  # brute force: no s columns beat it, and ties only at full rank
        best = min(residual_sq(X, list(c)) for c in itertools.combinations(range(7), s))
        assert best >= floor[s] - 1e-9 and (s < 7 or best == pytest.approx(0, abs=1e-9))


@pytest.mark.slow  # ~40 CPU s on the real Communities & Crime data
def test_pocss_survives_nearly_dependent_columns(mirror):
    """Communities & Crime has columns that are sums and ratios of others: the recursive
    updates lost all precision there and drove f negative (-2e9 at seed 8), so the archive
    collapsed to a 7-column set with error ratio 37. The Eckart-Young floor catches it."""
    from ufsbench.data import load_dataset, normalize
    from ufsbench.datasets import load_registry

    entry = load_registry(ROOT / "config" / "datasets.yaml")["communities_crime"]
    X, _, _ = load_dataset(entry, mirror / entry.file)
    X, _ = normalize(X, "unit_column", impute="mean")
    iterations = None if HAVE_NUMBA else 200_000  # the paper budget: ~8 s compiled
    for seed in (0, 8):
        result = pocss(X, 50, seed=seed, iterations=iterations)
        assert len(result.subset) == 50
        assert error_ratio(X, result.subset, 50) < 1.6  # Iter FS reaches 1.486
        assert all(f >= 0 for f in result.archive_f.values())


def css_config(**css):
    base = {"datasets": ["sonar_scale"], "methods": {"pocss": {}}, "k": [50]}
    return validated({"datasets": ["wine"], "methods": {"allfea": {}}, "css": {**base, **css}})


@pytest.fixture(scope="module")
def registry():
    from ufsbench.datasets import load_registry

    return load_registry(ROOT / "config" / "datasets.yaml")


def test_css_plan_jobs_and_seeds(registry):
    from ufsbench.css.plan import CssPlan

    plan = CssPlan(
        css_config(
            methods={"pocss": {}, "greedy_css": {}},
            seeds=3,
            curves={"datasets": ["dna"], "k": [50, 60]},
            anytime=["madelon"],
        ),
        registry,
    )
    jobs = plan.jobs()
    stems = {job.stem for job in jobs}
    assert len(stems) == len(jobs)
    assert "css/sonar_scale/pocss/k50/s2" in stems
    assert "css/sonar_scale/greedy_css/k50/s0" in stems
    assert not any(j.method == "greedy_css" and j.seed > 0 for j in jobs)
    assert {(j.dataset, j.k) for j in jobs} == {
        ("sonar_scale", 50), ("dna", 50), ("dna", 60), ("madelon", 50),
    }  # fmt: skip
    assert not CssPlan({}, registry).enabled


@pytest.mark.parametrize(
    ("css", "message"),
    [
        ({"methods": {"lasso": {}}}, "unknown CSS method 'lasso'"),
        ({"methods": {"pocss": {"budget": 3}}}, "css.methods.pocss"),
        ({"methods": {"pocss": {"engine": "gpu"}}}, "engine"),
        ({"datasets": ["nope"]}, "css.datasets"),
        ({"k": [61]}, "k=61"),
        ({"methods": {"greedy_css": {}}, "anytime": ["dna"]}, "css.anytime"),
    ],
)
def test_css_plan_rejects_bad_config(registry, css, message):
    from ufsbench.css.plan import CssPlan

    with pytest.raises(ValueError, match=message):
        CssPlan(css_config(**css), registry)


def test_paper_comparison_and_table1():
    import pandas as pd

    runs = pd.DataFrame(
        {
            "dataset": ["sonar_scale"] * 4,
            "method": ["greedy_css", "pocss", "pocss", "pocss"],
            "k": 50,
            "error_ratio": [2.852, 2.520, 2.524, 2.528],
        }
    )
    summary = table.summarize(runs)
    pocss_row = summary[summary["method"] == "pocss"].iloc[0]
    assert pocss_row["mean"] == pytest.approx(2.524) and pocss_row["std"] == pytest.approx(0.004)
    ref = load_reference(ROOT / "resources" / "reference" / "pocss_table1.tsv")
    comparison = table.paper_comparison(summary, ref)
    cells = comparison[comparison["dataset"] == "sonar_scale"].set_index("method")
    assert cells.loc["pocss", "difference"] == pytest.approx(0.0, abs=1e-12)
    assert bool(cells.loc["greedy_css", "within_tolerance"])
    ranks = comparison[comparison["dataset"] == "average_rank"].set_index("method")
    assert ranks.loc["pocss", "ours_mean"] == 1.0 and ranks.loc["greedy_css", "ours_mean"] == 2.0
    wide = table.table1_wide(summary, 50, ["sonar_scale"])
    assert wide.iloc[0]["pocss"] == "2.524 ± 0.004" and wide.iloc[-1]["dataset"] == "average rank"


def test_wastar_child_eigenvalues_match_eigvalsh():
    rng = np.random.default_rng(15)
    lam = np.sort(rng.uniform(0.1, 5.0, size=12))[::-1]
    Z = rng.normal(size=(4, 12)) * 0.3
    for q in (1, 3, 7):
        got = baselines._secular_top_sum(lam, Z, q)
        for z, value in zip(Z, got, strict=True):
            mu = np.linalg.eigvalsh(np.diag(lam) - np.outer(z, z))[::-1]
            assert value == pytest.approx(mu[:q].sum(), rel=1e-9)


def test_wastar_with_full_expansion_finds_the_optimum():
    X = unit_columns(np.random.default_rng(16).normal(size=(10, 7)))
    # epsilon = 0: A* on the admissible bound, exact
    subset, info = baselines.wastar(X.T @ X, 3, epsilon=0.0)
    assert not info["capped"]
    assert sorted(subset.tolist()) == list(best_subset(X, 3))


def test_css_resources_cover_measured_runs():
    """The SLURM runtime covers the measured CPU time of POCSS runs with a margin, grows
    with k, and the memory estimate counts the archive and the one-flip cache."""
    from ufsbench.css.plan import css_mem_mb, css_runtime

    measured = {("madelon", 2000, 500, 50): 11.5, ("scene", 1211, 294, 100): 108.0}
    for (_, m, n, k), seconds in measured.items():
        assert css_runtime("pocss", m, n, k) * 60 >= 3 * seconds
    assert css_runtime("pocss", 1211, 294, 100) > css_runtime("pocss", 1211, 294, 50)
    small, large = css_mem_mb(100, 2500, 5), css_mem_mb(100, 2500, 50)
    extra_floats = 2 * 100**3 - 2 * 10**3 + 100 * 2500 - 10 * 2500  # archive + cache
    assert large - small >= 8 * extra_floats / 1e6 - 1  # 1 MB: the rounding up
