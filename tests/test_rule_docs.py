"""Every registered rule is documented, and its documented examples are true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from codemods.rules.registry import REGISTRY
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

HEADINGS = ("What it finds", "Why it skips the frame", "Example", "Rewritten", "Fix safety")


def test_codes_are_unique_and_well_formed():
    assert len({r.CODE for r in REGISTRY.values()}) == len(REGISTRY)
    for code, rule in REGISTRY.items():
        assert code == rule.CODE and code.startswith("GBF") and len(code) == 6


@pytest.mark.parametrize("code", list(REGISTRY))
def test_rule_has_docs_and_examples(code):
    rule = REGISTRY[code]
    doc = rule.doc()
    for heading in HEADINGS:
        assert heading in doc, f"{code} doc lacks {heading!r}"
    assert rule.SUMMARY and rule.NAME
    if rule.REPORTS_ONLY:
        assert rule.EXAMPLES and all(e.after is None for e in rule.EXAMPLES), "shows findings, never fixes"
    else:
        assert any(e.after is not None for e in rule.EXAMPLES), "needs a fixed example"


@pytest.mark.parametrize(
    "code,index",
    [(code, i) for code, rule in REGISTRY.items() for i in range(len(rule.EXAMPLES))],
)
def test_rule_examples_hold(code, index):
    example = REGISTRY[code].EXAMPLES[index]
    if not REGISTRY[code].applies():
        pytest.skip(f"{code} finds nothing on this Python")
    # An example shows a rule on a function that runs under compile: every function counts here.
    settings = Settings(select=(code,), fix_mode="unsafe", **{"reach": "all", **example.config})
    outcome = transform_source(example.before, "example.py", settings)
    if REGISTRY[code].REPORTS_ONLY:
        assert [f.code for f in outcome.findings] == [code] and outcome.new_text is None
    elif example.after is None:
        assert outcome.new_text is None
    else:
        assert outcome.new_text == example.after


def test_deferrals_name_registered_rules_and_never_themselves():
    for code, rule in REGISTRY.items():
        assert set(rule.DEFERS_TO) <= set(REGISTRY) - {code}, code


def test_a_rule_cannot_ask_about_a_rule_it_does_not_defer_to():
    from libcst.codemod import CodemodContext

    from codemods.rules.base import RuleOptions

    rule = REGISTRY["GBF002"](CodemodContext(), RuleOptions(selected=frozenset(REGISTRY)))
    assert rule.defers_to("GBF001")
    with pytest.raises(ValueError, match="not in its DEFERS_TO"):
        rule.defers_to("GBF004")


def test_expression_hooks_need_the_full_walk():
    import libcst as cst

    from codemods.rules.base import FunctionScopedRule

    with pytest.raises(TypeError, match="visit_Call"):

        class Silent(FunctionScopedRule):  # its visit_Call would never be called
            CODE = "GBF990"

            def visit_Call(self, node: cst.Call) -> None:
                pass

    class Walking(FunctionScopedRule):
        CODE = "GBF991"
        STATEMENTS_ONLY = False

        def visit_Call(self, node: cst.Call) -> None:
            pass

    assert Walking.STATEMENTS_ONLY is False


def test_explain_names_the_rules_from_what_they_declare():
    from rewriter.runtime.explain import rules_for

    assert rules_for("loop") == ("GBF009", "GBF001", "GBF002")
    assert rules_for("with") == ("GBF003",)
    assert rules_for("try") == ("GBF004",)


def test_every_rule_has_a_row_in_the_readme_table():
    """The fourth place a new rule touches (CONTRIBUTING.md): one row of the README's rule table."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    rows = set(re.findall(r"^\| (GBF\d{3}) \|", readme, flags=re.M))
    assert sorted(set(REGISTRY) - rows) == []
