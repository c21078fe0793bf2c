"""Fuzzing the rules with arbitrary valid Python: no crash, valid output, idempotent.

hypothesmith writes programs from Python's grammar (odd whitespace,
comments, form feeds, continuation lines, every statement form) and from
libcst's node types. Each program goes through one codemod or all of them,
as it is and planted inside a function where a graph break sits in a loop,
a ``with`` block or a ``try`` block, so the rules that only act there see
it. Whatever comes out must compile, and a second run must change nothing.
"""

from __future__ import annotations

import textwrap

import hypothesis.strategies as st
import libcst as cst
import pytest
from hypothesis import assume, event, given, note, settings

from codemods.rules.registry import REGISTRY
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import SelfCheckError, transform_source
from tests import generated

# hypothesmith writes calls of literals (`1()`), which compile with this warning
pytestmark = [
    pytest.mark.fuzz,
    pytest.mark.filterwarnings("ignore:.* object is not callable; perhaps you missed a comma:SyntaxWarning"),
]

PATH = "/fuzz/generated.py"

#: where a generated program is planted: inside a holder of a graph break
TEMPLATES = {
    "as is": None,
    "for": "def _fuzz(x):\n    for _i in range(2):\n        print(_i)\n{body}    return x\n",
    "while": "def _fuzz(x, n):\n    while n > 0:\n        n = n - 1\n        print(n)\n{body}    return x\n",
    "with": "def _fuzz(x, cm):\n    with cm:\n        print(x)\n{body}    return x\n",
    "try": (
        "def _fuzz(x):\n    try:\n        torch._dynamo.graph_break()\n{body}"
        "    except ValueError:\n        pass\n    return x\n"
    ),
}

#: each codemod on its own, and all of them together as a run would use them
SELECTIONS = [(code,) for code in REGISTRY] + [tuple(REGISTRY)]


def plant(program: str, template: str) -> str:
    shape = TEMPLATES[template]
    if shape is None:
        return program
    body = textwrap.indent(program if program.endswith("\n") else program + "\n", " " * 8)
    return "import torch\n\n" + shape.format(body=body)


def compiles(text: str) -> bool:
    try:
        compile(text, PATH, "exec", dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def rewrite(text: str, select: tuple[str, ...]):
    # torch_only off: generated programs rarely import torch, and every rule must see them
    return transform_source(text, PATH, Settings(select=select, torch_only=False, reach="all"))


def check_codemods_on(program: str, template: str, select: tuple[str, ...]) -> None:
    text = plant(program, template)
    assume(compiles(text))  # e.g. `from m import *` cannot go inside a function
    note(f"--- input ({template}, {','.join(select)}) ---\n{text}")
    try:
        outcome = rewrite(text, select)
    except cst.ParserSyntaxError:
        event("libcst cannot parse it")  # reported to the user as such; not a codemod's doing
        return
    except SelfCheckError as exc:
        raise AssertionError(f"self-check failed: {exc}") from None
    if outcome.new_text is None:
        event(f"{template}: unchanged")
        return
    event(f"{template}: changed")
    note(f"--- output ---\n{outcome.new_text}")
    assert compiles(outcome.new_text), "the output does not compile"
    again = rewrite(outcome.new_text, select)
    assert again.new_text is None, f"not idempotent; a second run gives:\n{again.new_text}"


@settings(max_examples=settings.default.max_examples)
@given(
    program=generated.from_grammar(),
    template=st.sampled_from(sorted(TEMPLATES)),
    select=st.sampled_from(SELECTIONS),
)
def test_grammar_programs_through_every_codemod(program: str, template: str, select: tuple[str, ...]) -> None:
    check_codemods_on(program, template, select)


@settings(max_examples=max(1, settings.default.max_examples // 4))
@given(
    program=generated.from_node(),
    template=st.sampled_from(sorted(TEMPLATES)),
    select=st.sampled_from(SELECTIONS),
)
def test_node_programs_through_every_codemod(program: str, template: str, select: tuple[str, ...]) -> None:
    check_codemods_on(program, template, select)
