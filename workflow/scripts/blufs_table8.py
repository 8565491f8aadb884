"""Table VIII: our seconds against the paper's (MATLAB, hardware not stated: ratios only)."""

import pandas as pd

from ufsbench import joblog
from ufsbench.integrity import read_tsv
from ufsbench.io import write_table, write_text
from ufsbench.papers.blufs import PAPER_NAMES
from ufsbench.reference import load_reference

log = joblog.setup(snakemake.log[0])
ours = pd.concat([read_tsv(f) for f in snakemake.input], ignore_index=True)
ref = load_reference(snakemake.params.reference)
ref = ref[ref["table"] == "VIII"][["dataset", "method", "mean"]].rename(columns={"mean": "paper"})
table = ours.merge(ref, on=["dataset", "method"], how="left")
write_table(snakemake.output.tsv, table)


def cell(row) -> str:
    """``wall [CPU] (paper)``; a file from before CPU seconds were kept shows wall only."""
    text = f"{row.mean_seconds:.2f}"
    if pd.notna(row.get("mean_cpu_seconds")):
        text += f" [{row.mean_cpu_seconds:.2f}]"
    return text + (f" ({row.paper:.2f})" if pd.notna(row.paper) else "")


# One row per dataset, one column per method; a method absent from a dataset shows "-".
cells = table.assign(cell=table.apply(cell, axis=1)).pivot(
    index="dataset", columns="method", values="cell"
)
cells = cells.reindex(index=table["dataset"].unique(), columns=table["method"].unique())
lines = [
    "**Table VIII: seconds per selection call (ours, mean of runs: wall [CPU]; paper in "
    "brackets)**",
    "",
    "| dataset | " + " | ".join(PAPER_NAMES.get(m, m) for m in cells.columns) + " |",
    "|---|" + "---|" * len(cells.columns),
]
for dataset, row in cells.iterrows():
    lines.append(f"| {dataset} | " + " | ".join(row.fillna("-")) + " |")
if "load_average" in table and table["load_average"].notna().any():
    load = table["load_average"]
    lines += [
        "",
        f"Load average during the runs {load.min():.1f}-{load.max():.1f} on "
        f"{int(table['cpus'].max())} CPUs: wall seconds grow with the load, CPU seconds of a "
        "one-thread run do not.",
    ]
write_text(snakemake.output.md, "\n".join(lines) + "\n")
