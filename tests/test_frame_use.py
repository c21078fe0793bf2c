"""A function that reads its own frame's names is not rewritten by a fix that adds or moves names.

``locals()``, ``vars()``, ``dir()``, ``eval`` and ``exec`` see the names of the
frame they run in. Outlining or unrolling moves the loop variable out of the
function and adds a helper's name to it; a hoist or a split adds a fresh name.
Anywhere in the function, such code would see the difference, so the rules
report these findings without a fix and say why. Each case is also rewritten
with the check turned off and run: the rewrite gives another result, which is
what the check prevents.
"""

from __future__ import annotations

import pytest

import codemods.analysis.frame_use as frame_use
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source

CASES = {
    "GBF001": (
        "import torch\n\n"
        "def f(x):\n"
        "    for i in range(3):\n"
        "        x = x + i\n"
        "        print(i)\n"
        "    return x, sorted(locals())\n"
    ),
    "GBF002": (
        "import torch\n\n"
        "def f(x):\n"
        "    n = int(x.numel())\n"
        "    for i in range(n):\n"
        "        x = x * 2 + i\n"
        "        print(i)\n"
        "    return x, sorted(locals())\n"
    ),
    "GBF003": (
        "import torch\n\n"
        "ENTERED = []\n\n"
        "class Tracker:\n"
        "    def __enter__(self):\n"
        "        ENTERED.append(self)  # an effect: GBF003 does not split the block by default\n"
        "        return self\n\n"
        "    def __exit__(self, *exc):\n"
        "        return False\n\n"
        "def f(x):\n"
        "    x = x * 2\n"
        "    with Tracker():\n"
        "        y = x + 1\n"
        "        print('in')\n"
        "    return y, dir()\n"
    ),
    "GBF004": (
        "import torch\n\n"
        "def f(x):\n"
        "    x = x * 2\n"
        "    try:\n"
        "        x = x + 1\n"
        "        print('in')\n"
        "        x = x - 2\n"
        "    except ValueError:\n"
        "        pass\n"
        "    return x, sorted(vars())\n"
    ),
    "GBF009": (
        "import torch\n\n"
        "def f(x, scale):\n"
        "    x = x.relu()\n"
        "    for i in range(3):\n"
        "        x = x * scale.item() + i\n"
        "    return x.sum(), sorted(locals())\n"
    ),
}

NOTE = "uses `{}()`, which would see the names the rewrite adds to its frame or moves out"


def _run(source: str, code: str):
    # GBF003 splits with --unsafe-fixes, which adds no name: its outline is the fix that does
    settings = Settings(select=(code,), reach="all", fix_mode="safe" if code == "GBF003" else "unsafe")
    return transform_source(source, "/project/case.py", settings)


def _call(source: str):
    import torch

    namespace: dict = {}
    exec(compile(source, "<case>", "exec"), namespace)
    extra = namespace["f"].__code__.co_argcount - 1
    return namespace["f"](torch.ones(2), *[torch.tensor(0.5)] * extra)


@pytest.mark.parametrize("code", sorted(CASES))
def test_reported_without_a_fix_with_the_reason(code: str) -> None:
    # GBF009 leaves a loop it does not hoist to the loop rules, which say why
    codes = ("GBF001", "GBF002", "GBF009") if code == "GBF009" else (code,)
    settings = Settings(select=codes, reach="all", fix_mode="safe" if code == "GBF003" else "unsafe")
    outcome = transform_source(CASES[code], "/project/case.py", settings)
    assert outcome.new_text is None
    reader = next(name for name in ("locals", "dir", "vars") if f"{name}()" in CASES[code])
    assert outcome.findings and all(f.fix == "none" for f in outcome.findings), outcome.findings
    assert any(NOTE.format(reader) in f.note for f in outcome.findings), outcome.findings


@pytest.mark.parametrize("code", sorted(CASES))
def test_without_the_check_the_rewrite_changes_what_the_function_returns(
    code: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import codemods.analysis.hoist as hoist
    import codemods.analysis.outline as outline
    import codemods.analysis.unroll as unroll
    import codemods.rules.gbf004_split_try as gbf004

    for module in (outline, unroll, gbf004, hoist):
        monkeypatch.setattr(module, "frame_refusal", lambda func: "")
    rewritten = _run(CASES[code], code).new_text
    assert rewritten is not None and "_gbfix_" in rewritten
    before, after = _call(CASES[code]), _call(rewritten)
    assert before[0].equal(after[0])  # the tensor work is the same ...
    assert before[1] != after[1]  # ... but the frame's names are not


def test_the_names_of_another_frame_do_not_count() -> None:
    """``locals()`` in a lambda or a nested function, or a method called ``locals``, reads another frame."""
    import libcst as cst

    source = (
        "def f(x, obj):\n"
        "    inner = lambda: len(locals())\n"
        "    def nested():\n"
        "        return vars()\n"
        "    return x, obj.locals(), dir(obj), inner, nested\n"
    )
    func = cst.parse_module(source).body[0]
    assert isinstance(func, cst.FunctionDef)
    assert frame_use.reads_own_frame(func) == ""
    for added, found in (("locals()", "`locals()`"), ("dir()", "`dir()`"), ("eval('x')", "`eval()`")):
        edited = cst.parse_module(source.replace("    return x,", f"    y = {added}\n    return x,")).body[0]
        assert isinstance(edited, cst.FunctionDef)
        assert frame_use.reads_own_frame(edited) == found
    rewritable = CASES["GBF002"].replace(
        "    return x, sorted(locals())\n", "    inner = lambda: sorted(locals())\n    return x, inner()\n"
    )
    outcome = _run(rewritable, "GBF002")
    assert outcome.new_text is not None and "_gbfix_" in outcome.new_text
