"""`gbfix rules [CODE]`: what each rule finds, why it matters and how it fixes it.

The text is each rule's own module docstring (one source: the codemod's
module), so the list and the docs follow the registry. The list and a
rule's text are read from the rule modules' source, not imported: the
command starts without libcst (tests/test_rule_docs.py holds them equal
to the registry's).
"""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import re
from dataclasses import dataclass
from typing import Optional

import typer

from rewriter.cli.app import choose_format, err
from rewriter.engine.results import EXIT_CLEAN, EXIT_ERROR

_RULE_MODULE = re.compile(r"gbf\d{3}_\w+\.py")
_CARD_FIELDS = ("CODE", "NAME", "SUMMARY")


@dataclass(frozen=True)
class RuleCard:
    """What ``gbfix rules`` prints of a rule: its class's code, name and summary, its module's docstring."""

    code: str
    name: str
    summary: str
    doc: str


def rule_cards() -> dict[str, RuleCard]:
    """code -> card of every rule module (``codemods/rules/gbfNNN_*.py``), read from its source."""
    spec = importlib.util.find_spec("codemods.rules")
    assert spec is not None and spec.submodule_search_locations
    directory = list(spec.submodule_search_locations)[0]
    cards = {}
    for name in sorted(os.listdir(directory)):
        if _RULE_MODULE.fullmatch(name):
            with open(os.path.join(directory, name), encoding="utf-8") as handle:
                card = _card(ast.parse(handle.read()))
            if card is not None:
                cards[card.code] = card
    return cards


def _card(module: ast.Module) -> Optional[RuleCard]:
    """The card of the module's rule class: the one whose body binds CODE, NAME and SUMMARY to strings."""
    for node in module.body:
        if not isinstance(node, ast.ClassDef):
            continue
        values = {
            target.id: statement.value
            for statement in node.body
            if isinstance(statement, ast.Assign)
            for target in statement.targets
            if isinstance(target, ast.Name) and target.id in _CARD_FIELDS
        }
        if set(values) == set(_CARD_FIELDS):
            code, name, summary = (ast.literal_eval(values[field]) for field in _CARD_FIELDS)
            return RuleCard(code, name, summary, ast.get_docstring(module) or "")
    return None


def rule_table(cards: dict[str, RuleCard]) -> str:
    """One line per rule: code, name, summary."""
    if not cards:
        return ""
    width = max(len(card.name) for card in cards.values())
    return "".join(f"{code}  {card.name:<{width}}  {card.summary}\n" for code, card in sorted(cards.items()))


def rule_text(card: RuleCard) -> str:
    return f"{card.code} ({card.name}): {card.summary}\n\n{card.doc}\n"


def _codes(code: str, known: list[str]) -> list[str]:
    """The codes ``code`` names: one, every one it is a prefix of, or ALL (as ``--select`` reads them)."""
    wanted = code.strip().upper()
    matched = known if wanted == "ALL" else [c for c in known if c.startswith(wanted)]
    if not wanted or not matched:
        err(f"gbfix: error: gbfix rules: unknown rule code {wanted!r} (see `gbfix rules`)")
        raise typer.Exit(EXIT_ERROR)
    return matched


def _record(code: str) -> dict:
    from codemods.rules.registry import REGISTRY

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
    cards = rule_cards()
    codes = _codes(code, sorted(cards)) if code else sorted(cards)
    if output_format == "json":
        typer.echo(json.dumps([_record(c) for c in codes], indent=2))
    elif output_format == "markdown":
        from codemods.rules.registry import REGISTRY
        from rewriter.engine.report import doc_markdown

        typer.echo("\n".join(f"## {c} ({REGISTRY[c].NAME})\n\n{doc_markdown(REGISTRY[c])}" for c in codes), nl=False)
    elif code is None:
        typer.echo(rule_table(cards), nl=False)
    else:
        typer.echo("\n".join(rule_text(cards[c]) for c in codes), nl=False)
    raise typer.Exit(EXIT_CLEAN) from None
