"""The screen never drops what the full analysis would find.

Every file is run through the engine twice, once as a user runs it (text
stage, structure stage, skeleton) and once with the screen switched off
(the whole file through libcst), with every rule active, in both reach
modes (only what compiled code reaches, and everything), and the results
must be the same: rewritten text, findings, suppressions left unused, or
the same error. The files are the golden corpus and generated files that
mix loops, ``with``, ``try`` and ``torch.compile`` with breaking calls in
many spellings, inside and outside functions.
"""

from __future__ import annotations

import ast
import glob
import os
import re
import textwrap
from typing import Any, Optional

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from codemods.analysis.catalogue import (
    CATALOGUE,
    CONDITION_LINE,
    INDEX_READ_LINE,
    MASK_BINDING,
    MASK_LINE,
    NAME_INDEX,
    PARENTS_OF_LAST,
    SUBSCRIPT_BOUND,
    TENSOR_READ_NAMES,
    TENSOR_READ_REST,
    WATCHED_NAMES,
    ZERO_DIM_MARK,
)
from codemods.rules.base import Prefilter, Rule
from codemods.rules.registry import REGISTRY
from rewriter.engine import pipeline as engine
from rewriter.engine.config import Settings
from rewriter.engine.suppressions import parse_suppressions
from rewriter.prefilter import screen
from rewriter.prefilter import text as prefilter_text
from rewriter.prefilter.facts import ScreenFacts, _marked_brackets
from rewriter.prefilter.skeleton import FileView, build_skeleton
from tests.golden import GOLDEN

ALL_RULES = tuple(REGISTRY)


def _run(text: str, path: str, settings_: Settings) -> tuple[Any, ...]:
    """What a user sees of one file: (new text, findings, unused suppressions) or the error."""
    try:
        outcome = engine.transform_source(text, path, settings_)
    except engine.SelfCheckError as exc:
        return ("self-check", str(exc))
    unused = outcome.unused_suppressions if outcome.parsed else tuple(sorted(parse_suppressions(text)))
    return (outcome.new_text, outcome.findings, unused)


def _unscreened(monkeypatch: pytest.MonkeyPatch, text: str, path: str, settings_: Settings) -> tuple[Any, ...]:
    with monkeypatch.context() as patch:
        patch.setattr(engine, "_screen", lambda *_: screen.Screening(parse=True))
        return _run(text, path, settings_)


def _compare(
    monkeypatch: pytest.MonkeyPatch,
    text: str,
    path: str,
    fix_mode: str,
    reach: str = "all",
    codes: tuple[str, ...] = ALL_RULES,
) -> str:
    """Run both ways; returns how the screen treated the file."""
    # torch_only off: the generated files are plain Python, and the screen must hold for all of them
    settings_ = Settings(select=codes, fix_mode=fix_mode, torch_only=False, reach=reach)  # type: ignore[arg-type]
    screened = _run(text, path, settings_)
    full = _unscreened(monkeypatch, text, path, settings_)
    assert screened == full, f"screen changed the result for:\n{text}"
    verdict = screen.screen(text, codes)
    if not verdict.parse:
        assert full[0] is None and not full[1], "screened out, but the full analysis finds something"
        return "out"
    return "skeleton" if verdict.skeleton is not None else "full"


# -- the golden corpus -------------------------------------------------------------

GOLDEN_INPUTS = sorted(glob.glob(os.path.join(GOLDEN, "*", "*.in.py")))


# the default settings in the default run; the other three in CI (`corpus`)
SETTINGS_GRID = [
    pytest.param("safe", "compiled", id="safe-compiled"),
    pytest.param("safe", "all", id="safe-all", marks=pytest.mark.corpus),
    pytest.param("unsafe", "compiled", id="unsafe-compiled", marks=pytest.mark.corpus),
    pytest.param("unsafe", "all", id="unsafe-all", marks=pytest.mark.corpus),
]


