"""Regenerate the recorded-run fixtures under tests/fixtures/traces/ with the installed torch.

gbfix reads two things a real run leaves behind: a ``TORCH_TRACE``
directory (JSON-lines logs, one per process) and captured
``TORCH_LOGS=graph_breaks`` output. The tests parse small real captures of
both, made by this script from golden inputs and from the fixture project
(a loop around an unknown third-party call, a data-dependent branch), so
they can be regenerated when torch changes its formats::

    python scripts/make_trace_fixtures.py

Two child processes run the cases under ``torch.compile(backend="eager")``
on CPU, both with ``TORCH_TRACE`` and ``TORCH_LOGS=graph_breaks`` set: one
for the golden inputs, one for the project, so the trace directory holds
two logs (the project's is written last); the text log is the project
run's (the golden cases are covered by the trace). The captures are then made small
and stable without changing their format: only the records gbfix reads are
kept (interned strings, ``dynamo_start``, graph-break reasons, trimmed
``compilation_metrics``), torch's own traceback after the user's is cut to
its first frame, payload hashes are recomputed, timestamps and process ids
are fixed, and machine paths are replaced by the paths of another machine
(``/home/dev/gbfix`` for this checkout, ``/opt/conda/...`` for Python and
installed packages), which is what the tests' path matching must cope with.
"""

from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "tests", "fixtures", "traces")
PROJECT = os.path.join(OUT, "project")
PROJECT_SITE = os.path.join(PROJECT, "site-packages")

#: (group, file relative to the checkout, functions to compile; empty: its ENTRY)
CASES = (
    ("golden", "golden/GBF001/plain.in.py", ()),
    ("golden", "golden/GBF003/reference_outline.in.py", ()),
    ("golden", "golden/GBF004/reference.in.py", ()),
    ("project", "tests/fixtures/traces/project/src/model.py", ("step", "gate")),
)

#: how the captures name this machine's directories (longest first)
OTHER_ROOT = "/home/dev/gbfix"
OTHER_SITE = "/opt/conda/lib/python3.11/site-packages"
OTHER_STDLIB = "/opt/conda/lib/python3.11"

#: structured-trace records gbfix reads; the rest (chromium events, tensor descriptions…) go
KEPT_RECORDS = ("str", "dynamo_start", "compilation_metrics", "artifact")
KEPT_ARTIFACTS = ("dynamo_graph_break_reason",)
KEPT_METRICS = (
    "compile_id",
    "frame_key",
    "co_name",
    "co_filename",
    "co_firstlineno",
    "fail_type",
    "fail_user_frame_filename",
    "fail_user_frame_lineno",
)
_GLOG = re.compile(r"^([VIWEC])\d{4} \d\d:\d\d:\d\d\.\d{6} \d+ ")


