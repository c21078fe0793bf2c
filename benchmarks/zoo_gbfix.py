"""gbfix on every model of the whole zoo that skips: static and trace, measured before and after.

    python benchmarks/zoo_gbfix.py                          # every skipping model of results/zoo-discovery.jsonl
    python benchmarks/zoo_gbfix.py --sample 40 --seed 0     # a stratified sample: the development loop
    python benchmarks/zoo_gbfix.py --mode static --jobs 2
    python benchmarks/zoo_gbfix.py --models torchvision:fcos_resnet50_fpn --out /tmp/one.jsonl

It reads the discovery (``zoo_discover.py run``), takes the models with a
skipped frame, and per mode:

1. copies the installed packages the models run (transformers, diffusers, timm, torchvision, torchaudio) once;
2. runs ``gbfix apply --dry-run`` over the union of the files those models
   execute (with ``--trace DIR`` holding every one of their recorded compiles
   in trace mode), keeps the patch as ``results/zoo-diffs/<mode>.patch`` and
   applies it to the copy: one rewrite of the libraries, as a user who runs
   gbfix on them gets, not one per model;
3. measures every model against the rewritten copy (``zoo_discover.py
   measure``: a fork per model, fresh Dynamo state, a timeout), counting the
   same figures as the discovery, gbfix helpers included in the skipped
   frames, and comparing each output (compiled and eager) with the unmodified
   eager output exactly.

A run resumes: a patch measured before (in either mode) keeps the models it measured.
A model whose files the trace-mode patch rewrites as the static one does runs
the same code in both modes, and is measured once.
``results/zoo.jsonl`` gets one line per model, ``zoo_report.py`` renders it.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import os
import random
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import realworld  # noqa: E402
import zoo_discover  # noqa: E402

RESULTS = os.path.join(HERE, "results")
MODES = ("static", "trace")


def load(path: str) -> list[dict[str, Any]]:
    """The rows of a JSON-lines file; the last row of a model wins (a rerun replaces it)."""
    rows: dict[str, dict[str, Any]] = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as handle:
            for line in handle:
                try:
                    row = json.loads(line)
                except json.JSONDecodeError:
                    continue
                rows[f"{row['library']}:{row['model']}"] = row
    return list(rows.values())


def key(row: dict[str, Any]) -> str:
    return f"{row['library']}:{row['model']}"


def first_cause(row: dict[str, Any]) -> str:
    """The break type of a model's first skip: the stratum of the sample."""
    causes = row.get("skip_causes") or ["?"]
    return causes[0].split("]: ", 1)[-1].split(" @ ")[0]


def skipping(rows: list[dict[str, Any]], work: str) -> list[dict[str, Any]]:
    """Models with a skipped frame whose reference output was kept."""
    found = []
    for row in rows:
        reference = os.path.join(work, "refs", zoo_discover.safe_name(key(row)) + ".pt")
        if row.get("skipped") and os.path.exists(reference):
            found.append(row)
    return found


