"""Table VIII: our seconds against the paper's (MATLAB, hardware not stated: ratios only)."""

import pandas as pd

from ufsbench import joblog
from ufsbench.blufs_paper import PAPER_NAMES
from ufsbench.io import write_table, write_text
from ufsbench.reference import load_reference

log = joblog.setup(snakemake.log[0])
ours = pd.concat([pd.read_csv(f, sep="\t") for f in snakemake.input], ignore_index=True)
ref = load_reference(snakemake.params.reference)
ref = ref[ref["table"] == "VIII"][["dataset", "method", "mean"]].rename(columns={"mean": "paper"})
table = ours.merge(ref, on=["dataset", "method"], how="left")
write_table(snakemake.output.tsv, table)
lines = ["**Table VIII: seconds per selection call (ours, mean of runs: wall [CPU]; paper in "
         "brackets)**", "",
         "| dataset | " + " | ".join(PAPER_NAMES.get(m, m) for m in table["method"].unique())
         + " |", "|---|" + "---|" * table["method"].nunique()]  # fmt: skip
for dataset, part in table.groupby("dataset", sort=False):
    cells = [
        f"{r.mean_seconds:.2f} [{r.mean_cpu_seconds:.2f}]"
        + (f" ({r.paper:.2f})" if pd.notna(r.paper) else "")
        for r in part.itertuples()
    ]
    lines.append(f"| {dataset} | " + " | ".join(cells) + " |")  # fmt: skip
load, cpus = table["load_average"], int(table["cpus"].max())
lines += ["", f"Load average during the runs {load.min():.1f}-{load.max():.1f} on {cpus} CPUs: "
          "wall seconds grow with the load, CPU seconds of a one-thread run do not."]  # fmt: skip
write_text(snakemake.output.md, "\n".join(lines) + "\n")
