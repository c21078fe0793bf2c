"""Run the engine over many files, in parallel, never raising.

Each worker reads one file, runs the engine and returns one record from
:mod:`rewriter.engine.results`. Results come back in path order whatever ``-j`` is,
streamed so memory stays flat. Writing happens in the parent, one atomic
replace per changed file.
"""

from __future__ import annotations

import ctypes
import gc
import hashlib
import io
import os
import pickle
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import fields, replace
from typing import Iterator, Optional, Sequence

import libcst as cst

from codemods.analysis.project.index import FileSummary
from codemods.analysis.project.link import Project
from codemods.analysis.reach import ProjectFacts
from codemods.rules.registry import REGISTRY
from rewriter.engine.cache import Cache, canonical, code_version, digest, environment, open_cache
from rewriter.engine.config import Settings
from rewriter.engine.fileio import FileStamp, SourceError, decode_source, encode_source, read_source, stamp_of
from rewriter.engine.nesting import on_deep_stack
from rewriter.engine.pipeline import Outcome, PythonRejects, SelfCheckError, transform_source
from rewriter.engine.project import link, summarise_file, warn_unnamed
from rewriter.engine.results import Changed, Failed, FileResult, Unchanged
from rewriter.engine.suppressions import Suppression, suppression_comments

#: below this many files a process pool costs more than it saves
_POOL_THRESHOLD = 8


def process_file(
    path: str, settings: Settings, data: Optional[bytes] = None, project: Optional[ProjectFacts] = None
) -> FileResult:
    """One file, start to end. Never raises.

    ``data`` is the file's bytes when they do not come from ``path`` (source
    read from stdin): ``path`` still names it in messages and decides which
    settings apply. ``project``: what the scanned tree says about the file
    (without it, the file is its own project).

    It runs on a thread with a deep stack (:mod:`rewriter.engine.nesting`),
    so deeply nested valid code is rewritten rather than refused, with the
    cyclic garbage collector paused (:func:`collector_paused`).
    """
    with collector_paused():
        return on_deep_stack(_process_file, path, settings, data, project)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for the block (a file read, the summaries linked), and a
    young collection after.

    The trees of one file are up to millions of objects that live until the
    file is done, and a collector that walks them again and again as they
    grow only costs time (a fifth of the index pass). The analysis makes no
    reference cycles of its own (tests/test_batch.py), so the trees go when
    the file is done; what else is left in cycles is collected then.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()
            gc.collect(1)


def _process_file(
    path: str, settings: Settings, data: Optional[bytes] = None, project: Optional[ProjectFacts] = None
) -> FileResult:
    try:
        source = read_source(path) if data is None else decode_source(data)
    except SourceError as exc:
        return Failed(path, str(exc))
    try:
        outcome = transform_source(source.text, os.path.abspath(path), settings, project)
    except PythonRejects as exc:
        return _rejected_by_python(path, exc.error)
    except cst.ParserSyntaxError as exc:
        return _syntax_failure(path, source.text, exc)
    except SelfCheckError as exc:
        return _python_rejects(path, source.text) or Failed(path, str(exc))
    except (RecursionError, MemoryError):
        return Failed(path, TOO_DEEP)
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
    return Changed(path, source.data, new, source.encoding, outcome.findings, unused, stamp=source.stamp)


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
        c for c in comments if c.line in unused and (not c.codes or c.codes & active or c.codes - set(REGISTRY))
    )


#: how the error of a file whose worker process died begins (the memory killer, a crash in native code)
WORKER_DIED = "internal error (the worker process died"
#: the error of a file nested too deeply for Python's parser or for the rules' walks
TOO_DEEP = "too deeply nested to parse"
#: the Python that judged a file's syntax, named in syntax errors
_THIS_PYTHON = f"Python {sys.version_info.major}.{sys.version_info.minor}"


