"""A break behind ``a is b or …`` runs only where a caller hands two objects.

Dynamo answers ``is`` while it traces, from the objects it was given. Measured on torch 2.13 (the
``torch_run`` test below): ``a is b or torch.equal(a, b)`` in a 2-trip loop compiles into one
graph when called with one tensor for both names, and the frame is skipped when called with two
tensors, equal or not, of the same shape or not (``torch.equal`` is not answered from the shapes).
So the break analysis judges such a break at each call: a call handing the same name for both
parameters does not take it, any other call does. The file's libcst analysis, the project index
(its ``ast`` twin) and the link between files say the same.
"""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from codemods.analysis.breaks.cst import BreakProvider
from codemods.analysis.project.index import summarise
from codemods.fastcst.positions import LazyPositionProvider
from codemods.fastcst.walk import ReadOnlyMetadataWrapper

#: the test in ``same`` -> whether a call handing one tensor for ``a`` and ``b`` still breaks
FORMS = {
    "a is b or torch.equal(a, b)": False,
    "a is b or a.equal(b)": False,
    "a is not b and torch.equal(a, b)": False,
    "flag or a is b or torch.equal(a, b)": False,
    "(a is b or torch.equal(a, b)) and (b is c or torch.equal(b, c))": False,
    # the break runs first, or also when ``a is b``: a sure break
    "torch.equal(a, b) or a is b": True,
    "a is not b or torch.equal(a, b)": True,
    "a is b and torch.equal(a, b)": True,
    # ``None`` is no parameter: what the caller hands decides nothing here
    "a is None or torch.equal(a, b)": True,
}

#: the forms whose break runs only when ``a is b``
ONLY_FOR_ONE_OBJECT = ("a is not b or torch.equal(a, b)", "a is b and torch.equal(a, b)")

MODULE = """\
import torch


def same(a, b, c=None, flag=False):
    if {form}:
        return a + 1
    return a


def loop(x, y):
    out = x * 0
    for _ in range(2):
        out = out + same(x, {second}, {second})
    return out
"""


def _loop_call_breaks(text: str) -> bool:
    """The file's analysis marks the call of ``same`` in ``loop`` as a break."""
    wrapper = ReadOnlyMetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    breaks = wrapper.resolve(BreakProvider)
    positions = wrapper.resolve(LazyPositionProvider)
    return any(
        isinstance(node, cst.Call) and positions[node].start.line == 13 and reason is not None
        for node, reason in breaks.items()
    )


@pytest.mark.parametrize("form", sorted(FORMS))
def test_a_call_handing_one_object_does_not_take_the_break(form: str) -> None:
    assert _loop_call_breaks(MODULE.format(form=form, second="x")) == FORMS[form]
    # two objects: the break runs, whatever the form
    assert _loop_call_breaks(MODULE.format(form=form, second="y"))
    # the check can fail: the loop's line is the one read
    assert not _loop_call_breaks(MODULE.format(form="a is b", second="y"))


@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_index_reads_the_break_as_the_file_does(form: str) -> None:
    summary = summarise(MODULE.format(form=form, second="x"), "/m.py", "m")
    assert summary is not None
    same = next(unit for unit in summary.units if unit.qualname == "same")
    assert same.direct is not None and same.direct[2] == 5
    assert bool(same.distinct) == (not FORMS[form])
    if same.distinct:
        assert same.params == ("a", "b", "c", "flag")


def test_a_method_is_called_without_self() -> None:
    text = textwrap.dedent(
        """\
        import torch


        class Attention(torch.nn.Module):
            def forward(self, query, key):
                if query is key or torch.equal(query, key):
                    return query
                return key


        class Layer(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.att = Attention()

            def forward(self, x, memory):
                for _ in range(2):
                    x = self.att(x, x)
                    memory = self.att(x, key=memory)
                return x + memory
        """
    )
    wrapper = ReadOnlyMetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    breaks = wrapper.resolve(BreakProvider)
    positions = wrapper.resolve(LazyPositionProvider)
    lines = {positions[n].start.line for n, r in breaks.items() if isinstance(n, cst.Call) and r is not None}
    assert 18 not in lines and 19 in lines
    summary = summarise(text, "/m.py", "m")
    assert summary is not None
    forward = next(unit for unit in summary.units if unit.qualname == "Attention.forward")
    assert forward.distinct == (("query", "key"),) and forward.params == ("query", "key")


CALLEE = """\
import torch


class Attention(torch.nn.Module):
    def forward(self, query, key, value):
        if (query is key or torch.equal(query, key)) and (key is value or torch.equal(key, value)):
            return query * 2
        return query + key + value
"""

CALLER = """\
import torch

from pkg.attn import Attention


class Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.att = Attention()

    def forward(self, x, memory):
        for _ in range(3):
            x = torch.tanh(self.att({arguments})) + x
        return x
"""


@pytest.mark.parametrize(
    ("arguments", "found"),
    [
        ("x, x, x", False),
        ("query=x, value=x, key=x", False),
        ("x, memory, memory", True),
        ("x, x, memory", True),
        ("x, *[x, x]", True),
        # an attribute read twice may be two objects (a property)
        ("self.state, self.state, self.state", True),
    ],
)
def test_a_call_into_another_file_is_judged_at_the_call(tmp_path, arguments: str, found: bool) -> None:
    from rewriter.engine.batch import build_project
    from rewriter.engine.config import Settings
    from rewriter.engine.pipeline import transform_source

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    attn, model = tmp_path / "pkg" / "attn.py", tmp_path / "pkg" / "model.py"
    attn.write_text(CALLEE)
    model.write_text(CALLER.format(arguments=arguments))
    settings = Settings(cache=False)
    project = build_project([str(attn), str(model)], settings, jobs=1)
    outcome = transform_source(model.read_text(), str(model), settings, project.facts_for(str(model)))
    # a ``range`` loop: GBF001 unrolls it
    assert [(f.code, f.line) for f in outcome.findings] == ([("GBF001", 12)] if found else [])


@pytest.mark.torch_run
@pytest.mark.parametrize("form", sorted(FORMS))
def test_the_forms_as_measured(form: str) -> None:
    """Under torch.compile, a loop calling ``same`` with one tensor for both parameters skips its
    frame exactly where the analysis says it breaks; with two tensors, of the same shape or not, it
    does wherever the break runs for two objects (not after ``a is b and``: the analysis keeps
    those as breaks, taken by a call with one object)."""
    import torch

    from rewriter.runtime.measure import measure

    namespace: dict[str, object] = {}
    exec(compile(MODULE.format(form=form, second="y"), "<forms>", "exec"), namespace)
    loop = namespace["loop"]
    t = torch.randn(3, 4)
    _, one = measure(loop, (t, t), coverage=False)
    assert (one.frames_skipped > 0) == FORMS[form], one.skip_reasons
    for other in (t.clone(), torch.randn(5, 4)):
        _, two = measure(loop, (t, other), coverage=False)
        assert (two.frames_skipped > 0) == (form not in ONLY_FOR_ONE_OBJECT), two.skip_reasons
