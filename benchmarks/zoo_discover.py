"""The whole zoo, discovered: every model of five model libraries, built, run, counted.

    python benchmarks/zoo_discover.py list                      # the classes, one per line
    python benchmarks/zoo_discover.py run --jobs 1              # resumes from results/zoo-discovery.jsonl
    python benchmarks/zoo_discover.py run --shard 1/4 --libraries timm --limit 20
    python benchmarks/zoo_discover.py run --redo-stale          # rows an older builder made, for models it changed

Each model runs in a process of its own, forked from a parent that imported
torch and the libraries once, so every model starts with a fresh Dynamo
state at the cost of a fork; a model that runs past ``--timeout`` is killed
and recorded as timed out. One JSON line per model goes to the results file
as soon as it is done (``--out``): built or the build error, the eager error,
and for a model that compiled, the figures ``model_run.py`` counts (frames
total/ok, skipped frames with their names and the breaks that caused them,
graphs, ops, coverage) and whether the compiled output equals the eager one.
A run that stops resumes where it stopped: models already in the file are
not run again. The order is a fixed shuffle, so a run cut short is still a
sample of every library.

For a model with a skipped frame, the process also keeps what the gbfix
step (``zoo_gbfix.py``) needs under ``--work``: the eager output as the
reference, the package files the forward executes (in the JSON line), and the
``TORCH_TRACE`` log of its compile (``gbfix apply --trace``).

``measure`` is the same loop over a rewritten package copy (``--package-root``),
run by ``zoo_gbfix.py``: it counts the same figures and compares each output
with the reference.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shutil
import signal
import sys
import time
import traceback
from typing import Any, Callable, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

DEFAULT_OUT = os.path.join(HERE, "results", "zoo-discovery.jsonl")
#: address space a model process may use (torch maps a few GB of it before any model is built)
MEMORY_LIMIT = 12 * 2**30
DEFAULT_WORK = os.path.join(os.environ.get("TMPDIR", "/tmp"), "gbfix-zoo")
#: the model libraries run by default (``zoo_build`` enumerates and builds each); one that does not import is left out
LIBRARIES = ("transformers", "diffusers", "timm", "torchvision", "torchaudio")


def versions() -> dict[str, str]:
    """Versions of torch and the model libraries, from package metadata."""
    from importlib import metadata

    found = {}
    for name in ("torch", "transformers", "diffusers", "timm", "torchvision", "torchaudio"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def safe_name(key: str) -> str:
    """A file name for ``library:Class``."""
    return key.replace(":", "--").replace("/", "_")


def shuffled(entries: list[Any]) -> list[Any]:
    """A fixed order that mixes the libraries: a run cut short is a sample of each."""
    return sorted(entries, key=lambda e: hashlib.sha1(e.key.encode()).hexdigest())


def shard_of(entries: list[Any], shard: str) -> list[Any]:
    """The ``K/N``-th share of the entries (every N-th one from the K-th)."""
    if not shard:
        return entries
    k, n = (int(part) for part in shard.split("/"))
    return [entry for i, entry in enumerate(entries) if i % n == k - 1]


ERRORS = ("build_error", "eager_error", "process_error")


def done_keys(path: str, retry_errors: bool = False, stale: Optional[Callable[[str, int], bool]] = None) -> set[str]:
    """Models already in a results file (a line cut off by a kill is ignored); the last line of a model wins.

    With ``retry_errors``, a model whose last line is a build, eager or process
    error is not done: a fix of the input builder reruns only those. With
    ``stale`` (called with the model's key and the row's builder version, 1
    for rows without one), a row an older builder made for a model the
    builder now builds differently is not done either.
    """
    keys = set()
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue
                name = f"{row['library']}:{row['model']}"
                if retry_errors and any(row.get(k) for k in ERRORS) or stale and stale(name, row.get("builder", 1)):
                    keys.discard(name)
                else:
                    keys.add(name)
    return keys


def _error(exc: BaseException) -> str:
    first = (str(exc).strip().splitlines() or [""])[0]
    return f"{type(exc).__name__}: {first[:300]}"


def _where_raised(exc: BaseException) -> str:
    """The innermost library frame of a traceback: where a build or run failed."""
    frames = traceback.extract_tb(exc.__traceback__)
    inside = [f for f in frames if "site-packages" in f.filename or "/copy/" in f.filename]
    last = (inside or frames or [None])[-1]
    if last is None:
        return ""
    name = last.filename.split("site-packages/")[-1] if "site-packages/" in last.filename else last.filename
    return f"{name if name != last.filename else os.path.basename(name)}:{last.lineno}"


# -- one model in a fork ------------------------------------------------------------------------


def compile_and_count(built: Any, seed: int) -> tuple[dict[str, Any], Any]:
    """Compile with the counting backend, call twice, count coverage on a third call: figures and the output."""
    import model_run
    import torch

    counts = model_run.Counts()
    compiled = torch.compile(built.fn, backend=model_run.counting_backend(counts, "eager"))
    call = model_run.call_of(compiled, built, seed)
    figures: dict[str, Any] = {}
    output = None
    try:
        with model_run.recording(counts):
            call()
            output = call()
    except Exception as exc:  # noqa: BLE001 - a compiled run that fails is a finding, with what was counted
        figures["compile_error"] = _error(exc)
        figures["compile_error_at"] = _where_raised(exc)
    figures.update(counts.summary())
    if output is not None:
        coverage = model_run.count_coverage(call, counts)
        figures.update(coverage, coverage=model_run.coverage_share(coverage))
    return figures, output


def discover_one(entry: Any, work: str, seed: int = 0) -> dict[str, Any]:
    """Build, run eagerly, compile and count one model; keep the reference, files and trace when it skips."""
    import model_run
    import torch
    import zoo_build

    row: dict[str, Any] = {"library": entry.library, "model": entry.name, "origin": entry.origin}
    row["builder"] = zoo_build.BUILDER
    model_run.seed_everything(seed)
    try:
        built = zoo_build.build(entry)
        row.update(zoo_build.settings(built))
    except Exception as exc:  # noqa: BLE001 - recorded, never dropped
        return {**row, "built": False, "build_error": _error(exc), "build_error_at": _where_raised(exc)}
    row["built"] = True
    row["parameters"] = sum(p.numel() for p in built.fn.parameters()) if hasattr(built.fn, "parameters") else None
    eager = model_run.call_of(built.fn, built, seed)
    try:
        reference = eager()
    except Exception as exc:  # noqa: BLE001
        return {**row, "eager_error": _error(exc), "eager_error_at": _where_raised(exc)}
    figures, output = compile_and_count(built, seed)
    row.update(figures)
    if output is not None:
        row["compiled_vs_eager"] = model_run.compare_outputs(
            model_run.flatten_output(reference), model_run.flatten_output(output), exact=True
        )
    trace = _trace_file()
    if row.get("skipped"):
        dirs = model_run.package_dirs(tuple(name for name in zoo_build.LIBRARIES if name in sys.modules))
        row["files"], _ = model_run.executed_files(eager, dirs)
        torch.save(model_run.flatten_output(reference), os.path.join(work, "refs", safe_name(entry.key) + ".pt"))
        if output is not None and row["compiled_vs_eager"]:
            torch.save(model_run.flatten_output(output), compiled_reference(work, entry.key))
        if trace:
            shutil.move(trace, os.path.join(work, "traces", safe_name(entry.key) + ".log"))
    elif trace:
        os.remove(trace)
    return row


def _trace_file() -> Optional[str]:
    """The ``TORCH_TRACE`` log this process wrote, flushed (None when tracing is off)."""
    from torch._logging import _internal

    handler = getattr(_internal, "LOG_TRACE_HANDLER", None)
    stream = getattr(handler, "stream", None)
    if stream is None:
        return None
    stream.flush()
    return getattr(handler, "_stream_path", None) or stream.name


def measure_one(entry: Any, work: str, seed: int = 0) -> dict[str, Any]:
    """Build from the package copy first on the path, compile and count, compare with the reference."""
    import model_run
    import torch
    import zoo_build

    row: dict[str, Any] = {"library": entry.library, "model": entry.name}
    model_run.seed_everything(seed)
    try:
        built = zoo_build.build(entry)
        eager = model_run.call_of(built.fn, built, seed)
        eager_output = eager()
    except Exception as exc:  # noqa: BLE001 - a crash of the rewritten package, reported per model
        return {**row, "crash": _error(exc), "crash_at": _where_raised(exc)}
    figures, output = compile_and_count(built, seed)
    row.update(figures)
    if "compile_error" in figures:
        row["crash"] = figures["compile_error"]
        row["crash_at"] = figures.get("compile_error_at")
    reference = torch.load(os.path.join(work, "refs", safe_name(entry.key) + ".pt"), weights_only=False)
    row["eager_vs_reference"] = model_run.compare_outputs(reference, model_run.flatten_output(eager_output), True)
    if output is not None:
        row["compiled_vs_reference"] = compiled_difference(reference, output, compiled_reference(work, entry.key))
    return row


def compiled_reference(work: str, key: str) -> str:
    """Where the unmodified compiled output of a model is kept when it is not its eager output."""
    return os.path.join(work, "refs", safe_name(key) + ".compiled.pt")


def compiled_difference(reference: list[tuple[str, Any]], output: Any, compiled_path: str) -> Optional[str]:
    """Where a compiled output differs from the unmodified library's, or None.

    A library may compute differently, in the last bits, once it sees Dynamo
    (transformers repeats the key heads instead of SDPA's grouped-query path
    when its causal mask is built under tracing, and scans Mamba states with
    ``associative_scan`` instead of a loop), so the unmodified compiled output
    is kept beside the eager one where they differ: either is the library's.
    """
    import model_run
    import torch

    flat = model_run.flatten_output(output)
    differs = model_run.compare_outputs(reference, flat, True)
    if differs and os.path.exists(compiled_path):
        if model_run.compare_outputs(torch.load(compiled_path, weights_only=False), flat, True) is None:
            return None
    return differs


# -- the pool of forks --------------------------------------------------------------------------------


def run_forked(
    entries: list[Any], task: Callable[[Any, str], dict[str, Any]], out: str, work: str, jobs: int, timeout: float
) -> None:
    """Run ``task`` on each entry in a forked child, ``jobs`` at a time; append each result to ``out``."""
    stamp = {"versions": versions()}
    todo = list(entries)
    active: dict[int, tuple[Any, float, str]] = {}
    total = len(todo)
    with open(out, "a", encoding="utf-8") as handle:
        while todo or active:
            while todo and len(active) < jobs:
                entry = todo.pop(0)
                result_path = os.path.join(work, "rows", safe_name(entry.key) + ".json")
                pid = os.fork()
                if pid == 0:
                    _child(entry, task, work, result_path)
                active[pid] = (entry, time.monotonic(), result_path)
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                _kill_late(active, timeout)
                time.sleep(0.1)
                continue
            entry, started, result_path = active.pop(pid)
            row = _read_row(entry, result_path, status, time.monotonic() - started, timeout)
            handle.write(json.dumps({**row, **stamp}, default=str) + "\n")
            handle.flush()
            done = total - len(todo) - len(active)
            print(f"[{done}/{total}] {entry.key}: {one_line(row)}", file=sys.stderr, flush=True)


def _child(entry: Any, task: Callable[[Any, str], dict[str, Any]], work: str, result_path: str) -> None:
    """The forked side: run the task, write its row, exit without running the parent's cleanup."""
    code = 0
    try:
        _die_with_parent()
        # a model whose tiny config is still huge fails alone instead of pushing the machine into swap
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        started = time.perf_counter()
        row = task(entry, work)
        row["wall_s"] = round(time.perf_counter() - started, 2)
        with open(result_path + ".tmp", "w", encoding="utf-8") as handle:
            json.dump(row, handle, default=str)
        os.replace(result_path + ".tmp", result_path)
    except BaseException as exc:  # noqa: BLE001 - whatever happens, the parent reads the exit code
        code = 3
        with open(result_path + ".err", "w", encoding="utf-8") as handle:
            handle.write(_error(exc) + " @ " + _where_raised(exc))
    os._exit(code)