def _rejected_by_python(path: str, error: Exception) -> Failed:
    """The line for a file Python's own parser refuses (see :class:`PythonRejects`).

    The syntax error names the Python that judged it: code written for a
    newer one (PEP 701 f-strings on 3.11) is not processable here, and
    ``scan`` and ``apply`` say so alike.
    """
    if isinstance(error, SyntaxError):
        return Failed(path, f"syntax error: {error.msg} ({_THIS_PYTHON} cannot parse the file)", error.lineno or 0)
    if isinstance(error, (RecursionError, MemoryError)):
        return Failed(path, TOO_DEEP)
    return Failed(path, f"cannot compile: {error}")


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

#: chunks running or queued per worker: enough that no worker waits for the next one
_AHEAD = 4
#: chunks per worker, about: a chunk of equal bytes is a small share of a worker's
#: time, so the last one to finish leaves the others idle only briefly
_CHUNKS_PER_WORKER = 64
#: at most this many files in one chunk (a chunk is sent and returned as one message)
_CHUNK_FILES = 16
#: finished chunks waiting for an earlier one to finish, per worker: bounds memory
_WAITING = 16


#: seconds between a worker's looks at whether its parent is still there
_WATCH_EVERY = 1.0
#: Linux prctl: the signal a process gets when its parent ends
_PR_SET_PDEATHSIG = 1


def _start_worker(settings: Settings) -> None:
    global _WORKER_SETTINGS
    _WORKER_SETTINGS = settings
    _die_with_parent()
    # What is loaded by now lives as long as the worker: no collection needs to look at it again.
    gc.freeze()


def _start_index_worker() -> None:
    # Forked while this process has the collector paused: each file pauses it on its own.
    gc.enable()
    _die_with_parent()


def _die_with_parent() -> None:
    """End this worker when the process that started it ends, however it ends.

    A worker waits on its pool's call queue, whose pipe every worker holds
    open as well, so after a SIGKILL of the parent no end-of-file ever comes
    and the workers would wait for good. On Linux the kernel kills them with
    their parent; a thread that watches the parent's pid covers the other
    platforms, and a parent that ended before the kernel was asked.
    """
    parent = os.getppid()
    _ask_for_parent_death_signal()
    threading.Thread(target=_watch_parent, args=(parent,), name="gbfix-parent-watch", daemon=True).start()


def _ask_for_parent_death_signal() -> None:
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass  # the watching thread is enough


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(_WATCH_EVERY)
    os._exit(1)


def _chunk(paths: Sequence[str], facts: Sequence[ProjectFacts]) -> list[FileResult]:
    assert _WORKER_SETTINGS is not None
    return [process_file(p, _WORKER_SETTINGS, project=f) for p, f in zip(paths, facts, strict=True)]


def _summaries(
    paths: Sequence[str], cache: Optional[Cache] = None, keys: Sequence[str] = ()
) -> list[Optional[FileSummary]]:
    """The index's summary of each file; with a cache, each stored under its key of ``keys``."""
    found = []
    for path, key in zip(paths, keys or [""] * len(paths), strict=True):
        with collector_paused():
            summary = summarise_file(os.path.abspath(path))
        if cache is not None and key and summary is not None:
            cache.put(key, summary)
        found.append(summary)
    return found


def build_project(
    paths: Sequence[str],
    settings: Settings,
    jobs: int = 0,
    summary_keys: Optional[dict[str, str]] = None,
    cache: Optional[Cache] = None,
) -> Project:
    """The scanned tree linked as one project (:mod:`rewriter.engine.project`): every file
    summarised, in parallel as the batch is, then linked here.

    ``summary_keys``: path -> the key of its summary in ``cache``. A summary an
    earlier run stored is read here (a worker sending it would cost as much);
    the others are made, in parallel when there are enough.
    """
    jobs = jobs or default_jobs()
    where = paths[0] if paths else "."
    keys = summary_keys if cache is not None and summary_keys else {}
    # The summaries and the links between them are many small objects that live until
    # the facts are read: a collector walking them as they grow only costs time.
    with collector_paused():
        known = {path: cache.get(keys[path]) for path in paths if path in keys} if cache is not None else {}
        missing = [path for path in paths if known.get(path) is None]
        made = dict(zip(missing, _made_summaries(missing, jobs, cache, keys), strict=True))
        return link([known.get(path) or made.get(path) for path in paths], settings, where)


