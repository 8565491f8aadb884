# Validation first, then the run plan and the small functions rules call.
import atexit
import functools
import os
import sys
from types import SimpleNamespace

import ufsbench
import yaml
from snakemake.utils import validate
from ufsbench.datasets import content_fields, load_registry
from ufsbench import resources
from ufsbench.blas import ENV as BLAS_ENV, pinned_environment
from ufsbench.hashcache import RememberedHashes, shared_folder
from ufsbench.localdata import local_datasets
from ufsbench.methods.external import ExternalSpec
from ufsbench.limits import check_plan_size
from ufsbench.names import check_config_names, inside_run
from ufsbench.provenance import STAGE_MODULES, foreign_library
from ufsbench.plan import (
    Plan,
    available_datasets,
    command_line_methods,
    typed_overrides,
    unavailable_datasets,
)
from ufsbench.clustering import fs_graph_setting, graph_path, tasks

# Nested --config values arrive with every scalar a string ({repeats: '2'}): type them
# as YAML, as a config file would be read, before the schema sees them.
_overrides = typed_overrides(config, workflow.config_settings.config)
# `methods` of the config files in order (the Snakefile's default first): an entry
# replaces that method's grid, `name: null` drops it, `replace_methods: true` (paper
# experiments) starts afresh; --config methods=... is the whole list (config/README.md).
_cli_files = list(workflow.config_settings.configfiles)
_methods = command_line_methods(
    [
        yaml.safe_load(Path(f).read_text())
        for f in workflow.configfiles[len(_cli_files) :] + _cli_files
    ],
    _overrides,
)
if _methods is not None:
    config["methods"] = _methods
# Optional experiments: absent or empty, none of their jobs run. The BLUFS section is
# validated even then, so its rules read the schema's defaults (the only place they live).
BLUFS_ENABLED = bool(config.get("blufs"))
config["blufs"] = config.get("blufs") or {}

# The schema fills in every default: nothing after this line restates one.
validate(config, schema="../schemas/config.schema.yaml")
# Names that become path components, and the run's size, before anything is loaded or
# expanded (ufsbench.names, ufsbench.limits; bounds in config/README.md).
check_config_names(config)
check_plan_size(config)

# One set of BLAS kernels and NumPy code paths on every machine (ufsbench.blas): jobs
# inherit the environment and their OpenBLAS and NumPy read it when they load; a cluster job
# re-reads this file and sets it too.
_pinned, _pin_why = pinned_environment(config["blas_coretype"])
os.environ.update(_pinned)
if BLAS_ENV not in os.environ and config["blas_coretype"] != "native":
    print(f"ufsbench: {_pin_why[0]}", file=sys.stderr)

# Every output of a run lives under results/<experiment>/ and every log under
# logs/<experiment>/ (config key `experiment`), so runs of different configs coexist;
# downloads (data/raw/, logs/download/) are shared.
RESULTS = f"results/{config['experiment']}"
LOGS = f"logs/{config['experiment']}"


def res(path):
    """``path`` inside the run's results folder."""
    return f"{RESULTS}/{path}"


def logs(path):
    """``path`` inside the run's log folder."""
    return f"{LOGS}/{path}"


# The project folder (workflow/Snakefile's parent): paths in the config are relative to it.
PROJECT = Path(workflow.basedir).parent
# The registry ships in config/ unless the config names another one.
REGISTRY_PATH = str(
    config.get("dataset_registry") or PROJECT / "config" / "datasets.yaml"
)
REGISTRY = load_registry(REGISTRY_PATH)
# Datasets from local files by path, relative to the working directory (config
# local_datasets; docs/own-data.md).
REGISTRY.update(local_datasets(config["local_datasets"], Path.cwd(), REGISTRY))


def unavailable(names, probe=True):
    """Name -> why, for each of ``names`` whose file cannot be had now (each skip printed
    as "ufsbench: skipping dataset ..."): the one availability filter of the workflow.
    ``probe``: also try the public URL; without it only the mirror and data/raw count.
    """
    return unavailable_datasets(
        names,
        REGISTRY,
        config["mirror"],
        probe=probe,
        source_base=config["source_base"],
    )


def available(names, required=True):
    """``names`` without those :func:`unavailable` finds; ``required``: refuse an empty
    experiment."""
    return available_datasets(
        names,
        REGISTRY,
        config["mirror"],
        required=required,
        source_base=config["source_base"],
    )


# With `unavailable: skip`, a dataset whose file cannot be had is left out of the run.
SKIP_UNAVAILABLE = config["unavailable"] == "skip"
if SKIP_UNAVAILABLE:
    config["datasets"] = available(config["datasets"])
    if BLUFS_ENABLED:
        synthetic = config["blufs"]["synthetic"]
        synthetic["datasets"] = available(synthetic["datasets"], required=False)
PLAN = Plan(config, REGISTRY)
TASKS = tasks(config)
# A sparse graph of the clustering task that the graph-based selectors use instead of
# the shared k-NN graph (config graph.source / graph.params), or None.
FS_GRAPH = fs_graph_setting(PLAN.graph.source, PLAN.graph.params)
LIB = Path(ufsbench.__file__).parent
_foreign = foreign_library(workflow.basedir, LIB)
if _foreign:
    print(_foreign, file=sys.stderr)
