"""Reachability and callees in other files, end to end on a small project of several files.

The golden corpus holds one file per case, so what needs a second file (a
callee defined elsewhere in the tree, reach that crosses files) is checked
here: ``gbfix scan`` and ``gbfix apply`` on a temporary package, and the
rewritten package run against the original.
"""

from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from codemods.analysis.project.index import summarise
from rewriter.cli import app
from tests.golden_placement import FIXTURES

#: importing torch.jit (an installed package's callee is looked up) warns once about its own deprecation
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script_method` is deprecated:DeprecationWarning")

#: the loop rules' findings: GBF010 takes the loops whose only break is a log or a print (tests/test_causes.py)
STRUCTURAL = ("--ignore", "GBF010")

#: the package; ``# in:NAME`` marks a loop compiled code reaches, ``# out:NAME`` one it never does
FILES = {
    "pkg/__init__.py": "",
    "pkg/conv.py": '''\
import logging

import torch

logger = logging.getLogger(__name__)


class Conv1d(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = torch.nn.Conv1d(c, c, 3, padding=1)

    def forward(self, x):
        pad = int(x.abs().max()) * 0
        return self.conv(torch.nn.functional.pad(x, (pad, pad)))


class Guard(torch.nn.Module):
    def forward(self, x):
        if not torch.isfinite(x).all():
            raise ValueError("not finite")
        return x


class Cache:
    """Built inside forward: its constructor runs under compile."""

    def __init__(self, n):
        self.parts = []
        for i in range(n):  # in:cache-init
            logger.info("slot %d", i)
            self.parts.append(i)


def noisy(x):
    print("noisy")
    return x


def relay(x):
    return noisy(x)


def pick(x):
    return torch.where(x > 0, x, -x)


def rows(x):
    return x.nonzero()


def size_of(x):
    return int(x.abs().max())


def report(rows):
    for row in rows:  # out:report
        print(row)
''',
    "pkg/model.py": """\
import logging

import torch

from pkg import conv
from pkg.conv import Cache, Conv1d, Guard, pick, relay

logger = logging.getLogger(__name__)


class ResBlock(torch.nn.Module):
    def __init__(self, c):
        super().__init__()
        self.layers = torch.nn.ModuleList([Conv1d(c) for _ in range(2)])
        self.guard = Guard()
        for i in range(2):  # out:init
            logger.info("built layer %d", i)

    def forward(self, x):
        cache = Cache(2)
        for layer in self.layers:  # in:layers
            x = x + layer(x)
        for i in range(2):  # in:relay
            x = relay(x) * 0.5
        for i in range(2):
            x = pick(x) + len(cache.parts)
        for i in range(2):  # in:guard
            x = self.guard(x) * 0.5
        for i in range(2):  # in:rows
            x = x + conv.rows(x).sum() * 0.0
        for i in range(2):
            x = x + conv.size_of(x) * 0.0
        return self.helper(x)

    def helper(self, x):
        for i in range(2):  # in:helper
            logger.debug("step %d", i)
            x = x + 1
        return x

    def unused(self, x):
        for i in range(3):  # out:unused
            logger.info("never %d", i)
        return x

    @torch.compiler.disable
    def kept_out(self, x):
        for i in range(3):  # out:disabled
            print(i)
        return x


def step(x):
    for i in range(2):  # in:step
        print(i)
        x = x * 2
    return x


compiled_step = torch.compile(step)
""",
}


def _marks(kind: str) -> dict[str, tuple[str, int]]:
    """``# kind:NAME`` -> (path, line) of the marked lines."""
    found = {}
    for path, text in FILES.items():
        for number, line in enumerate(text.splitlines(), 1):
            if f"# {kind}:" in line:
                found[line.rsplit(f"# {kind}:", 1)[1].strip()] = (path, number)
    return found


IN, OUT = _marks("in"), _marks("out")


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for path, text in FILES.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _scan(*args: str) -> list[dict]:
    result = CliRunner().invoke(app, ["scan", "pkg", "--format", "json", "--exit-zero", *STRUCTURAL, *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["findings"]


def _where(findings: list[dict]) -> set[tuple[str, int]]:
    return {(f["path"], f["line"]) for f in findings}


def test_default_reach_reports_only_what_compiled_code_runs(tree: Path) -> None:
    found = _where(_scan())
    assert found == set(IN.values())


def test_reach_all_reports_every_function(tree: Path) -> None:
    found = _where(_scan("--reach", "all"))
    assert found == set(IN.values()) | set(OUT.values())


def test_reach_from_the_config_file(tree: Path) -> None:
    (tree / "pyproject.toml").write_text('[tool.gbfix]\nreach = "all"\n')
    assert _where(_scan()) == _where(_scan("--reach", "all"))
    assert _where(_scan("--reach", "compiled")) == set(IN.values())


def test_functions_compiled_from_outside_the_tree(tree: Path) -> None:
    """``--compiled NAME``: a function the user's own script compiles is an entry too."""
    found = {(f["path"], f["line"]): f["reach"] for f in _scan("--compiled", "ResBlock.unused")}
    assert set(found) == set(IN.values()) | {OUT["unused"]}
    assert found[OUT["unused"]] == "pkg/model.py:ResBlock.unused (named compiled: ResBlock.unused)"
    # a file suffix picks the file; the config file names them as the flag does
    assert _where(_scan("--compiled", "conv.py:report")) == set(IN.values()) | {OUT["report"]}
    assert _where(_scan("--compiled", "model.py:report")) == set(IN.values())
    (tree / "pyproject.toml").write_text('[tool.gbfix]\ncompiled = ["ResBlock.unused"]\n')
    assert _where(_scan()) == set(IN.values()) | {OUT["unused"]}


def test_compiled_names_are_checked(tree: Path) -> None:
    result = CliRunner().invoke(app, ["scan", "pkg", "--compiled", "ResBlock.not a name"])
    assert result.exit_code == 2
    assert "--compiled: 'ResBlock.not a name' is not a function's qualified name" in result.stderr
    result = CliRunner().invoke(app, ["scan", "pkg", "--exit-zero", "-j", "1", "--compiled", "Nowhere.run"])
    assert result.exit_code == 0
    assert "gbfix: warning: compiled: no function of the scanned files is named Nowhere.run" in result.stderr


def test_json_findings_carry_their_reach(tree: Path) -> None:
    by_line = {(f["path"], f["line"]): f["reach"] for f in _scan()}
    assert by_line[IN["helper"]] == (
        "pkg/model.py:ResBlock.forward → ResBlock.helper (forward of an nn.Module subclass)"
    )
    assert by_line[IN["cache-init"]] == (
        "pkg/model.py:ResBlock.forward → pkg/conv.py:Cache.__init__ (forward of an nn.Module subclass)"
    )
    assert by_line[IN["step"]].startswith("pkg/model.py:step (passed to torch.compile at pkg/model.py:")


def test_callee_in_another_file_names_the_chain(tree: Path) -> None:
    messages = {(f["path"], f["line"]): f["message"] for f in _scan()}
    relay = messages[IN["relay"]]
    assert "pkg/conv.py:relay → noisy: print() is not traceable at pkg/conv.py:" in relay, relay
    layers = messages[IN["layers"]]
    assert "pkg/conv.py:Conv1d.forward: int() of a tensor reads a value from the device at pkg/conv.py:" in layers
    guard = messages[IN["guard"]]
    assert "pkg/conv.py:Guard.forward: a branch on a tensor's values (data-dependent control flow)" in guard, guard
    assert "pkg/conv.py:rows: Tensor.nonzero() has a data-dependent output shape" in messages[IN["rows"]]
    # three-argument torch.where keeps its shape, and nothing shows `size_of`'s argument to be a
    # tensor (the file's own analysis would not say it breaks either): the loops calling them are no findings
    assert all("pick" not in message and "size_of" not in message for message in messages.values())


def test_a_file_alone_knows_nothing_of_its_callees(tree: Path) -> None:
    """The same loops, scanned without the file their callees are in: nothing is known to break."""
    result = CliRunner().invoke(app, ["scan", "pkg/model.py", "--format", "json", "--exit-zero", *STRUCTURAL])
    found = _where(json.loads(result.stdout)["findings"])
    assert not {IN["relay"], IN["layers"], IN["guard"], IN["rows"]} & found
    assert IN["helper"] in found


@pytest.mark.parametrize(
    ("mark", "expected"),
    [
        (IN["helper"], "runs under compile: pkg/model.py:ResBlock.forward → ResBlock.helper"),
        (IN["cache-init"], "runs under compile: pkg/model.py:ResBlock.forward → pkg/conv.py:Cache.__init__"),
        (OUT["unused"], "not under compile: no module forward, torch.compile target or function they call"),
        (OUT["init"], "not under compile"),
        (OUT["disabled"], "not under compile: a decorator keeps Dynamo out of it"),
    ],
)
def test_explain_reach(tree: Path, mark: tuple[str, int], expected: str) -> None:
    path, line = mark
    result = CliRunner().invoke(app, ["scan", "pkg", "--explain-reach", f"{path}:{line}", *STRUCTURAL])
    assert result.exit_code == 0, result.output
    assert expected in result.stdout, result.stdout


def test_many_files_in_parallel_agree_with_one_process(tree: Path) -> None:
    """Eight files and more are summarised by a pool of workers: the index links the same calls."""
    for n in range(10):
        (tree / "pkg" / f"filler_{n}.py").write_text(f"import torch\n\n\ndef f{n}(x):\n    return x + {n}\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    runs = []
    for jobs in ("1", "2"):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "rewriter",
                "scan",
                "pkg",
                "--format",
                "json",
                "--exit-zero",
                "-j",
                jobs,
                *STRUCTURAL,
            ],
            capture_output=True,
            text=True,
            env=env,
            cwd=tree,
        )
        assert result.returncode == 0, result.stderr
        runs.append(json.loads(result.stdout)["findings"])
    assert runs[0] == runs[1]
    assert _where(runs[1]) == set(IN.values())


def test_apply_fixes_the_reached_loops_and_keeps_behaviour(tree: Path) -> None:
    torch = pytest.importorskip("torch")
    before = _run_model(tree, torch)
    result = CliRunner().invoke(app, ["apply", "pkg", *STRUCTURAL])
    assert result.exit_code == 0, result.output
    model = (tree / "pkg" / "model.py").read_text()
    # the loops out of reach are as they were
    for name in ("init", "unused", "disabled"):
        path, line = OUT[name]
        if path == "pkg/model.py":
            assert FILES[path].splitlines()[line - 1] in model
    assert "def _gbfix_" in model
    assert "for row in rows:  # out:report" in (tree / "pkg" / "conv.py").read_text()
    after = _run_model(tree, torch)
    assert torch.equal(before, after)


def _run_model(tree: Path, torch) -> object:  # type: ignore[no-untyped-def]
    """The package's ResBlock on a fixed input, imported fresh from ``tree``."""
    for name in [n for n in sys.modules if n == "pkg" or n.startswith("pkg.")]:
        del sys.modules[name]
    sys.path.insert(0, str(tree))
    try:
        importlib.invalidate_caches()
        model = importlib.import_module("pkg.model")
        torch.manual_seed(0)
        block = model.ResBlock(3)
        return block(torch.randn(1, 3, 8)).detach()
    finally:
        sys.path.remove(str(tree))
        for name in [n for n in sys.modules if n == "pkg" or n.startswith("pkg.")]:
            del sys.modules[name]


def test_installed_package_callee(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A function of an installed package that breaks, read from its source without importing it."""
    monkeypatch.syspath_prepend(FIXTURES)
    (tmp_path / "model.py").write_text(
        "import torch\n"
        "from thirdparty_pkg import scale\n"
        "\n"
        "\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        for i in range(2):\n"
        "            x = scale(x) + i\n"
        "        return x\n"
    )
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["scan", "model.py", "--format", "json", "--exit-zero", *STRUCTURAL])
    (finding,) = json.loads(result.stdout)["findings"]
    assert finding["line"] == 7
    assert (
        "thirdparty_pkg.scale: Tensor.item() reads a value from the device at thirdparty_pkg/encoder.py:"
        in (finding["message"])
    )


#: bodies of ``f(x: torch.Tensor, k: int = 1)``, and whether they break on data-dependent code
CALLEES = [
    ("pad = int(x.abs().max())\n    return x + pad", True),
    ("if not torch.isfinite(x).all():\n        raise ValueError('not finite')\n    return x", True),
    ("if x.sum() > 0:\n        x = -x\n    return x", True),
    ("if x.abs().max() > 1 or k:\n        x = -x\n    return x", True),
    # a condition name is found by its own name, whatever it is called on
    ("if (x > 0).any() or k:\n        x = -x\n    return x", True),
    ("while (x > 1).any():\n        x = x / 2\n    return x", True),
    ("y = x if x.sum() > 0 else -x\n    return y", True),
    ("if not is_tracing(x) and (x == 0).all():\n        x = -x\n    return x", False),
    ("return x[torch.where(x > 0)]", True),
    ("n = int(x.shape[0])\n    return x * n", False),
    ("if k.bit_length():\n        x = -x\n    return x", False),
    ("n = int(k.bit_length())\n    return x * n", False),
    ("return torch.where(x > 0, x, -x)", False),
    # ``any()`` reads the truth of each item it is handed: a tensor's here (measured: skips the
    # caller's loop frame and ``f`` on torch 2.13)
    ("if any(v.all() for v in [x]):\n        x = -x\n    return x", True),
    ("if any(v > 0 for v in [1, 2]):\n        x = -x\n    return x", False),
    # an ``except`` clause runs only after an exception: what it calls breaks no normal run
    ("try:\n        x = x * k\n    except TypeError:\n        print(int(x.sum()))\n    return x", False),
    # a name bound to a tensor pads by a tensor; one bound to a number does not
    ("n = x.sum().long()\n    return torch.nn.functional.pad(x, (0, n))", True),
    ("n = x.shape[-1] % 2\n    return torch.nn.functional.pad(x, (0, n))", False),
]
CALLER = (
    "import torch\n"
    "\n"
    "class M(torch.nn.Module):\n"
    "    def forward(self, x):\n"
    "        for i in range(2):\n"
    "            x = f(x) * 0.5\n"
    "        return x\n"
)


@pytest.mark.parametrize(("body", "breaks"), CALLEES)
def test_index_reads_data_dependent_callees_as_the_file_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, body: str, breaks: bool
) -> None:
    """A callee in another file breaks for the index exactly when, in the caller's own file, it
    breaks for the file's own analysis: the index never says more."""
    callee = f"def f(x: torch.Tensor, k: int = 1):\n    {body}\n"
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "model.py").write_text(CALLER + "\n\n" + callee)
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "model.py").write_text("from ops import f\n" + CALLER)
    (tmp_path / "two" / "ops.py").write_text("import torch\n\n\n" + callee)
    monkeypatch.chdir(tmp_path)
    found = {}
    for tree in ("one", "two"):
        result = CliRunner().invoke(app, ["scan", tree, "--format", "json", "--exit-zero", *STRUCTURAL])
        found[tree] = [f["line"] for f in json.loads(result.stdout)["findings"] if f["path"] == f"{tree}/model.py"]
    assert found["one"] == ([5] if breaks else [])
    assert found["two"] == ([6] if breaks else [])


PADDING_CONV = """import torch
from torch import nn


class Conv(nn.Module):
    def _extra(self, x: torch.Tensor) -> torch.Tensor:
        return (x.shape[-1] - x.sum()).long()

    @staticmethod
    def _pad1d(x: torch.Tensor, paddings: tuple[int, int]):
        return nn.functional.pad(x, paddings)

    def forward(self, x):
        extra = {amount}
        return self._pad1d(x, (0, extra))
"""
PADDING_STACK = """import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([Conv(), Conv()])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x
"""


@pytest.mark.parametrize(("amount", "breaks"), [("self._extra(x)", True), ("x.shape[-1] % 2", False)])
def test_index_reads_padding_handed_to_a_helper_as_the_file_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, amount: str, breaks: bool
) -> None:
    """An amount a method annotated ``-> Tensor`` makes, bound to a name and handed to a static
    helper in a tuple, pads by a tensor for the index as for the file's own analysis."""
    conv = PADDING_CONV.format(amount=amount)
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "model.py").write_text(conv + "\n\n" + PADDING_STACK.split("\n", 3)[3])
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "model.py").write_text("from conv import Conv\n" + PADDING_STACK)
    (tmp_path / "two" / "conv.py").write_text(conv)
    monkeypatch.chdir(tmp_path)
    found = {}
    for tree in ("one", "two"):
        result = CliRunner().invoke(app, ["scan", tree, "--format", "json", "--exit-zero", *STRUCTURAL])
        found[tree] = [f["message"] for f in json.loads(result.stdout)["findings"] if f["path"] == f"{tree}/model.py"]
    assert [bool(found[tree]) for tree in ("one", "two")] == [breaks, breaks]
    if breaks:
        assert "padding by an amount held in a tensor" in found["two"][0]
        assert "Conv.forward" in found["two"][0]


DISPATCH = """\
import torch

MODES = {"greedy": "_greedy", "beam": "_beam", "remote": "org/decoder"}
OTHER = {"a": "_unused", "b": 2}


class Decoder(torch.nn.Module):
    def forward(self, x, mode="greedy"):
        decode = getattr(type(self), MODES[mode])
        return decode(self, x)

    def pick(self, mode):
        return getattr(self, MODES.get(mode))(1)

    def mixed(self, key):
        return getattr(self, OTHER[key])()

    def elsewhere(self, other, mode):
        return getattr(other, MODES[mode])()
"""


def test_a_dispatch_table_reaches_every_method_it_names() -> None:
    """``getattr(self, TABLE[key])`` calls each method a module-level table of names spells; a
    table with a value that is not a name, or another object than ``self``, reaches nothing."""
    summary = summarise(DISPATCH, "pkg/decoder.py")
    assert summary is not None
    calls = {unit.qualname: {name for kind, _, name in unit.calls if kind == "s"} for unit in summary.units}
    assert calls["Decoder.forward"] == {"_greedy", "_beam"}
    assert calls["Decoder.pick"] == {"_greedy", "_beam"}
    assert calls["Decoder.mixed"] == set()
    assert calls["Decoder.elsewhere"] == set()
