"""GBF004's recipes from the guide: a breaking last statement of a ``try`` body moves to
``else:``, a breaking first one is hoisted before the ``try``, where no handler can catch what
the statement raises; elsewhere the ``try`` is outlined, with the reason.

Each variant is rewritten, then run eagerly before and after, with and without the handler
firing, and compiled after: the behaviour is the same and no frame is skipped.
"""

from __future__ import annotations

import contextlib
import io
import warnings

import pytest

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

TEMPLATE = """\
import logging
import warnings

import torch

logger = logging.getLogger("case")
log = logging.getLogger("case.log")


class StepError(Exception):
    pass


def step(x: torch.Tensor, fail: bool, obj=None):
    h = x.sin()
    mask = h > 0
    n = 1
    try:
        {head}
        h = h * n + 2
        if fail:
            raise {raised}("the handler fires")
        {tail}
    except {caught}:
        h = h - 1
    return h.cos()
"""

#: (head, tail, caught): the breaking statement is the head or the tail, the other is `pass`
MOVED_TO_ELSE = {
    "logger_dtype": 'logger.info("h is %s", h.dtype)',
    "other_logger_shape_device": 'log.debug("shape %s on %s", h.shape, h.device)',
    "logging_module_ndim": 'logging.warning("ndim %d", h.ndim)',
    "print_shape_index": 'print("rows", h.shape[0])',
    "print_item_of_sum": 'print("total", h.sum().item())',
    "logger_tolist": 'logger.error("values %s", h.tolist())',
    "warn_fstring": 'warnings.warn(f"dtype {h.dtype}")',
    "graph_break": "torch._dynamo.graph_break()",
}
HOISTED = {
    "int_of_mask_sum": "n = int(mask.sum())",
    "int_of_argmax": "n = int(h.argmax())",
    "int_of_any": "n = int(mask.any())",
    "float_of_sum": "n = float(h.sum())",
    "item_of_mean": "n = h.mean().item()",
    "bool_of_all": "ok = bool(mask.all())",
}
#: statement, where it goes, handler class: what it may raise may be caught there
REFUSED = {
    "item_vs_runtime_error": ('print("total", h.sum().item())', "tail", "RuntimeError"),
    "item_vs_exception": ("n = h.mean().item()", "head", "Exception"),
    "nan_int_vs_value_error": ("n = int(h.sum())", "head", "ValueError"),
    "inf_int_vs_arithmetic_error": ("n = int(h.sum())", "head", "ArithmeticError"),
    "several_elements_float": ("n = float(h.abs())", "head", "ValueError"),
    "attribute_of_attribute": ('print("grad", x.grad.shape)', "tail", "AttributeError"),
    "warning_vs_user_warning": ('warnings.warn("w")', "tail", "UserWarning"),
    "unannotated_parameter": ('logger.info("%s", obj)', "tail", "Exception"),
    "unknown_handler_class": ("n = int(mask.sum())", "head", "StepError"),
    "index_vs_lookup_error": ('print("rows", h.shape[0])', "tail", "LookupError"),
}


def source(head: str = "pass", tail: str = "pass", caught: str = "ValueError", raised: str = "ValueError") -> str:
    return TEMPLATE.format(head=head, tail=tail, caught=caught, raised=raised)


def rewrite(text: str):
    return transform_source(text, "/project/case.py", Settings(select=("GBF004",), reach="all"))


def run(text: str, fail: bool, compiled: bool = False):
    """What ``step`` returns and prints, and how many frames Dynamo skipped."""
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
    with contextlib.redirect_stdout(out), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        value = fn(torch.linspace(-1, 1, 6), fail)
    skipped = counters["frames"]["total"] - counters["frames"]["ok"]
    return value, out.getvalue(), skipped


def check_same_behaviour(before: str, after: str) -> None:
    import torch

    for fail in (False, True):
        value, printed, skipped = run(before, fail)
        value_after, printed_after, _ = run(after, fail)
        torch.testing.assert_close(value_after, value, rtol=0, atol=0)
        assert printed_after == printed
        compiled, _, skipped_after = run(after, fail, compiled=True)
        torch.testing.assert_close(compiled, value)
        assert skipped_after == 0


