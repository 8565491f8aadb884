"""benchmarks/speed/bench_lsdcl_gram.py: its route switch reaches LSDCL's solver and is undone."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from benchmark_scripts import load_benchmark

from ufsbench.methods import _dual_concept_setup
from ufsbench.methods._dual_concept import Options


def test_the_route_reaches_the_solver_the_method_builds_and_is_undone():
    script = load_benchmark("speed/bench_lsdcl_gram.py")
    rng = np.random.default_rng(0)
    X = rng.random((12, 5))  # n > d: the solver's own "auto" applies X (X^T Y)
    graph = sp.random(12, 12, density=0.3, random_state=0)
    graph = (graph + graph.T).tocsr()
    factors = rng.random((12, 2)), np.eye(2), rng.random((5, 2))
    options = Options(dual=True, graph_term="cim")
    original = _dual_concept_setup.Solver
    assert original(X, graph, *factors, options).F is None
    with script.gram_route("always"):
        assert _dual_concept_setup.Solver(X, graph, *factors, options).F is not None
        seconds, selection = script.run(X, graph, 2, script.SETTINGS[0], "never")
    assert _dual_concept_setup.Solver is original
    assert seconds >= 0 and sorted(selection.ranking.tolist()) == list(range(5))