@pytest.mark.parametrize(("fix_mode", "reach"), SETTINGS_GRID)
@pytest.mark.parametrize("path", GOLDEN_INPUTS, ids=lambda p: os.path.relpath(p, GOLDEN))
def test_golden_inputs_same_with_and_without_screen(
    path: str, fix_mode: str, reach: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    _compare(monkeypatch, text, path, fix_mode, reach)


def test_golden_corpus_exercises_every_way_through() -> None:
    kinds = set()
    for path in GOLDEN_INPUTS:
        with open(path, encoding="utf-8") as handle:
            verdict = screen.screen(handle.read(), ALL_RULES)
        kinds.add("out" if not verdict.parse else "skeleton" if verdict.skeleton else "full")
    assert kinds == {"out", "skeleton", "full"}


# -- generated files ------------------------------------------------------------------

HEADER = """\
import logging
import re
import sys
import time
import time as t
import warnings
from time import perf_counter
from time import perf_counter as pc
from torch._dynamo import graph_break
import torch
import torch._dynamo as dyn

logger = logging.getLogger(__name__)
"""

#: (expression, may need ``self``) that break, in many spellings
BREAKING = [
    "print(x)",
    "print (x)",
    "(print  # say it\n    (x))",
    "x.item()",
    "x.sum().item ()",
    "x.tolist()",
    "logger.info('m')",
    "logger.warning('m %s', x)",
    "logging.info('m')",
    "time.perf_counter()",
    "t.time()",
    "perf_counter()",
    "pc()",
    "torch._dynamo.graph_break()",
    "dyn.graph_break()",
    "graph_break()",
    "warnings.warn('w')",
    "sys.stdout.write('s')",
    "torch.nonzero(x)",
    "torch.unique(x)",
    "repr(x)",
    "f'{x.item()}'",
    "helper_breaks(x)",
    "Loud()",
    "self.noisy(x)",
    "self.block(x)",
    "finder(x)",
]
#: calls that look alike but do not break
QUIET = [
    "x.sum()",
    "len(x)",
    "torch.relu(x)",
    "x.log()",
    "re.compile('a')",
    "foo.info('m')",
    "helper_quiet(x)",
    "Quiet()",
    "self.calm(x)",
    "self.other(x)",
    "x.item(1)",
    "'print(x)'",
    "t.sleep(0)",
    "torch.compile(x)",
]


def _stmt(kind: str, call: str, inner: str) -> str:
    body = textwrap.indent(f"y = {call}\n{inner}", "    ")
    if kind == "for":
        return f"for i in range(2):\n{body}"
    if kind == "for_items":
        return f"for(i)in [1, 2]:\n{body}"
    if kind == "while":
        return f"while(x.sum() > 100):\n{body}    break\n"
    if kind == "while_test":
        return f"while {call} is None:\n    break\n"
    if kind == "with":
        return f"with Manager():\n{body}"
    if kind == "with_timer":
        return f"with Timer():\n    y = {call}\n"
    if kind == "with_grad":
        return f"with torch.no_grad():\n{body}"
    if kind == "try":
        return f"try :\n{body}except ValueError:\n    y = None\n"
    if kind == "try_finally":
        return f"try:\n{body}finally:\n    y = None\n"
    return f"y = {call}\n{inner}"


KINDS = ["for", "for_items", "while", "while_test", "with", "with_timer", "with_grad", "try", "try_finally", "plain"]

SUPPORT = """\
def helper_breaks(x):
    {helper}
    return x


def helper_quiet(x):
    return x + 1


def finder(x):
    for item in [x]:
        if item is None:
            return item
        found = helper_breaks(item)
        if found is not None:
            return found
    return x


class Loud:
    def __init__(self):
        {loud}


class Quiet:
    def __init__(self):
        self.v = 1


class Manager:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Timer:
    def __enter__(self):
        {timer}
        return self

    def __exit__(self, *exc):
        return False


class Block(torch.nn.Module):
    def forward(self, x):
        {block}
        return x
"""


@st.composite
def modules(draw: st.DrawFn) -> str:
    pieces = [HEADER]
    support = {
        name: draw(st.sampled_from(["print(x)", "logger.info('m')", "x = x + 1", "pass"]))
        for name in ("helper", "loud", "timer", "block")
    }
    support["loud"] = support["loud"].replace("(x)", "('x')").replace("x = x + 1", "self.v = 1")
    support["timer"] = support["timer"].replace("(x)", "('x')").replace("x = x + 1", "self.v = 1")
    pieces.append(SUPPORT.format(**support))
    for number in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(KINDS))
        call = draw(st.sampled_from(BREAKING + QUIET))
        inner = draw(st.sampled_from(["", "x = x + 1\n", "# gbfix: ignore\nx = x * 2\n"]))
        place = draw(st.sampled_from(["function", "method", "nested", "module", "class"]))
        needs_self = call.startswith("self.")
        if needs_self and place not in ("method",):
            place = "method"
        stmt = _stmt(kind, call, inner)
        if place == "function":
            decorator = draw(st.sampled_from(["", "@torch.compile\n", "@torch.compiler.disable\n"]))
            pieces.append(f"{decorator}def f{number}(x):\n{textwrap.indent(stmt, '    ')}    return x\n")
        elif place == "nested":
            pieces.append(
                f"def f{number}(x):\n    def inner(x):\n{textwrap.indent(stmt, '        ')}"
                f"        return x\n    return inner(x)\n"
            )
        elif place == "method":
            pieces.append(
                f"class M{number}(torch.nn.Module):\n"
                f"    def __init__(self):\n        super().__init__()\n"
                f"        self.block = Block()\n        self.layers = [Block(), Block()]\n\n"
                f"    def noisy(self, x):\n        print(x)\n        return x\n\n"
                f"    def calm(self, x):\n        return x\n\n"
                f"    def other(self, x):\n        for layer in self.layers:\n            x = layer(x)\n"
                f"        return x\n\n"
                f"    def forward(self, x):\n{textwrap.indent(stmt, '        ')}        return x\n"
            )
        elif place == "class":
            pieces.append(f"class C{number}:\n    x = torch.ones(2)\n{textwrap.indent(stmt, '    ')}")
        else:
            pieces.append(f"x = torch.ones(2)\n{stmt}")
        if draw(st.booleans()):
            pieces.append(f"model{number} = torch.compile(Block())\n")
        if place in ("function", "nested") and draw(st.booleans()):
            pieces.append(f"compiled{number} = torch.compile(f{number})\n")
    source = "\n\n".join(pieces)
    compile(source, "<generated>", "exec")
    return source


