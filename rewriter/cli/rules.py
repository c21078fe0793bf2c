"""`gbfix rules [CODE]`: what each rule finds, why it matters and how it fixes it.

The text is each rule's own module docstring (one source: the codemod's
module), so the list and the docs follow the registry.
"""

from __future__ import annotations

import json
from typing import Optional

import typer

from codemods.rules.registry import REGISTRY
from rewriter.cli.app import choose_format, err
from rewriter.engine.config import ConfigError, parse_codes
from rewriter.engine.report import doc_markdown
from rewriter.engine.results import EXIT_CLEAN, EXIT_ERROR


def rule_table() -> str:
    """One line per registered rule: code, name, summary."""
    if not REGISTRY:
        return ""
    width = max(len(rule.NAME) for rule in REGISTRY.values())
    return "".join(f"{code}  {rule.NAME:<{width}}  {rule.SUMMARY}\n" for code, rule in sorted(REGISTRY.items()))


def rule_text(code: str) -> str:
    rule = REGISTRY[code]
    return f"{code} ({rule.NAME}): {rule.SUMMARY}\n\n{rule.doc()}\n"


def _record(code: str) -> dict:
    rule = REGISTRY[code]
    return {
        "code": code,
        "name": rule.NAME,
        "summary": rule.SUMMARY,
        "doc": rule.doc(),
        "examples": [{"before": e.before, "after": e.after} for e in rule.EXAMPLES],
    }


def rules(
    code: Optional[str] = typer.Argument(
        None, metavar="CODE", help="A rule code (or prefix, or ALL) to document; none lists all."
    ),
    output_format: str = typer.Option("text", "--format", metavar="FORMAT", help="text, json or markdown; any case."),
) -> None:
    """List the rules, or print one rule's documentation."""
    output_format = choose_format(output_format, ("text", "json", "markdown"))
    try:
        codes = parse_codes([code], "gbfix rules") if code else tuple(sorted(REGISTRY))
    except ConfigError as exc:
        err(f"gbfix: error: {exc}")
        raise typer.Exit(EXIT_ERROR) from None
    if output_format == "json":
        typer.echo(json.dumps([_record(c) for c in codes], indent=2))
    elif output_format == "markdown":
        typer.echo("\n".join(f"## {c} ({REGISTRY[c].NAME})\n\n{doc_markdown(REGISTRY[c])}" for c in codes), nl=False)
    elif code is None:
        typer.echo(rule_table(), nl=False)
    else:
        typer.echo("\n".join(rule_text(c) for c in codes), nl=False)
    raise typer.Exit(EXIT_CLEAN) from None
