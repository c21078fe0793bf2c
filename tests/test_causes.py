"""GBF010 and what it stands on: compiled code, output calls, their fixes, and the structural rules' deferral."""

from __future__ import annotations

import textwrap
from typing import Optional

import libcst as cst
import pytest

from codemods.analysis.breaks.cst import BreakProvider
from codemods.analysis.causes import analyse_causes
from codemods.analysis.project.compiled_code import find_compiled_code, in_compiled_code
from codemods.fastcst import walk
from codemods.fastcst.positions import LazyPositionProvider
from codemods.fastcst.walk import ReadOnlyMetadataWrapper
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source
from rewriter.prefilter.facts import ScreenFacts


def _defs(module: cst.Module) -> dict[str, cst.FunctionDef]:
    """Defs by name; a method as ``Class.name``."""
    found: dict[str, cst.FunctionDef] = {}
    for cls in walk.descendants(module):
        if isinstance(cls, cst.ClassDef):
            for stmt in cls.body.body:
                if isinstance(stmt, cst.FunctionDef):
                    found[f"{cls.name.value}.{stmt.name.value}"] = stmt
    for node in module.body:
        if isinstance(node, cst.FunctionDef):
            found[node.name.value] = node
    return found


COMPILED = textwrap.dedent("""\
    import torch
    from torch import nn

    def helper(x):
        return x

    def unrelated(x):
        return x

    @torch.compile(backend="eager")
    def step(x):
        return helper(x)

    def plain(x):
        return x

    fast = torch.compile(plain)

    class Net(nn.Module):
        def forward(self, x):
            return self.inner(x)

        def inner(self, x):
            return x

    class Other(nn.Module):
        def forward(self, x):
            return x

    class NoBase:
        def forward(self, x):
            return x

    model = Net().eval()
    model.compile()
    """)


@pytest.mark.parametrize(
    ("name", "reached", "entry"),
    [
        ("helper", True, None),
        ("unrelated", False, None),
        ("step", True, "decorator"),
        ("plain", True, "call"),
        ("Net.forward", True, "module"),
        ("Net.inner", True, None),
        ("Other.forward", True, None),
        ("NoBase.forward", False, None),
    ],
)
def test_compiled_code_from_the_file_alone(name: str, reached: bool, entry: Optional[str]) -> None:
    module = cst.parse_module(COMPILED)
    compiled = find_compiled_code(module)
    function = _defs(module)[name]
    assert in_compiled_code(compiled, function, 0, frozenset()) is reached
    found = compiled.entry_of(function)
    assert (found.kind if found else None) == entry


def test_a_recorded_line_is_compiled_code_whatever_its_function() -> None:
    module = cst.parse_module(COMPILED)
    compiled = find_compiled_code(module)
    assert in_compiled_code(compiled, _defs(module)["unrelated"], 8, frozenset({8}))
    assert in_compiled_code(compiled, None, 3, frozenset({3}))


def _break_lines(source: str) -> list[int]:
    wrapper = ReadOnlyMetadataWrapper(cst.parse_module(source), unsafe_skip_copy=True)
    breaks = wrapper.resolve(BreakProvider)
    positions = wrapper.resolve(LazyPositionProvider)
    return sorted(positions[node].start.line for node in breaks if isinstance(node, cst.Call))


def test_calls_dynamo_never_traces_are_not_breaks() -> None:
    source = textwrap.dedent("""\
        import torch
        from torch.compiler import is_compiling

        def f(x):
            if not torch.compiler.is_compiling():
                print(1)
            if torch._dynamo.is_compiling():
                pass
            elif x:
                print(2)
            else:
                print(3)
            if not is_compiling(): print(4)
            if not is_compiling():
                pass
            else:
                print(5)
            if not other():
                print(6)
            return x
        """)
    assert _break_lines(source) == [17, 19]