def child(group: str) -> None:
    """Compile every case of ``group`` in this process."""
    import importlib.util

    import torch

    sys.path.insert(0, PROJECT_SITE)
    for n, (case_group, rel, names) in enumerate(CASES):
        if case_group != group:
            continue
        path = os.path.join(ROOT, rel)
        spec = importlib.util.spec_from_file_location(f"case{n}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for fn in [getattr(module, name) for name in names] or [module.ENTRY]:
            torch.manual_seed(0)
            torch.compile(fn, backend="eager")(*module.example_inputs())


def _replacements() -> list[tuple[str, str]]:
    pairs = [
        (PROJECT_SITE, OTHER_SITE),
        (ROOT, OTHER_ROOT),
        (sysconfig.get_paths()["purelib"], OTHER_SITE),
        (sysconfig.get_paths()["stdlib"], OTHER_STDLIB),
    ]
    return sorted(pairs, key=lambda p: -len(p[0]))


def scrub(text: str) -> str:
    for old, new in _replacements():
        text = text.replace(old, new)
    return text


def _glog(line: str) -> str:
    """The glog prefix with a fixed time and process id (its format unchanged)."""
    return _GLOG.sub(lambda m: f"{m.group(1)}0101 00:00:00.000000 1000 ", line)


def _cut_traceback(payload: str) -> str:
    """Keep the user's part of a graph-break payload and the first frame of torch's traceback."""
    head, marker, tail = payload.partition("Traceback (most recent call last):\n")
    if not marker:
        return payload
    first = tail.splitlines(keepends=True)[:2]
    return head + marker + "".join(first)


def shrink_trace(text: str) -> str:
    """Only the records gbfix reads, each with its payload, made small and stable."""
    out: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        payload_lines = []
        while i < len(lines) and lines[i].startswith("\t"):
            payload_lines.append(lines[i][1:])
            i += 1
        prefix, _, body = line.partition("] ")
        try:
            record = json.loads(body)
        except ValueError:
            continue
        kind = next(iter(record), "")
        if kind not in KEPT_RECORDS:
            continue
        if kind == "artifact" and record["artifact"].get("name") not in KEPT_ARTIFACTS:
            continue
        if kind == "compilation_metrics":
            metrics = record["compilation_metrics"]
            record["compilation_metrics"] = {k: metrics[k] for k in KEPT_METRICS if k in metrics}
            record = json.loads(scrub(json.dumps(record)))
        elif kind in ("str", "dynamo_start"):
            record = json.loads(scrub(json.dumps(record)))
        payload = None
        if payload_lines:
            payload = scrub(_cut_traceback("\n".join(payload_lines) + "\n"))
            if payload.endswith("\n"):
                payload = payload[:-1]
            record["has_payload"] = hashlib.md5(payload.encode("utf-8")).hexdigest()
        out.append(_glog(prefix) + "] " + json.dumps(record))
        if payload is not None:
            out.extend("\t" + p for p in payload.split("\n"))
    return "\n".join(out) + "\n"


def shrink_log(text: str) -> str:
    """The graph-break lines and the program's own prints; Python's warnings go."""
    out: list[str] = []
    skip_next = False
    for line in text.splitlines():
        if skip_next and line.startswith(" "):
            skip_next = False
            continue
        skip_next = False
        if "Warning:" in line and "[__graph_breaks]" not in line:
            skip_next = True
            continue
        out.append(_glog(scrub(line)))
    return "\n".join(out) + "\n"


def main() -> int:
    with tempfile.TemporaryDirectory(prefix="gbfix-traces-") as work:
        trace_dir = os.path.join(work, "trace")
        logs = []
        for group in ("golden", "project"):
            env = dict(os.environ, TORCH_TRACE=trace_dir, TORCH_LOGS="graph_breaks", PYTHONHASHSEED="0")
            before = set(glob.glob(os.path.join(trace_dir, "*.log")))
            done = subprocess.run(
                [sys.executable, os.path.abspath(__file__), "--child", group],
                cwd=ROOT,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            if done.returncode != 0:
                sys.stderr.write(done.stdout)
                return done.returncode
            if group == "project":
                logs.append(done.stdout)
            (new,) = set(glob.glob(os.path.join(trace_dir, "*.log"))) - before
            with open(new, encoding="utf-8") as handle:
                shrunk = shrink_trace(handle.read())
            target = os.path.join(OUT, "torch_trace", f"dedicated_log_torch_trace_{group}.log")
            if group == "golden":
                shutil.rmtree(os.path.dirname(target), ignore_errors=True)
                os.makedirs(os.path.dirname(target))
            with open(target, "w", encoding="utf-8") as handle:
                handle.write(shrunk)
            print(f"wrote {os.path.relpath(target, ROOT)} ({len(shrunk)} bytes)")
        log_path = os.path.join(OUT, "graph_breaks.log")
        text = shrink_log("".join(logs))
        with open(log_path, "w", encoding="utf-8") as handle:
            handle.write(text)
        print(f"wrote {os.path.relpath(log_path, ROOT)} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2])
        sys.exit(0)
    sys.exit(main())