def _made_summaries(
    paths: list[str], jobs: int, cache: Optional[Cache], keys: dict[str, str]
) -> list[Optional[FileSummary]]:
    if jobs == 1 or len(paths) < _POOL_THRESHOLD:
        return _summaries(paths, cache, [keys.get(path, "") for path in paths])
    found: list[Optional[FileSummary]] = []
    with ProcessPoolExecutor(max_workers=jobs, initializer=_start_index_worker) as pool:
        chunks = chunks_of(paths, jobs)
        chunk_keys = [[keys.get(path, "") for path in chunk] for chunk in chunks]
        for part in pool.map(_summaries, chunks, [cache] * len(chunks), chunk_keys):
            found.extend(part)
    return found


def project_facts(paths: Sequence[str], settings: Settings, jobs: int = 0) -> dict[str, ProjectFacts]:
    """What the linked project says about each of ``paths`` (:func:`build_project`).

    With a pool, the project is built and read in a process of its own, and
    only the facts come back: the index of a large tree stays out of this
    process, so the batch's workers, forked from it, do not carry it.
    """
    jobs = jobs or default_jobs()
    if jobs == 1 or len(paths) < _POOL_THRESHOLD:
        return _facts_of(paths, build_project(paths, settings, 1))
    with ProcessPoolExecutor(max_workers=1, initializer=_die_with_parent) as linker:
        return linker.submit(_linked_facts, list(paths), settings, jobs).result()


def _linked_facts(paths: list[str], settings: Settings, jobs: int) -> dict[str, ProjectFacts]:
    return _facts_of(paths, build_project(paths, settings, jobs))


