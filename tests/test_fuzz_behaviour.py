"""Fuzzing the rules for behaviour changes: same results, same side effects.

Hypothesis writes small functions out of what the rules touch: ``for`` loops
over constant ranges and literals (with ``continue``, ``break``, early
``return``, nesting), loops over runtime ranges and ``while`` loops, names
first bound inside a loop and read after it or on the next trip (annotated
or not), closures and ``nonlocal`` writers, ``with`` blocks of a recording
context manager, ``try``/``except``/``else``/``finally`` with raising and
non-raising bodies, and break-inducing calls (``print``,
``torch._dynamo.graph_break()``) at random places. Each function runs
eagerly before and after the rewrite (every registered rule), on plain
numbers and on small tensors, and everything observable must match:
the result, the exception that escaped (type and message), what was printed,
and the log the context managers and the code wrote.

One difference is allowed everywhere: reading a name before it is bound
raises ``NameError`` instead of ``UnboundLocalError`` when the read moved
into a helper (see ``describe``).

Unsafe fixes (``--unsafe-fixes``) are held to the same standard, except for
the one thing they are documented to change: splitting a ``with`` block
exits and re-enters its manager around the break (an ``exit`` directly
followed by an ``enter`` of the same manager is folded before comparing).
Their programs break only with calls whose arguments cannot raise.
"""

from __future__ import annotations

import contextlib
import io
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

import hypothesis.strategies as st
import pytest
import torch
from hypothesis import Phase, event, example, find, given, note, settings

from codemods.rules.registry import REGISTRY
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import SelfCheckError, transform_source

pytestmark = pytest.mark.fuzz

PATH = "/fuzz/generated.py"
DEPTH = 3


class Rec:
    """A context manager that records entering and leaving, and may swallow."""

    def __init__(self, log: list, tag: str, swallow: bool = False) -> None:
        self.log, self.tag, self.swallow = log, tag, swallow

    def __enter__(self) -> "Rec":
        self.log.append(("enter", self.tag))
        return self

    def __exit__(self, kind, value, tb) -> bool:
        self.log.append(("exit", self.tag, *(describe(value) if value else (None, None))))
        return self.swallow

    def __repr__(self) -> str:
        return f"Rec({self.tag})"


# -- writing programs -------------------------------------------------------------


@dataclass
class Block:
    """Where a statement goes: the loops around it and what it may read."""

    loop_vars: tuple[str, ...] = ()
    in_loop: bool = False
    depth: int = 0


