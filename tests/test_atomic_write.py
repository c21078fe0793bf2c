"""In-place writes are atomic: a killed run leaves each file old or new, whole.

The unit tests watch :func:`rewriter.engine.fileio.atomic_write` do its steps (a
temporary file in the same directory, fsync, ``os.replace``, the mode
kept). The kill tests run ``gbfix apply`` over a batch and SIGKILL it at
random moments, again and again, then look at every file.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import time
import warnings

import pytest

from rewriter.engine import fileio
from rewriter.engine.config import Settings
from rewriter.engine.discovery import discover
from rewriter.engine.fileio import atomic_write
from rewriter.engine.pipeline import transform_source

TEMP_PREFIX, TEMP_SUFFIX = ".gbfix-", ".tmp"


def source(k: int) -> str:
    """A small file GBF001 rewrites; ``k`` makes each one different."""
    return (
        "import torch\n"
        "\n"
        "@torch.compile\n"
        f"def f{k}(x):\n"
        f"    for i in range({k % 3 + 2}):\n"
        f"        x = x + {k}\n"
        "        print(i)\n"
        "    return x\n"
    )


def leftovers(directory: str) -> list[str]:
    return sorted(n for n in os.listdir(directory) if n.startswith(TEMP_PREFIX))


# -- the steps ---------------------------------------------------------------------


def test_temp_file_in_the_same_directory_fsynced_then_replaced(tmp_path, monkeypatch):
    path = tmp_path / "mod.py"
    path.write_bytes(b"old\n")
    os.chmod(path, 0o640)
    steps: list[tuple] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd: int) -> None:
        steps.append(("fsync", os.readlink(f"/proc/self/fd/{fd}") if os.path.exists("/proc/self/fd") else fd))
        real_fsync(fd)

    def replace(src, dst) -> None:
        steps.append(("replace", str(src), str(dst), stat.S_IMODE(os.stat(src).st_mode), open(src, "rb").read()))
        real_replace(src, dst)

    monkeypatch.setattr(fileio.os, "fsync", fsync)
    monkeypatch.setattr(fileio.os, "replace", replace)
    atomic_write(str(path), b"new\n")

    assert [s[0] for s in steps] == ["fsync", "replace"]
    _, tmp, dst, mode, data = steps[1]
    assert os.path.dirname(tmp) == str(tmp_path) and dst == str(path)
    name = os.path.basename(tmp)
    assert name.startswith(TEMP_PREFIX) and name.endswith(TEMP_SUFFIX)
    assert mode == 0o640 and data == b"new\n"  # complete and with its mode before it replaces
    if isinstance(steps[0][1], str):
        assert steps[0][1] == tmp  # the temporary file is what was synced
    assert path.read_bytes() == b"new\n"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o640
    assert leftovers(str(tmp_path)) == []


def test_a_failed_replace_keeps_the_original_and_removes_the_temp(tmp_path, monkeypatch):
    path = tmp_path / "mod.py"
    path.write_bytes(b"old\n")

    def replace(src, dst) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileio.os, "replace", replace)
    with pytest.raises(OSError):
        atomic_write(str(path), b"new\n")
    assert path.read_bytes() == b"old\n"
    assert leftovers(str(tmp_path)) == []


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path):
    (tmp_path / "real.py").write_bytes(b"old\n")
    os.symlink("real.py", tmp_path / "link.py")
    atomic_write(str(tmp_path / "link.py"), b"new\n")
    assert os.readlink(tmp_path / "link.py") == "real.py"
    assert (tmp_path / "real.py").read_bytes() == b"new\n"


def test_a_read_only_file_is_refused_even_for_root(tmp_path):
    path = tmp_path / "mod.py"
    path.write_bytes(b"old\n")
    os.chmod(path, 0o444)
    with pytest.raises(PermissionError, match="read-only"):
        atomic_write(str(path), b"new\n")
    assert path.read_bytes() == b"old\n"
    assert leftovers(str(tmp_path)) == []


def test_a_file_changed_since_it_was_read_is_not_written(tmp_path):
    path = tmp_path / "mod.py"
    path.write_bytes(b"old\n")
    stamp = fileio.read_source(str(path)).stamp
    assert stamp is not None
    path.write_bytes(b"own\n")  # same size: the content tells
    with pytest.raises(fileio.FileChanged, match="changed while gbfix was working on it"):
        atomic_write(str(path), b"new\n", expected=stamp)
    assert path.read_bytes() == b"own\n"
    assert leftovers(str(tmp_path)) == []
    # Still as read: written.
    atomic_write(str(path), b"new\n", expected=fileio.read_source(str(path)).stamp)
    assert path.read_bytes() == b"new\n"


def test_a_file_removed_since_it_was_read_is_not_brought_back(tmp_path):
    path = tmp_path / "mod.py"
    path.write_bytes(b"old\n")
    stamp = fileio.read_source(str(path)).stamp
    path.unlink()
    with pytest.raises(OSError):
        atomic_write(str(path), b"new\n", expected=stamp)
    assert not path.exists()
    assert leftovers(str(tmp_path)) == []


# -- killing a batch ----------------------------------------------------------------

N_FILES = 8
#: wall-clock budget for the forked kills (the whole test takes a few seconds)
KILL_BUDGET_S = 2.5


@pytest.fixture
def batch(tmp_path):
    """A directory of files, and what each becomes after a complete run."""
    work = tmp_path / "work"
    work.mkdir()
    old = {f"m{k:02d}.py": source(k).encode() for k in range(N_FILES)}
    for name, data in old.items():
        (work / name).write_bytes(data)
    return work, old


def check_each_file_old_or_new(work, old: dict[str, bytes], new: dict[str, bytes]) -> tuple[int, int]:
    """Every file is whole (old or new); nothing else but hidden temp files. Returns (#old, #new)."""
    names = sorted(os.listdir(work))
    temps = [n for n in names if n.startswith(TEMP_PREFIX)]
    for temp in temps:
        # A run killed between creating and renaming its temp leaves it behind:
        # hidden and not named *.py, so no later run or import takes it for source.
        assert temp.endswith(TEMP_SUFFIX) and not temp.endswith(".py"), temp
    assert sorted(set(names) - set(temps)) == sorted(old)
    counts = [0, 0]
    for name in old:
        data = (work / name).read_bytes()
        assert data in (old[name], new[name]), f"{name} is neither the old nor the new file:\n{data!r}"
        counts[data == new[name]] += 1
    return counts[0], counts[1]


def _forked_apply(work) -> int:
    """Run ``gbfix apply WORK`` in a forked child (imports already done); its pid."""
    from rewriter.cli import app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads: the child only rewrites
        pid = os.fork()
    if pid:
        return pid
    code = 70
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        app(["apply", str(work), "-j", "1", "-q", "--select", "GBF001"])
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 71
    finally:
        os._exit(code)


def _reset(work, old: dict[str, bytes]) -> None:
    for name, data in old.items():
        (work / name).write_bytes(data)


def test_sigkill_at_random_moments_leaves_every_file_whole(batch):
    work, old = batch
    # Warm up here, so each forked child starts rewriting at once.
    assert transform_source(source(0), "warm.py", Settings(select=("GBF001",))).new_text
    # One complete run gives the new contents and how long a batch takes.
    start, started = time.perf_counter(), time.time()
    pid = _forked_apply(work)
    _, status = os.waitpid(pid, 0)
    full = time.perf_counter() - start
    assert os.waitstatus_to_exitcode(status) == 0
    new = {name: (work / name).read_bytes() for name in old}
    assert all(new[n] != old[n] for n in old)
    # The files are written in a short window at the end of a batch: aim half the kills at it.
    written = [(work / name).stat().st_mtime - started for name in old]
    window = (max(0.0, min(written) - 0.02), min(full, max(written) + 0.02))

    rng = random.Random(9)
    kills = mixed = 0
    # On a loaded machine a batch is slower and a kill lands mid-batch less often: the
    # budget grows with the batch, and the kills stop once one has landed mid-batch.
    deadline = time.perf_counter() + max(KILL_BUDGET_S, 6 * full)
    while kills < 5 or (not mixed and time.perf_counter() < deadline and kills < 40):
        _reset(work, old)
        pid = _forked_apply(work)
        time.sleep(rng.uniform(*window) if kills % 2 else rng.uniform(0, full))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        kills += 1
        n_old, n_new = check_each_file_old_or_new(work, old, new)
        mixed += bool(n_old and n_new)
    assert mixed, f"none of {kills} kills landed mid-batch (a batch takes {full:.2f}s)"

    # The leftovers do not disturb a later run: it finishes the job.
    _reset(work, old)
    assert all(not name.endswith(".py") for name in leftovers(str(work)))
    found = discover([str(work)])
    assert sorted(os.path.basename(p) for p in found.files) == sorted(old)
    pid = _forked_apply(work)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert check_each_file_old_or_new(work, old, new) == (0, len(old))


@pytest.mark.cli
def test_sigkill_of_the_real_command_and_its_workers(batch):
    """The console entry point with a worker pool, killed once the first file is written."""
    work, old = batch
    for k in range(N_FILES, 2 * N_FILES):  # enough files for the pool
        old[f"m{k:02d}.py"] = source(k).encode()
        (work / f"m{k:02d}.py").write_bytes(old[f"m{k:02d}.py"])
    reference = work.parent / "reference"
    shutil.copytree(work, reference)
    done = subprocess.run(
        [sys.executable, "-m", "rewriter", "apply", str(reference), "-j", "2", "-q", "--select", "GBF001"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    new = {name: (reference / name).read_bytes() for name in old}

    rng = random.Random(90)
    for _ in range(2):
        _reset(work, old)
        proc = subprocess.Popen(
            [sys.executable, "-m", "rewriter", "apply", str(work), "-j", "2", "-q", "--select", "GBF001"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        try:
            # Wait for the first write, then kill at a random moment of the rest.
            limit = time.perf_counter() + 120
            while all((work / n).read_bytes() == old[n] for n in old) and proc.poll() is None:
                assert time.perf_counter() < limit, "the batch wrote nothing"
                time.sleep(0.002)
            time.sleep(rng.uniform(0, 0.05))
        finally:
            os.killpg(proc.pid, signal.SIGKILL)  # the command and its pool, nothing else
            proc.wait()
        check_each_file_old_or_new(work, old, new)
