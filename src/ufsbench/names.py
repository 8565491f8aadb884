"""Names that become path components: one rule per kind, checked where they are loaded.

Dataset, method, paper and clustering-method names are lower-case identifiers
(``^[a-z][a-z0-9_]*$``, the rule ``workflow/schemas/datasets.schema.yaml`` states for
datasets and every shipped name follows); a registry ``file`` is a bare file name of
letters, digits and ``._+-`` not starting with a dot (every shipped one, e.g.
``coil-100.zip``, ``relative+location+of+ct+slices+on+axial+axis.zip``); a setting id
(``gamma=0.1,K=5``) is letters, digits and ``_=,.+-`` not starting with a dot. So no
name can hold ``/``, ``\\``, NUL, be empty, be ``.`` or ``..`` or an absolute path, and
every path built from names stays inside the run's folders; :func:`inside_run` asserts
that once more for the paths the workflow writes.
"""

from __future__ import annotations

import re
from pathlib import Path

IDENTIFIER = re.compile(r"[a-z][a-z0-9_]*")
FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*")
SETTING_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_=,.+-]*")

_RULES = {
    "file": (FILE_NAME, "a bare file name: letters, digits and ._+- , not starting with '.'"),
    "setting": (SETTING_ID, "letters, digits and _=,.+- , not starting with '.'"),
}
_DEFAULT_RULE = (IDENTIFIER, "a lower-case identifier matching ^[a-z][a-z0-9_]*$")
MAX_LENGTH = 200


def check_name(kind: str, name, *, where: str | None = None) -> str:
    """``name`` if it is a safe ``kind`` name (``file``, ``setting``, else an identifier).

    Raises ``ValueError`` naming ``where`` (default: the kind) and the rule otherwise.
    """
    pattern, rule = _RULES.get(kind, _DEFAULT_RULE)
    where = where or kind
    if not isinstance(name, str) or len(name) > MAX_LENGTH or pattern.fullmatch(name) is None:
        raise ValueError(
            f"{where}: {kind} name {name!r} is not allowed: it becomes part of file paths, "
            f"so it must be {rule} (at most {MAX_LENGTH} characters)"
        )
    return name


def check_entry_names(name, spec) -> None:
    """The names of a dataset-registry entry that become paths: the entry's own name, its
    ``file`` (``data/raw/<name>/<file>``) and its ``base`` (a derived entry's)."""
    where = f"dataset registry entry {name!r}"
    check_name("dataset", name, where=where)
    if not isinstance(spec, dict):
        return
    if spec.get("file") is not None:
        check_name("file", spec["file"], where=f"{where}, key 'file'")
    if spec.get("base") is not None:
        check_name("dataset", spec["base"], where=f"{where}, key 'base'")


# Config keys whose values (lists or single names) or whose mapping keys are names that
# end up in output paths: (dotted key, kind, "values" or "keys").
CONFIG_NAMES = (
    ("experiment", "file", "values"),
    ("datasets", "dataset", "values"),
    ("feature_counts", "dataset", "keys"),
    ("methods", "method", "keys"),
    ("css.datasets", "dataset", "values"),
    ("css.methods", "method", "keys"),
    ("css.curves.datasets", "dataset", "values"),
    ("css.anytime", "dataset", "values"),
    ("clustering.datasets", "dataset", "values"),
    ("clustering.methods", "method", "keys"),
    ("paper.name", "paper", "values"),
    ("paper.methods", "method", "values"),
    ("paper.control", "method", "values"),
    ("paper.ablation.datasets", "dataset", "values"),
    ("paper.ablation.methods", "method", "values"),
    ("paper.sensitivity.method", "method", "values"),
    ("paper.convergence.method", "method", "values"),
    ("paper.convergence.datasets", "dataset", "values"),
    ("paper.readings.method", "method", "values"),
    ("paper.crossval.dataset", "dataset", "values"),
    ("paper.crossval.method", "method", "values"),
    ("blufs.two_stage", "method", "keys"),
    ("blufs.reseed_methods", "method", "values"),
    ("blufs.ablation", "method", "values"),
    ("blufs.figures.sensitivity", "dataset", "values"),
    ("blufs.figures.stability", "dataset", "values"),
    ("blufs.figures.correlation", "dataset", "values"),
    ("blufs.figures.correlation_methods", "method", "values"),
    ("blufs.figures.convergence", "dataset", "values"),
    ("blufs.runtime.methods", "method", "values"),
    ("blufs.synthetic.datasets", "dataset", "values"),
    ("blufs.synthetic.methods", "method", "values"),
)


def config_value(config, dotted):
    """``config["a"]["b"]`` for ``"a.b"``, or ``None`` where the path is absent."""
    node = config
    for part in dotted.split("."):
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def check_config_names(config: dict) -> None:
    """Check every name of the config that becomes a path component (see
    :data:`CONFIG_NAMES`), plus each method's ``datasets`` list; ``ValueError`` names the
    config key of the first bad one."""
    for dotted, kind, part in CONFIG_NAMES:
        value = config_value(config, dotted)
        if value is None:
            continue
        if part == "keys":
            names = list(value) if isinstance(value, dict) else [value]
        else:
            names = list(value) if isinstance(value, list | tuple) else [value]
        for name in names:
            check_name(kind, name, where=f"config {dotted!r}")
    for method, grid in (config.get("methods") or {}).items():
        if isinstance(grid, dict) and isinstance(grid.get("datasets"), list | tuple):
            for name in grid["datasets"]:
                check_name("dataset", name, where=f"config 'methods.{method}.datasets'")


def inside_run(paths, root=".") -> list[str]:
    """``paths`` unchanged, after checking that each resolves inside ``root``.

    The one place the workflow asserts that no output escapes the run's folder (names are
    checked at load time too, so this never fires unless a new path bypasses them).
    """
    base = Path(root).resolve()
    checked = []
    for path in paths:
        text = str(path)
        if "\0" in text or not (base / text).resolve().is_relative_to(base):
            raise ValueError(
                f"output path {text!r} resolves outside the run's folder {base}; refusing to "
                f"write it (a name in the config or the dataset registry is unsafe)"
            )
        checked.append(path)
    return checked
