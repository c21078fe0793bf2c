"""A coroutine (``async def``) is not rewritten: Dynamo cannot resume one after a graph break.

Dynamo skips a coroutine whose break sits in a loop, a ``with`` or a ``try``,
or is a ``not`` it cannot resume after, and the coroutine runs eagerly. Every
fix moves the break to where Dynamo resumes, and torch 2.13 cannot make a
resume function for a coroutine: the call then fails. So the rules report
these findings without a fix and say why. Each case is also rewritten with
the check turned off and run under ``torch.compile``: the original runs, the
rewrite raises, which is what the check prevents.
"""

from __future__ import annotations

import asyncio

import pytest

from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

_TRACKER = (
    "class Tracker:\n"
    "    def __enter__(self):\n"
    "        return self\n\n"
    "    def __exit__(self, *exc):\n"
    "        return False\n\n"
)

CASES = {
    "GBF001": (
        "import torch\n\n"
        "async def f(x: torch.Tensor):\n"
        "    for i in range(3):\n"
        "        x = x + i\n"
        "        print(i)\n"
        "    return x * 2\n"
    ),
    "GBF002": (
        "import torch\n\n"
        "async def f(x: torch.Tensor):\n"
        "    n = int(x.numel())\n"
        "    for i in range(n):\n"
        "        x = x + i\n"
        "        print(i)\n"
        "    return x * 2\n"
    ),
    "GBF003": (
        "import torch\n\n" + _TRACKER + "async def f(x: torch.Tensor):\n"
        "    x = x * 2\n"
        "    with Tracker():\n"
        "        x = x + 1\n"
        "        print('in')\n"
        "    return x * 3\n"
    ),
    "GBF004": (
        "import torch\n\n"
        "async def f(x: torch.Tensor):\n"
        "    x = x * 2\n"
        "    try:\n"
        "        x = x + 1\n"
        "        print('in')\n"
        "        x = x * 3\n"
        "    except ValueError:\n"
        "        pass\n"
        "    return x\n"
    ),
    "GBF009": (
        "import torch\n\n"
        "async def f(x: torch.Tensor):\n"
        "    scale = x.sum()\n"
        "    for i in range(3):\n"
        "        x = x * scale.item() + i\n"
        "    return x * 2\n"
    ),
    "GBF012": (
        "import torch\n\n"
        "async def f(x: torch.Tensor):\n"
        "    y = x * 2\n"
        "    ok = not (x < 0).any()\n"
        "    return y + 1 if ok else y\n"
    ),
}

NOTE = "`f` is a coroutine (`async def`): Dynamo cannot resume one after a graph break"


def _settings(code: str, fix_mode: str = "safe") -> Settings:
    # GBF009 leaves a loop it does not hoist to the loop rules, which say why
    codes = ("GBF001", "GBF002", "GBF009") if code == "GBF009" else (code,)
    return Settings(select=codes, reach="all", fix_mode=fix_mode)


@pytest.mark.parametrize("fix_mode", ["safe", "unsafe"])
@pytest.mark.parametrize("code", sorted(CASES))
def test_reported_without_a_fix_with_the_reason(code: str, fix_mode: str) -> None:
    outcome = transform_source(CASES[code], "/project/case.py", _settings(code, fix_mode))
    assert outcome.new_text is None
    assert outcome.findings and all(f.fix == "none" for f in outcome.findings), outcome.findings
    assert any(NOTE in f.note for f in outcome.findings), outcome.findings


def test_a_function_nested_in_a_coroutine_is_rewritten() -> None:
    """The check is on the frame the fix changes: a plain function defined in a coroutine is not one."""
    source = (
        "import torch\n\n"
        "async def outer(x: torch.Tensor):\n"
        "    def f(x):\n"
        "        for i in range(3):\n"
        "            x = x + i\n"
        "            print(i)\n"
        "        return x * 2\n"
        "    return f(x)\n"
    )
    outcome = transform_source(source, "/project/case.py", _settings("GBF001"))
    assert outcome.new_text is not None and "_gbfix_inner_1(2)" in outcome.new_text


def _compiled_call(source: str):
    import torch

    torch._dynamo.reset()
    namespace: dict = {}
    exec(compile(source, "<case>", "exec"), namespace)
    return asyncio.run(torch.compile(namespace["f"], backend="eager")(torch.ones(2)))


@pytest.mark.torch_run
@pytest.mark.parametrize("code", sorted(CASES))
def test_without_the_check_the_rewrite_fails_under_compile(
    code: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import codemods.analysis.hoist as hoist
    import codemods.analysis.outline as outline
    import codemods.analysis.unroll as unroll
    import codemods.rules.gbf003_split_with as gbf003
    import codemods.rules.gbf004_split_try as gbf004
    import codemods.rules.gbf012_unresumable_break as gbf012

    for module in (outline, unroll, gbf004, hoist):
        monkeypatch.setattr(module, "frame_refusal", lambda func: "")
    for module in (gbf003, gbf012):
        monkeypatch.setattr(module, "coroutine_refusal", lambda func: "")
    rewritten = transform_source(CASES[code], "/project/case.py", _settings(code, "unsafe")).new_text
    assert rewritten is not None and rewritten != CASES[code]
    assert _compiled_call(CASES[code]) is not None  # the original runs compiled ...
    with pytest.raises(Exception, match="Cannot generate resume function"):
        _compiled_call(rewritten)  # ... its rewrite does not