def default_jobs() -> int:
    """The CPUs this process may run on (not every CPU of the machine)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0  # reported by the worker that reads it


def chunks_of(paths: Sequence[str], jobs: int) -> list[list[str]]:
    """Runs of neighbouring paths of about equal bytes, at most ``_CHUNK_FILES`` each.

    Time goes with size far more than with the number of files, so equal
    bytes keep the workers equally busy, and a large file travels alone.
    """
    sizes = [_size(path) for path in paths]
    budget = max(1, sum(sizes) // (jobs * _CHUNKS_PER_WORKER))
    chunks: list[list[str]] = []
    current: list[str] = []
    filled = 0
    for path, size in zip(paths, sizes, strict=False):
        if current and (filled + size > budget or len(current) == _CHUNK_FILES):
            chunks.append(current)
            current, filled = [], 0
        current.append(path)
        filled += size
    if current:
        chunks.append(current)
    return chunks


def run_batch(
    paths: Sequence[str], settings: Settings, jobs: int = 0, project: Optional[Project] = None
) -> Iterator[FileResult]:
    """Results in the order of ``paths`` (already sorted by discovery), as they are ready.

    The files are first linked as one project (:func:`project_facts`, unless
    ``project`` is that already), so each knows what compiled code reaches in
    it and which of its calls into other files break.

    Files go to the workers in chunks of neighbours (:func:`chunks_of`).
    A new chunk is sent whenever one finishes, whichever it is, so a slow
    file holds up the output but no worker; finished chunks wait for their
    turn, and at most ``_WAITING`` per worker do, so memory stays flat however
    many files there are and the order never depends on ``-j``. A worker
    that dies (a crash in native code, the memory killer) breaks the pool:
    the first unfinished chunk is redone one file per process, which names
    the file that kills, and a fresh pool takes the rest.
    """
    jobs = jobs or default_jobs()
    cache = open_cache(settings.cache, settings.cache_dir) if project is None else None
    if cache is not None:
        yield from _through_cache(paths, settings, jobs, cache)
        return
    by_path = _facts_of(paths, project) if project is not None else project_facts(paths, settings, jobs)
    yield from _processed(paths, settings, jobs, by_path)


def _processed(
    paths: Sequence[str], settings: Settings, jobs: int, by_path: dict[str, ProjectFacts]
) -> Iterator[FileResult]:
    """Each of ``paths`` processed with its facts, in order (see :func:`run_batch`)."""

    def facts(chunk: Sequence[str]) -> list[ProjectFacts]:
        return [by_path[path] for path in chunk]

    if jobs == 1 or len(paths) < _POOL_THRESHOLD:
        for path in paths:
            yield process_file(path, settings, project=facts([path])[0])
        return
    chunks = chunks_of(paths, jobs)
    done = 0
    while done < len(chunks):
        pool = ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker, initargs=(settings,))
        sent: dict[int, Future[list[FileResult]]] = {}
        following = done
        try:
            while done < len(chunks):
                running = [future for future in sent.values() if not future.done()]
                while (
                    following < len(chunks)
                    and len(running) < jobs * _AHEAD
                    and len(sent) - len(running) < jobs * _WAITING
                ):
                    try:
                        future = pool.submit(_chunk, chunks[following], facts(chunks[following]))
                    except Exception:  # the pool broke: finish what is in flight, then start anew
                        break
                    sent[following] = future
                    running.append(future)
                    following += 1
                if done not in sent:
                    if following == done:  # a fresh pool takes nothing: work here instead
                        for chunk in chunks[done:]:
                            for path, known in zip(chunk, facts(chunk), strict=True):
                                yield process_file(path, settings, project=known)
                        done = len(chunks)
                    break
                future = sent[done]
                if not future.done():
                    wait(running, return_when=FIRST_COMPLETED)
                    continue
                del sent[done]
                try:
                    results = future.result()
                except Exception:  # the worker died: the pool is gone with it
                    yield from _one_by_one(chunks[done], settings, facts(chunks[done]))
                    done += 1
                    break
                yield from results
                done += 1
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _facts_of(paths: Sequence[str], project: Project) -> dict[str, ProjectFacts]:
    """What the project says about each of ``paths``."""
    return {path: project.facts_for(os.path.abspath(path)) for path in paths}


def _one_by_one(paths: Sequence[str], settings: Settings, facts: Sequence[ProjectFacts]) -> Iterator[FileResult]:
    """Each file in a process of its own, so the one that kills a worker is named."""
    for path, known in zip(paths, facts, strict=True):
        with ProcessPoolExecutor(max_workers=1, initializer=_start_worker, initargs=(settings,)) as pool:
            try:
                yield pool.submit(_chunk, [path], [known]).result()[0]
            except Exception as exc:
                yield Failed(path, f"{WORKER_DIED}: {type(exc).__name__}); please report it")


# -- the cache (:mod:`rewriter.engine.cache`) ------------------------------------------------


class _Read:
    """A file as the parent read it, to key its entries: its stamp (size, time, digest)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.absolute = os.path.abspath(path)
        self.stamp: Optional[FileStamp] = None
        try:
            self.stamp = _read(path)[1]
        except OSError:
            pass  # not keyed: the worker reads it again and reports why it cannot

    @property
    def content(self) -> str:
        return self.stamp.sha256 if self.stamp is not None else ""

    def rewrite(self, stored: Changed) -> FileResult:
        """A stored rewrite of this file, with the bytes it was made from, read again (not kept: a tree's
        bytes would sit in memory the whole run)."""
        try:
            data, stamp = _read(self.path)
        except OSError as exc:
            return Failed(self.path, exc.strerror or str(exc))
        if stamp.sha256 != self.content:
            return Failed(self.path, "changed while gbfix read it; left as it is, run again")
        return replace(stored, old=data, stamp=stamp)