@pytest.mark.fuzz
@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    source=modules(),
    fix_mode=st.sampled_from(["safe", "unsafe", "report"]),
    reach=st.sampled_from(["all", "compiled"]),
)
def test_generated_files_same_with_and_without_screen(source: str, fix_mode: str, reach: str) -> None:
    with pytest.MonkeyPatch.context() as monkeypatch:
        _compare(monkeypatch, source, "/tmp/generated.py", fix_mode, reach)


def test_generated_corpus_is_screened_every_way() -> None:
    """The generated files reach all three verdicts, so the comparison above is not vacuous."""
    kinds = set()
    sample = [
        HEADER + "def f(x):\n    return x\n",
        HEADER
        + SUPPORT.format(helper="pass", loud="pass", timer="pass", block="pass")
        + "\ndef g(x):\n    for i in range(2):\n        print(x)\n    return x\n",
        HEADER + "model = torch.compile(torch.nn.Linear(2, 2))\n",
    ]
    for source in sample:
        verdict = screen.screen(source, ALL_RULES)
        kinds.add("out" if not verdict.parse else "skeleton" if verdict.skeleton else "full")
    assert kinds == {"out", "skeleton", "full"}


# -- the pieces ---------------------------------------------------------------------


def _holds(source: str, *kinds: str) -> bool:
    return ScreenFacts(textwrap.dedent(source)).holds_break(kinds or ("for", "while", "with", "try"))


@pytest.mark.parametrize(
    "source",
    [
        "def f(x):\n    for i in range(2):\n        print(x)\n",
        "def f(x):\n    for i in range(2):\n        x.sum().item()\n",
        "from time import perf_counter as now\ndef f(x):\n    while x:\n        now()\n",
        "import torch._dynamo as d\ndef f(x):\n    with m():\n        d.graph_break()\n",
        "def f(x):\n    try:\n        (print  # why\n         (x))\n    except E:\n        pass\n",
        "def h(x):\n    print(x)\ndef f(x):\n    for i in range(2):\n        h(x)\n",
        "class A:\n    def h(self):\n        print(1)\n    def f(self):\n        for i in r:\n            self.h()\n",
        "class B:\n    def forward(self, x):\n        x.item()\n"
        "class A:\n    def __init__(self):\n        self.layers = [B()]\n"
        "    def f(self, x):\n        for layer in self.layers:\n            layer(x)\n",
        "class T:\n    def __enter__(self):\n        print(1)\ndef f(x):\n    with T():\n        pass\n",
        "def f(x):\n    for i in r:\n        x = x[x.sum(-1) > 0]\n",
        "def f(x, m):\n    keep = m.bool()\n    for i in r:\n        x = x[(keep)]\n",
        "def h(x):\n    return x[torch.isfinite(x)]\ndef f(x):\n    for i in r:\n        x = h(x)\n",
        # a mask on the line that ends a signature, and one in a one-line function
        "def h(x):\n    return x[x > 0]\ndef f(x):\n    for i in r:\n        x = h(x)\n",
        "def h(x: Tensor,\n      y: int) -> Tensor: return x[x > 0]\ndef f(x):\n    for i in r:\n        x = h(x)\n",
        "import torch\ndef f(x):\n    for i in r:\n        x = torch.where(x > 0)\n",
        "import torch\ndef f(x):\n    for i in r:\n        x = torch.where(\n            x > 0,\n        )\n",
        "import torch\ndef f(x):\n    for i in r:\n        x = torch.where(*c)\n",
        "import torch.nn.functional as F\ndef f(x, n):\n    for i in r:\n        x = F.pad(x, (0, n))\n",
        "import torch.nn.functional as F\ndef f(x, p):\n    for i in r:\n        x = F.pad(x, pad=p)\n",
        "import torch.nn.functional as F\ndef f(x):\n    for i in r:\n        x = F.pad(x, (0, len('#')))\n",
        "import math\ndef f(x):\n    for i in r:\n        n = int(math.sqrt(x.numel()))\n",
        "import numpy as np\ndef f(x):\n    for i in r:\n        n = int(np.sqrt(x).sum())\n",
        "def f(x, m):\n    for i in r:\n        x[~m] == 0\n",
        "import torch.nn.functional as F\ndef f(x, n):\n    for i in r:\n        x = F.pad(x, (0, n), mode='c')\n",
        # code after a docstring on its last line runs
        'def h(x):\n    """Scale.\n    """; x.item()\ndef f(x):\n    for i in r:\n        x = h(x)\n',
        # a nested function's defaults run in the frame of the one around it
        "def f(x):\n    for i in r:\n        def g(y=x[x > 0]):\n            return y\n",
    ],
)
def test_possible_breaks_are_seen(source: str) -> None:
    assert _holds(source)