def _fix(source: str, fix_mode: str = "safe") -> dict[int, tuple[Optional[str], str]]:
    """Line of each output call GBF010 plans a fix for -> (form, safety)."""
    wrapper = ReadOnlyMetadataWrapper(cst.parse_module(textwrap.dedent(source)), unsafe_skip_copy=True)
    breaks = wrapper.resolve(BreakProvider)
    positions = wrapper.resolve(LazyPositionProvider)

    def line_of(node: cst.CSTNode) -> int:
        return positions[node].start.line

    analysis = analyse_causes(wrapper.module, breaks.get, line_of, frozenset(), fix_mode)  # type: ignore[arg-type]
    return {line_of(f.call): (f.form, f.fix) for f in analysis.fixes.values()}


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ('print("step", i, x.sum())', ("reorder", "safe")),
        ('print(f"x={x} i={i}")', ("reorder", "safe")),
        ('print("{}".format(i))', ("reorder", "safe")),
        ('print(x, end="")', ("guard", "unsafe")),  # reordering drops keywords
        ("print(x.shape)", ("guard", "unsafe")),  # a torch.Size cannot be kept
        ("print(x.sum().item())", ("guard", "unsafe")),  # the argument breaks by itself
        ('warnings.warn("w")', ("reorder", "unsafe")),  # the warning moves to the def line
        ('logger.warning("step %d", i)', ("ignore", "unsafe")),  # Logger methods are not reorderable
        ('logging.info("step %d", i)', ("ignore", "unsafe")),
    ],
)
def test_the_fix_for_each_call_in_a_compiled_function(body: str, expected: tuple[str, str]) -> None:
    source = f"""\
        import logging
        import warnings
        import torch

        logger = logging.getLogger(__name__)

        @torch.compile
        def step(x: torch.Tensor):
            for i in range(3):
                x = x * 2
                {body}
            return x
        """
    assert _fix(source) == {11: expected}


def test_a_tensor_changed_in_place_later_makes_the_reorder_unsafe() -> None:
    source = """\
        import torch

        @torch.compile
        def step(x: torch.Tensor):
            for _ in range(2):
                x = x * 2
                print(x)
                x.add_(1)
            return x
        """
    assert _fix(source) == {7: ("reorder", "unsafe")}
    assert _fix(source.replace("print(x)", "print(x.sum())")) == {7: ("reorder", "safe")}


def test_a_call_outside_the_compiled_function_is_guarded() -> None:
    source = """\
        import torch

        def report(x):
            print("total", x.sum())

        @torch.compile
        def step(x: torch.Tensor):
            for _ in range(2):
                report(x)
            return x * 2
        """
    assert _fix(source) == {4: ("guard", "unsafe")}


def test_a_call_dynamo_resumes_after_is_no_finding() -> None:
    """No loop, ``with`` or ``try`` holds the call, in its function or around a call of it: the
    break splits the graph and skips no frame."""
    source = """\
        import torch

        def report(x):
            print("total", x.sum())

        @torch.compile
        def step(x: torch.Tensor):
            report(x)
            print(x.mean())
            return x * 2
        """
    assert _fix(source) == {}


def test_a_reorder_a_structural_fix_would_move_is_a_guard_instead() -> None:
    """A loop with another break is unrolled or outlined: the call lands in a helper Dynamo inlines."""
    source = """\
        import torch

        @torch.compile
        def step(x: torch.Tensor):
            for i in range(3):
                x = x * 2
                print("step", i)
                n = x.sum().item()
            return x
        """
    assert _fix(source) == {7: ("guard", "unsafe")}


def test_a_reorder_next_to_a_logger_call_depends_on_the_run() -> None:
    """In a safe run the logger call stays, and the loop is GBF001's; with --unsafe-fixes both go."""
    source = """\
        import logging
        import torch

        logger = logging.getLogger(__name__)

        @torch.compile
        def step(x: torch.Tensor):
            for i in range(3):
                x = x * 2
                print("step", i)
                logger.info("step %d", i)
            return x
        """
    assert _fix(source, "safe") == {10: ("guard", "unsafe"), 11: ("ignore", "unsafe")}
    assert _fix(source, "unsafe") == {10: ("reorder", "safe"), 11: ("ignore", "unsafe")}


