"""A ``try`` whose body Dynamo traces gets a handled exception wrong (torch 2.13): a lookup that
misses (``KeyError``, ``AttributeError``) is compiled into the handler's path without a guard on
the missing key, so later calls that find the key get the handler's values; a failing tensor op
raises past the handler. A GBF004 split compiles the rest of a body that ran eagerly in the
skipped frame, so the split is refused exactly where that rest may raise what a handler catches.

The probes measure the hazard on torch (``-m torch_run``); the rule's tests rewrite without
torch, and run the outcome under ``torch.compile`` where marked.
"""

from __future__ import annotations

import pytest

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

# -- the hazard itself, on torch -------------------------------------------------------------

PROBE = """\
import torch


class Obj:
    pass


class Holder(torch.nn.Module):
    def __init__(self, value):
        super().__init__()
        if value is not None:
            self.k = torch.nn.Parameter(value, requires_grad=False)


def get(d):
    return d["k"]


def probe(x, c):
{body}
    return y.sin()


def container(value):
{make}
"""

#: name: (try body, how the argument is made from a tensor or None, whether the probe is wrong)
PROBES = {
    "dict_subscript": (
        '    try:\n        y = c["k"] * x\n    except KeyError:\n        y = x + 1',
        '    return {} if value is None else {"k": value}',
        True,
    ),
    "dict_subscript_in_a_call": (
        "    try:\n        y = get(c) * x\n    except KeyError:\n        y = x + 1",
        '    return {} if value is None else {"k": value}',
        True,
    ),
    "dict_subscript_except_exception": (
        '    try:\n        y = c["k"] * x\n    except Exception:\n        y = x + 1',
        '    return {} if value is None else {"k": value}',
        True,
    ),
    "module_dict_subscript": (
        '    try:\n        y = c["k"](x) * 2\n    except KeyError:\n        y = x + 1',
        '    return torch.nn.ModuleDict() if value is None else torch.nn.ModuleDict({"k": torch.nn.Identity()})',
        True,
    ),
    "attribute": (
        "    try:\n        y = c.k * x\n    except AttributeError:\n        y = x + 1",
        "    o = Obj()\n    if value is not None:\n        o.k = value\n    return o",
        True,
    ),
    "module_attribute": (
        "    try:\n        y = c.k * x\n    except AttributeError:\n        y = x + 1",
        "    return Holder(value)",
        True,
    ),
    "getattr_without_default": (
        '    try:\n        y = getattr(c, "k") * x\n    except AttributeError:\n        y = x + 1',
        "    o = Obj()\n    if value is not None:\n        o.k = value\n    return o",
        True,
    ),
    # not affected: what the raise depends on is guarded
    "list_index": (
        "    try:\n        y = c[0] * x\n    except IndexError:\n        y = x + 1",
        "    return [] if value is None else [value]",
        False,
    ),
    "explicit_raise": (
        '    try:\n        if "k" not in c:\n            raise KeyError("k")\n        y = c["k"] * x\n'
        "    except KeyError:\n        y = x + 1",
        '    return {} if value is None else {"k": value}',
        False,
    ),
    "membership_test": (
        '    if "k" in c:\n        y = c["k"] * x\n    else:\n        y = x + 1',
        '    return {} if value is None else {"k": value}',
        False,
    ),
    "unpacking": (
        "    try:\n        (v,) = c\n        y = v * x\n    except ValueError:\n        y = x + 1",
        "    return () if value is None else (value,)",
        False,
    ),
    "next_of_empty": (
        "    try:\n        y = next(iter(c)) * x\n    except StopIteration:\n        y = x + 1",
        "    return [] if value is None else [value]",
        False,
    ),
    "getattr_with_default": (
        '    v = getattr(c, "k", None)\n    y = x + 1 if v is None else v * x',
        "    o = Obj()\n    if value is not None:\n        o.k = value\n    return o",
        False,
    ),
}


def _probe_diffs(name: str, backend: str, misses: tuple[bool, ...]) -> list[float]:
    """Max abs difference compiled vs eager per call; ``misses`` says which calls lack the key."""
    import torch

    body, make, _ = PROBES[name]
    namespace: dict = {}
    exec(compile(PROBE.format(body=body, make=make), f"<probe {name}>", "exec"), namespace)
    probe, container = namespace["probe"], namespace["container"]
    torch._dynamo.reset()
    if backend == "counting":
        from torch._dynamo.testing import CompileCounter

        compiled = torch.compile(probe, backend=CompileCounter())
    else:
        compiled = torch.compile(probe, backend=backend)
    generator = torch.Generator().manual_seed(0)
    diffs = []
    for miss in misses:
        x = torch.randn(4, 4, generator=generator)
        c = container(None if miss else torch.randn(4, 4, generator=generator))
        diffs.append((compiled(x, c) - probe(x, c)).abs().max().item())
    return diffs


