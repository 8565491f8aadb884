"""Fetch one dataset file: the mirror first (by sha256), else its public source."""

from ufsbench import joblog
from ufsbench.datasets import fetch, load_registry, lock_path

log = joblog.setup(snakemake.log[0])
entry = load_registry(snakemake.params.registry)[snakemake.wildcards.dataset]
path = fetch(
    entry,
    snakemake.output[0],
    mirror=snakemake.config["mirror"],
    source_base=snakemake.config["source_base"],
    allow_unverified=snakemake.config["allow_unverified"],
)
log.info("dataset %r: %s ready", entry.name, path)
if lock_path(path).is_file():
    log.warning(
        "dataset %r: unverified; digest recorded: %s", entry.name, lock_path(path).read_text()
    )