def test_calls_a_setting_of_the_file_covers_are_not_findings() -> None:
    source = """\
        import torch

        @torch._dynamo.config.patch(reorderable_logging_functions={print})
        @torch.compile
        def step(x: torch.Tensor):
            for _ in range(2):
                print(x.sum())
            return x

        def other(x: torch.Tensor):
            for _ in range(2):
                print(x.sum())
            return x

        fast = torch.compile(other)
        """
    assert _fix(source) == {12: ("reorder", "safe")}
    process_wide = source.rstrip(" ") + "        torch._dynamo.config.reorderable_logging_functions.add(print)\n"
    assert _fix(process_wide) == {}


# -- the rule and the structural rules ---------------------------------------------------------

LOOP = textwrap.dedent("""\
    import logging
    import torch

    logger = logging.getLogger(__name__)

    def step(x):
        for i in range(3):
            x = x * 2
            print("step", i){extra}
        return x

    compiled = torch.compile(step)
    """)


def _apply(source: str, select: str, **settings) -> tuple[str, list[str]]:
    options = Settings(select=tuple(select.split(",")), **settings)
    outcome = transform_source(source, "/project/step.py", options)
    return outcome.new_text or source, [f"{f.code}:{f.line}:{f.fix}" for f in outcome.findings]


def test_the_structural_rule_leaves_a_break_gbf010_removes() -> None:
    source = LOOP.format(extra="")
    text, findings = _apply(source, "GBF001,GBF010")
    assert findings == ["GBF010:9:safe"]
    assert "compiled = torch._dynamo.config.patch(reorderable_logging_functions={print})(torch.compile(step))" in text
    assert "_gbfix_inner" not in text
    # without GBF010, the structural fix is back
    text, findings = _apply(source, "GBF001")
    assert findings == ["GBF001:7:safe"] and "_gbfix_inner_1(2)" in text


def test_the_structural_rule_fixes_what_gbf010_leaves_in_a_safe_run() -> None:
    source = LOOP.format(extra='\n        logger.info("step %d", i)')
    text, findings = _apply(source, "GBF001,GBF010")
    assert "GBF001:7:safe" in findings and "_gbfix_inner_1(2)" in text
    assert "config.patch" not in text
    text, findings = _apply(source, "GBF001,GBF010", fix_mode="unsafe")
    assert "_gbfix_inner" not in text and "GBF001:7:safe" not in findings
    assert "ignore_logger_methods={logging.Logger.info}, reorderable_logging_functions={print}" in text


def test_a_suppressed_gbf010_gives_the_break_back_to_the_structural_rule() -> None:
    source = LOOP.format(extra="").replace('print("step", i)', 'print("step", i)  # gbfix: ignore[GBF010]')
    text, findings = _apply(source, "GBF001,GBF010")
    assert findings == ["GBF001:7:safe"] and "_gbfix_inner_1(2)" in text


@pytest.mark.parametrize("fix_mode", ["safe", "unsafe"])
def test_every_rule_together_is_idempotent(fix_mode: str) -> None:
    source = LOOP.format(extra='\n        logger.info("step %d", i)\n        y = x.sum().item()')
    settings = Settings(fix_mode=fix_mode)  # type: ignore[arg-type]
    once = transform_source(source, "/project/step.py", settings).new_text
    assert once is not None
    assert transform_source(once, "/project/step.py", settings).new_text is None


def test_the_module_line_sits_before_the_compile_statement_with_its_comment() -> None:
    source = textwrap.dedent("""\
        import torch
        from torch import nn

        class Net(nn.Module):
            def forward(self, x):
                try:
                    print("mean", x.mean())
                finally:
                    x = x + 0
                return x

        def main():
            # the model, compiled
            model = torch.compile(Net())
            return model
        """)
    text, _ = _apply(source, "GBF010")
    assert text.splitlines()[12:15] == [
        "    # the model, compiled",
        "    torch._dynamo.config.reorderable_logging_functions.add(print)  # gbfix GBF010: print() runs "
        "after the compiled graph, in the frame torch.compile starts on",
        "    model = torch.compile(Net())",
    ]


