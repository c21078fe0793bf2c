"""Run the engine over many files, in parallel, never raising.

Each worker reads one file, runs the engine and returns one record from
:mod:`rewriter.results`. Results come back in path order whatever ``-j`` is,
streamed so memory stays flat. Writing happens in the parent, one atomic
replace per changed file.
"""

from __future__ import annotations

import gc
import os
from collections import deque
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Iterator, Optional, Sequence

import libcst as cst

from codemods import REGISTRY
from codemods.base import Suppression, suppression_comments
from rewriter.config import Settings
from rewriter.engine import Outcome, SelfCheckError, transform_source
from rewriter.fileio import SourceError, encode_source, read_source
from rewriter.results import Changed, Failed, FileResult, Unchanged

#: below this many files a process pool costs more than it saves
_POOL_THRESHOLD = 8


def process_file(path: str, settings: Settings) -> FileResult:
    """One file, start to end. Never raises.

    The cyclic garbage collector is paused while the file is processed: the
    trees of one file are up to millions of objects that live until the file
    is done, and a collector that walks them again and again as they grow
    only costs time. The analysis makes no reference cycles of its own
    (tests/test_batch.py), so the trees go when the file is done; what else
    is left in cycles is collected then.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return _process_file(path, settings)
    finally:
        if paused:
            gc.enable()
            gc.collect(1)


def _process_file(path: str, settings: Settings) -> FileResult:
    try:
        source = read_source(path)
    except SourceError as exc:
        return Failed(path, str(exc))
    try:
        outcome = transform_source(source.text, os.path.abspath(path), settings)
    except cst.ParserSyntaxError as exc:
        return _syntax_failure(path, source.text, exc)
    except SelfCheckError as exc:
        return _python_rejects(path, source.text) or Failed(path, str(exc))
    except RecursionError:
        return Failed(path, "too deeply nested to parse")
    except Exception as exc:  # a bug in a rule must not end the batch
        return Failed(path, f"internal error ({type(exc).__name__}: {exc}); please report it")
    unused = _unused_ignores(source.text, outcome, settings)
    if outcome.new_text is None:
        return Unchanged(path, outcome.findings, outcome.parsed, unused)
    rejected = _python_rejects(path, source.text)
    if rejected is not None:  # a rewrite of code this Python cannot run is unchecked
        return rejected
    try:
        new = encode_source(outcome.new_text, source.encoding)
    except UnicodeEncodeError as exc:
        return Failed(path, f"rewritten text cannot be encoded as {source.encoding}: {exc.reason}")
    return Changed(path, source.data, new, source.encoding, outcome.findings, unused)


def _unused_ignores(text: str, outcome: Outcome, settings: Settings) -> tuple[Suppression, ...]:
    """Suppression comments that covered nothing this run could have reported.

    A file the screen let go was never analysed, so none of its comments
    were used. A comment naming only rules that are not active is not
    judged (another run may need it), unless it names an unknown code.
    """
    comments = suppression_comments(text)
    if not comments:
        return ()
    unused = set(outcome.unused_suppressions) if outcome.parsed else {c.line for c in comments}
    active = set(settings.active_codes)
    return tuple(
        c for c in comments
        if c.line in unused and (not c.codes or c.codes & active or c.codes - set(REGISTRY))
    )


def _python_rejects(path: str, text: str) -> Optional[Failed]:
    """The syntax error of a file libcst parses but this Python cannot compile.

    libcst accepts newer syntax (PEP 695 generics, PEP 701 f-strings) than
    the running Python may: a rewrite of such a file cannot be checked here,
    so it is not written, and the rule that made it is not to blame.
    """
    try:
        compile(text, path, "exec", dont_inherit=True)
    except SyntaxError as exc:
        return Failed(path, f"syntax error: {exc.msg} (this Python cannot compile the file)", exc.lineno or 0)
    except (ValueError, RecursionError, MemoryError):
        pass  # reported by the self-check, with the rule's code
    return None


def _syntax_failure(path: str, text: str, exc: cst.ParserSyntaxError) -> Failed:
    """Python's own message and line when it agrees the file is invalid."""
    try:
        compile(text, path, "exec", dont_inherit=True)
    except SyntaxError as py_exc:
        return Failed(path, f"syntax error: {py_exc.msg}", py_exc.lineno or 0)
    except (ValueError, RecursionError, MemoryError) as other:
        return Failed(path, f"cannot compile: {other}")
    first = exc.message.strip().splitlines()[0] if exc.message.strip() else "parse error"
    return Failed(path, f"syntax this Python accepts but libcst cannot parse: {first}", exc.raw_line)


#: the settings of this worker process, sent once when it starts
_WORKER_SETTINGS: Optional[Settings] = None

#: chunks in flight per worker: enough that a slow file never leaves the other
#: workers idle, few enough that results waiting for their turn stay small
_AHEAD = 8


def _start_worker(settings: Settings) -> None:
    global _WORKER_SETTINGS
    _WORKER_SETTINGS = settings
    # What is loaded by now lives as long as the worker: no collection needs to look at it again.
    gc.freeze()


def _chunk(paths: Sequence[str]) -> list[FileResult]:
    assert _WORKER_SETTINGS is not None
    return [process_file(p, _WORKER_SETTINGS) for p in paths]


def default_jobs() -> int:
    """The CPUs this process may run on (not every CPU of the machine)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def run_batch(paths: Sequence[str], settings: Settings, jobs: int = 0) -> Iterator[FileResult]:
    """Results in the order of ``paths`` (already sorted by discovery), as they are ready.

    Files go to the workers in small chunks of neighbours, a bounded number
    ahead of the one the caller waits for, so memory stays flat however
    many files there are and the order never depends on ``-j``. A worker
    that dies (a crash in native code, the memory killer) breaks the pool:
    the first unfinished chunk is redone one file per process, which names
    the file that kills, and a fresh pool takes the rest.
    """
    jobs = jobs or default_jobs()
    if jobs == 1 or len(paths) < _POOL_THRESHOLD:
        for path in paths:
            yield process_file(path, settings)
        return
    size = max(1, min(16, len(paths) // (jobs * 16)))
    chunks = [paths[i:i + size] for i in range(0, len(paths), size)]
    done = 0
    while done < len(chunks):
        pool = ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker, initargs=(settings,))
        pending: deque[tuple[int, Future[list[FileResult]]]] = deque()
        following = done
        try:
            while done < len(chunks):
                while following < len(chunks) and len(pending) < jobs * _AHEAD:
                    try:
                        future = pool.submit(_chunk, chunks[following])
                    except Exception:  # the pool broke: finish what is in flight, then start anew
                        break
                    pending.append((following, future))
                    following += 1
                if not pending:
                    if following == done:  # a fresh pool takes nothing: work here instead
                        for chunk in chunks[done:]:
                            for path in chunk:
                                yield process_file(path, settings)
                        done = len(chunks)
                    break
                index, future = pending.popleft()
                try:
                    results = future.result()
                except Exception:  # the worker died: the pool is gone with it
                    yield from _one_by_one(chunks[index], settings)
                    done = index + 1
                    break
                yield from results
                done = index + 1
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _one_by_one(paths: Sequence[str], settings: Settings) -> Iterator[FileResult]:
    """Each file in a process of its own, so the one that kills a worker is named."""
    for path in paths:
        with ProcessPoolExecutor(max_workers=1, initializer=_start_worker, initargs=(settings,)) as pool:
            try:
                yield pool.submit(_chunk, [path]).result()[0]
            except Exception as exc:
                yield Failed(path, f"internal error (the worker process died: {type(exc).__name__}); please report it")