@pytest.mark.parametrize(
    "source",
    [
        "for i in range(2):\n    print(i)\n",  # module level: no frame to skip
        "class C:\n    for i in range(2):\n        print(i)\n",
        "def f(x):\n    for i in range(2):\n        x.log()\n        foo.info(x)\n",
        "def f(x):\n    print(x)\n    for i in range(2):\n        x = x + 1\n",
        "import torch\ndef f(x):\n    for i in r:\n        torch.log(x)\n",
        "def f(x):\n    with open(p) as fh:\n        fh.read()\n",  # the manager is not the body
        "def f(x, idx):\n    for i in r:\n        x = x[idx] + x[0]\n",  # no mask in sight
        "def f(x: List[int]) -> Tensor:\n    for i in r:\n        x = x[i]\n",
        # a three-argument torch.where, padding by numbers written out, int() of a math function
        "import torch\ndef f(x):\n    for i in r:\n        x = torch.where(x > 0, x, 0)\n",
        "import torch\ndef f(x):\n    for i in r:\n        x = torch.where(\n            x > 0, x, other\n        )\n",
        "import torch\ndef f(x):\n    for i in r:\n        x = torch.where(x > 0, input=x)\n",
        "import torch.nn.functional as F\ndef f(x):\n    for i in r:\n        x = F.pad(x, (0, 1), value=0)\n",
        "import torch.nn.functional as F\ndef f(x):\n    for i in r:\n        x = F.pad(x, pad=(-1, 0,))\n",
        "import math\ndef f(x, n):\n    for i in r:\n        x = x * int(math.sqrt(n))\n",
        "import torch.nn.functional as F\ndef f(x):\n    for i in r:\n        x = F.pad(  # by one\n"
        "            x, (0, 1), mode='constant')\n",
        # `None = None` binds no name
        "def f(x, m: T | None = None, y: T | None = None):\n    for i in r:\n        x = x[None]\n",
        # a store through a mask traces
        "def f(x, m):\n    for i in r:\n        x[~m] = 0\n",
        # annotations and docstrings run no mask: `tuple[Tensor, Tensor] | None`, ``[`~Config`]``
        "def h(\n    x: Tensor,\n    pos: tuple[Tensor, Tensor] | None = None,\n) -> tuple[Tensor, Tensor | None]:\n"
        "    return x\ndef f(x):\n    for i in r:\n        x = h(x)\n",
        'def h(x):\n    """Scale.\n\n    config ([`~Config`]): the config\n    """\n    return x\n'
        "def f(x):\n    for i in r:\n        x = h(x)\n",
        # nor does a docstring's example, nor its first line
        'def h(x):\n    """Scale by [~mask] weights.\n\n    >>> h(t)\n    """  # done\n    return x\n'
        "def f(x):\n    for i in r:\n        x = h(x)\n",
        'def h(x):\n    """Scale.\n\n    >>> h(t).item()\n    """\n    return x\n'
        "def f(x):\n    for i in r:\n        x = h(x)\n",
    ],
)
def test_what_cannot_break_is_screened_out(source: str) -> None:
    assert not _holds(source)


# The text stage searches word by word; these are the patterns it stands for.
_WATCHED_CALL = re.compile(r"\b(?:%s)\b" % "|".join(map(re.escape, sorted(WATCHED_NAMES))) + prefilter_text.TO_PAREN)
_ALIAS = re.compile(r"\b(?:%s)(?:[\s\\]|#[^\n]*)+as\b" % "|".join(map(re.escape, sorted(PARENTS_OF_LAST))))
_PIECES = [
    "print",
    "log",
    "time",
    "warn",
    "ing",
    "item",
    "as",
    "x",
    "_",
    "é",
    "ｐrint",
    ".",
    " ",
    "\t",
    "\n",
    "(",
    ")",
    "#",
    "\\",
    "for",
    "while",
    "try",
    "[",
    "]",
    ">",
    "=",
    "m",
    ":",
    ".sum()",
]