# The library's code as jobs hash it: numerics only (see ufsbench.codehash). The scripts
# are readers: a library constant one of them reads counts. The hashes are kept in
# .snakemake/ufsbench/ for the next command while no source changes, and a copy in the
# machine's shared folder for other run folders (ufsbench.hashcache).
CODE = RememberedHashes(
    LIB,
    readers=[
        script for script in sorted(Path(workflow.basedir, "scripts").glob("*.py"))
    ],
    shared=shared_folder(),
)
atexit.register(CODE.save)  # a dry run, or hashes computed after the jobs started
METRICS = ["acc", "nmi_max", "nmi_sqrt"]


# Saved once the plan is made, before any job: on a cluster each job plans the workflow
# again and finds them.
onstart:
    CODE.save()


wildcard_constraints:
    dataset="|".join(REGISTRY),
    method="|".join(PLAN.methods),
    chunk=r"c\d+",
    k=r"\d+",


def code_hash(*modules):
    """Hash of these library modules and those they import, transitively (numerics
    only), so editing the code a job runs re-runs it and editing any other does not."""
    return CODE.hash(*modules)


def entry_of(wildcards):
    return REGISTRY[wildcards.dataset]


def raw_input(wildcards):
    """The downloaded file a dataset is read from (its base's, for a derived set)."""
    entry = REGISTRY[wildcards.dataset].file_entry
    if entry is None:
        return []
    return inside_run([f"data/raw/{entry.name}/{entry.file}"])[0]


def normalize_code(wildcards):
    """The code a normalize job runs; a local file's (config local_datasets) adds its reader."""
    code = code_hash("data.py", "datasets.py", "images.py", "synthetic.py", "io.py")
    if REGISTRY[wildcards.dataset].source == "local":
        return f"{code}+{code_hash('localdata.py')}"
    return code


def dataset_params(wildcards):
    """What the registry says of a dataset's content: editing it re-runs its jobs."""
    fields = content_fields(REGISTRY[wildcards.dataset])
    if fields["source"] == "local":  # its sha256 pins the content; the path may move
        fields["file"] = portable(fields["file"])
    return fields


def chunk_settings(wildcards):
    return PLAN.chunks(wildcards.method)[wildcards.chunk]


def knn_of_chunk(wildcards):
    """The dataset's shared k-NN table, when a setting of the chunk uses a graph."""
    settings = chunk_settings(wildcards)
    if any(PLAN.graph_weights(wildcards.method, s.params) for s in settings):
        inputs = {"knn": res(f"{wildcards.dataset}/graph/{PLAN.knn_stem}.npz")}
        if FS_GRAPH is not None:
            inputs["graph"] = res(graph_path(wildcards.dataset, *FS_GRAPH[:2]))
        return inputs
    return {}


def select_jobs(wildcards):
    """What the select script runs: one entry per setting of the chunk."""
    spec = PLAN.specs[wildcards.method]
    jobs = []
    for s in chunk_settings(wildcards):
        _, hyper = spec.split_graph_params(s.params)
        jobs.append(
            {
                "id": s.id,
                "hyper": hyper,
                "graph": PLAN.graph_weights(wildcards.method, s.params),
                "seed": PLAN.seed(wildcards.dataset, wildcards.method, s.id),
            }
        )
    return jobs


def eval_settings(wildcards):
    return [
        {"id": s.id, "in_grid": s.in_grid, "is_default": s.is_default}
        for s in chunk_settings(wildcards)
    ]


def method_code(wildcards):
    """The method's module, the helpers it imports and the API that runs it."""
    return _method_code(wildcards.method)


@functools.cache
def _method_code(method):
    spec = PLAN.specs[method]
    if isinstance(spec, ExternalSpec):  # outside the library: its source file's content
        return f"{code_hash('api.py', 'methods/external.py')}+{spec.source_sha256}"
    return code_hash("api.py", f"methods/{spec.module}.py")


def method_target(wildcards):
    """What the select job passes to rank_features: the name of a built-in method,
    the "module:function" path of one from outside the library."""
    spec = PLAN.specs[wildcards.method]
    return spec.target if isinstance(spec, ExternalSpec) else wildcards.method


def all_scores():
    return [res(f"{d}/{m}/{c}/scores.tsv") for d, m, c in score_files()]


def score_plan(files):
    """What each scores file of ``files`` ((dataset, method, chunk) triples; chunk
    ``stage2`` for a stage-2 search) must hold, for ufsbench.integrity.expected_scores:
    setting ids once per method, counts once per dataset."""
    methods = {method for _, method, _ in files}
    return {
        "files": [list(f) for f in files],
        "settings": {
            m: {c: [s.id for s in ss] for c, ss in PLAN.chunks(m).items()}
            for m in sorted(methods)
        },
        "feature_counts": {
            d: PLAN.feature_counts(d) for d in sorted({d for d, _, _ in files})
        },
        "all_features": sorted(m for m in methods if PLAN.specs[m].uses_all_features),
        "repeats": PLAN.evaluation.repeats,
    }