def _die_with_parent() -> None:
    """Ask Linux to kill this child when the parent dies, so a stopped run leaves no model running."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except OSError:
        pass


def _kill_late(active: dict[int, tuple[Any, float, str]], timeout: float) -> None:
    now = time.monotonic()
    for pid, (_, started, _) in active.items():
        if now - started > timeout:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _read_row(entry: Any, path: str, status: int, seconds: float, timeout: float) -> dict[str, Any]:
    row: dict[str, Any] = {"library": entry.library, "model": entry.name, "origin": getattr(entry, "origin", "")}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            row = json.load(handle)
        os.remove(path)
        return row
    if os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL and seconds >= timeout:
        return {**row, "timed_out": True, "process_error": f"timed out after {timeout:.0f}s"}
    if os.path.exists(path + ".err"):
        with open(path + ".err", encoding="utf-8") as handle:
            row["process_error"] = handle.read()
        os.remove(path + ".err")
        return row
    how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit {os.WEXITSTATUS(status)}"
    return {**row, "process_error": f"process died ({how})", "wall_s": round(seconds, 2)}


def one_line(row: dict[str, Any]) -> str:
    """A progress line: the first error, or the counts."""
    for key in ("build_error", "eager_error", "process_error", "crash", "compile_error"):
        if row.get(key):
            return f"{key}: {row[key][:120]}"
    coverage = row.get("coverage")
    share = f"{100 * coverage:.0f}%" if isinstance(coverage, float) else "-"
    return (
        f"frames {row.get('frames_ok')}/{row.get('frames_total')} skipped {row.get('skipped')} "
        f"ops {row.get('ops')} coverage {share} ({row.get('wall_s', 0):.0f}s)"
    )


# -- command line -------------------------------------------------------------------------------------------


def prepare(libraries: tuple[str, ...], package_root: str = "") -> list[Any]:
    """Import torch and the libraries once (a copy first on the path when given); the entries."""
    if package_root:
        sys.path.insert(0, package_root)
    import torch

    torch.set_num_threads(1)
    import model_run
    import zoo_build

    model_run._ROOTS.update(zoo_build.LIBRARIES)
    installed = []
    for name in libraries:
        try:
            __import__(name)
        except ImportError as exc:
            print(f"zoo_discover: {name} does not import ({exc}): its models are left out", file=sys.stderr)
        else:
            installed.append(name)
    return zoo_build.enumerate_entries(tuple(installed))


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("task", choices=("list", "run", "measure"))
    parser.add_argument(
        "--libraries", nargs="+", default=["transformers", "diffusers", "timm", "torchvision", "torchaudio"]
    )
    parser.add_argument("--models", nargs="+", metavar="LIB:CLASS", help="only these (as the results name them)")
    parser.add_argument("--first", nargs="+", default=[], metavar="LIB:CLASS", help="run these before the others")
    parser.add_argument("--shard", default="", help="K/N: the K-th of N shares")
    parser.add_argument("--limit", type=int, default=0, help="at most this many models not yet done")
    parser.add_argument("--retry-errors", action="store_true", help="run again the models that failed to build or run")
    parser.add_argument(
        "--redo-stale", action="store_true", help="run again the models an older builder version built differently"
    )
    parser.add_argument("--jobs", type=int, default=1, help="models run at once")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per model before its process is killed")
    parser.add_argument("--out", default=DEFAULT_OUT, help="results file (JSON lines), appended to")
    parser.add_argument("--work", default=DEFAULT_WORK, help="references and traces of the models that skip")
    parser.add_argument("--package-root", default="", help="measure: the rewritten package copy")
    return parser.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    for sub in ("refs", "traces", "rows"):
        os.makedirs(os.path.join(args.work, sub), exist_ok=True)
    if args.task == "run" and "TORCH_TRACE" not in os.environ:
        # torch reads it when imported; each forked model opens its own log on its first compile
        os.environ["TORCH_TRACE"] = os.path.join(args.work, "traces", "open")
    # models named one by one need only their own libraries
    libraries = sorted({key.partition(":")[0] for key in args.models}) if args.models else args.libraries
    entries = prepare(tuple(libraries), args.package_root if args.task == "measure" else "")
    import zoo_build

    if args.task == "list":
        for entry in entries:
            print(f"{entry.key}\t{entry.origin}")
        return 0
    if args.models:
        wanted = set(args.models)
        entries = [entry for entry in entries if entry.key in wanted]
    by_key = {entry.key: entry for entry in entries}

    def stale(key: str, builder: int) -> bool:
        return key in by_key and zoo_build.changed_since(by_key[key], builder)

    done = done_keys(args.out, args.retry_errors, stale if args.redo_stale else None)
    todo = [entry for entry in shard_of(shuffled(entries), args.shard) if entry.key not in done]
    if args.first:
        first = set(args.first)
        todo = [e for e in todo if e.key in first] + [e for e in todo if e.key not in first]
    if args.limit:
        todo = todo[: args.limit]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    task = discover_one if args.task == "run" else measure_one
    print(f"{len(todo)} models to run ({len(done)} already in {args.out})", file=sys.stderr, flush=True)
    run_forked(todo, task, args.out, args.work, args.jobs, args.timeout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
