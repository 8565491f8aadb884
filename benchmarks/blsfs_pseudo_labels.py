"""How well BLSFS's classification level clusters each dataset.

    python benchmarks/blsfs_pseudo_labels.py [--mirror PATH] [--seeds 5]
        [--datasets warpar10p jaffe pie isolet coil20]

BLSFS (``ufsbench.methods.blsfs``) regresses the data on fixed pseudo-labels: NJW
spectral clustering of the 10-NN heat graph (width: the mean pairwise distance), as the
BLUFS paper's protocol builds it. Its feature ranking can only be as informative as those
labels, so their clustering ACC against the true classes explains much of where BLSFS
lands on each dataset (``measured/blufs/notes.tsv``). Prints, per dataset, the
ACC (%) of the pseudo-labels for ``random_state`` 0..seeds-1 (the eigensolver start and
the k-means of the classification level) and their mean. One BLAS thread.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

from ufsbench.data import load_dataset
from ufsbench.datasets import find_in_mirror, load_registry
from ufsbench.graph import knn_graph
from ufsbench.methods.blsfs import pseudo_labels
from ufsbench.metrics import clustering_accuracy

ROOT = Path(__file__).resolve().parents[1]


def pseudo_label_accuracy(X, y, seeds, k=10):
    """ACC (%) of BLSFS's pseudo-labels for each seed in ``seeds``."""
    n_clusters = len(np.unique(y))
    graph = knn_graph(X, k, weight="heat", t=1.0, sigma0="mean")
    return [
        100.0 * clustering_accuracy(y, pseudo_labels(graph, n_clusters, seed).argmax(axis=1))
        for seed in seeds
    ]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mirror", type=Path, default=ROOT.parent / "shared" / "datasets")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument(
        "--datasets", nargs="+", default=["warpar10p", "jaffe", "pie", "isolet", "coil20"]
    )
    args = parser.parse_args(argv)
    registry = load_registry()
    print("dataset\tshape\tACC per seed\tmean")
    with threadpool_limits(limits=1):
        for name in args.datasets:
            entry = registry[name]
            path = find_in_mirror(entry, args.mirror)
            if path is None:
                print(f"{name}\tnot in the mirror {args.mirror}")
                continue
            X, y, _ = load_dataset(entry, path)
            accs = pseudo_label_accuracy(np.asarray(X, dtype=float), y, range(args.seeds))
            shown = " ".join(f"{a:.2f}" for a in accs)
            print(f"{name}\t{X.shape}\t{shown}\t{np.mean(accs):.2f}", flush=True)


if __name__ == "__main__":
    main()