@pytest.mark.parametrize("case", sorted(MOVED_TO_ELSE))
def test_a_breaking_tail_moves_to_else(case: str) -> None:
    before = source(tail=MOVED_TO_ELSE[case])
    outcome = rewrite(before)
    assert outcome.new_text is not None
    assert "    else:\n        " + MOVED_TO_ELSE[case] + "\n    return" in outcome.new_text
    assert "_gbfix_" not in outcome.new_text
    (finding,) = outcome.findings
    assert finding.fix == "safe"
    check_same_behaviour(before, outcome.new_text)


@pytest.mark.parametrize("case", sorted(HOISTED))
def test_a_breaking_head_is_hoisted_before_the_try(case: str) -> None:
    before = source(head=HOISTED[case])
    outcome = rewrite(before)
    assert outcome.new_text is not None
    assert "    n = 1\n    " + HOISTED[case] + "\n    try:\n" in outcome.new_text
    assert "_gbfix_" not in outcome.new_text
    check_same_behaviour(before, outcome.new_text)


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_what_the_handler_may_catch_stays_in_the_try(case: str) -> None:
    statement, where, caught = REFUSED[case]
    text = source(caught=caught, raised=caught, **{where: statement})
    outcome = rewrite(text)
    assert outcome.new_text is not None and "def _gbfix_try_1" in outcome.new_text
    (finding,) = outcome.findings
    assert finding.fix == "safe"  # the outline
    # the moved statement's exception, or (compiled_try_hazard) what the rest of the body,
    # compiled after a split, may raise: either reason names the handler
    assert (
        f"which `except {caught}` may catch" in finding.unsafe_alternative
        or f"which `except {caught}` catches" in finding.note
    )


def test_the_refused_tail_escapes_the_handler_if_split_anyway() -> None:
    """What the refusal prevents: `.item()` of a tensor of several elements raises a
    RuntimeError, which the handler caught before a split and not after."""
    import torch

    text = source(tail='print("total", h.item())', caught="RuntimeError", raised="RuntimeError")
    outcome = transform_source(text, "/project/case.py", Settings(select=("GBF004",), reach="all", fix_mode="unsafe"))
    assert outcome.new_text is not None and "def _gbfix_try_1" in outcome.new_text  # refused in every mode
    split = text.replace('        print("total", h.item())\n', "").replace(
        "        h = h - 1\n", '        h = h - 1\n    else:\n        print("total", h.item())\n'
    )
    assert "    else:\n" in split
    value, _, _ = run(text, fail=False)
    assert isinstance(value, torch.Tensor)
    with pytest.raises(RuntimeError):
        run(split, fail=False)


def test_the_measured_exceptions_of_scalar_reads() -> None:
    """The reading of int()/float()/.item() that the recipes rest on, measured on torch."""
    import torch

    with pytest.raises(ValueError):
        int(torch.tensor(float("nan")))  # a float reduction may be NaN
    with pytest.raises(OverflowError):
        int(torch.tensor(float("inf")))
    with pytest.raises(ValueError):
        float(torch.ones(2))  # several elements
    with pytest.raises(RuntimeError):
        int(torch.tensor(1 + 2j))
    with pytest.raises(RuntimeError):
        torch.ones(2).item()
    assert float(torch.tensor(float("nan"))) != 0  # float() of a 0-dim real tensor does not raise
    assert int((torch.randn(5) > 0).sum()) >= 0


def test_a_function_that_lists_its_names_still_gets_the_short_forms() -> None:
    """``vars()`` would see a flag; moving the tail to ``else:`` adds no name to the frame."""
    text = source(tail='logger.info("h is %s", h.dtype)').replace("return h.cos()", "return h.cos(), sorted(vars())")
    outcome = rewrite(text)
    assert outcome.new_text is not None and "    else:\n" in outcome.new_text
    for fail in (False, True):
        assert run(text, fail)[0][1] == run(outcome.new_text, fail)[0][1]
    # in the middle of the body the split needs a flag, which `vars()` would list
    middle = source(head='h = h + 1\n        logger.info("h is %s", h.dtype)')
    assert rewrite(middle.replace("return h.cos()", "return h.cos(), sorted(vars())")).new_text is None
    assert "_gbfix_ok_1" in (rewrite(middle).new_text or "")
