"""Run one CSS method for one (k, seed) on one dataset; write its error ratio and trace."""

from ufsbench import joblog
from ufsbench.css.evaluate import run_css
from ufsbench.io import load_data, write_table

log = joblog.setup(snakemake.log[0], snakemake.threads, code=snakemake.params.code)
X, _, meta = load_data(snakemake.input.data)
scheme = meta.get("preprocessing", {}).get("scheme")
log.info("dataset %s: X %s, normalisation %s", snakemake.wildcards.dataset, X.shape, scheme)
if scheme != "unit_column":
    log.warning("the POCSS paper uses unit-norm columns (normalize.scheme: unit_column)")
rows, traces = run_css(
    X,
    snakemake.wildcards.css_method,
    [int(snakemake.wildcards.k)],
    [int(snakemake.wildcards.seed)],
    dataset=snakemake.wildcards.dataset,
    params=snakemake.params.options,
)
write_table(snakemake.output.runs, rows)
write_table(snakemake.output.trace, traces)
