"""`gbfix scan` end to end: output lines, exit codes, options; and `apply --check` for CI."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil

import pytest
from typer.testing import CliRunner

from codemods.rules.registry import REGISTRY
from rewriter.cli import app
from tests.golden import ROOT
from tests.test_cli import gbfix, snapshot

LINE = re.compile(
    r"^(?P<path>[^:]+):(?P<line>\d+):(?P<col>\d+): (?P<code>GBF\d{3}) (?P<msg>.+) \[fix: (?P<fix>safe|unsafe|none)\]"
    r"( \[evidence: (?P<evidence>recorded|entry|forward|none)\])?( \[(?P<advice>advice)\])?$"
)

BREAKING_LOOP = (
    "import torch\n"
    "\n"
    "def f(x):\n"
    "    x = x.sin()\n"
    "    for i in range(2):\n"
    "        x = x + i\n"
    "        print(x)\n"
    "    return x\n"
    "\n"
    "compiled = torch.compile(f)\n"
)
REFUSED_LOOP = (
    "import torch\n"
    "def f(x):\n"
    "    for i in range(2):\n"
    "        if i:\n"
    "            break\n"
    "        x = x + i\n"
    "        print(i)\n"
    "    return x\n"
    "compiled = torch.compile(f)\n"
)
CLEAN = "import torch\n\ndef f(x):\n    return x.sin()\n"


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture
def project(tmp_path, monkeypatch):
    shutil.copytree(os.path.join(ROOT, "examples"), tmp_path / "examples")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_findings_are_linter_lines_sorted_with_exit_1(project):
    result = invoke("scan", "examples")
    assert result.exit_code == 1, result.stderr
    lines = result.stdout.splitlines()
    parsed = [LINE.match(line) for line in lines]
    assert lines and all(parsed), lines
    keys = [(m["path"], int(m["line"]), int(m["col"])) for m in parsed]
    assert keys == sorted(keys)
    assert {m["path"] for m in parsed} >= {"examples/sampler.py", "examples/stats.py", "examples/transformer_block.py"}
    for m in parsed:
        assert m["code"] in REGISTRY
        # the position is the statement the finding is about, in that file
        tree = ast.parse((project / m["path"]).read_text())
        starts = {(n.lineno, n.col_offset + 1) for n in ast.walk(tree) if hasattr(n, "lineno")}
        assert (int(m["line"]), int(m["col"])) in starts
    assert re.search(r"3 files scanned .* (\d+) findings \(\1 breaks\), 0 errors", result.stderr)


def test_scan_changes_nothing(project):
    before = snapshot(str(project))
    assert invoke("scan", "examples").exit_code == 1
    assert snapshot(str(project)) == before


def test_no_findings_exit_0(project):
    (project / "clean.py").write_text(CLEAN)
    result = invoke("scan", "clean.py")
    assert result.exit_code == 0 and result.stdout == ""
    assert "0 findings" in result.stderr


def test_files_with_safe_findings_are_the_files_apply_changes(project):
    scanned = [LINE.match(line) for line in invoke("scan", "examples").stdout.splitlines()]
    safe = {m["path"] for m in scanned if m["fix"] == "safe"}
    patch = invoke("apply", "examples", "--dry-run").stdout
    assert safe == set(re.findall(r"^diff --git a/(\S+) ", patch, re.M))


def test_refused_fix_shows_its_reason(project):
    (project / "refused.py").write_text(REFUSED_LOOP)
    result = invoke("scan", "refused.py", "--select", "GBF001")
    assert result.exit_code == 1
    (line,) = result.stdout.splitlines()
    assert line.startswith("refused.py:3:5: GBF001 ")
    assert line.endswith("; not unrolled: the loop body has `break` [fix: none] [evidence: entry]")


def test_errors_exit_2_and_the_batch_goes_on(project):
    (project / "examples" / "broken.py").write_text(
        "import torch\ndef f(x:\n    for i in range(2):\n        print(x)\n"
    )
    result = invoke("scan", "examples", "missing.py")
    assert result.exit_code == 2
    assert "examples/broken.py:2: error: syntax error" in result.stderr
    assert "missing.py: error: no such file or directory" in result.stderr
    assert "examples/stats.py:" in result.stdout


def test_select_and_ignore(project):
    code = "GBF001"
    assert code not in invoke("scan", "examples", "--ignore", code).stdout
    assert invoke("scan", "examples", "--select", code).stdout.count(f" {code} ") >= 3
    bad = invoke("scan", "examples", "--select", "GBF9")
    assert bad.exit_code == 2 and "unknown rule code 'GBF9'" in bad.stderr


def test_exit_zero_and_quiet(project):
    result = invoke("scan", "examples", "--exit-zero", "-q")
    assert result.exit_code == 0
    assert result.stdout and result.stderr == ""


def test_output_file_and_json(project):
    result = invoke("scan", "examples", "--format", "json", "--output", "out.json")
    assert result.exit_code == 1 and result.stdout == ""
    doc = json.loads((project / "out.json").read_text())
    text = invoke("scan", "examples").stdout.splitlines()
    assert [f"{f['path']}:{f['line']}:{f['col']}: {f['code']}" for f in doc["findings"]] == [
        line.split(" ")[0] + " " + line.split(" ")[1] for line in text
    ]


def test_statistics(project):
    (project / "refused.py").write_text(REFUSED_LOOP)
    result = invoke("scan", ".", "--select", "GBF001", "--statistics")
    assert result.exit_code == 1
    assert re.fullmatch(r"4  GBF001  unroll-loop  fix: 3 safe, 1 none\n", result.stdout)
    rows = json.loads(invoke("scan", ".", "--select", "GBF001", "--statistics", "--format", "json").stdout)
    fixes = {"safe": 3, "unsafe": 0, "none": 1}
    assert rows == [{"code": "GBF001", "name": "unroll-loop", "kind": "break", "count": 4, "fix": fixes}]
    assert invoke("scan", ".", "--statistics", "--format", "sarif").exit_code == 2


def test_bad_format_is_a_usage_error(project):
    result = invoke("scan", "examples", "--format", "xml")
    assert result.exit_code == 2 and "--format" in result.stderr


def test_force_exclude_applies_to_named_files(project):
    (project / "pyproject.toml").write_text('[tool.gbfix]\nexclude = ["examples/stats.py"]\n')
    named = invoke("scan", "examples/stats.py")
    assert "examples/stats.py" in named.stdout  # named explicitly: taken
    forced = invoke("scan", "--force-exclude", "examples/stats.py", "examples/sampler.py")
    assert "examples/stats.py" not in forced.stdout and "examples/sampler.py" in forced.stdout


def test_parallel_and_serial_agree(project):
    for i in range(9):
        (project / "examples" / f"copy_{i}.py").write_text(BREAKING_LOOP)
    serial = invoke("scan", "examples", "-j", "1")
    parallel = invoke("scan", "examples", "-j", "2")
    assert serial.stdout == parallel.stdout and serial.stdout.count("\n") >= 12


def test_config_file_settings_apply_to_scan(project):
    (project / "pyproject.toml").write_text('[tool.gbfix]\nunroll_max_trips = 3\nselect = ["GBF001"]\n')
    result = invoke("scan", "examples/transformer_block.py")
    assert "more than unroll_max_trips=3" in result.stdout and "[fix: none]" in result.stdout


# -- apply --check, the CI face of apply ------------------------------------------------------


@pytest.mark.cli
def test_check_exits_1_and_names_only_the_files_that_would_change(project):
    (project / "clean.py").write_text(CLEAN)
    before = snapshot(str(project))
    result = gbfix("apply", "--check", "examples", "clean.py", cwd=str(project))
    assert result.returncode == 1
    assert result.stdout == ""
    *named, last = result.stderr.splitlines()
    assert named == [f"would rewrite examples/{name}.py" for name in ("sampler", "stats", "transformer_block")]
    assert "4 files scanned" in last and "3 would change" in last
    assert snapshot(str(project)) == before
    clean = gbfix("apply", "--check", "clean.py", cwd=str(project))
    assert clean.returncode == 0 and clean.stdout == "" and "0 would change" in clean.stderr


@pytest.mark.parametrize(
    "name, reason",
    [
        ("eval_in_loop", "`eval()`"),
        ("getframe_in_loop", "`sys._getframe()`"),
        ("dir_in_loop", "zero-argument `dir()`"),
    ],
)
def test_code_that_reads_its_own_frame_is_refused_with_the_reason(project, name, reason):
    shutil.copy(os.path.join(ROOT, "golden", "GBF002", f"{name}.in.py"), project / "loop.py")
    result = invoke("scan", "loop.py", "--select", "GBF001,GBF002", "--reach", "all")
    assert result.exit_code == 1
    (line,) = result.stdout.splitlines()
    refused = f"; not outlined: it uses {reason}, which depends on the frame it runs in [fix: none]"
    assert line.endswith(f"{refused} [evidence: none]")
    unrolled = invoke("scan", "loop.py", "--select", "GBF001", "--reach", "all")
    assert "GBF001" in unrolled.stdout and f"the loop body uses {reason}" in unrolled.stdout


def test_gbf005_names_the_module_compiled_not_the_name_bound_to_the_result(tmp_path, monkeypatch):
    (tmp_path / "m.py").write_text(
        "import torch\nfrom torch import nn\n\n\n"
        "class Net(nn.Module):\n    def forward(self, x):\n        return x\n\n\n"
        "compiled = torch.compile(Net())\nnet = Net()\nfast = torch.compile(net)\n"
    )
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["scan", "m.py", "--select", "GBF005", "--format", "json"])
    messages = [f["message"] for f in json.loads(result.stdout)["findings"]]
    assert len(messages) == 2 and not any("compiled.compile()" in m or "fast.compile()" in m for m in messages)
    assert messages[0].endswith("use `.compile()` on the module `Net()`")
    assert messages[1].endswith("use `net.compile()`")


def test_gbf010_findings_carry_their_reach_in_json(tmp_path, monkeypatch):
    (tmp_path / "m.py").write_text(
        "import torch\n\n\ndef helper(x):\n    print('x')\n    return x\n\n\n"
        "def step(x):\n    for _ in range(2):\n        x = helper(x) + 1\n    return x\n\n\n"
        "compiled = torch.compile(step)\n"
    )
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(app, ["scan", "m.py", "--select", "GBF010", "--format", "json"])
    (finding,) = json.loads(result.stdout)["findings"]
    assert finding["code"] == "GBF010" and finding["evidence"] == "entry"
    assert finding["reach"] == "m.py:step → helper (passed to torch.compile at m.py:15)"