def _may_break_by_pattern(text: str) -> bool:
    facts = ScreenFacts(text)
    # the text as written first; an identifier is also read in its NFKC form (``ｐrint(``)
    watched = _WATCHED_CALL.search(facts.text) is not None
    if not watched and not facts.text.isascii():
        watched = any(name in WATCHED_NAMES for _, name, _ in facts._raw_calls())
    reads = re.compile(r"\b(?:%s)" % "|".join(TENSOR_READ_NAMES) + TENSOR_READ_REST.pattern)
    masked = any(list(_marked_brackets(line)) for line in facts.text.split("\n") if MASK_LINE.search(line))
    data_dependent = reads.search(facts.text) or CONDITION_LINE.search(facts.text)
    bound = {m.group(1) for m in MASK_BINDING.finditer(facts.text)}
    named_mask = any(m.group(1) in bound for m in NAME_INDEX.finditer(facts.text))
    return (
        watched
        or _ALIAS.search(facts.text) is not None
        or data_dependent is not None
        or masked
        or named_mask
        or _reads_an_index_by_pattern(facts.text)
    )


def _reads_an_index_by_pattern(text: str) -> bool:
    """Brackets holding a 0-dim mark or a slice bound written as a subscript, or reading a name a
    line binds to a value with a 0-dim mark."""
    for line in text.split("\n"):
        if INDEX_READ_LINE.search(line) and any(
            ZERO_DIM_MARK.search(inside) or SUBSCRIPT_BOUND.search("[" + inside)
            for inside in re.findall(r"\[([^\[\]]*(?:\[[^\[\]]*\][^\[\]]*)*)\]", line)
        ):
            return True
    zero_dim = re.finditer(r"^[ \t]*(\w+)[ \t]*=(?!=)[^\n]*?" + ZERO_DIM_MARK.pattern, text, re.MULTILINE)
    if any(re.search(r"\[[^\]\n]*(?<![.\w])%s(?!\w)" % re.escape(m.group(1)), text) is not None for m in zero_dim):
        return True
    return _slices_by_a_handed_parameter(text)


