"""The batch runner: path order whatever -j is, a dying worker costs one file, the progress bar."""

from __future__ import annotations

import ast
import gc
import glob
import io
import os
import time
from concurrent.futures import ProcessPoolExecutor

import libcst as cst
import pytest

from rewriter.cli.progress import Progress
from rewriter.engine import batch
from rewriter.engine.config import Settings
from rewriter.engine.results import Changed, Failed, Unchanged

LOOP = (
    "import torch\n\n@torch.compile\ndef f(x):\n    for i in range(2):\n        x = x * 2\n        print(x)\n"
    "    return x\n"
)
QUIET = "def f(x):\n    return x + 1\n"


@pytest.fixture
def tree(tmp_path):
    paths = []
    for number in range(40):
        path = tmp_path / f"m{number:02}.py"
        path.write_text(LOOP if number % 3 == 0 else QUIET)
        paths.append(str(path))
    (tmp_path / "m07.py").write_text("import torch\ndef broken(:\n    for i in range(2):\n        print(i)\n")
    return paths


def _summary(results):
    return [(type(r).__name__, os.path.basename(r.path), getattr(r, "new", None)) for r in results]


def test_results_come_in_path_order_whatever_jobs(tree):
    serial = _summary(batch.run_batch(tree, Settings(), jobs=1))
    parallel = _summary(batch.run_batch(tree, Settings(), jobs=2))
    assert [name for _, name, _ in serial] == sorted(os.path.basename(p) for p in tree)
    assert parallel == serial
    kinds = {kind for kind, _, _ in serial}
    assert kinds == {"Changed", "Unchanged", "Failed"}


def test_a_worker_that_dies_costs_only_its_file(tree, monkeypatch):
    real = batch.process_file

    def fragile(path, settings, **kwargs):
        if path.endswith("m13.py"):
            os._exit(3)  # what a crash in native code looks like to the pool
        return real(path, settings, **kwargs)

    # Workers are forked from this process, so they see the replacement.
    monkeypatch.setattr(batch, "process_file", fragile)
    results = list(batch.run_batch(tree, Settings(), jobs=2))
    assert [os.path.basename(r.path) for r in results] == sorted(os.path.basename(p) for p in tree)
    died = [r for r in results if isinstance(r, Failed) and "worker process died" in r.message]
    assert [os.path.basename(r.path) for r in died] == ["m13.py"]
    assert sum(isinstance(r, Changed) for r in results) == 14
    assert sum(isinstance(r, Unchanged) for r in results) == 24


def test_the_screen_is_counted(tree):
    results = list(batch.run_batch(tree, Settings(), jobs=1))
    screened_out = [r for r in results if isinstance(r, Unchanged) and not r.parsed]
    assert {os.path.basename(r.path) for r in screened_out} == {f"m{n:02}.py" for n in range(40) if n % 3 and n != 7}


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_silent_off_a_terminal():
    stream = io.StringIO()
    progress = Progress(3, stream=stream)
    assert list(progress.track(["a", "b", "c"])) == ["a", "b", "c"]
    progress.hide()
    assert stream.getvalue() == ""


def test_progress_draws_and_clears_on_a_terminal():
    stream = _Terminal()
    with Progress(2, stream=stream) as progress:
        for _ in progress.track(["a", "b"]):
            assert not stream.getvalue().endswith("files")  # hidden while an item is handled
    text = stream.getvalue()
    assert "2/2 files" in text
    assert text.endswith("\r\033[K")  # nothing left on the line afterwards
    assert Progress(2, enabled=False, stream=_Terminal()).enabled is False


@pytest.mark.parametrize("enabled", [True, False])
def test_process_file_leaves_the_collector_as_it_found_it(tmp_path, enabled):
    path = tmp_path / "m.py"
    path.write_text(LOOP)
    was = gc.isenabled()
    try:
        gc.enable() if enabled else gc.disable()
        assert isinstance(batch.process_file(str(path), Settings()), Changed)
        assert gc.isenabled() == enabled
    finally:
        gc.enable() if was else gc.disable()


def test_the_index_pass_leaves_the_collector_on_in_its_workers_and_as_it_was_here(tmp_path):
    """The linker pauses the collector while summaries arrive; the workers it forks must not inherit that."""
    for number in range(batch._POOL_THRESHOLD + 2):
        (tmp_path / f"m{number}.py").write_text(LOOP)
    paths = sorted(str(p) for p in tmp_path.iterdir())
    assert gc.isenabled()
    project = batch.build_project(paths, Settings(), jobs=2)
    assert gc.isenabled()
    assert len(project.files) == len(paths)
    was = gc.isenabled()
    gc.disable()
    try:
        with ProcessPoolExecutor(max_workers=1, initializer=batch._start_index_worker) as pool:
            assert pool.submit(gc.isenabled).result()
    finally:
        gc.enable() if was else gc.disable()


