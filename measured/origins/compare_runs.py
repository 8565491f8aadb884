"""Compare two run folders' results/ trees file by file, timings set aside.

    python measured/origins/compare_runs.py RUN_A RUN_B

Snakemake's per-job resource measurements (results/benchmarks/) are left out. Prints one
line per file that is not byte-identical, with why it still counts as the same
(only a seconds column or key differs, BLUFS Table VIII of running times, or a PDF's
/CreationDate) or DIFFERENT, then the counts. Exit status 1 if any file differs.
"""

import json
import sys
from pathlib import Path

import pandas as pd

TIMING = ("seconds", "time", "load", "threads", "machine", "platform")


def _without_seconds(node):
    if not isinstance(node, dict):
        return node
    return {k: _without_seconds(v) for k, v in node.items() if "seconds" not in k}


def verdict(f: Path, g: Path) -> str:
    if not g.is_file():
        return "DIFFERENT (missing in the second run)"
    if f.read_bytes() == g.read_bytes():
        return "byte-identical"
    if f.suffix == ".tsv":
        x, y = pd.read_csv(f, sep="\t"), pd.read_csv(g, sep="\t")
        kept = [c for c in x.columns if not any(t in c.lower() for t in TIMING)]
        if list(x.columns) == list(y.columns) and x[kept].equals(y[kept]):
            return f"same apart from timing columns {sorted(set(x.columns) - set(kept))}"
    if f.suffix == ".json":
        if _without_seconds(json.loads(f.read_text())) == _without_seconds(
            json.loads(g.read_text())
        ):
            return "same apart from timing keys (seconds)"
    if "table8" in f.name:
        return "same apart from timings (BLUFS Table VIII: running time)"
    if f.suffix == ".pdf":
        def strip(data):
            return b"\n".join(l for l in data.split(b"\n") if b"CreationDate" not in l)

        if strip(f.read_bytes()) == strip(g.read_bytes()):
            return "same apart from /CreationDate"
    return "DIFFERENT"


def main(a: Path, b: Path) -> int:
    counts = {"byte-identical": 0, "same": 0, "DIFFERENT": 0}
    for f in sorted((a / "results").rglob("*")):
        if not f.is_file() or "benchmarks" in f.parts:  # Snakemake's per-job resource use
            continue
        if f.suffix == ".npz" and f.name != "data.npz":  # solver outputs: their tables count
            continue
        rel = f.relative_to(a)
        v = verdict(f, b / rel)
        key = "byte-identical" if v == "byte-identical" else v.split(" ")[0]
        counts[key if key in counts else "same"] += 1
        if v != "byte-identical":
            print(f"{rel}\t{v}")
    print(f"byte-identical {counts['byte-identical']}, same apart from timings "
          f"{counts['same']}, different {counts['DIFFERENT']}")
    return 1 if counts["DIFFERENT"] else 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]), Path(sys.argv[2])))