def _slices_by_a_handed_parameter(text: str) -> bool:
    """Read from the ``ast``: a function slices by a parameter alone, and a call of its name hands
    an argument that is an element of something or holds a 0-dim mark."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    handed = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            values = [*node.args, *(k.value for k in node.keywords)]
            if any(isinstance(v, ast.Subscript) or ZERO_DIM_MARK.search(ast.unparse(v)) for v in values):
                handed.add(name)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in handed:
            params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
            for inner in ast.walk(node):
                if isinstance(inner, ast.Slice) and any(
                    isinstance(b, ast.Name) and b.id in params for b in (inner.lower, inner.upper, inner.step)
                ):
                    return True
    return False


@pytest.mark.parametrize(
    "line,marked",
    [
        ("x = x[x > 0]", [5]),
        ("x = x[idx[a] > 0]", [5]),  # the mark is in the outer brackets
        ("y = a[i] + b[m != 0]", [12]),
        ("x = h[~keep]", [5]),
        ("x = h[m.bool()] + 1", [5]),
        ("ok = a[0] == b", []),  # the comparison is outside
        ("    pos: tuple[Tensor, Tensor] | None = None,", []),
        ("x = f[:, 0]  # take <s> token (as [CLS])", []),
        ('x = d["]"] > 0', [5]),  # a quote: searched to the end of the line
        ("x = a[(b > 0)", [5]),  # not closed on the line
        ("x = a[) > 0", [5]),
    ],
)
def test_a_mask_is_written_inside_the_brackets(line: str, marked: list[int]) -> None:
    assert list(_marked_brackets(line)) == marked


@settings(max_examples=400, deadline=None)
@given(text=st.lists(st.sampled_from(_PIECES), max_size=14).map("".join))
def test_text_stage_searches_answer_as_the_patterns_do(text: str) -> None:
    assert ScreenFacts(text).may_break_at_all() == _may_break_by_pattern(text)
    for word in ("for", "while", "try", "print"):
        assert prefilter_text.has_word(text, word) == (re.search(rf"\b{word}\b", text) is not None)


@pytest.mark.parametrize(
    "text",
    [
        "print(x)",
        "sprint(x)",
        "print_(x)",
        "x.print  (y)",
        "print # c\n (x)",
        "print\\\n(x)",
        "éprint(x)",
        "ｐrint(x)",
        "from time import perf_counter as pc",
        "perf_counter # c\n as pc",
        "log as",
        "logas",
        "while",
        "awhile",
        "while_",
        "try:",
        "entry",
    ],
)
def test_text_stage_searches_on_chosen_texts(text: str) -> None:
    assert ScreenFacts(text).may_break_at_all() == _may_break_by_pattern(text)
    for word in ("while", "try"):
        assert prefilter_text.has_word(text, word) == (re.search(rf"\b{word}\b", text) is not None)


def test_text_stage_searches_on_the_golden_corpus() -> None:
    for path in GOLDEN_INPUTS:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        assert ScreenFacts(text).may_break_at_all() == _may_break_by_pattern(text), path


def test_calls_tells_torch_compile_from_re_compile() -> None:
    assert ScreenFacts("import torch\nm = torch.compile(m)\n").calls("torch.compile")
    assert ScreenFacts("import torch as th\nm = th.compile(m)\n").calls("torch.compile")
    assert ScreenFacts("from torch import compile as c\nm = c(m)\n").calls("torch.compile")
    assert not ScreenFacts("import re\np = re.compile('x')  # torch.compile\n").calls("torch.compile")
    assert not ScreenFacts('"""Uses torch.compile."""\nx = compile(s, "f", "exec")\n').calls("torch.compile")


def test_an_undeclared_rule_gets_every_file() -> None:
    class Anything(Rule):
        CODE = "GBF999"
        PREFILTER = Prefilter(needs_break=False)

    assert screen.structure_could_match(Anything, ScreenFacts("x = 1\n"))


def test_unparsable_text_passes() -> None:
    assert _holds("def f(:\n    print(x)\n")


def test_skeleton_keeps_lines_and_restores_bodies() -> None:
    source = textwrap.dedent("""\
        import torch


        def quiet(x):
            y = x + 1
            return y


        def loud(x):
            for i in range(2):
                print(x)
            return x
        """)
    facts = ScreenFacts(source)
    skeleton: Optional[FileView] = build_skeleton(facts, {"for"})
    assert skeleton is not None
    assert skeleton.text.count("\n") == source.count("\n")
    assert "y = x + 1" not in skeleton.text and "print(x)" in skeleton.text
    assert skeleton.restore(skeleton.text) == source
    changed = skeleton.text.replace("print(x)", "print(x, 1)")
    assert skeleton.restore(changed) == source.replace("print(x)", "print(x, 1)")
    # a blanked body that moved or changed is not put back: the file is redone in full
    assert skeleton.restore(skeleton.text.replace("...  # gbfix-screen-stub-0", "pass")) is None


def test_catalogue_kinds_are_modelled() -> None:
    """A new kind of catalogue entry must be taught to the screen (until then it lets everything through)."""
    assert {entry.kind for entry in CATALOGUE} <= {
        "qualified",
        "method",
        "logger",
        "tensor_read",
        "condition",
        "mask_index",
    }
    assert screen.SOUND


def test_the_focused_second_pass_still_catches_a_rule_that_is_not_idempotent(monkeypatch: pytest.MonkeyPatch) -> None:
    import libcst as cst

    from codemods.rules import base

    class Stutter(base.FunctionScopedRule):
        """Puts a `pass` before every loop, every time: never idempotent."""

        CODE = "GBF998"
        NAME = "stutter"
        SUMMARY = "test rule"
        PREFILTER = Prefilter(words=("for ",), holders=("for",))

        def leave_For(self, original_node: cst.For, updated_node: cst.For):  # type: ignore[no-untyped-def]
            if self.enclosing is None or not self.report(original_node, "loop", "safe"):
                return updated_node
            return cst.FlattenSentinel([cst.SimpleStatementLine([cst.Pass()]), updated_node])

    monkeypatch.setitem(REGISTRY, "GBF998", Stutter)
    source = "def quiet(x):\n    return x\n\n\ndef f(x):\n    for i in range(2):\n        print(x)\n    return x\n"
    assert screen.screen(source, ("GBF998",)).skeleton is not None
    with pytest.raises(engine.SelfCheckError, match="GBF998 would change the file again"):
        engine.transform_source(source, "/tmp/stutter.py", Settings(select=("GBF998",), torch_only=False, reach="all"))


def test_a_function_only_called_keeps_the_return_that_makes_its_break_harmless() -> None:
    """The second pass looks at the changed function; what it calls must be seen whole
    when it holds loops, or a loop could lose its `return` and look like a finding."""
    source = textwrap.dedent("""\
        def check(p):
            print(p)
            return p


        def helper(mapping, name):
            for pattern in mapping:
                if pattern == name:
                    return pattern
                compiled = check(pattern)
                if compiled:
                    return compiled
            return None


        def f(xs, mapping):
            for x in xs:
                y = x * 2 + x * 3 - x * 4 + x * 5 - x * 6
                helper(mapping, y)
            return xs
        """)
    # the trip's own ops around the call (more than a handful) make it worth a function per trip
    outcome = engine.transform_source(
        source, "/tmp/helper.py", Settings(select=ALL_RULES, torch_only=False, reach="all")
    )
    assert outcome.new_text is not None and re.search(r"def _gbfix_\w*loop_1\(\):", outcome.new_text)
    assert [f.line for f in outcome.findings] == [17]


SUBMODULES = textwrap.dedent("""\
    import torch


    class Block(torch.nn.Module):
        def forward(self, x):
            print(x)
            return x


    class Model(torch.nn.Module):
        config_class = dict
        _keys: list = ["a"]

        def __init__(self, n):
            super().__init__()
            self.width = n * 2
            if n:
                self.block = Block()
                self.other = torch.nn.Linear(n, n)
            self.scale = n ** 0.5

        def forward(self, x):
            for i in range(2):
                x = self.block(x)
            return x
    """)


def test_skeleton_keeps_only_the_submodule_lines_of_an_init_and_one_line_class_attributes() -> None:
    skeleton = build_skeleton(ScreenFacts(SUBMODULES), {"for"})
    assert skeleton is not None
    kept = skeleton.text
    # what tells the break analysis that `self.block(x)` runs Block.forward stays, in its block
    assert "        if n:\n            self.block = Block()\n" in kept
    assert "x = self.block(x)" in kept and "print(x)" in kept
    # the rest of the __init__ cannot change a finding
    for gone in ("self.width", "self.scale", "torch.nn.Linear"):
        assert gone not in kept, gone
    # one-line class attributes stay: a loop may run over one (`range(Block.STEPS)`, GBF001)
    assert "config_class = dict" in kept and '_keys: list = ["a"]' in kept
    assert skeleton.restore(kept) == SUBMODULES


def test_the_thinned_skeleton_finds_what_the_whole_file_does(monkeypatch: pytest.MonkeyPatch) -> None:
    structural = tuple(code for code in ALL_RULES if code != "GBF010")
    assert _compare(monkeypatch, SUBMODULES, "/tmp/model.py", "safe", codes=structural) == "skeleton"
    outcome = engine.transform_source(SUBMODULES, "/tmp/model.py", Settings(select=structural))
    assert [f.code for f in outcome.findings] == ["GBF001"]
    # with GBF010 active the skeleton still finds what the whole file does; the print in
    # `Block.forward` is no GBF010 finding (no loop, `with` or `try` holds it there: the break is
    # raised at `self.block(x)` in the loop, which is GBF001's finding)
    for fix_mode in ("safe", "unsafe"):
        assert _compare(monkeypatch, SUBMODULES, "/tmp/model.py", fix_mode) == "skeleton"
    outcome = engine.transform_source(SUBMODULES, "/tmp/model.py", Settings(select=ALL_RULES))
    assert [f.code for f in outcome.findings] == ["GBF001"]


@pytest.mark.parametrize(
    "edit",
    [
        pytest.param(("", "\n\ncompiled = torch.compile(\n    Model(2),\n)\n"), id="compiles-a-model"),
        pytest.param(("import torch\n", "import torch\nimport torch._dynamo\n"), id="names-dynamo"),
    ],
)
def test_gbf010_reads_the_whole_of_a_file_that_compiles_or_sets_dynamo_options(
    edit: tuple[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fix may go to the compile site, and an option set anywhere may cover the call."""
    source = SUBMODULES + edit[1] if not edit[0] else SUBMODULES.replace(*edit)
    assert source != SUBMODULES
    for fix_mode in ("safe", "unsafe"):
        assert _compare(monkeypatch, source, "/tmp/model.py", fix_mode) == "full"


