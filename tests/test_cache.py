"""The result cache: a warm run says exactly what a cold one says, and nothing stale is ever read.

A file's result depends on what other files say about it (a callee in
another file that breaks); a change there must reach it through the cache.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from rewriter.cli import app
from rewriter.engine import batch
from rewriter.engine.cache import MAX_AGE_S, NO_CACHE_VARIABLE, Cache, default_directory, name_is_temporary
from rewriter.engine.config import load_settings
from rewriter.engine.results import Changed, Failed

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _cache_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tests' default turns the cache off (tests/conftest.py); these are about it."""
    monkeypatch.delenv(NO_CACHE_VARIABLE)


MODEL = """\
import torch

from pkg.helpers import step


class Block(torch.nn.Module):
    def forward(self, x):
        for i in range(3):
            x = torch.relu(step(x, i)) + 1
        return x
"""
QUIET_HELPER = """\
def step(x, i):
    return x * 2 + i
"""
NOISY_HELPER = """\
def step(x, i):
    print("step", i)
    return x * 2 + i
"""


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "model.py").write_text(MODEL)
    (tmp_path / "pkg" / "helpers.py").write_text(QUIET_HELPER)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*args, "-j", "1"])
    return result.exit_code, result.stdout


class _Counted:
    """How many files the engine analysed (a file answered from the cache is not)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.paths: list[str] = []
        real = batch.transform_source

        def counting(text, path, *rest, **named):
            self.paths.append(os.path.basename(path))
            return real(text, path, *rest, **named)

        monkeypatch.setattr(batch, "transform_source", counting)


def _entries(directory: Path) -> list[Path]:
    return [p for p in (directory / "entries").rglob("*") if p.is_file()]


def test_a_warm_run_reads_every_result_and_says_the_same(tree, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    counted = _Counted(monkeypatch)
    cold = _run("scan", "pkg", "--format", "json", "--cache-dir", str(cache))
    analysed = len(counted.paths)
    warm = _run("scan", "pkg", "--format", "json", "--cache-dir", str(cache))
    assert analysed == 3 and len(counted.paths) == analysed  # nothing analysed the second time
    assert warm == cold
    assert cold == _run("scan", "pkg", "--format", "json", "--no-cache")


def test_apply_dry_run_from_the_cache_is_the_same_patch(tree, tmp_path):
    (tree / "pkg" / "helpers.py").write_text(NOISY_HELPER)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    cold = _run("apply", "pkg", "--dry-run", *cache)
    assert cold[0] == 1 and "+++ b/pkg/model.py" in cold[1]
    assert _run("apply", "pkg", "--dry-run", *cache) == cold
    # the rewrite is written from a cached result too, over the file as it is now
    assert _run("apply", "pkg", *cache)[0] == 0
    assert (tree / "pkg" / "model.py").read_text() != MODEL
    assert _run("apply", "pkg", "--dry-run", "--no-cache")[0] == 0


def test_a_changed_callee_in_another_file_reaches_its_callers(tree, tmp_path, monkeypatch):
    cache = ["--cache-dir", str(tmp_path / "cache")]
    before = _run("scan", "pkg", *cache)
    assert before[0] == 0 and "model.py" not in before[1]
    (tree / "pkg" / "helpers.py").write_text(NOISY_HELPER)
    counted = _Counted(monkeypatch)
    after = _run("scan", "pkg", *cache)
    assert "pkg/model.py:8" in after[1]  # the loop now calls a helper that prints
    assert after == _run("scan", "pkg", "--no-cache")
    # model.py's own text did not change, yet it was analysed again
    assert "model.py" in counted.paths
    (tree / "pkg" / "helpers.py").write_text(QUIET_HELPER)
    assert _run("scan", "pkg", *cache) == before


def test_no_cache_writes_nothing(tree, tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    _run("scan", "pkg", "--cache-dir", str(cache), "--no-cache")
    assert not cache.exists()
    monkeypatch.setenv(NO_CACHE_VARIABLE, "1")
    _run("scan", "pkg", "--cache-dir", str(cache))
    assert not cache.exists()
    monkeypatch.setenv(NO_CACHE_VARIABLE, "0")
    _run("scan", "pkg", "--cache-dir", str(cache))
    assert _entries(cache)


def test_the_cache_dir_of_the_pyproject(tree):
    (tree / "pyproject.toml").write_text('[tool.gbfix]\ncache_dir = ".gbfix-cache"\n')
    assert load_settings(str(tree)).cache_dir == str(tree / ".gbfix-cache")
    _run("scan", "pkg")
    assert _entries(tree / ".gbfix-cache")


def test_the_default_directory_follows_xdg(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert default_directory() == str(tmp_path / "gbfix")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_directory().endswith("gbfix") and default_directory().startswith(os.path.expanduser("~"))


def test_a_damaged_entry_is_a_miss(tree, tmp_path):
    cache = tmp_path / "cache"
    cold = _run("scan", "pkg", "--format", "json", "--cache-dir", str(cache))
    for entry in _entries(cache):
        entry.write_bytes(entry.read_bytes()[:7])
    assert _run("scan", "pkg", "--format", "json", "--cache-dir", str(cache)) == cold


def test_pruning_removes_old_entries_and_left_temporaries(tmp_path):
    cache = Cache(str(tmp_path))
    cache.put("a" * 40, "old")
    cache.put("b" * 40, "new")
    old = tmp_path / "entries" / "aa" / ("a" * 38)
    left = tmp_path / "entries" / "aa" / ".tmp-left"
    left.write_bytes(b"half")
    now = time.time()
    os.utime(old, (now - MAX_AGE_S - 10, now - MAX_AGE_S - 10))
    os.utime(left, (now - 7200, now - 7200))
    assert name_is_temporary(str(left))
    assert cache.prune(now) == 2
    assert cache.get("a" * 40) is None and cache.get("b" * 40) == "new"
    assert cache.prune(now) == 0  # pruned once a day at most


def test_a_cache_that_cannot_be_written_only_warns(tree, tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    result = CliRunner().invoke(app, ["scan", "pkg", "-j", "1", "--cache-dir", str(blocked / "cache")])
    assert result.exit_code == 0
    assert "cannot write" in result.stderr and result.stderr.count("warning: cache") == 1


@pytest.mark.cli
def test_two_runs_at_once_share_one_cache(tree, tmp_path):
    """Two processes filling one cold cache at once both report what a run without a cache reports."""
    for n in range(12):  # enough files for a pool of workers in each run
        (tree / "pkg" / f"layer{n}.py").write_text(MODEL.replace("Block", f"Layer{n}"))
    (tree / "pkg" / "helpers.py").write_text(NOISY_HELPER)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    command = [sys.executable, "-m", "rewriter", "scan", "pkg", "--format", "json", "-j", "2"]
    cache = ["--cache-dir", str(tmp_path / "cache")]
    expected = subprocess.run([*command, "--no-cache"], capture_output=True, env=env, cwd=tree).stdout
    both = [subprocess.Popen([*command, *cache], stdout=subprocess.PIPE, env=env, cwd=tree) for _ in range(2)]
    outputs = [process.communicate()[0] for process in both]
    assert outputs == [expected, expected] and b'"GBF' in expected
    warm = subprocess.run([*command, *cache], capture_output=True, env=env, cwd=tree).stdout
    assert warm == expected
    assert not [p for p in (tmp_path / "cache").rglob("*") if name_is_temporary(str(p))]


def test_a_failure_of_the_file_is_kept_one_of_the_machine_is_not():
    syntax = Failed("pkg/bad.py", "syntax error: invalid syntax", 3)
    died = Failed("pkg/big.py", f"{batch.WORKER_DIED}: BrokenProcessPool); please report it")
    assert batch._storable(syntax) == syntax
    assert batch._storable(died) is None


def test_a_stored_rewrite_of_a_file_changed_meanwhile_is_not_shown(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    read = batch._Read(str(path))
    stored = Changed(str(path), b"", b"x = 2\n", "utf-8", ())
    assert read.rewrite(stored).old == b"x = 1\n"
    path.write_text("x = 3\n")
    assert isinstance(read.rewrite(stored), Failed)


class _Linked:
    """How many times the tree was linked (a link answered from the cache is not)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.times = 0
        real = batch.build_project

        def counting(*args, **named):
            self.times += 1
            return real(*args, **named)

        monkeypatch.setattr(batch, "build_project", counting)


