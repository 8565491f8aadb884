"""A config file read as the workflow reads it: validated against the workflow's schema,
which fills in every default (the plan reads only validated configs)."""

from __future__ import annotations

import copy
from pathlib import Path

SCHEMA = Path("workflow") / "schemas" / "config.schema.yaml"


def find_schema(start) -> Path:
    """The workflow schema of the checkout holding ``start`` (a file or folder)."""
    start = Path(start).resolve()
    for folder in (start, *start.parents):
        if (folder / SCHEMA).is_file():
            return folder / SCHEMA
    raise FileNotFoundError(f"no {SCHEMA} in {start} or a folder above it: not a checkout")


def _filling_defaults(validator_class):
    """``validator_class`` that also writes each property's ``default`` into the instance
    before checking it, so nested sections get their defaults too."""
    from jsonschema import validators

    check_properties = validator_class.VALIDATORS["properties"]

    def properties(validator, props, instance, schema):
        if isinstance(instance, dict):
            for name, sub in props.items():
                if isinstance(sub, dict) and "default" in sub:
                    instance.setdefault(name, copy.deepcopy(sub["default"]))
        yield from check_properties(validator, props, instance, schema)

    return validators.extend(validator_class, {"properties": properties})


def validate_config(config: dict, schema_path) -> dict:
    """A copy of ``config`` checked against the schema at ``schema_path``, defaults filled in.
    Raises ``ValueError`` naming the first offending key."""
    import yaml
    from jsonschema import Draft202012Validator, ValidationError

    schema = yaml.safe_load(Path(schema_path).read_text())
    config = copy.deepcopy(config)
    try:
        _filling_defaults(Draft202012Validator)(schema).validate(config)
    except ValidationError as error:
        where = ".".join(map(str, error.absolute_path)) or "(top level)"
        raise ValueError(f"config {where!r}: {error.message}") from None
    return config


def load_config(path, root=None) -> dict:
    """The config file ``path``, validated by the workflow schema of the checkout ``root``
    (default: the checkout holding ``path``, else the working directory's)."""
    import yaml

    config = yaml.safe_load(Path(path).read_text()) or {}
    if root is not None:
        return validate_config(config, find_schema(root))
    try:
        schema = find_schema(Path(path).parent)
    except FileNotFoundError:
        schema = find_schema(Path.cwd())
    return validate_config(config, schema)
