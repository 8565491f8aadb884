# Functions of the paper-reproduction rules (workflow/rules/paper.smk).
import re

from ufsbench.crossval import selection_grid
from ufsbench.plan import PaperSection, grid_parameters, grid_settings, resolve_method

# The paper section (None: a plain benchmark; the paper rules then make no job, so their
# params are functions that read it only for a job).
PAPER = PaperSection.read(config.get("paper"))


wildcard_constraints:
    paper=re.escape(PAPER.name) if PAPER else "(?!)",


def paper_path(path):
    """A file named in the paper section, relative to the project folder (None: none)."""
    return workflow_path(path) if path else None


def paper_methods():
    given = PAPER.methods if PAPER else None
    wanted = PLAN.methods if given is None else given
    return [m for m in wanted if m in PLAN.methods]


def datasets_of(methods, wanted=None):
    """The datasets (of ``wanted``, else of the run) on which every one of ``methods`` runs."""
    return [
        d
        for d in (PLAN.datasets if wanted is None else wanted)
        if all(PLAN.runs_on(d, m) for m in methods)
    ]


def paper_part(key):
    """A sub-section of the paper section ({} when the config leaves it out)."""
    return (getattr(PAPER, key) if PAPER else None) or {}


def ablation_methods():
    return paper_part("ablation").get("methods", [])


def ablation_datasets():
    return datasets_of(ablation_methods(), paper_part("ablation").get("datasets", []))


def sensitivity_method():
    method = paper_part("sensitivity").get("method")
    return method if method in PLAN.methods else None


def convergence_method():
    method = paper_part("convergence").get("method")
    return method if method in PLAN.methods else None


def convergence_datasets():
    if convergence_method() is None:
        return []
    return datasets_of([convergence_method()], paper_part("convergence")["datasets"])


def convergence_parameters():
    """The parameters the convergence method's grid varies: its panels name only these."""
    method = convergence_method()
    return grid_parameters(config["methods"][method]) if method else []


def readings_method():
    method = paper_part("readings").get("method")
    return method if method in PLAN.methods else None


def readings_defaults(wildcards):
    """The select() defaults of the reading options: the baseline of the readings table."""
    spec = PLAN.specs[readings_method()]
    return {name: spec.defaults[name] for name in PAPER.readings["params"]}


def crossval_plan():
    """The cross-validation section when its dataset is part of this run, else None."""
    cv = paper_part("crossval")
    if not cv or cv["dataset"] not in PLAN.datasets:
        return None
    fixed = cv.get("full_data_oracle")
    for selection in cv.get("selection") or ["nested"]:
        selection_grid(cv["grid"], selection, fixed)  # raises ValueError if ill-formed
    return cv


def crossval_selections():
    """The configured ways to choose settings (ufsbench.crossval.SELECTIONS), in order."""
    return list(crossval_plan().get("selection") or ["nested"])


def crossval_grids():
    """Selection -> the settings it chooses from in each draw, in grid order, weighted as
    the select jobs weight theirs (the plan's one grid expansion and graph weighting).
    """
    cv = crossval_plan()
    spec = resolve_method(cv["method"])
    grids = {}
    for selection in crossval_selections():
        grid = selection_grid(cv["grid"], selection, cv.get("full_data_oracle"))
        grids[selection] = []
        for sid, params in grid_settings(spec, grid, PLAN.graph_defaults(spec)):
            _, hyper = spec.split_graph_params(params)
            graph = PLAN.graph.weights(spec, params)
            grids[selection].append({"id": sid, "hyper": hyper, "graph": graph})
    return grids


def crossval_settings(wildcards):
    """Every setting some selection chooses from, once: a setting's runs in a draw do
    not depend on the selection (its seeds derive from its id), so one job serves all.
    """
    union = {}
    for settings in crossval_grids().values():
        for setting in settings:
            union.setdefault(setting["id"], setting)
    return list(union.values())


def crossval_subsets(wildcards):
    """Selection -> the ids of the settings it chooses from, in its grid's order."""
    return {sel: [s["id"] for s in grid] for sel, grid in crossval_grids().items()}


def crossval_outputs(draw=""):
    """The crossval job's tables, one per configured selection (any one without a
    cross-validation section: the rule is then never asked for); with ``draw`` (a
    pattern), those of one draw's job."""
    selections = crossval_selections() if crossval_plan() else ["nested"]
    size = f"n{{size}}/d{draw}" if draw else "n{size}"
    return {
        sel: res(f"{{dataset}}/crossval/{{method}}/{sel}/{size}.tsv")
        for sel in selections
    }


def crossval_draw_files(wildcards):
    """Every draw's tables of one size, per selection, in draw order."""
    draws = range(crossval_plan()["draws"])
    return {
        sel: [path.format(**dict(wildcards.items()), draw=d) for d in draws]
        for sel, path in crossval_outputs("{draw}").items()
    }


def crossval_files():
    cv = crossval_plan()
    return [
        res(f"{cv['dataset']}/crossval/{cv['method']}/{selection}/n{size}.tsv")
        for selection in crossval_selections()
        for size in cv["train_sizes"]
    ]


def crossval_file_selections():
    """The selection of each of crossval_files(), in its order."""
    sizes = crossval_plan()["train_sizes"]
    return [selection for selection in crossval_selections() for _ in sizes]


def paper_outputs():
    if not PAPER:
        return []
    paper = PAPER.name
    outputs = expand(
        res("tables/{paper}_{table}.{ext}"),
        paper=paper,
        table=["acc", "nmi"],
        ext=["tsv", "md", "tex"],
    ) + [
        res(f"tables/{paper}_vs_paper.tsv"),
        res(f"tables/{paper}_fidelity.tsv"),
    ]
    outputs += expand(
        res("figures/{paper}/ablation_{dataset}.png"),
        paper=paper,
        dataset=ablation_datasets(),
    )
    if sensitivity_method():
        outputs += expand(
            res("figures/{paper}/sensitivity_{dataset}.png"),
            paper=paper,
            dataset=datasets_of([sensitivity_method()]),
        )
    if readings_method():
        outputs.append(res(f"tables/{paper}_readings.tsv"))
    if convergence_datasets():
        outputs.append(res(f"figures/{paper}/convergence.png"))
    if crossval_plan():
        outputs += [
            res(f"tables/{paper}_crossval.tsv"),
            res(f"tables/{paper}_crossval.md"),
        ]
        if crossval_plan().get("reference"):
            outputs.append(res(f"tables/{paper}_crossval_vs_paper.tsv"))
    return outputs