SHARED = textwrap.dedent('''\
    import torch


    def f(xs):
        """Two loops that share a name:
        both become helpers, and `f` must declare it."""
        for x in xs:
            v = x
            print(v)
        for x in xs:
            v = x + 1
            print(v)
        return v * 2 + 1
    ''')


def test_a_declaration_after_a_blanked_docstring_keeps_the_skeleton(monkeypatch: pytest.MonkeyPatch) -> None:
    """The declaration goes after the docstring: the docstring's stand-in must be one statement,
    or the declaration lands inside it and the whole file has to be done again."""
    restored = []
    real = FileView.restore

    def spy(self: FileView, new_text: str) -> Optional[str]:
        restored.append(real(self, new_text))
        return restored[-1]

    monkeypatch.setattr(FileView, "restore", spy)
    outcome = engine.transform_source(SHARED, "/tmp/shared.py", Settings(reach="all"))
    assert outcome.new_text is not None and '    both become helpers, and `f` must declare it."""\n    v: object\n' in (
        outcome.new_text
    ), outcome.new_text
    assert restored and all(text is not None for text in restored)
    assert _compare(monkeypatch, SHARED, "/tmp/shared.py", "safe") == "skeleton"


CLASS_CONSTANT = textwrap.dedent("""\
    import torch


    class Mixer:
        STEPS = 3

        def forward(self, x):
            for i in range(Mixer.STEPS):
                x = x + i
                torch._dynamo.graph_break()
            return x


    def unrelated():
        return 1


    def configure(n):
        Mixer.STEPS = n
    """)


