"""Run the engine over many files, in parallel, never raising.

Each worker reads one file, runs the engine and returns one record from
:mod:`rewriter.results`. Results come back in path order whatever ``-j`` is,
streamed so memory stays flat. Writing happens in the parent, one atomic
replace per changed file.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from typing import Iterator, Sequence

import libcst as cst

from rewriter.config import Settings
from rewriter.engine import SelfCheckError, transform_source
from rewriter.fileio import SourceError, encode_source, read_source
from rewriter.results import Changed, Failed, FileResult, Unchanged

#: below this many files a process pool costs more than it saves
_POOL_THRESHOLD = 8


def process_file(path: str, settings: Settings) -> FileResult:
    """One file, start to end. Never raises."""
    try:
        source = read_source(path)
    except SourceError as exc:
        return Failed(path, str(exc))
    try:
        outcome = transform_source(source.text, os.path.abspath(path), settings)
    except cst.ParserSyntaxError as exc:
        return _syntax_failure(path, source.text, exc)
    except SelfCheckError as exc:
        return Failed(path, str(exc))
    except RecursionError:
        return Failed(path, "too deeply nested to parse")
    except Exception as exc:  # a bug in a rule must not end the batch
        return Failed(path, f"internal error ({type(exc).__name__}: {exc}); please report it")
    if outcome.new_text is None:
        return Unchanged(path, outcome.findings, outcome.parsed)
    try:
        new = encode_source(outcome.new_text, source.encoding)
    except UnicodeEncodeError as exc:
        return Failed(path, f"rewritten text cannot be encoded as {source.encoding}: {exc.reason}")
    return Changed(path, source.data, new, source.encoding, outcome.findings)


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


def _chunk(args: tuple[Sequence[str], Settings]) -> list[FileResult]:
    paths, settings = args
    return [process_file(p, settings) for p in paths]


def run_batch(paths: Sequence[str], settings: Settings, jobs: int = 0) -> Iterator[FileResult]:
    """Results in the order of ``paths`` (already sorted by discovery)."""
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1 or len(paths) < _POOL_THRESHOLD:
        for path in paths:
            yield process_file(path, settings)
        return
    # Small chunks keep workers busy when a few files are slow to transform.
    size = max(1, min(32, len(paths) // (jobs * 8)))
    chunks = [(paths[i:i + size], settings) for i in range(0, len(paths), size)]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for results in pool.map(_chunk, chunks):
            yield from results