@dataclass
class Writer:
    draw: Callable
    #: break calls read only names that are always bound (for unsafe fixes)
    plain_breaks: bool
    lines: list[str] = field(default_factory=list)
    counter: int = 0
    #: names bound somewhere above (they may still be unbound when read)
    maybe: list[str] = field(default_factory=list)

    def fresh(self, prefix: str) -> str:
        self.counter += 1
        return f"{prefix}{self.counter}"

    def emit(self, level: int, text: str) -> None:
        self.lines.append("    " * level + text)

    # expressions ------------------------------------------------------------
    def constant(self) -> str:
        return str(self.draw(st.integers(0, 3)))

    def int_name(self, block: Block) -> str:
        """An int-valued, always-bound name (or a constant)."""
        return self.draw(st.sampled_from(("n", *block.loop_vars)))

    def value(self, block: Block, safe: bool = False) -> str:
        options = ["x", "acc", "n", self.constant(), *block.loop_vars]
        if not safe:
            options += self.maybe
        name = self.draw(st.sampled_from(options))
        op = self.draw(st.sampled_from(("", " + 1", " * 2")))
        return f"{name}{op}"

    def condition(self, block: Block) -> str:
        name = self.int_name(block)
        form = self.draw(st.sampled_from(("{} % 2 == 0", "{} == {}", "{} > {}", "{} < {}")))
        return form.format(name, self.constant())

    # statements ---------------------------------------------------------------
    def break_call(self, level: int, block: Block) -> None:
        kind = self.draw(st.integers(0, 2))
        if kind == 0:
            self.emit(level, "torch._dynamo.graph_break()")
        elif kind == 1:
            self.emit(level, f'print("p{self.fresh("")}", {self.value(block, safe=self.plain_breaks)})')
        else:  # arguments no rule can prove harmless, yet they never raise here
            self.emit(level, f'print("p{self.fresh("")}", len(vals), str(acc))')

    def simple(self, level: int, block: Block) -> None:
        kind = self.draw(st.integers(0, 12))
        if kind == 0:
            self.emit(level, f"x = x {self.draw(st.sampled_from('+*-'))} {self.constant()}")
        elif kind == 1:
            self.emit(level, f"x += {self.constant()}")  # in place on tensors
        elif kind == 2:
            self.emit(level, f"acc = acc + {self.value(block)}")
        elif kind == 3:
            name = self.fresh("t")
            self.emit(level, f"{name} = {self.value(block)}")
            self.maybe.append(name)
        elif kind == 4:
            self.emit(level, f"log.append({self.value(block)})")
        elif kind == 5:
            self.emit(level, f"fns.append(lambda: {self.value(block)})")
        elif kind == 6:
            name = self.fresh("g")
            self.emit(level, f"def {name}():")
            self.emit(level + 1, f"return {self.value(block)}")
            self.emit(level, f"log.append({name}())")
        elif kind == 7:
            name = self.fresh("h")
            self.emit(level, f"def {name}():")
            self.emit(level + 1, "nonlocal acc")
            self.emit(level + 1, "acc = acc + 1")
            self.emit(level, f"{name}()")
        elif kind == 8:
            self.exit(level, block)
        elif kind == 9:
            # A bare annotation declares a name and assigns nothing.
            name = self.draw(st.sampled_from([*self.maybe, self.fresh("t")]))
            self.emit(level, f"{name}: int")
            self.maybe.append(name)
        elif kind == 10:
            name = self.fresh("t")
            self.emit(level, f"{name}: int = {self.value(block)}")
            self.maybe.append(name)
        elif kind == 11:
            self.carry(level, block, self.condition(block))
        else:
            self.break_call(level, block)

    def carry(self, level: int, block: Block, condition: str) -> None:
        """Read before bound: in a loop, the value the previous trip left."""
        name = self.fresh("c")
        self.emit(level, f"if {condition}:")
        self.emit(level + 1, f"log.append({name})")
        self.emit(level, f"{name} = {self.value(block)}")
        self.maybe.append(name)

    def exit(self, level: int, block: Block) -> None:
        """``continue``/``break``/``return``/``raise``, usually under an ``if``."""
        kinds = ["return", "raise"] + (["continue", "break"] if block.in_loop else [])
        kind = self.draw(st.sampled_from(kinds))
        if self.draw(st.integers(0, 3)):
            self.emit(level, f"if {self.condition(block)}:")
            level += 1
        if kind == "return":
            self.emit(level, f"return {self.value(block)}")
        elif kind == "raise":
            self.emit(level, f'raise ValueError("v{self.fresh("")}")')
        else:
            self.emit(level, kind)

    def body(self, level: int, block: Block, need_break: bool = False) -> None:
        count = self.draw(st.integers(1, 3))
        at = self.draw(st.integers(0, count)) if need_break else -1
        for i in range(count + (need_break and 1)):
            if i == at:
                self.break_call(level, block)
            elif block.depth < DEPTH and self.draw(st.integers(0, 2)) == 0:
                self.compound(level, block)
            else:
                self.simple(level, block)
        if self.lines[-1].rstrip().endswith(":"):
            self.emit(level, "pass")

    def compound(self, level: int, block: Block, need_break: bool = False, kinds: tuple[str, ...] = ()) -> None:
        kinds = kinds or ("for", "for", "for_runtime", "while", "with", "try", "if")
        kind = self.draw(st.sampled_from(kinds))
        inner = Block(block.loop_vars, block.in_loop, block.depth + 1)
        if kind in ("for", "for_runtime"):
            var = self.fresh("i")
            if kind == "for":
                head = self.draw(
                    st.sampled_from(
                        (
                            "range({a})",
                            "range({b}, {a})",
                            "({b}, {a})",
                            "[{a}, {b}, {a}]",
                            "({a},)",
                            "enumerate(({a}, {b}))",
                        )
                    )
                )
                head = head.format(a=self.draw(st.integers(0, 3)), b=self.draw(st.integers(0, 2)))
            else:
                head = self.draw(st.sampled_from(("range(n)", "vals", "range(n, 0, -1)")))
            targets = (var, self.fresh("v")) if head.startswith("enumerate") else (var,)
            self.emit(level, f"for {', '.join(targets)} in {head}:")
            loop = Block(block.loop_vars + targets, True, inner.depth)
            if self.draw(st.integers(0, 2)) == 0:  # true from some later trip on
                self.carry(level + 1, loop, f"{var} > {self.draw(st.integers(0, 1))}")
            self.body(level + 1, loop, need_break)
            if self.draw(st.integers(0, 4)) == 0:
                self.emit(level, "else:")
                self.body(level + 1, inner)
            self.maybe.extend(targets)  # read after the loop: unbound if it never ran
        elif kind == "while":
            counter = self.fresh("k")
            self.emit(level, f"{counter} = 0")
            self.emit(level, f"while {counter} < {self.draw(st.sampled_from(('n', '2', '3')))}:")
            self.emit(level + 1, f"{counter} = {counter} + 1")  # first: `continue` cannot spin
            self.body(level + 1, Block(block.loop_vars + (counter,), True, inner.depth), need_break)
        elif kind == "with":
            tag = self.fresh("w")
            swallow = ", swallow=True" if self.draw(st.integers(0, 3)) == 0 and not self.plain_breaks else ""
            alias = self.fresh("r") if self.draw(st.integers(0, 2)) == 0 else ""
            self.emit(level, f'with Rec(log, "{tag}"{swallow}){" as " + alias if alias else ""}:')
            if alias:
                self.emit(level + 1, f"log.append(repr({alias}))")
                self.maybe.append(alias)
            self.body(level + 1, inner, need_break)
        elif kind == "try":
            self.emit(level, "try:")
            self.body(level + 1, inner, need_break)
            handlers = self.draw(st.integers(0 if self.draw(st.booleans()) else 1, 2))
            for exc in ("ValueError", "Exception")[:handlers]:
                name = self.fresh("e")
                self.emit(level, f"except {exc} as {name}:")
                self.emit(level + 1, f'log.append(("caught", "{exc}", describe({name})))')
                if self.draw(st.booleans()):
                    self.body(level + 1, inner)
            if handlers and self.draw(st.booleans()):
                self.emit(level, "else:")
                self.body(level + 1, inner)
            if not handlers or self.draw(st.booleans()):
                self.emit(level, "finally:")
                self.emit(level + 1, 'log.append("finally")')
                if self.draw(st.booleans()):
                    self.body(level + 1, inner)
        else:
            self.emit(level, f"if {self.condition(block)}:")
            self.body(level + 1, inner, need_break)
            if self.draw(st.booleans()):
                self.emit(level, "else:")
                self.body(level + 1, inner)