def test_a_store_to_a_class_constant_keeps_its_function_in_the_skeleton(monkeypatch: pytest.MonkeyPatch) -> None:
    skeleton = build_skeleton(ScreenFacts(CLASS_CONSTANT), {"for"})
    assert skeleton is not None
    assert "Mixer.STEPS = n" in skeleton.text and "return 1" not in skeleton.text
    outcome = engine.transform_source(CLASS_CONSTANT, "/tmp/model.py", Settings(select=ALL_RULES, reach="all"))
    assert [f.code for f in outcome.findings] == ["GBF002"]
    assert _compare(monkeypatch, CLASS_CONSTANT, "/tmp/model.py", "safe") == "skeleton"


#: a helper that prints, and what may make it compiled code: the compiled-code reader's entries
OUTPUT_HELPER = "import re\nimport torch\n\n\ndef report(x):\n    for i in range(2):\n        print(i)\n    return x\n"


@pytest.mark.parametrize(
    ("tail", "compiled"),
    [
        ("", False),
        ("PATTERN = re.compile('x')  # not torch.compile\n", False),
        ("step = torch.compile(report)\n", True),
        ("step = torch.compile(report, mode='max-autotune')\n", True),
        ("\n\n@torch.compile\ndef step(x):\n    return report(x)\n", True),
        ("\n\n@torch.compile(fullgraph=False)\ndef step(x):\n    return report(x)\n", True),
        ("model = torch.nn.Linear(2, 2)\nmodel.compile()\n", True),
    ],
)
def test_output_calls_count_where_the_file_may_compile(
    tail: str, compiled: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = OUTPUT_HELPER + tail
    assert ScreenFacts(text).may_output_in_compiled_code() is compiled
    _compare(monkeypatch, text, "/project/case.py", "safe", codes=("GBF010",))


def test_a_notice_that_only_a_recorded_run_counts_is_not_watched() -> None:
    loop = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        for i in range(2):\n"
    assert not ScreenFacts(loop + "            logger.warning_once('slow path')\n").may_break_at_all()
    assert ScreenFacts(loop + "            logger.warning('slow path')\n").may_break_at_all()


def test_an_output_call_in_a_docstring_is_text_and_one_after_its_quotes_is_code() -> None:
    forward = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
    example = '        """Run.\n\n        >>> print(m(x))\n        """\n        return x\n'
    assert not ScreenFacts(forward + example).may_output_in_compiled_code()
    after = '        """Run.\n\n        Returns x.\n        """; print(x)\n        return x\n'
    assert ScreenFacts(forward + after).may_output_in_compiled_code()


PADDED = textwrap.dedent("""\
    import torch
    import torch.nn.functional as F
    from torch import nn


    class Conv(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv1d(1, 1, 3)
            self.total = 2

        def _extra(self, x) -> torch.Tensor:
            return x.sum().long()

        def _pad1d(self, x, paddings):
            return F.pad(x, paddings)

        def forward(self, x):
            extra = self._extra(x)
            return self.conv(self._pad1d(x, (self.total, extra)))


    class Stack(nn.Module):
        def __init__(self):
            super().__init__()
            self.layers = nn.ModuleList([Conv() for _ in range(3)])

        def forward(self, x):
            for layer in self.layers:
                x = layer(x)
            return x


    def unrelated(x):
        total = 0
        for i in range(3):
            total += i
        return total
""")


def test_padding_read_through_callers_keeps_them_and_blanks_the_rest(monkeypatch: pytest.MonkeyPatch) -> None:
    # `_pad1d` breaks only because `forward` hands it a tensor that `_extra` is annotated to
    # return: the skeleton keeps those three whole, and still blanks what cannot matter
    skeleton = build_skeleton(ScreenFacts(PADDED), {"for", "while"})
    assert skeleton is not None
    kept = skeleton.text
    for needed in ("extra = self._extra(x)", "def _extra(self, x) -> torch.Tensor:", "return F.pad(x, paddings)"):
        assert needed in kept, needed
    assert "total += i" not in kept
    assert _compare(monkeypatch, PADDED, "/tmp/model.py", "safe") == "skeleton"
    outcome = engine.transform_source(PADDED, "/tmp/model.py", Settings(select=ALL_RULES))
    assert [(f.code, f.line) for f in outcome.findings] == [("GBF002", 29)]
    assert "padding by an amount held in a tensor" in outcome.findings[0].message
