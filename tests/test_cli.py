"""The command line end to end, as a user runs it (subprocesses, real files)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from tests.golden import ROOT

EXAMPLES = os.path.join(ROOT, "examples")


def gbfix(*args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rewriter", *args], cwd=cwd, capture_output=True, text=True)


def snapshot(root: str) -> dict[str, bytes]:
    out = {}
    for directory, _, files in os.walk(root):
        for name in files:
            path = os.path.join(directory, name)
            with open(path, "rb") as handle:
                out[os.path.relpath(path, root)] = handle.read()
    return out


@pytest.fixture
def project(tmp_path):
    shutil.copytree(EXAMPLES, tmp_path / "examples")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    return tmp_path


def test_dry_run_prints_a_patch_that_applies_and_writes_nothing(project):
    before = snapshot(str(project / "examples"))
    result = gbfix("apply", "examples", "--dry-run", cwd=str(project))
    assert result.returncode == 1, result.stderr
    assert result.stdout.startswith("diff --git a/examples/")
    assert "+    def _gbfix_inner_1(" in result.stdout
    assert "3 would change, 0 errors" in result.stderr
    assert snapshot(str(project / "examples")) == before
    (project / "fix.patch").write_text(result.stdout)
    check = subprocess.run(["git", "apply", "--check", "fix.patch"], cwd=project, capture_output=True, text=True)
    assert check.returncode == 0, check.stderr
    check = subprocess.run(
        ["patch", "-p1", "--dry-run", "-i", "fix.patch"], cwd=project, capture_output=True, text=True
    )
    assert check.returncode == 0, check.stdout + check.stderr


def test_apply_equals_the_patch_and_second_run_is_clean(project):
    patch = gbfix("apply", "examples", "--dry-run", cwd=str(project)).stdout
    result = gbfix("apply", "examples", cwd=str(project))
    assert result.returncode == 0, result.stderr
    assert "3 changed" in result.stderr
    again = gbfix("apply", "examples", "--dry-run", cwd=str(project))
    assert again.returncode == 0 and again.stdout == ""
    # the written files are what the patch said
    subprocess.run(["git", "stash", "-q", "-u"], cwd=project)  # nothing committed: no-op guard
    assert "0 would change" in again.stderr
    assert patch


def test_check_prints_only_the_summary(project):
    result = gbfix("apply", "examples", "--check", cwd=str(project))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.strip().splitlines()[-1].startswith("gbfix: 3 files scanned")


def test_mode_is_kept_on_write(project):
    path = project / "examples" / "stats.py"
    os.chmod(path, 0o640)
    assert gbfix("apply", str(path), cwd=str(project)).returncode == 0
    assert (os.stat(path).st_mode & 0o777) == 0o640
    assert "_gbfix_inner_1" in path.read_text()


def test_syntax_error_is_reported_and_the_batch_goes_on(project):
    bad = project / "examples" / "broken.py"
    bad.write_text("import torch\n\ndef f(x:\n    for i in range(2):\n        print(x)\n")
    result = gbfix("apply", "examples", "--dry-run", cwd=str(project))
    assert result.returncode == 2
    lines = [line for line in result.stderr.splitlines() if "broken.py" in line]
    assert len(lines) == 1 and "syntax error" in lines[0] and "broken.py:3" in lines[0]
    assert result.stdout.count("diff --git") == 3


def test_missing_path_is_an_error_with_its_name(project):
    result = gbfix("apply", "nope.py", cwd=str(project))
    assert result.returncode == 2
    assert "nope.py: error: no such file or directory" in result.stderr


def test_gitignore_and_exclude_are_honoured(project):
    (project / ".gitignore").write_text("examples/sampler.py\n")
    result = gbfix("apply", ".", "--dry-run", "--exclude", "examples/stats.py", cwd=str(project))
    assert result.stdout.count("diff --git") == 1
    assert "transformer_block.py" in result.stdout


def test_unknown_config_key_is_an_error(project):
    (project / "pyproject.toml").write_text("[tool.gbfix]\nunrol_max_trips = 3\n")
    result = gbfix("apply", "examples", "--dry-run", cwd=str(project))
    assert result.returncode == 2
    assert "unknown key 'unrol_max_trips'" in result.stderr


def test_config_unroll_max_trips_declines_long_loops(project):
    (project / "pyproject.toml").write_text('[tool.gbfix]\nunroll_max_trips = 3\nselect = ["GBF001"]\n')
    result = gbfix("apply", "examples", "--dry-run", cwd=str(project))
    assert "transformer_block.py" not in result.stdout
    assert "more than unroll_max_trips=3" in result.stderr
    # With outlining active, the loop GBF001 declines is outlined instead.
    (project / "pyproject.toml").write_text("[tool.gbfix]\nunroll_max_trips = 3\n")
    result = gbfix("apply", "examples/transformer_block.py", "--dry-run", cwd=str(project))
    assert "_gbfix_loop_1" in result.stdout and "_gbfix_inner" not in result.stdout


def test_parallel_and_serial_give_the_same_patch(project):
    for i in range(10):
        shutil.copy(project / "examples" / "stats.py", project / "examples" / f"copy_{i}.py")
    serial = gbfix("apply", "examples", "--dry-run", "-j", "1", cwd=str(project))
    parallel = gbfix("apply", "examples", "--dry-run", "-j", "2", cwd=str(project))
    assert serial.stdout == parallel.stdout
    assert serial.stdout.count("diff --git") == 13


def test_help_explains_options():
    result = gbfix("apply", "--help", cwd=ROOT)
    assert result.returncode == 0
    for option in ("--dry-run", "--check", "--unsafe-fixes", "--exclude", "--jobs"):
        assert option in result.stdout
    assert gbfix("--help", cwd=ROOT).returncode == 0


def test_console_script_is_installed():
    exe = os.path.join(os.path.dirname(sys.executable), "gbfix")
    assert os.path.exists(exe)
    result = subprocess.run([exe, "--help"], capture_output=True, text=True)
    assert "apply" in result.stdout
