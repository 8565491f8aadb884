# Functions of the BLUFS paper's rules (workflow/rules/blufs.smk), read from the plan's
# BLUFS section (ufsbench.plan.BlufsSection: config key `blufs`, schema defaults filled).
from ufsbench.plan import BlufsSection
from ufsbench.methods.registry import get_method
from ufsbench.reseeding import fits_once, part_names, part_seeds
from ufsbench.tuning import stage2_part_count

BLUFS = BlufsSection.read(config["blufs"], BLUFS_ENABLED)


def two_stage_methods():
    """Configured methods that get a stage-2 search (spec blufs.md §2.8)."""
    return BLUFS.two_stage_methods(PLAN.methods)


def method_selections(wildcards):
    """Every selection file of a (dataset, method): stage-1 chunks, and stage 2."""
    files = [
        res(f"{wildcards.dataset}/{wildcards.method}/{chunk}/selection.npz")
        for chunk in PLAN.chunks(wildcards.method)
    ]
    if wildcards.method in two_stage_methods():
        files.append(
            res(f"{wildcards.dataset}/{wildcards.method}/stage2/selection.npz")
        )
    return files


def method_settings(wildcards):
    """Stage-1 settings of a method: id -> full parameters."""
    return {s.id: s.params for s in PLAN.settings[wildcards.method]}


def knn_of_method(wildcards):
    """The shared k-NN table when any setting of the method uses a graph."""
    if any(
        PLAN.graph_weights(wildcards.method, s.params)
        for s in PLAN.settings[wildcards.method]
    ):
        return {"knn": res(f"{wildcards.dataset}/graph/{PLAN.knn_stem}.npz")}
    return {}


def selection_methods():
    """Feature-selection methods of Tables II/VII (controls, AllFea and the Cases excluded)."""
    skip = {"allfea", "random", *BLUFS.ablation}
    return [m for m in PLAN.methods if m not in skip]


def reseed_outputs():
    if not BLUFS.reseeds:
        return []
    return [f"{stem}/reseed.tsv" for stem in runs_of(BLUFS.reseed_methods)]


def knn_outputs():
    return [f"{stem}/knn.tsv" for stem in runs_of(selection_methods())]


def figure_datasets(kind):
    """Datasets of a BLUFS figure on which BLUFS runs."""
    wanted = BLUFS.figures[kind]
    return [d for d in wanted if d in PLAN.method_datasets.get("blufs", PLAN.datasets)]


def runtime_methods():
    return [m for m in BLUFS.runtime["methods"] if m in PLAN.methods]


def blufs_outputs():
    if not BLUFS.enabled:
        return []
    figures = {
        "sensitivity": res("figures/blufs/sensitivity_{dataset}.png"),
        "stability": res("figures/blufs/stability_{dataset}.png"),
        "correlation": res("figures/blufs/correlation_{dataset}.png"),
        "convergence": res("figures/blufs/convergence_{dataset}.png"),
    }
    extra = [
        path.format(dataset=d)
        for kind, path in figures.items()
        for d in figure_datasets(kind)
    ]
    if runtime_methods():
        extra.append(res("timings/blufs_table8.md"))
    return extra + _blufs_tables()


def _blufs_tables():
    out = [
        res("tables/blufs_table2.md"),
        res("tables/blufs_vs_paper.tsv"),
        res("tables/blufs_table7.md"),
        res("figures/blufs/cd_acc.png"),
    ]
    if BLUFS.ablation:
        out.append(res("tables/blufs_table5.md"))
    for dataset in BLUFS.synthetic["datasets"]:
        out.append(res(f"figures/blufs/synthetic_{dataset}.png"))
    return out


def stage1_scores(wildcards):
    return [
        res(f"{wildcards.dataset}/{wildcards.method}/{chunk}/scores.tsv")
        for chunk in PLAN.chunks(wildcards.method)
    ]


def stage2_parts(wildcards):
    """Stage-2 jobs of a (dataset, method): the method's chunk_size runs (setting x count) each."""
    return stage2_part_count(
        len(PLAN.feature_counts(wildcards.dataset)),
        BLUFS.stage2_grid_size(wildcards.method),
        PLAN.method_chunk_size[wildcards.method],
    )


def stage2_part_files(name):
    """Input function: the file ``name`` of every stage-2 part of a (dataset, method)."""

    def files(wildcards):
        return [
            res(f"{wildcards.dataset}/{wildcards.method}/stage2/part{part}/{name}")
            for part in range(stage2_parts(wildcards))
        ]

    return files


def part_number(wildcards):
    return int(wildcards.part)


def stage2_grid(wildcards):
    return BLUFS.two_stage[wildcards.method]


def method_code_with(*modules):
    """Params function: the method's code hash and that of these library modules."""
    return lambda wildcards: method_code(wildcards) + code_hash(*modules)


def blufs_code_with(*modules):
    """Params function: BLUFS's code hash and that of these library modules."""
    return lambda wildcards: _method_code("blufs") + code_hash(*modules)


def synthetic_picks(wildcards):
    """What every synthetic method picked on a dataset (Figs. 3-4)."""
    return expand(
        res("blufs/synthetic/{dataset}/{method}.tsv"),
        dataset=wildcards.dataset,
        method=BLUFS.synthetic["methods"],
    )


def fewest_features(wildcards):
    return min(PLAN.feature_counts(wildcards.dataset))


def most_features(wildcards):
    return max(PLAN.feature_counts(wildcards.dataset))


def stage2_runtime(wildcards):
    """A part holds at most chunk_size runs plus one setting's counts (it never splits one)."""
    n, d, _ = _shape(wildcards)
    n_counts = len(PLAN.feature_counts(wildcards.dataset))
    runs = min(
        n_counts * BLUFS.stage2_grid_size(wildcards.method),
        PLAN.method_chunk_size[wildcards.method] + n_counts,
    )
    return resources.select_runtime(n, d, runs, True)


def timing_runtime(wildcards):
    n, d, _ = _shape(wildcards)
    return resources.select_runtime(n, d, BLUFS.runtime["repeats"], True)


def reseed_parts(wildcards):
    """A re-seeding's jobs: one per seed, or one in all for a method that is seed-free
    on the dataset's shape (ufsbench.reseeding.part_names)."""
    once = fits_once(get_method(wildcards.method), _shape(wildcards)[:2])
    return [
        res(f"{wildcards.dataset}/{wildcards.method}/reseed/{part}.tsv")
        for part in part_names(BLUFS.reseeds, once)
    ]


def reseed_runtime(wildcards):
    """At most 2 cells (ACC and NMI) per seed of the job."""
    n, d, _ = _shape(wildcards)
    seeds = len(part_seeds(wildcards.part))
    return resources.select_runtime(n, d, 2 * seeds, True)


def default_params(wildcards):
    return next(s.params for s in PLAN.settings[wildcards.method] if s.is_default)


def dataset_selections(wildcards):
    """Selection files of every Table II method on one dataset."""
    files = []
    for method in selection_methods():
        files += method_selections(
            SimpleNamespace(dataset=wildcards.dataset, method=method)
        )
    return files
