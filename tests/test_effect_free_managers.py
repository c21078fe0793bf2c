"""GBF003 splits a ``with`` around its break by default when entering and exiting the manager
acts on nothing but the manager object (codemods/analysis/managers.py); a manager with any
other effect keeps the safe outline, and the split, forced, shows that effect twice."""

from __future__ import annotations

import contextlib
import io
import textwrap

import pytest

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

PROGRAM = """\
import torch

EVENTS = []
FLAG = {{"on": False}}


{manager}


def unrelated(x):
    return x + 1


def step(x: torch.Tensor):
    x = x.sin()
    with Manager({arguments}):
        x = x + 1
        print("inside", x.shape)
        x = x * 2
    return x.cos(), list(EVENTS)
"""

EFFECT_FREE = {
    "guide": """
        class Manager:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False
    """,
    "stores_its_arguments": """
        class Manager(object):
            '''Names a region.'''

            def __init__(self, name, depth=0, *, tag=None):
                self.name = name
                self.where = (name, depth)
                self.tag = tag

            def __enter__(self):
                self.active = True
                return self

            def __exit__(self, exc_type, exc, tb):
                self.active = False
                return None

            def describe(self):
                return self.name
    """,
    "passes": """
        class Manager:
            def __enter__(self):
                pass

            def __exit__(self, *exc):
                pass
    """,
}

WITH_EFFECTS = {
    "records_events": """
        class Manager:
            def __enter__(self):
                EVENTS.append("enter")
                return self

            def __exit__(self, *exc):
                EVENTS.append("exit")
                return False
    """,
    "calls": """
        class Manager:
            def __enter__(self):
                FLAG.update(on=True)
                return self

            def __exit__(self, *exc):
                return False
    """,
    "suppresses": """
        class Manager:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return True
    """,
    "sets_a_flag": """
        class Manager:
            def __enter__(self):
                FLAG["on"] = True

            def __exit__(self, *exc):
                FLAG["on"] = False
    """,
    "global_statement": """
        class Manager:
            def __enter__(self):
                global EVENTS
                EVENTS = EVENTS + ["enter"]

            def __exit__(self, *exc):
                return False
    """,
    "shared_default": """
        class Manager:
            def __init__(self, seen=EVENTS):
                self.seen = seen

            def __enter__(self):
                self.seen = self.seen
                return self

            def __exit__(self, *exc):
                return False
    """,
    "inherits": """
        class Manager(contextlib.AbstractContextManager):
            def __exit__(self, *exc):
                return False
    """,
    "computes": """
        class Manager:
            def __init__(self, n):
                self.n = n + 1

            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False
    """,
    "del_hook": """
        class Manager:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False

            def __del__(self):
                EVENTS.append("gone")
    """,
}

ARGUMENTS = {"stores_its_arguments": '"region", 2', "computes": "1", "shared_default": ""}


def program(case: str, manager: str) -> str:
    text = PROGRAM.format(manager=textwrap.dedent(manager).strip(), arguments=ARGUMENTS.get(case, ""))
    return "import contextlib\n" + text if "contextlib" in manager else text


def rewrite(text: str, fix_mode: str = "safe"):
    return transform_source(text, "/project/case.py", Settings(select=("GBF003",), reach="all", fix_mode=fix_mode))


def run(text: str, compiled: bool = False):
    import torch
    from torch._dynamo.testing import CompileCounter
    from torch._dynamo.utils import counters

    namespace: dict = {}
    exec(compile(text, "<case>", "exec"), namespace)
    fn = namespace["step"]
    torch._dynamo.reset()
    counters.clear()
    if compiled:
        fn = torch.compile(fn, backend=CompileCounter())
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        value, events = fn(torch.linspace(-1, 1, 4))
    return value, events, out.getvalue(), counters["frames"]["total"] - counters["frames"]["ok"]


@pytest.mark.parametrize("case", sorted(EFFECT_FREE))
def test_an_effect_free_manager_is_split_by_default(case: str) -> None:
    import torch

    text = program(case, EFFECT_FREE[case])
    outcome = rewrite(text)
    assert outcome.new_text is not None
    assert '    print("inside", x.shape)\n    with Manager(' in outcome.new_text
    assert "_gbfix_" not in outcome.new_text
    (finding,) = outcome.findings
    assert finding.fix == "safe"
    value, events, printed, _ = run(text)
    value_after, events_after, printed_after, _ = run(outcome.new_text)
    torch.testing.assert_close(value_after, value, rtol=0, atol=0)
    assert (events_after, printed_after) == (events, printed)
    compiled, _, _, skipped = run(outcome.new_text, compiled=True)
    torch.testing.assert_close(compiled, value)
    assert skipped == 0


@pytest.mark.parametrize("case", sorted(WITH_EFFECTS))
def test_a_manager_with_effects_is_outlined(case: str) -> None:
    outcome = rewrite(program(case, WITH_EFFECTS[case]))
    assert outcome.new_text is not None and "def _gbfix_with_1" in outcome.new_text
    (finding,) = outcome.findings
    assert finding.fix == "safe" and "split the block around the break" in finding.unsafe_alternative


def test_the_effect_a_split_would_repeat_is_seen() -> None:
    """What the outline keeps: split anyway, a manager that records events records two pairs."""
    text = program("records_events", WITH_EFFECTS["records_events"])
    split = rewrite(text, fix_mode="unsafe").new_text
    assert split is not None
    assert run(text)[1] == ["enter", "exit"]
    assert run(split)[1] == ["enter", "exit", "enter", "exit"]


def test_a_break_alone_in_an_effect_free_block_leaves_it() -> None:
    text = program("guide", EFFECT_FREE["guide"]).replace(
        '        x = x + 1\n        print("inside", x.shape)\n        x = x * 2\n', '        print("inside", x.shape)\n'
    )
    outcome = rewrite(text)
    assert outcome.new_text is not None
    assert "with Manager" not in outcome.new_text.split("def step", 1)[1]
    assert run(outcome.new_text)[2] == run(text)[2]
