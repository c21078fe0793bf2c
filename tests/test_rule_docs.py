"""Every registered rule is documented, and its documented examples are true."""

from __future__ import annotations

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
    assert any(e.after is not None for e in rule.EXAMPLES), "needs a fixed example"


@pytest.mark.parametrize(
    "code,index",
    [(code, i) for code, rule in REGISTRY.items() for i in range(len(rule.EXAMPLES))],
)
def test_rule_examples_hold(code, index):
    example = REGISTRY[code].EXAMPLES[index]
    settings = Settings(select=(code,), fix_mode="unsafe", **example.config)
    outcome = transform_source(example.before, "example.py", settings)
    if example.after is None:
        assert outcome.new_text is None
    else:
        assert outcome.new_text == example.after