def _read(path: str) -> tuple[bytes, FileStamp]:
    with open(path, "rb") as handle:
        opened = os.fstat(handle.fileno())
        data = handle.read()
    return data, stamp_of(data, opened)


def settings_key(settings: Settings) -> str:
    """What every entry of a run depends on besides the files: gbfix's code, Python and torch, the
    resolved settings (where the cache is aside)."""
    values = {f.name: getattr(settings, f.name) for f in fields(settings) if f.name not in ("cache", "cache_dir")}
    return digest(code_version(), environment(), canonical(values))


def _through_cache(paths: Sequence[str], settings: Settings, jobs: int, cache: Cache) -> Iterator[FileResult]:
    """:func:`run_batch` reading what an earlier run left in ``cache`` and storing what it makes.

    The whole tree's facts are keyed by every (path, content) pair: an
    unchanged tree needs no index at all. Otherwise each file's summary
    digest comes from the last run over the same paths when its content is
    the same (else its summary is made or read), and the link is keyed by
    every (path, summary digest) pair: an edit that leaves every summary as
    it was (a comment, a string) links nothing again. Only when a summary
    changed is the tree linked again. Each file's result is looked up
    under its own content and its facts.
    """
    run = settings_key(settings)
    files = [_Read(path) for path in paths]
    tree = digest("project", run, *(f"{f.path}\0{f.absolute}\0{f.content}" for f in files))
    by_path: dict[str, ProjectFacts] = {}
    known = cache.get(tree)
    if known is not None:
        facts_digests, unnamed = known
        keys = _result_keys(files, run, facts_digests)
        cached = {path: cache.get(key) for path, key in keys.items()}
        if all(result is not None for result in cached.values()):
            warn_unnamed(unnamed)
        else:
            known = None  # an entry was pruned: the files missing need their facts
    if known is None:
        by_path, facts_digests, unnamed = _linked_through_cache(files, paths, settings, jobs, cache, run)
        cache.put(tree, (facts_digests, unnamed))
        keys = _result_keys(files, run, facts_digests)
        cached = {path: cache.get(key) for path, key in keys.items()}
    missing = [f.path for f in files if cached.get(f.path) is None]
    fresh = _processed(missing, settings, jobs, by_path) if missing else iter(())
    for read in files:
        result = cached.get(read.path)
        if result is None:
            result = next(fresh)
            stored = _storable(result)
            if read.path in keys and stored is not None:
                cache.put(keys[read.path], stored)
        elif isinstance(result, Changed):
            result = read.rewrite(result)
        yield result
    cache.prune()


def _linked_through_cache(
    files: Sequence[_Read], paths: Sequence[str], settings: Settings, jobs: int, cache: Cache, run: str
) -> tuple[dict[str, ProjectFacts], dict[str, str], list[str]]:
    """Each file's facts, their digests and the unnamed ``compiled`` names: from the link an earlier run
    made of the same summaries when there is one, else linked now (:func:`project_digests`)."""
    summary_keys = {f.path: digest("summary", code_version(), f.absolute, f.content) for f in files if f.content}
    # The last run over these paths left each file's content and summary digest: a hint, checked by content.
    last_key = digest("summary-digests", run, *(f"{f.path}\0{f.absolute}" for f in files))
    last = cache.get(last_key) or {}
    digests = {f.path: last[f.path][1] for f in files if f.content and last.get(f.path, ("",))[0] == f.content}
    unknown = [f for f in files if f.path not in digests]
    linked = None
    if len(unknown) <= _RELINK_FILES:
        for f in unknown:
            digests[f.path] = summary_digest(_summary_of(f, summary_keys.get(f.path, ""), cache))
        linked = cache.get(_link_key(files, run, digests))
    if linked is None:
        by_path, facts_digests, unnamed, digests = project_digests(paths, settings, jobs, summary_keys, cache)
        cache.put(_link_key(files, run, digests), (by_path, facts_digests, unnamed))
    else:
        by_path, facts_digests, unnamed = linked
        warn_unnamed(unnamed)
    cache.put(last_key, {f.path: (f.content, digests[f.path]) for f in files})
    return by_path, facts_digests, unnamed


