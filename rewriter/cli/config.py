"""`gbfix config`: print the configuration a run would use.

That is ``[tool.gbfix]`` of the nearest pyproject.toml (or ``--config``)
with the flags applied, as TOML that can be pasted back into a
pyproject.toml, or as JSON. Every key ``[tool.gbfix]`` accepts is printed,
defaults included, so the output is also the list of keys.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any, List, Optional

import typer

from rewriter.cli.app import choose_format, resolve_settings
from rewriter.engine.config import Settings, config_keys
from rewriter.engine.results import EXIT_CLEAN


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        # JSON string escapes are valid TOML basic-string escapes.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML form for {type(value).__name__}")


def _is_table_array(value: Any) -> bool:
    return isinstance(value, (list, tuple)) and bool(value) and all(dataclasses.is_dataclass(v) for v in value)


def _value(settings: Settings, key: str) -> Any:
    """A key's value for the run: ``exclude`` holds the flags' globs too; ``evidence`` the level
    the run uses (unset, it follows ``reach``)."""
    if key == "evidence":
        return settings.least_evidence
    return settings.exclude + settings.flag_exclude if key == "exclude" else getattr(settings, key)


def settings_toml(settings: Settings) -> str:
    """``[tool.gbfix]`` holding every key; arrays of tables after plain keys, as TOML requires."""
    plain, tables = [], []
    for key in config_keys():
        value = _value(settings, key)
        if _is_table_array(value):
            for item in value:
                rows = [f"{k} = {_toml_value(v)}" for k, v in dataclasses.asdict(item).items()]
                tables.append(f"\n[[tool.gbfix.{key}]]\n" + "\n".join(rows) + "\n")
        else:
            plain.append(f"{key} = {_toml_value(list(value) if isinstance(value, tuple) else value)}\n")
    return "[tool.gbfix]\n" + "".join(plain) + "".join(tables)


def settings_json(settings: Settings) -> dict:
    values = {}
    for key in config_keys():
        value = _value(settings, key)
        if _is_table_array(value):
            values[key] = [dataclasses.asdict(v) for v in value]
        else:
            values[key] = list(value) if isinstance(value, tuple) else value
    return {"source": settings.source, "active_rules": list(settings.active_codes), "settings": values}


def config(
    path: str = typer.Argument(
        ".", metavar="PATH", help="Where to look for pyproject.toml (this directory and its parents)."
    ),
    config_file: Optional[str] = typer.Option(
        None, "--config", metavar="FILE", help="pyproject.toml to read instead of the nearest one."
    ),
    select: Optional[str] = typer.Option(
        None, "--select", metavar="CODES", help="Override select (comma-separated codes)."
    ),
    ignore: Optional[str] = typer.Option(
        None, "--ignore", metavar="CODES", help="Override ignore (comma-separated codes)."
    ),
    exclude: Optional[List[str]] = typer.Option(
        None, "--exclude", metavar="GLOB", help="Add an exclude glob; repeatable."
    ),
    output_format: str = typer.Option("toml", "--format", metavar="FORMAT", help="toml or json; any case."),
) -> None:
    """Print the configuration a run would use.

    That is pyproject.toml's gbfix table with the flags applied.
    """
    output_format = choose_format(output_format, ("toml", "json"))
    settings = resolve_settings([path], select, ignore, exclude, config=config_file)
    if output_format == "json":
        typer.echo(json.dumps(settings_json(settings), indent=2))
        raise typer.Exit(EXIT_CLEAN)
    source = f"{settings.source}" if settings.source else "no pyproject.toml found: defaults"
    typer.echo(f"# gbfix configuration from {source}")
    typer.echo(f"# active rules: {', '.join(settings.active_codes) or 'none'}")
    typer.echo(settings_toml(settings), nl=False)
    raise typer.Exit(EXIT_CLEAN)