def installed(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows whose library is installed here: a discovery made where torchaudio was stays usable where it is not."""
    libraries = {row["library"] for row in rows}
    missing = sorted(name for name in libraries if importlib.util.find_spec(name) is None)
    if missing:
        print(f"zoo_gbfix: {', '.join(missing)} not installed: the models of each are left out", file=sys.stderr)
    return [row for row in rows if row["library"] not in missing]


def sample(rows: list[dict[str, Any]], size: int, seed: int) -> list[dict[str, Any]]:
    """``size`` models drawn in turn from each (library, first skip cause) stratum, seeded."""
    strata: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for row in sorted(rows, key=key):
        strata[(row["library"], first_cause(row))].append(row)
    draw = random.Random(seed)
    for members in strata.values():
        draw.shuffle(members)
    order = sorted(strata, key=lambda s: (-len(strata[s]), s))
    chosen: list[dict[str, Any]] = []
    while len(chosen) < size and any(strata.values()):
        for stratum in order:
            if strata[stratum] and len(chosen) < size:
                chosen.append(strata[stratum].pop())
    return chosen


# -- one mode ----------------------------------------------------------------------------------


def rewrite(mode: str, rows: list[dict[str, Any]], work: str, results: str, timeout: int) -> dict[str, Any]:
    """A fresh copy of the packages rewritten by one ``gbfix apply`` over every file the models run."""
    packages = sorted({path.split("/")[0] for row in rows for path in row.get("files", [])})
    root = os.path.join(work, f"copy-{mode}")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    copy = realworld.PackageCopy(root, tuple(packages))
    files = sorted({path for row in rows for path in row.get("files", [])})
    args = ["apply", "--dry-run", *files]
    if mode == "trace":
        # one log per model: without --all-logs a trace directory gives its newest log only
        args[2:2] = ["--trace", trace_dir(rows, work), "--all-logs"]
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "rewriter", *args],
        cwd=root,
        env=dict(os.environ, PYTHONPATH=REPO),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    info: dict[str, Any] = {
        "mode": mode,
        "files": len(files),
        "gbfix_s": round(time.perf_counter() - started, 1),
        "exit": proc.returncode,
        "summary": realworld._summary_line(proc.stderr),
        "internal_errors": [line for line in proc.stderr.splitlines() if "internal error" in line],
        "refused": [line for line in proc.stderr.splitlines() if "not idempotent" in line or "does not parse" in line],
        "root": root,
    }
    if proc.returncode not in (0, 1):
        info["error"] = f"gbfix exited {proc.returncode}: {realworld._tail(proc.stderr)}"
        return info
    patch_path = os.path.join(results, "zoo-diffs", f"{mode}.patch")
    os.makedirs(os.path.dirname(patch_path), exist_ok=True)
    with open(patch_path, "w", encoding="utf-8") as handle:
        handle.write(proc.stdout)
    info["patch_sha"] = hashlib.sha1(proc.stdout.encode()).hexdigest()[:12]
    info["patch"] = proc.stdout
    info["changed_files"] = realworld.changed_files(proc.stdout)
    copy.apply(proc.stdout)
    return info


def per_file(patch: str) -> dict[str, str]:
    """A unified diff split by the file it changes (paths as the models' ``files`` name them)."""
    chunks: dict[str, list[str]] = {}
    current: Optional[list[str]] = None
    for line in patch.splitlines(keepends=True):
        if line.startswith("diff --git a/"):
            current = chunks.setdefault(line[len("diff --git a/") :].split(" b/", 1)[0], [])
        if current is not None:
            current.append(line)
    return {path: "".join(lines) for path, lines in chunks.items()}


def same_rewrite(
    rows: list[dict[str, Any]],
    patches: dict[str, str],
    earlier: Optional[tuple[dict[str, str], dict[str, dict[str, Any]]]],
) -> dict[str, dict[str, Any]]:
    """The earlier mode's measurement of each model whose every file is rewritten (or left) alike in
    both modes: it runs the same code, so measuring it again would only repeat the figures."""
    if earlier is None:
        return {}
    before, measured = earlier
    return {
        key(row): measured[key(row)]
        for row in rows
        if key(row) in measured and all(before.get(path) == patches.get(path) for path in row.get("files", []))
    }


def trace_dir(rows: list[dict[str, Any]], work: str, into: str = "") -> str:
    """A directory (``into``, else one in ``work``) holding the recorded compile of each model (links
    to the discovery's logs): a reader of a discovery still running leaves its directory alone."""
    directory = into or os.path.join(work, "traces-selected")
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    for row in rows:
        name = zoo_discover.safe_name(key(row)) + ".log"
        source = os.path.join(work, "traces", name)
        if os.path.exists(source):
            os.link(source, os.path.join(directory, name))
    return directory


def measure(
    mode: str, rows: list[dict[str, Any]], info: dict[str, Any], work: str, jobs: int, timeout: int
) -> list[dict[str, Any]]:
    """Each model against the rewritten copy; rows measured earlier with the same patch are kept.

    The file is named by the patch alone: a trace-mode patch identical to the
    static one rewrites the same copy, so its models are not measured twice.
    """
    out = os.path.join(work, f"measure-{info['patch_sha']}.jsonl")
    command = [sys.executable, os.path.join(HERE, "zoo_discover.py"), "measure", "--package-root", info["root"]]
    command += ["--work", work, "--out", out, "--jobs", str(jobs), "--timeout", str(timeout)]
    command += ["--libraries", *sorted({row["library"] for row in rows})]
    command += ["--models", *(key(row) for row in rows)]
    subprocess.run(command, env=dict(os.environ, PYTHONPATH=os.environ.get("PYTHONPATH", "")), check=False)
    return load(out)


def scan(mode: str, rows: list[dict[str, Any]], work: str, timeout: int, into: str = "") -> list[dict[str, Any]]:
    """``gbfix scan`` of the installed files the models run (with their recorded compiles in trace mode,
    linked into ``into`` when given)."""
    by_root: dict[str, list[str]] = defaultdict(list)
    for path in sorted({path for row in rows for path in row.get("files", [])}):
        by_root[os.path.dirname(realworld.installed_dir(path.split("/")[0]))].append(path)
    findings = []
    for root, files in by_root.items():
        args = ["scan", "--format", "json", "--exit-zero", "-q", *files]
        if mode == "trace":
            args[5:5] = ["--trace", trace_dir(rows, work, into), "--all-logs"]
        proc = subprocess.run(
            [sys.executable, "-m", "rewriter", *args],
            cwd=root,
            env=dict(os.environ, PYTHONPATH=REPO),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"gbfix scan exited {proc.returncode}: {realworld._tail(proc.stderr)}")
        keep = ("path", "line", "code", "fix", "message", "note")
        findings += [{k: f.get(k) for k in keep} for f in json.loads(proc.stdout)["findings"]]
    return findings


# -- the document ---------------------------------------------------------------------------------


#: what ``model_run.Counts.failures`` counts, kept per side (None in rows measured before it did)
FAILURE_FIELDS = (
    "recompiles",
    "recompiled_frames",
    "recompile_limit_hits",
    "uninitialized_cells",
    "reconstruction_failures",
)


def merged(rows: list[dict[str, Any]], after: dict[str, dict[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """One line per model: the before figures and each mode's after figures."""
    lines = []
    for row in rows:
        line: dict[str, Any] = {
            "library": row["library"],
            "model": row["model"],
            "skipped_before": row.get("skipped"),
            "ops_before": row.get("ops"),
            "coverage_before": row.get("coverage"),
            "frames_before": [row.get("frames_ok"), row.get("frames_total")],
            "skipped_frames_before": row.get("skipped_whole", []) + row.get("skipped_partial", []),
            "skipped_whole_before": row.get("skipped_whole", []),
            "skipped_partial_before": row.get("skipped_partial", []),
            "skip_causes_before": row.get("skip_causes", []),
            **{f"{name}_before": row.get(name) for name in FAILURE_FIELDS},
            "files": row.get("files", []),
        }
        for mode, measured in after.items():
            side = measured.get(key(row), {"process_error": "not measured"})
            crash = side.get("crash") or side.get("process_error")
            differs = side.get("compiled_vs_reference") or side.get("eager_vs_reference")
            line.update(
                {
                    f"skipped_after_{mode}": side.get("skipped"),
                    f"skipped_helpers_{mode}": side.get("skipped_helpers"),
                    f"ops_after_{mode}": side.get("ops"),
                    f"coverage_after_{mode}": side.get("coverage"),
                    f"frames_after_{mode}": [side.get("frames_ok"), side.get("frames_total")],
                    f"skipped_frames_after_{mode}": side.get("skipped_whole", []) + side.get("skipped_partial", []),
                    f"skip_causes_after_{mode}": side.get("skip_causes", []),
                    **{f"{name}_after_{mode}": side.get(name) for name in FAILURE_FIELDS},
                    f"equal_{mode}": None if crash else not differs,
                    f"difference_{mode}": differs,
                    f"crash_{mode}": crash,
                }
            )
        lines.append(line)
    return lines


def command_of(argv: list[str]) -> str:
    """The command line of a run, without the options that name this machine's directories."""
    words, skip = ["python benchmarks/zoo_gbfix.py"], False
    for word in argv:
        if skip:
            skip = False
        elif word in ("--work", "--discovery", "--results", "--out"):
            skip = True
        else:
            words.append(word)
    return " ".join(words)


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--discovery", default=zoo_discover.DEFAULT_OUT)
    parser.add_argument("--work", default=zoo_discover.DEFAULT_WORK, help="the discovery's references and traces")
    parser.add_argument("--mode", choices=("static", "trace", "both"), default="both")
    parser.add_argument("--sample", type=int, default=0, help="a stratified sample of this many skipping models")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--libraries", nargs="+", default=None, help="only models of these libraries")
    parser.add_argument("--models", nargs="+", default=None, metavar="LIB:NAME", help="only these models")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=int, default=300, help="seconds per model")
    parser.add_argument("--gbfix-timeout", type=int, default=3600, help="seconds for one gbfix apply")
    parser.add_argument("--no-scan", action="store_true", help="leave out the scan that precision is counted from")
    parser.add_argument("--results", default=RESULTS)
    parser.add_argument("--out", default="", help="default: RESULTS/zoo.jsonl (zoo-sample.jsonl with --sample)")
    return parser.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    started = time.perf_counter()
    rows = installed(skipping(load(args.discovery), args.work))
    if args.libraries:
        rows = [row for row in rows if row["library"] in args.libraries]
    if args.models:
        rows = [row for row in rows if key(row) in args.models]
    if args.sample:
        rows = sample(rows, args.sample, args.seed)
    rows.sort(key=key)
    print(f"{len(rows)} models with a skipped frame", file=sys.stderr, flush=True)
    modes = MODES if args.mode == "both" else (args.mode,)
    after: dict[str, dict[str, dict[str, Any]]] = {}
    runs = []
    found: dict[str, list[dict[str, Any]]] = {}
    earlier: Optional[tuple[dict[str, str], dict[str, dict[str, Any]]]] = None
    for mode in modes:
        info = rewrite(mode, rows, args.work, args.results, args.gbfix_timeout)
        print(f"{mode}: gbfix {info['gbfix_s']}s over {info['files']} files: {info['summary']}", file=sys.stderr)
        measured_started = time.perf_counter()
        patches = per_file(info.get("patch", ""))
        same = same_rewrite(rows, patches, earlier)
        if same:
            print(f"{mode}: {len(same)} models run no file this mode rewrites otherwise", file=sys.stderr)
        todo = [row for row in rows if key(row) not in same]
        measured = [] if "error" in info or not todo else measure(mode, todo, info, args.work, args.jobs, args.timeout)
        info["measure_s"] = round(time.perf_counter() - measured_started, 1)
        info["measured"], info["reused"] = len(todo), len(same)
        after[mode] = {**same, **{key(row): row for row in measured}}
        if "error" not in info:
            earlier = (patches, after[mode])
        runs.append({k: v for k, v in info.items() if k not in ("root", "patch")})
        if not args.no_scan:
            found[mode] = scan(mode, rows, args.work, args.gbfix_timeout)
    out = args.out or os.path.join(args.results, "zoo-sample.jsonl" if args.sample else "zoo.jsonl")
    with open(out, "w", encoding="utf-8") as handle:
        for line in merged(rows, after):
            handle.write(json.dumps(line, default=str) + "\n")
    if found:
        with open(out.replace(".jsonl", "-findings.json"), "w", encoding="utf-8") as handle:
            json.dump(found, handle)
    meta = {
        "command": command_of(argv if argv is not None else sys.argv[1:]),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "versions": zoo_discover.versions(),
        "gbfix": realworld.gbfix_version(REPO),
        "models": len(rows),
        "runs": runs,
        "wall_s": round(time.perf_counter() - started, 1),
    }
    with open(out.replace(".jsonl", "-meta.json"), "w", encoding="utf-8") as handle:
        json.dump(meta, handle, indent=1)
    print(f"done in {meta['wall_s'] / 60:.1f} min: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