@st.composite
def programs(draw, plain_breaks: bool = False, holders: tuple[str, ...] = ()) -> str:
    """One module: ``def f(x, n, vals, log)`` holding at least one loop/with/try with a break.

    ``holders``: the kinds of statement that may hold that break (default: any).
    """
    w = Writer(draw, plain_breaks)
    w.emit(0, "import torch")
    w.emit(0, "")
    w.emit(0, "def f(x, n, vals, log):")
    # tensor work of the frame's own: without it every fix would be "nothing to capture"
    w.emit(1, "x = x * 1")
    w.emit(1, "acc = 0")
    w.emit(1, "fns = []")
    top = Block(depth=1)
    statements = draw(st.integers(1, 3))
    structured = draw(st.integers(0, statements - 1))
    for i in range(statements):
        if i == structured:
            w.compound(1, top, need_break=True, kinds=holders)
        elif draw(st.booleans()):
            w.compound(1, top)
        else:
            w.simple(1, top)
    extra = draw(st.sampled_from(["", *w.maybe]))
    w.emit(1, f"return x, acc, [fn() for fn in fns]{', ' + extra if extra else ''}")
    return "\n".join(w.lines) + "\n"


# -- running them -------------------------------------------------------------------

INPUTS = (
    lambda: (1, 2, [2, 5]),
    lambda: (torch.tensor([1.0, 2.0]), 3, [1]),
    lambda: (torch.tensor([0.5]), 0, []),
)