def _loop_rule_cases():
    from tests.golden import GOLDEN

    # GBF005/006 read whole files with libcst's own scope analysis, which makes cycles of its own.
    return sorted(glob.glob(os.path.join(GOLDEN, "GBF00[1-4]", "*.in.py")))


@pytest.mark.parametrize("fix_mode", ["report", "safe"])
def test_the_loop_rules_leave_no_tree_in_a_reference_cycle(fix_mode):
    """A file's syntax trees are freed as soon as it is done, not when the collector next runs.

    A cycle that reaches a tree keeps all of it alive until the collector
    walks it, and paused, that is once per file. (The standard library's
    ``ast.literal_eval`` leaves a few cycles of its own closures: no tree.)
    """
    settings = Settings(fix_mode=fix_mode, torch_only=False, reach="all")
    _assert_no_tree_in_cycles(_loop_rule_cases(), lambda path: batch._process_file(path, settings))


def test_the_index_pass_leaves_no_tree_in_a_reference_cycle():
    """The index pass reads every file with the collector paused too (``batch._summaries``)."""
    from tests.golden import GOLDEN

    paths = sorted(glob.glob(os.path.join(GOLDEN, "*", "*.py")))
    assert len(paths) > 50
    _assert_no_tree_in_cycles(paths, lambda path: batch.summarise_file(os.path.abspath(path)))


def _assert_no_tree_in_cycles(paths, read) -> None:
    was = gc.isenabled()
    gc.collect()
    gc.disable()
    # What exists now is no file's tree: frozen, it is not walked again by every collect below.
    gc.freeze()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        for path in paths:
            read(path)
            gc.collect()
            nodes = [type(o).__name__ for o in gc.garbage if isinstance(o, (cst.CSTNode, ast.AST))]
            gc.garbage.clear()
            assert not nodes, f"{os.path.basename(path)} left {nodes[:5]}... in reference cycles"
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.unfreeze()
        if was:
            gc.enable()


def test_chunks_hold_neighbours_of_about_equal_bytes(tmp_path, monkeypatch):
    sizes = [100] * 40 + [50_000] + [100] * 300
    paths = []
    for number, size in enumerate(sizes):
        path = tmp_path / f"m{number:03}.py"
        path.write_text("#" * size)
        paths.append(str(path))
    chunks = batch.chunks_of(paths, jobs=2)
    assert [p for chunk in chunks for p in chunk] == paths
    assert [str(tmp_path / "m040.py")] in chunks  # a large file travels alone
    budget = sum(sizes) // (2 * batch._CHUNKS_PER_WORKER)
    assert all(len(chunk) == 1 or sum(map(os.path.getsize, chunk)) <= budget for chunk in chunks)
    monkeypatch.setattr(batch, "_CHUNKS_PER_WORKER", 1)
    assert {len(chunk) for chunk in batch.chunks_of(paths[:40], jobs=2)} == {
        batch._CHUNK_FILES,
        40 - 2 * batch._CHUNK_FILES,
    }
    with_gone = paths[:3] + [str(tmp_path / "gone.py")]  # its worker reports it
    assert [p for chunk in batch.chunks_of(with_gone, jobs=2) for p in chunk] == with_gone


def test_a_slow_file_holds_up_the_output_not_the_workers(tree, monkeypatch):
    real = batch.process_file
    last_done = tree[-1] + ".done"

    def first_waits_for_last(path, settings, **kwargs):
        if path == tree[0]:
            # Every other file is sent and done while the first one is still running.
            deadline = time.monotonic() + 10
            while not os.path.exists(last_done):
                assert time.monotonic() < deadline, "files after a slow one waited for it"
                time.sleep(0.01)
        result = real(path, settings, **kwargs)
        if path == tree[-1]:
            open(last_done, "w").close()
        return result

    monkeypatch.setattr(batch, "process_file", first_waits_for_last)
    monkeypatch.setattr(batch, "_CHUNK_FILES", 1)
    monkeypatch.setattr(batch, "_WAITING", len(tree))
    results = list(batch.run_batch(tree, Settings(), jobs=2))
    assert [os.path.basename(r.path) for r in results] == sorted(os.path.basename(p) for p in tree)
    failed = [r for r in results if isinstance(r, Failed)]
    assert [os.path.basename(r.path) for r in failed] == ["m07.py"]
