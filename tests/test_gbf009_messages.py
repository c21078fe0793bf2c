"""What a GBF009 finding says it found: "reads a tensor's values" only when every break there does."""

from __future__ import annotations

import sys

import pytest

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

pytestmark = pytest.mark.skipif(sys.version_info >= (3, 12), reason="comprehensions are inlined since 3.12")


def finding(body: str):
    source = "import logging\n\nimport torch\n\nlogger = logging.getLogger(__name__)\n\n\n" + body
    outcome = transform_source(source, "/project/case.py", Settings(select=("GBF009",), reach="all"))
    (found,) = outcome.findings
    return found


def test_a_comprehension_whose_break_is_not_a_read_is_not_said_to_read_values() -> None:
    found = finding("def f(x):\n    x = x * 2\n    z = [logger.info('z %d', i) for i in range(2)]\n    return x, z\n")
    assert found.message == "graph break on every trip of a comprehension; Dynamo skips the comprehension's own frame"
    assert found.note == "not hoisted: a break in it is not a read of a tensor's values"


def test_a_comprehension_that_reads_values_it_may_change_says_so() -> None:
    found = finding(
        "def f(x, scales):\n"
        "    x = x * 2\n"
        "    z = [scales.item() + s.add_(1).sum() for s in [scales]]\n"
        "    return x, z\n"
    )
    assert found.message.startswith("graph break on every trip of a comprehension reads a tensor's values")
    assert found.note.startswith("not hoisted: `scales`")