def _plain(value: Any) -> Any:
    """What a value looks like, recursively, with tensors as (values, dtype)."""
    if isinstance(value, torch.Tensor):
        return ("tensor", value.tolist(), str(value.dtype))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [_plain(v) for v in value])
    if isinstance(value, Rec):
        return repr(value)
    return value


def observe(source: str, fold: bool = False) -> list:
    """Everything ``f`` does on each input: result or escaped exception, printout, log."""
    namespace: dict = {"Rec": Rec, "describe": describe, "__name__": "fuzzed"}
    exec(compile(source, PATH, "exec"), namespace)
    seen = []
    for make in INPUTS:
        x, n, vals = make()
        log: list = []
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                result = ("returned", _plain(namespace["f"](x, n, vals, log)))
            except Exception as exc:  # noqa: BLE001 - which one escaped is the observation
                result = ("raised", *describe(exc))
        seen.append((result, out.getvalue(), _plain(fold_reentry(log) if fold else log)))
    return seen


def describe(exc: BaseException) -> tuple[str, str]:
    """An exception's type and message; any read of an unbound name is one kind.

    Code moved into a helper reads the parent's names as free variables: a
    read before the name is bound raises ``NameError`` ("cannot access free
    variable") where the original raised ``UnboundLocalError`` (its
    subclass). That is the one difference moving code into a closure cannot
    avoid, so both count as "unbound" here, naming the variable.
    """
    if isinstance(exc, NameError):
        match = re.search(r"variable '(\w+)'", str(exc))
        if match:
            return "unbound", match.group(1)
    return type(exc).__name__, str(exc)


def fold_reentry(log: list) -> list:
    """Drop a clean ``exit`` of a manager directly followed by its ``enter``: a split ``with``."""
    folded: list = []
    for entry in log:
        if isinstance(entry, tuple) and entry[0] == "enter" and folded and folded[-1] == ("exit", entry[1], None, None):
            folded.pop()
            continue
        folded.append(entry)
    return folded


def example_each(sources: dict[str, str]) -> Callable:
    def decorate(test: Callable) -> Callable:
        for source in sources.values():
            test = example(source)(test)
        return test

    return decorate


def rewrite(source: str, fix_mode: str) -> tuple[Optional[str], tuple[str, ...]]:
    """The rewritten source (None: unchanged) and the fixes applied, as ``CODE:safety``."""
    try:
        outcome = transform_source(source, PATH, Settings(fix_mode=fix_mode, reach="all"))  # type: ignore[arg-type]
    except SelfCheckError as exc:
        pytest.fail(f"self-check failed: {exc}\n--- program ---\n{source}")
    fixes = tuple(sorted({f"{f.code}:{f.fix}" for f in outcome.findings if f.applied}))
    return outcome.new_text, fixes


def check_same_behaviour(source: str, fix_mode: str, fold: bool = False) -> None:
    new, fixes = rewrite(source, fix_mode)
    for fix in fixes:
        event(f"{fix_mode} run: {fix} applied")
    if new is None:
        event(f"{fix_mode} run: unchanged")
        return
    note(f"--- rewritten ({fix_mode}: {', '.join(fixes)}) ---\n{new}")
    before, after = observe(source, fold), observe(new, fold)
    for inputs, b, a in zip(INPUTS, before, after, strict=False):
        assert a == b, f"{fix_mode} fixes {fixes} changed behaviour on inputs {inputs()}:\nbefore: {b}\nafter:  {a}"