@pytest.mark.torch_run
@pytest.mark.parametrize("backend", ["counting", "eager"])
@pytest.mark.parametrize("name", sorted(PROBES))
def test_a_handled_lookup_miss_is_compiled_without_a_guard(name: str, backend: str) -> None:
    """If torch fixes this, the probes marked wrong fail here: then GBF004's refusal
    (raises.traced_hazards) can be narrowed to what still goes wrong."""
    wrong = PROBES[name][2]
    # the first call misses (the handler's path is compiled), the next two find the key, the last misses
    diffs = _probe_diffs(name, backend, (True, False, False, True))
    assert diffs[0] == 0 and diffs[3] == 0
    if wrong:
        assert min(diffs[1:3]) > 0.1, diffs
    else:
        assert max(diffs) == 0, diffs
    # a first call that finds the key compiles its path; the first miss recompiles, and the
    # call after it that finds the key again reuses the miss's graph
    diffs = _probe_diffs(name, backend, (False, True, False))
    assert diffs[:2] == [0, 0]
    assert (diffs[2] > 0.1) == wrong, diffs


@pytest.mark.torch_run
def test_a_failing_tensor_op_raises_past_the_handler() -> None:
    import torch
    from torch._dynamo.testing import CompileCounter

    def gather(x: torch.Tensor, idx: torch.Tensor) -> torch.Tensor:
        try:
            y = torch.index_select(x, 0, idx) * 2
        except (RuntimeError, IndexError):
            y = x + 1
        return y.sin()

    torch._dynamo.reset()
    compiled = torch.compile(gather, backend=CompileCounter())
    x = torch.randn(4, 4)
    assert torch.equal(compiled(x, torch.tensor([1])), gather(x, torch.tensor([1])))
    eager = gather(x, torch.tensor([9]))  # the handler runs
    assert torch.equal(eager, (x + 1).sin())
    with pytest.raises(IndexError):
        compiled(x, torch.tensor([9]))


# -- the rule ----------------------------------------------------------------------------------

TEMPLATE = """\
import torch


def lookup(table):
    return table["k"]


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = {{}}

    def forward(self, x: torch.Tensor, table: dict):
        h = x.sin()
        try:
{body}
        except {caught}:
            h = h - 1
        return h.cos()
"""

BREAK = '            print("step")'

#: rest of the body (beside the breaking print, first or last), handler: the split is refused
REFUSED = {
    "dict_subscript": ('            h = h * table["k"]', "KeyError"),
    "attribute_of_self": ("            h = h * self.scale", "AttributeError"),
    "subscript_of_self_attribute": ('            h = h * self.table["k"]', "LookupError"),
    "call_of_module_code": ("            h = h + lookup(table)", "KeyError"),
    "getattr_without_default": ('            h = h * getattr(self, "scale")', "AttributeError"),
    "method_of_an_object": ('            h = h * table.pop("k")', "KeyError"),
    "tensor_op_vs_runtime_error": ("            h = h @ h.T", "RuntimeError"),
    "tensor_index_vs_index_error": ("            h = h[3]", "IndexError"),
    "anything_vs_exception": ("            h = h + 1", "Exception"),
}
#: the rest cannot raise, traced, what the handler catches: the split stays
SPLIT = {
    "tensor_ops_vs_key_error": ("            h = h * 2 + 1", "KeyError"),
    "torch_call_vs_attribute_error": ("            h = torch.tanh(h).exp()", "AttributeError"),
    "tensor_facts_vs_key_error": ("            n = h.shape[0]\n            h = h * n", "KeyError"),
    "getattr_with_default": ('            h = h * getattr(self, "scale", 2.0)', "AttributeError"),
    "len_and_builtins_vs_lookup_error": ("            h = h * len(table) + max(1, 2)", "LookupError"),
    "tensor_op_vs_value_error": ("            h = h @ h.T", "ValueError"),
}


def _source(rest: str, caught: str, break_first: bool) -> str:
    body = f"{BREAK}\n{rest}" if break_first else f"{rest}\n{BREAK}"
    return TEMPLATE.format(body=body, caught=caught)


def _rewrite(text: str, mode: str = "safe"):
    return transform_source(text, "/project/head.py", Settings(select=("GBF004",), reach="all", fix_mode=mode))


@pytest.mark.parametrize("break_first", [True, False], ids=["hoist", "else"])
@pytest.mark.parametrize("case", sorted(REFUSED))
def test_the_split_is_refused_where_the_compiled_rest_may_raise_what_is_caught(case: str, break_first: bool) -> None:
    rest, caught = REFUSED[case]
    for mode in ("safe", "unsafe"):
        outcome = _rewrite(_source(rest, caught, break_first), mode)
        assert outcome.new_text is not None and "def _gbfix_try_1" in outcome.new_text, outcome.new_text
        (finding,) = outcome.findings
        assert finding.fix == "safe"  # the outline: the try runs eagerly, as before
        assert "not split: the rest of the `try` body would be compiled" in finding.note
        assert f"which `except {caught}` catches" in finding.note