def test_an_edit_that_keeps_every_summary_links_nothing_again(tree, tmp_path, monkeypatch):
    """A comment added to the callee's file: its summary is the same, so the link is read, and only
    that file is analysed again; the report is the one a run without a cache gives."""
    (tree / "pkg" / "helpers.py").write_text(NOISY_HELPER)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    _run("scan", "pkg", *cache)
    (tree / "pkg" / "helpers.py").write_text(NOISY_HELPER + "# a note\n")
    linked, counted = _Linked(monkeypatch), _Counted(monkeypatch)
    after = _run("scan", "pkg", "--format", "json", *cache)
    assert linked.times == 0 and counted.paths == ["helpers.py"]
    assert after == _run("scan", "pkg", "--format", "json", "--no-cache")
    assert '"pkg/model.py"' in after[1]


def test_an_edit_that_changes_a_summary_links_again(tree, tmp_path, monkeypatch):
    """A line added above the breaking call moves it: the callers' facts name the new line."""
    (tree / "pkg" / "helpers.py").write_text(NOISY_HELPER)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    _run("scan", "pkg", "--format", "json", *cache)
    (tree / "pkg" / "helpers.py").write_text("# a note\n" + NOISY_HELPER)
    linked = _Linked(monkeypatch)
    after = _run("scan", "pkg", "--format", "json", *cache)
    assert linked.times == 1
    assert after == _run("scan", "pkg", "--format", "json", "--no-cache")
    assert "helpers.py:3" in after[1]


def test_a_summary_has_one_digest_whatever_the_process(tmp_path):
    """The digest the link is keyed by does not follow the process's string hashing."""
    (tmp_path / "m.py").write_text(
        "import torch\n\nclass A(torch.nn.Module):\n"
        + "".join(f"    def m{n}(self, x):\n        return self.m{n + 1}(x)\n" for n in range(12))
    )
    code = (
        "import sys; from rewriter.engine.batch import summary_digest; "
        "from rewriter.engine.project import summarise_file; print(summary_digest(summarise_file(sys.argv[1])))"
    )
    digests = {
        subprocess.run(
            [sys.executable, "-c", code, str(tmp_path / "m.py")],
            capture_output=True,
            text=True,
            env=dict(os.environ, PYTHONPATH=str(ROOT), PYTHONHASHSEED=str(seed)),
        ).stdout
        for seed in (1, 2, 3)
    }
    assert len(digests) == 1 and len(digests.pop().strip()) == 40