def _program(*body: str) -> str:
    lines = ["import torch", "", "def f(x, n, vals, log):", "    x = x * 1", "    acc = 0", "    fns = []"]
    return "\n".join(lines + ["    " + line for line in body]) + "\n"


#: programs the fuzzer found that rules got wrong, run on every test run
FOUND = {
    # An inner unrolled loop left `t4: object` in the outer body; the outer
    # helper declared `nonlocal t4` next to it: a SyntaxError.
    "nested loops, name read after both": _program(
        "for i1 in range(2):",
        '    print("p2", x)',
        "    for i3 in range(1):",
        "        torch._dynamo.graph_break()",
        "        t4 = x",
        "return x, acc, [fn() for fn in fns], t4",
    ),
    # The `else` body ran in the parent but read a name the unrolled body kept
    # local to its helper (NameError), and the loop variable was assigned after it.
    "for-else reads the body's names": _program(
        "for i1 in (0, 1):",
        "    for i2 in (2, 3):",
        '        print("p3", len(vals), str(acc))',
        "        t4 = 0",
        "    else:",
        "        t5 = t4 + i2",
        "        log.append(t5)",
        "return x, acc, [fn() for fn in fns]",
    ),
    # Two outlined loops each relied on the other's binding of `t`: once both
    # were helpers, nothing bound it in the parent (a SyntaxError).
    "two loops bind one name": _program(
        "for i1 in range(n):",
        '    print("p1", i1)',
        "    t = i1",
        "for i2 in vals:",
        '    print("p2", i2)',
        "    t = i2",
        "return x, acc, [fn() for fn in fns]",
    ),
    # A `continue` in an inner loop's `else` belongs to the outer loop; unrolling
    # the outer loop left it outside any loop (a SyntaxError).
    "continue in an inner else": _program(
        "for i1 in range(1):",
        "    torch._dynamo.graph_break()",
        "    for i2 in range(2):",
        "        x = x + 0",
        "    else:",
        "        acc = acc + x * 2",
        "        continue",
        "return x, acc, [fn() for fn in fns], i1",
    ),
    # A closure reads the inner loop's variable, so GBF001 left the inner loop;
    # inside the outer loop's helper the closure was out of sight and a second
    # run unrolled it (not idempotent).
    "inner loop variable read by a closure": _program(
        "for i1 in range(1):",
        "    torch._dynamo.graph_break()",
        "    for i2 in range(1):",
        "        torch._dynamo.graph_break()",
        "    else:",
        "        x += 0",
        "else:",
        "    fns.append(lambda: i2)",
        "return x, acc, [fn() for fn in fns]",
    ),
    # Nested helpers: `nonlocal x` in the inner one resolves past the outer one.
    "nested helpers share a parameter": _program(
        "for i1 in range(1):",
        "    torch._dynamo.graph_break()",
        "    for i2 in range(1):",
        "        torch._dynamo.graph_break()",
        "        x += 0",
        "return x, acc, [fn() for fn in fns]",
    ),
    # A bare annotation assigns nothing: `c` carries the previous trip's value.
    "bare annotation, value carried between trips": _program(
        "for i1 in range(3):",
        "    c: int",
        "    if i1 == 2:",
        '        print("p2", c)',
        "    c = i1",
        "return x, acc, [fn() for fn in fns]",
    ),
}


@given(programs())
@example_each(FOUND)
def test_safe_fixes_keep_behaviour(source: str) -> None:
    note(f"--- program ---\n{source}")
    check_same_behaviour(source, "safe")