def score_files(datasets=None):
    """(dataset, method, chunk) of every scores file, stage 1 then stage 2 (chunk
    ``stage2``), of ``datasets`` (default: all): the order of the run's table."""

    def kept(runs):  # the pairs of these datasets, before their chunks are listed
        return [(d, m) for d, m in runs if datasets is None or d in datasets]

    stage1 = [(d, m, c) for d, m in kept(PLAN.runs()) for c in PLAN.chunks(m)]
    stage2 = [(d, m, "stage2") for d, m in kept(PLAN.runs(two_stage_methods()))]
    return stage1 + stage2


def all_score_plan():
    return score_plan(score_files())


def dataset_score_files(wildcards):
    return [
        res(f"{d}/{m}/{c}/scores.tsv") for d, m, c in score_files([wildcards.dataset])
    ]


def dataset_score_plan(wildcards):
    return score_plan(score_files([wildcards.dataset]))


def stage1_score_plan(wildcards):
    return score_plan(
        [
            (wildcards.dataset, wildcards.method, c)
            for c in PLAN.chunks(wildcards.method)
        ]
    )


def iterative_sources():
    """Selection files of iterative methods, with what each holds."""
    sources = []
    for dataset, method in PLAN.runs():
        if not PLAN.specs[method].iterative:
            continue
        default = next((s.id for s in PLAN.settings[method] if s.is_default), None)
        for chunk in PLAN.chunks(method):
            path = res(f"{dataset}/{method}/{chunk}/selection.npz")
            sources.append(
                {"path": path, "dataset": dataset, "method": method, "default": default}
            )
    return sources


def runs_of(methods):
    """Result stems ``results/{dataset}/{method}`` of these methods where they run, in
    ``expand``'s order (dataset-major, then the order of ``methods``)."""
    return [res(f"{dataset}/{method}") for dataset, method in PLAN.runs(methods)]


def iterative_selections():
    return [source["path"] for source in iterative_sources()]


def final_outputs():
    """The targets of the default run: the outputs of the configured tasks."""
    outputs = selection_outputs() if "selection" in TASKS else []
    # css_outputs: workflow/rules/css.smk; clustering_outputs: workflow/rules/clustering.smk
    # leaderboard_outputs: workflow/rules/leaderboard.smk (config leaderboard)
    return outputs + leaderboard_outputs() + css_outputs() + clustering_outputs()


def selection_outputs():
    tables = expand(res("tables/summary.{ext}"), ext=["tsv", "md", "tex"]) + expand(
        res("tables/ttest_{metric}.tsv"), metric=METRICS
    )
    figures = expand(res("figures/{dataset}/curves.png"), dataset=PLAN.datasets)
    if iterative_selections():
        figures += expand(
            res("figures/{dataset}/convergence.png"), dataset=PLAN.datasets
        )
    return tables + figures


def n_clusters_of(wildcards):
    return PLAN.n_clusters(wildcards.dataset)


def feature_counts_of(wildcards):
    return PLAN.feature_counts(wildcards.dataset)


def uses_all_features(wildcards):
    return PLAN.specs[wildcards.method].uses_all_features


def _shape(wildcards):
    entry = REGISTRY[wildcards.dataset]
    return entry.n_samples, entry.n_features, entry.n_classes or 2


def select_mem_mb(wildcards):
    n, d, c = _shape(wildcards)
    return resources.select_mem_mb(n, d, c, PLAN.graph.k)


def select_runtime(wildcards):
    n, d, _ = _shape(wildcards)
    settings = chunk_settings(wildcards)
    return resources.select_runtime(
        n, d, len(settings), PLAN.specs[wildcards.method].iterative
    )


def evaluate_mem_mb(wildcards):
    n, d, _ = _shape(wildcards)
    return resources.evaluate_mem_mb(n, d)


def evaluate_runtime(wildcards):
    n, _, c = _shape(wildcards)
    return resources.evaluate_runtime(
        n,
        len(chunk_settings(wildcards)),
        len(PLAN.feature_counts(wildcards.dataset)),
        PLAN.evaluation.repeats,
        PLAN.evaluation.n_init,
        c,
    )


def portable(path) -> str:
    """``path`` as a param carries it: relative to the working directory when inside it.
    A param's value is a re-run trigger, so an absolute path into the project would re-run
    the job, and everything made from it, whenever the project folder moves."""
    path = Path(path)
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:  # outside the working directory: only its own move re-runs it
        return str(path)


def workflow_path(path) -> str:
    """``path`` relative to the project folder (an absolute path stays as it is), as
    :func:`portable` gives it."""
    return portable(PROJECT / path)


def notes_input(path):
    """Input function: an optional notes file of a ``*_vs_paper.tsv`` table, as the named
    input ``notes`` (none when ``path`` is empty)."""

    def inputs(wildcards):
        return {"notes": workflow_path(path)} if path else {}

    return inputs
