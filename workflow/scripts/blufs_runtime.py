"""Table VIII: seconds of the selection call alone (default setting).

Wall seconds are what the paper reports; they grow with whatever else runs on the
machine (other jobs of the same workflow included). The call's CPU seconds do not, as
long as BLAS runs one thread (Snakemake gives the job ``threads: 1``), so both are kept,
with the load average around the runs.
"""

import os
import platform
import time

import numpy as np
import pandas as pd
from threadpoolctl import threadpool_info

from ufsbench import joblog, rank_features
from ufsbench.io import load_data, write_table

log = joblog.setup(snakemake.log[0], snakemake.threads, code=snakemake.params.code)
p = snakemake.params
dataset, method = snakemake.wildcards.dataset, snakemake.wildcards.method
X, y, _ = load_data(snakemake.input.data)
seconds, cpu_seconds = [], []
load_before = os.getloadavg()[0]
for r in range(p.repeats):
    cpu_start = time.process_time()
    sel = rank_features(X, method, n_clusters=p.n_clusters, feature_counts=[p.n_features],
                        random_state=r, n_neighbors=p.k, **p.params)  # fmt: skip
    cpu_seconds.append(time.process_time() - cpu_start)
    seconds.append(sel.seconds)
    log.info("%s on %s, run %d: %.3f s wall, %.3f s CPU (%d iterations)", method, dataset, r,
             sel.seconds, cpu_seconds[-1], sel.n_iter)  # fmt: skip
load = (load_before + os.getloadavg()[0]) / 2
blas = ";".join(f"{i['internal_api']}:{i['num_threads']}" for i in threadpool_info())
write_table(snakemake.output[0], pd.DataFrame({
    "dataset": [dataset], "method": [method], "n_features": [p.n_features],
    "repeats": [p.repeats], "mean_seconds": [np.mean(seconds)], "std_seconds": [np.std(seconds)],
    "mean_cpu_seconds": [np.mean(cpu_seconds)], "std_cpu_seconds": [np.std(cpu_seconds)],
    "load_average": [load], "cpus": [os.cpu_count()],
    "machine": [platform.processor() or platform.machine()], "blas_threads": [blas],
}))  # fmt: skip