@settings(max_examples=max(1, settings.default.max_examples // 2))
@given(programs(plain_breaks=True, holders=("with", "try")))
def test_unsafe_fixes_keep_behaviour_but_reentry(source: str) -> None:
    note(f"--- program ---\n{source}")
    check_same_behaviour(source, "unsafe", fold=True)


# -- the generator reaches what it must --------------------------------------------

LOOP_AND_BLOCK_RULES = [code for code in ("GBF001", "GBF002", "GBF003", "GBF004") if code in REGISTRY]


def applied(source: str, fix_mode: str) -> tuple[str, ...]:
    return rewrite(source, fix_mode)[1]


@pytest.mark.parametrize("code", LOOP_AND_BLOCK_RULES)
def test_generator_produces_programs_each_rule_rewrites(code: str) -> None:
    found = find(
        programs(),
        lambda source: any(fix.startswith(code) for fix in applied(source, "safe")),
        settings=settings(max_examples=2000, database=None, phases=[Phase.generate]),
    )
    assert any(fix.startswith(code) for fix in applied(found, "safe"))


UNSAFE_FIXES = [f"{code}:unsafe" for code in ("GBF003", "GBF004") if code in REGISTRY]


@pytest.mark.parametrize("fix", UNSAFE_FIXES)
def test_unsafe_generator_produces_programs_each_unsafe_fix_rewrites(fix: str) -> None:
    found = find(
        programs(plain_breaks=True, holders=("with", "try")),
        lambda source: fix in applied(source, "unsafe"),
        settings=settings(max_examples=2000, database=None, phases=[Phase.generate]),
    )
    assert fix in applied(found, "unsafe")


# -- rule bugs the fuzzer found, one test each ----------------------------------------


def test_gbf003_unsafe_fix_keeps_entering_a_manager_around_only_the_break() -> None:
    # A split would have left no `with` at all: the block is outlined instead.
    source = (
        "import torch\n\n"
        "def f(x, n, vals, log):\n"
        "    x = x * 1\n"
        '    with Rec(log, "w1"):\n'
        "        torch._dynamo.graph_break()\n"
        "    return x\n"
    )
    new, fixes = rewrite(source, "unsafe")
    assert new is not None and fixes == ("GBF003:safe",)
    assert observe(new) == observe(source)


@pytest.mark.parametrize("clause", ["except ValueError:", "except ValueError:\n        pass\n    else:"])
def test_gbf004_fixes_a_try_nested_in_a_split_try_in_one_run(clause: str) -> None:
    # The split keeps the handlers and the `else` in the function: a breaking
    # `try` there is fixed in the same run, so a second run has nothing to do.
    source = (
        "import torch\n\n"
        "def f(x: torch.Tensor, n, vals, log):\n"
        "    try:\n"
        "        x = x + 1\n"
        '        print("a", x)\n'
        "        x = x * 2\n"
        f"    {clause}\n"
        "        try:\n"
        "            x = x - 1\n"
        '            print("b", x)\n'
        "        except ValueError:\n"
        "            pass\n"
        "    return x\n"
    )
    new, fixes = rewrite(source, "safe")
    assert new is not None and fixes == ("GBF004:safe",)
    again = transform_source(new, PATH, Settings(reach="all"))
    assert again.new_text is None and again.findings == ()
    assert observe(new) == observe(source)


def test_gbf004_break_reading_a_maybe_unbound_name_stays_in_the_try() -> None:
    # `t2` is bound only if the loop ran: reading it may raise, and the
    # handler must still catch that, so the try is outlined, not split.
    source = _program(
        "try:",
        "    for i1 in range(n):",
        "        t2 = i1",
        '    print("p3", t2)',
        "except Exception as e4:",
        '    log.append(("caught", "Exception", describe(e4)))',
        "return x, acc, [fn() for fn in fns]",
    )
    new, fixes = rewrite(source, "safe")
    assert new is not None and fixes == ("GBF004:safe",)
    assert "_gbfix_try_" in new
    assert observe(new) == observe(source)


def test_gbf001_loop_variable_bound_when_a_trip_raises() -> None:
    # The loop binds `i1 = 0` before the first trip raises: the unrolled code
    # must too, or a caught exception leaves it unbound.
    source = _program(
        "try:",
        "    for i1 in range(2):",
        '        print("p2", x)',
        '        raise ValueError("v3")',
        "except ValueError as e4:",
        '    log.append(("caught", "ValueError", describe(e4)))',
        "return x, acc, [fn() for fn in fns], i1",
    )
    new = transform_source(source, PATH, Settings(reach="all")).new_text
    assert new is not None
    assert observe(new) == observe(source)
