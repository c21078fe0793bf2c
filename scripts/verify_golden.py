"""Verify every golden case the way `gbfix verify` does, on one device and backend; print one table.

Each case's ``.in.py`` is the "before" side and its ``.out.py`` the "after"
side (cases without ``.out.py`` must stay unchanged; ``--all`` verifies them
against themselves). Cases with a ``GOLDEN_KIND`` (where ``torch.compile``
goes, strict mode) are left out: their entry is not a plain call. Every side runs in its own subprocess, as in
``gbfix verify``; cases run ``-j`` at a time, each under its own timeout, and
a row is printed to stderr as each one ends, so a run cut short still shows
what it measured. Exit 0 when every case passes, 1 when one fails, 2 when
one could not run.

    python scripts/verify_golden.py --device cuda --backend inductor
    python scripts/verify_golden.py --device cpu --backend eager -k GBF001
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

from rewriter.runtime.verify import (  # noqa: E402
    VerifyError,
    VerifyReport,
    verify_sources,
)
from tests.golden import Case, cases  # noqa: E402

HEADER = ("case", "result", "skipped", "graphs", "ops", "coverage", "call ms", "outputs", "secs", "note")


def versions(device: str, backend: str) -> list[str]:
    import warnings

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy")
        import torch

    cuda = torch.cuda.is_available()
    lines = [
        f"python {platform.python_version()}  torch {torch.__version__}  cuda {torch.version.cuda}  "
        f"cuda available {cuda}",
        f"device {device}  backend {backend}",
    ]
    if cuda:
        lines.append(f"gpu {torch.cuda.get_device_name(0)}  capability {torch.cuda.get_device_capability(0)}")
    return lines


def _own_kind(case: Case) -> bool:
    """Cases with ``GOLDEN_KIND`` (torch.compile placement, strict mode) check themselves in tests/."""
    return "\nGOLDEN_KIND = " in case.source


def module_name(case: Case) -> str:
    return f"golden_{case.rule}_{case.name}".lower()


def run_case(case: Case, args: argparse.Namespace) -> tuple[Case, Optional[VerifyReport], str, float]:
    """(case, report or None, error message, seconds); never raises."""
    started = time.perf_counter()
    after = case.expected if case.expected is not None else case.source
    name = module_name(case)
    try:
        report = verify_sources(
            module=name,
            origin=case.output_path if case.expected is not None else case.input_path,
            before=case.source,
            after=after,
            entry=f"{name}:ENTRY",
            inputs=f"{name}:example_inputs",
            before_label=os.path.relpath(case.input_path, ROOT),
            device=args.device,
            backend=args.backend,
            rtol=args.rtol,
            atol=args.atol,
            cwd=ROOT,
            timeout=args.timeout,
        )
    except VerifyError as exc:
        return case, None, str(exc), time.perf_counter() - started
    except Exception as exc:  # one broken case must not end the run
        return case, None, f"{type(exc).__name__}: {exc}", time.perf_counter() - started
    return case, report, "", time.perf_counter() - started


def row(case: Case, report: Optional[VerifyReport], error: str, seconds: float) -> tuple[str, ...]:
    label = str(case) + ("" if case.expected is not None else " (unchanged)")
    if report is None:
        return (label, "ERROR", "", "", "", "", "", "", f"{seconds:.1f}", error.splitlines()[0][:120])
    b, a = report.before.stats, report.after.stats

    def pair(get) -> str:  # type: ignore[no-untyped-def]
        return f"{get(b) if b else '-'} -> {get(a) if a else '-'}"

    equal = sum(c.difference is None for c in report.comparisons)
    note = report.reasons[0] if report.reasons else "; ".join(report.notes)
    return (
        label,
        "PASS" if report.passed else "FAIL",
        pair(lambda s: s.frames_skipped),
        pair(lambda s: s.graphs),
        pair(lambda s: s.ops),
        pair(lambda s: "-" if s.coverage is None else f"{s.coverage:.0%}"),
        pair(lambda s: f"{s.call_seconds * 1e3:.2f}"),
        f"{equal}/{len(report.comparisons)} equal",
        f"{seconds:.1f}",
        note[:160],
    )


def table(rows: list[tuple[str, ...]]) -> str:
    widths = [max(len(r[i]) for r in [HEADER, *rows]) for i in range(len(HEADER))]
    out = []
    for r in [HEADER, tuple("-" * w for w in widths), *rows]:
        out.append(" | ".join(c.ljust(w) for c, w in zip(r, widths, strict=False)).rstrip())
    return "\n".join(out)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="auto", help="auto, cpu or cuda")
    parser.add_argument("--backend", default="eager", help="eager, aot_eager or inductor")
    parser.add_argument("--rtol", type=float, default=None)
    parser.add_argument("--atol", type=float, default=None)
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=max(1, (os.cpu_count() or 2) // 4),
        help="cases verified at once (each runs two processes)",
    )
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds per case")
    parser.add_argument("-k", dest="pattern", default="", help="only cases whose RULE/name contains this")
    parser.add_argument("--all", action="store_true", help="also cases that must stay unchanged")
    args = parser.parse_args(argv)
    # Each case runs two processes at once; keep their threads within the cores.
    os.environ.setdefault("OMP_NUM_THREADS", str(max(1, (os.cpu_count() or 2) // (2 * max(1, args.jobs)))))
    # Golden graphs are tiny: compiling them in process beats starting a worker pool per side.
    os.environ.setdefault("TORCHINDUCTOR_COMPILE_THREADS", "1")

    for line in versions(args.device, args.backend):
        print(line, flush=True)
    matching = [c for c in cases() if args.pattern in str(c) and (args.all or c.expected is not None)]
    selected = [c for c in matching if not _own_kind(c)]
    left_out = len(matching) - len(selected)
    print(
        f"{len(selected)} cases, {args.jobs} at a time"
        + (f" ({left_out} placement/strict cases left out: their ENTRY is not a plain call)" if left_out else ""),
        flush=True,
    )
    started = time.perf_counter()
    results = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(run_case, case, args) for case in selected]
        for future in as_completed(futures):
            result = future.result()
            results.append(result)
            r = row(*result)
            print(f"  {r[0]}: {r[1]} {r[2]} {r[8]}", file=sys.stderr, flush=True)
    results.sort(key=lambda r: str(r[0]))
    rows = [row(*r) for r in results]
    print(table(rows))
    counts = {k: sum(r[1] == k for r in rows) for k in ("PASS", "FAIL", "ERROR")}
    print(
        f"{counts['PASS']} passed, {counts['FAIL']} failed, {counts['ERROR']} errors "
        f"in {time.perf_counter() - started:.1f}s",
        flush=True,
    )
    if counts["ERROR"]:
        return 2
    return 1 if counts["FAIL"] else 0


if __name__ == "__main__":
    sys.exit(main())