@pytest.mark.parametrize("break_first", [True, False], ids=["hoist", "else"])
@pytest.mark.parametrize("case", sorted(SPLIT))
def test_the_split_stays_where_the_compiled_rest_cannot(case: str, break_first: bool) -> None:
    rest, caught = SPLIT[case]
    outcome = _rewrite(_source(rest, caught, break_first))
    assert outcome.new_text is not None and "_gbfix_" not in outcome.new_text, outcome.new_text
    assert ("    else:\n" in outcome.new_text) != break_first
    (finding,) = outcome.findings
    assert "not split" not in finding.note


RUN = """\
import torch


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scales = {}

    def forward(self, x: torch.Tensor, key: str):
        h = x.sin()
        try:
            h = h * self.scales[key]
            print("scaled")
        except KeyError:
            h = h - 1
        return h.cos()
"""


@pytest.mark.torch_run
def test_the_refused_split_would_return_wrong_values_and_the_outline_does_not() -> None:
    """The split GBF004 refuses (moving the print to ``else:``), made by hand, returns the
    handler's values on a call that finds the key after one that missed it; the original, whose
    frame is skipped once the first call reaches the print, and the outline made instead are
    right. (A first call that misses never reaches the print, so the original compiles the
    handler's path too: that order is wrong before any rewrite, and the outline keeps it so.)"""
    import contextlib
    import io

    import torch
    from torch._dynamo.testing import CompileCounter

    outcome = _rewrite(RUN)
    assert outcome.new_text is not None and "def _gbfix_try_1" in outcome.new_text
    by_hand = RUN.replace('            print("scaled")\n', "").replace(
        "            h = h - 1\n", '            h = h - 1\n        else:\n            print("scaled")\n'
    )
    assert by_hand != RUN

    def diffs(text: str, order: tuple[bool, ...]) -> list[float]:
        namespace: dict = {}
        exec(compile(text, "<head>", "exec"), namespace)
        model = namespace["Head"]()
        torch._dynamo.reset()
        compiled = torch.compile(model, backend=CompileCounter())
        generator = torch.Generator().manual_seed(0)
        found = []
        with contextlib.redirect_stdout(io.StringIO()):
            for present in order:
                model.scales = {"b": 3.0} if present else {}
                x = torch.randn(4, 4, generator=generator)
                found.append((compiled(x, "b") - model(x, "b")).abs().max().item())
        return found

    found_first = (True, False, True)
    assert max(diffs(RUN, found_first)) == 0
    assert diffs(by_hand, found_first)[2] > 0.1
    assert max(diffs(outcome.new_text, found_first)) == 0
    missed_first = (False, True, True)
    assert min(diffs(RUN, missed_first)[1:]) > 0.1
    assert min(diffs(outcome.new_text, missed_first)[1:]) > 0.1


# -- GBF010: removing the break compiles the `try` around it too ----------------------------

CAUSE = """\
import torch


def scale(x, table):
    try:
        for i in range(3):
            x = {line}
            print(i)
    except {handler}:
        x = x + 1
    return x


compiled = torch.compile(scale, backend="eager")
"""


def _cause_fix(line: str, handler: str) -> str:
    outcome = transform_source(
        CAUSE.format(line=line, handler=handler), "/project/scale.py", Settings(select=("GBF010",))
    )
    (finding,) = outcome.findings
    return finding.fix


@pytest.mark.parametrize(
    ("line", "handler"),
    [
        ('(x * table["scale"]).tanh()', "KeyError"),
        ('(x * table["scale"]).tanh()', "LookupError"),
        ("(x * table.scale).tanh()", "AttributeError"),
        ("(x * x).tanh()", "RuntimeError"),
        ("(x * x).tanh()", "Exception"),
        ("(x * x).tanh()", "(ValueError, IndexError)"),
    ],
)
def test_the_output_call_keeps_its_break_where_the_compiled_try_may_be_wrong(line: str, handler: str) -> None:
    assert _cause_fix(line, handler) == "none"


@pytest.mark.parametrize(
    ("line", "handler"),
    [
        ('(x * table["scale"]).tanh()', "ValueError"),
        ("torch.tanh(x * 2)", "KeyError"),
        ("torch.tanh(x * 2)", "TypeError"),
    ],
)
def test_the_output_call_is_fixed_where_the_handler_catches_nothing_compiled_code_gets_wrong(
    line: str, handler: str
) -> None:
    assert _cause_fix(line, handler) == "safe"