#: at most this many files whose summary the last run did not see are summarised in this process to
#: look for a link of the same summaries; more, and the tree is linked again (summarised in parallel)
_RELINK_FILES = 32


def _link_key(files: Sequence[_Read], run: str, digests: dict[str, str]) -> str:
    return digest("link", run, *(f"{f.path}\0{f.absolute}\0{digests[f.path]}" for f in files))


def _summary_of(read: _Read, key: str, cache: Cache) -> Optional[FileSummary]:
    """The file's summary: stored under ``key`` by an earlier run, else made (and stored)."""
    found = cache.get(key) if key else None
    if found is None and read.content:
        with collector_paused():
            found = summarise_file(read.absolute)
        if key and found is not None:
            cache.put(key, found)
    return found


def summary_digest(summary: Optional[FileSummary]) -> str:
    """What linking reads of one file, as a digest ("" for a file the index could not read).

    Equal digests mean equal summaries. The same summary gets the same digest in every process:
    sets are sorted, and the pickler keeps no memo, so which equal strings are one object does
    not show.
    """
    if summary is None:
        return ""
    classes = tuple((c.qualname, c.line, c.bases, tuple(sorted(c.methods)), c.submodules) for c in summary.classes)
    parts = (summary.path, summary.module, summary.imports, summary.units, classes, summary.compiled)
    buffer = io.BytesIO()
    pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.fast = True
    pickler.dump((*parts, summary.loop_aliases))
    return hashlib.blake2b(buffer.getvalue(), digest_size=20).hexdigest()


def _result_keys(files: Sequence[_Read], run: str, facts_digests: dict[str, str]) -> dict[str, str]:
    """path -> the key of its result, for the files read whole."""
    return {
        f.path: digest("result", run, f.path, f.absolute, f.content, facts_digests[f.path])
        for f in files
        if f.stamp is not None and f.path in facts_digests
    }


def _storable(result: FileResult) -> Optional[FileResult]:
    """A result as stored: a rewrite without the old bytes and stamp, which the next run reads afresh;
    None for a failure that may not recur (a worker the memory killer ended)."""
    if isinstance(result, Changed):
        return replace(result, old=b"", stamp=None)
    if isinstance(result, Failed) and result.message.startswith(WORKER_DIED):
        return None
    return result


def project_digests(
    paths: Sequence[str], settings: Settings, jobs: int, summary_keys: dict[str, str], cache: Cache
) -> tuple[dict[str, ProjectFacts], dict[str, str], list[str], dict[str, str]]:
    """Each file's facts and their digest, the ``compiled`` names no function has, and each file's
    summary digest (:func:`summary_digest`), linked as :func:`project_facts` links them (in a process
    of its own when there is a pool)."""
    if jobs == 1 or len(paths) < _POOL_THRESHOLD:
        return _linked_digests(list(paths), settings, 1, summary_keys, cache)
    with ProcessPoolExecutor(max_workers=1, initializer=_die_with_parent) as linker:
        return linker.submit(_linked_digests, list(paths), settings, jobs, summary_keys, cache).result()


def _linked_digests(
    paths: list[str], settings: Settings, jobs: int, summary_keys: dict[str, str], cache: Cache
) -> tuple[dict[str, ProjectFacts], dict[str, str], list[str], dict[str, str]]:
    project = build_project(paths, settings, jobs, summary_keys, cache)
    facts = _facts_of(paths, project)
    digests = {path: digest(canonical(found)) for path, found in facts.items()}
    unnamed = [name for name in settings.compiled if not project.named(name)]
    summaries = {path: summary_digest(project.files.get(os.path.abspath(path))) for path in paths}
    return facts, digests, unnamed, summaries
