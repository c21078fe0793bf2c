"""A decorator's wrapper calls the function it decorates: its loop, ``with`` or ``try`` around that call
breaks when a decorated function does, and compiled code runs it whenever it runs a decorated function."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rewriter.cli import app

FILES = {
    "pkg/__init__.py": "",
    "pkg/utils.py": """\
import functools

import torch


def with_defaults(func):
    @functools.wraps(func)
    def wrapper(self, *args, **kwargs):
        kwargs.setdefault("scale", 2)
        try:
            out = func(self, *args, **kwargs)  # wraps:breaking
        finally:
            kwargs.clear()
        return out

    return wrapper


def traced(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)  # wraps:quiet
        finally:
            pass

    return wrapper
""",
    "pkg/model.py": """\
import torch
from torch import nn

from .utils import traced, with_defaults


class Router(nn.Module):
    @with_defaults
    def forward(self, x, scale=1):
        x = x * scale
        hit = x.nonzero()
        return x + hit.shape[0]


class Plain(nn.Module):
    @traced
    def forward(self, x):
        return x.relu()
""",
}


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for path, text in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _line(mark: str) -> int:
    return next(n for n, line in enumerate(FILES["pkg/utils.py"].splitlines(), 1) if f"# wraps:{mark}" in line)


def _scan(*args: str) -> list[dict]:
    result = CliRunner().invoke(app, ["scan", "pkg", "--format", "json", "--exit-zero", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["findings"]


def test_the_try_around_a_breaking_decorated_function_is_found(tree: Path) -> None:
    findings = [f for f in _scan() if f["path"] == "pkg/utils.py"]
    (finding,) = findings
    assert (finding["code"], finding["line"], finding["fix"]) == ("GBF004", _line("breaking") - 1, "none")
    assert "pkg/model.py:Router.forward: Tensor.nonzero() has a data-dependent output shape" in finding["message"]
    # the wrapper only forwards the call: what the skip costs it is nothing
    assert finding["note"].startswith("nothing to capture: `wrapper` runs no tensor op of its own")
    assert finding["reach"].startswith("pkg/model.py:Router.forward → pkg/utils.py:with_defaults")


def test_a_decorator_whose_functions_do_not_break_is_no_finding(tree: Path) -> None:
    assert not [f for f in _scan("--reach", "all") if f["line"] >= _line("quiet") - 2 and f["path"] == "pkg/utils.py"]


def test_the_wrapper_runs_under_compile_through_the_function_it_decorates(tree: Path) -> None:
    result = CliRunner().invoke(app, ["scan", "pkg", "--explain-reach", f"pkg/utils.py:{_line('breaking')}"])
    assert result.exit_code == 0, result.output
    assert "runs under compile: pkg/model.py:Router.forward → pkg/utils.py:with_defaults" in result.stdout


def test_nothing_is_rewritten(tree: Path) -> None:
    result = CliRunner().invoke(app, ["apply", "pkg", "--dry-run"])
    assert result.exit_code == 0 and result.stdout == "", result.output


def test_a_method_of_an_expression_breaks_across_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``(x > 0).nonzero()`` in another file breaks the loop calling it, as it would in the same file."""
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "gate.py").write_text(
        "import torch\n\n\nclass Gate(torch.nn.Module):\n    def forward(self, x):\n"
        "        hit = (x > 0).nonzero()\n        return x * hit.shape[0]\n"
    )
    (tmp_path / "pkg" / "model.py").write_text(
        "import torch\n\nfrom .gate import Gate\n\n\nclass Model(torch.nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.gates = torch.nn.ModuleList([Gate() for _ in range(2)])\n\n"
        "    def forward(self, x):\n        for gate in self.gates:\n            x = gate(x) + 1\n        return x\n"
    )
    monkeypatch.chdir(tmp_path)
    (finding,) = _scan()
    assert (finding["path"], finding["line"], finding["code"]) == ("pkg/model.py", 12, "GBF002")
    assert "pkg/gate.py:Gate.forward: Tensor.nonzero() has a data-dependent output shape" in finding["message"]