def test_imports_the_settings_name_are_added() -> None:
    source = textwrap.dedent("""\
        from warnings import warn
        import torch

        @torch.compile
        def step(x: torch.Tensor):
            try:
                warn("careful")
            finally:
                x = x * 2
            return x
        """)
    text, _ = _apply(source, "GBF010", fix_mode="unsafe")
    assert "import warnings\n" in text
    assert "@torch._dynamo.config.patch(reorderable_logging_functions={warnings.warn})" in text


# -- the prefilter ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("class M(nn.Module):\n    def forward(self, x):\n        print(x)\n", True),
        ("class M(nn.Module):\n    def forward(self, x):\n        return h(x)\ndef h(x):\n    logger.info(x)\n", True),
        (
            'class M(nn.Module):\n    def forward(self, x):\n        """Example:\n\n        >>> print(m(x))\n'
            '        """\n        return x\n',
            False,
        ),
        ("def f(x):\n    print(x)\n", False),
        ("def f(x):\n    print(x)\ng = torch.compile(f)\n", True),
        ("class M(nn.Module):\n    def forward(self, x):\n        return x.item()\n", False),
    ],
)
def test_the_prefilter_sees_output_calls_compiled_code_may_make(source: str, expected: bool) -> None:
    assert ScreenFacts(source).may_output_in_compiled_code() is expected


# -- the documented measurements, run ------------------------------------------------------------

MEASURED = textwrap.dedent("""\
    import logging
    import warnings

    import torch

    logger = logging.getLogger(__name__)
    COMPILES_ITSELF = True


    {helper}@torch.compile(backend="eager")
    def step(x):
        for i in range(3):
            x = x * 2
            {call}
        return x


    ENTRY = step


    def example_inputs():
        return (torch.ones(4),)
    """)


@pytest.mark.torch_run
@pytest.mark.parametrize(
    ("call", "helper", "ops", "printed"),
    [
        ('print("step", i, x.sum())', "", 6, "same"),
        ('logger.warning("step %d", i)', "", 3, "none"),
        ('warnings.warn("w")', "", 3, "same"),
        ("report(i)", 'def report(i):\n    print("step", i)\n\n\n', 3, "none"),
    ],
    ids=["print-reordered", "logger-ignored", "warn-reordered", "print-guarded"],
)
def test_the_documented_measurements(call: str, helper: str, ops: int, printed: str) -> None:
    """``gbfix rules GBF010`` quotes these: skipped as written, one graph with every op once fixed."""
    from tests.golden_cause import run_compiled, run_eagerly

    before = MEASURED.format(call=call, helper=helper)
    after, _ = _apply(before, "GBF010", fix_mode="unsafe")
    assert after != before
    reference, reference_lines = run_eagerly("/project/measured.py", before, "measured_eager")
    _, _, as_written = run_compiled("/project/measured.py", before, "measured_before")
    assert as_written.ops == 0 and as_written.frames_skipped == 1
    output, lines, fixed = run_compiled("/project/measured.py", after, "measured_after")
    assert (fixed.graphs, fixed.ops, fixed.frames_skipped, len(fixed.breaks)) == (1, ops, 0, 0)
    assert output.tolist() == reference.tolist()
    assert lines == (reference_lines if printed == "same" else [])
    if printed == "none":
        assert fixed.coverage == 1.0


@pytest.mark.torch_run
def test_the_cause_check_fails_when_the_break_is_still_there(tmp_path) -> None:
    from tests.golden import Case
    from tests.golden_cause import check_cause

    source = MEASURED.format(call='print("step", i, x.sum())', helper="") + 'GOLDEN_KIND = "cause"\nPRINTED = "same"\n'
    (tmp_path / "still.in.py").write_text(source)
    (tmp_path / "still.out.py").write_text(source + "# the break is still there\n")
    with pytest.raises(AssertionError):
        check_cause(Case("GBF010", "still", str(tmp_path / "still.in.py")))
