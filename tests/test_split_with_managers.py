"""Splitting a `with` of a listed re-entrant manager keeps what the breaking statement computes.

`with torch.no_grad(), Rec():` split around a break used to run the breaking
statement outside `no_grad` too, so a tensor it made required grad. A manager
Dynamo resumes in keeps wrapping the breaking statement. A manager whose
arguments make a call (`Rec(next_id())`) is not split: entered again, the
call would run again.
"""

from __future__ import annotations

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

PRELUDE = (
    "import torch\n\n"
    "class Rec:\n"
    "    def __init__(self, tag=None):\n"
    "        self.tag = tag\n\n"
    "    def __enter__(self):\n"
    "        return self\n\n"
    "    def __exit__(self, *exc):\n"
    "        return False\n\n"
    "def helper(w):\n"
    "    print('helper')\n"
    "    return w * 2\n\n"
)


def split(source: str):
    settings = Settings(select=("GBF003",), reach="all", reentrant_context_managers=("Rec",))
    return transform_source(PRELUDE + source, "/project/case.py", settings)


def test_the_breaking_statement_stays_under_no_grad(capsys) -> None:
    import torch

    source = (
        "def f(w):\n"
        "    with torch.no_grad(), Rec():\n"
        "        a = w + 1\n"
        "        b = helper(w)\n"
        "        c = b * a\n"
        "    return a, b, c\n"
    )
    outcome = split(source)
    assert outcome.new_text is not None
    assert "    with torch.no_grad():\n        b = helper(w)\n" in outcome.new_text
    results = []
    for text in (PRELUDE + source, outcome.new_text):
        namespace: dict = {}
        exec(compile(text, "<case>", "exec"), namespace)
        results.append([t.requires_grad for t in namespace["f"](torch.ones(2, requires_grad=True))])
    assert results[0] == results[1] == [False, False, False]


def test_a_manager_whose_arguments_call_is_not_split() -> None:
    source = (
        "def next_id():\n"
        "    return 1\n\n"
        "def f(w):\n"
        "    with Rec(next_id()):\n"
        "        a = w + 1\n"
        "        b = helper(w)\n"
        "        c = b * a\n"
        "    return c * 2\n"
    )
    outcome = split(source)
    assert outcome.new_text is not None and "def _gbfix_with_1" in outcome.new_text
    assert outcome.new_text.count("Rec(next_id())") == 1  # outlined, entered once
