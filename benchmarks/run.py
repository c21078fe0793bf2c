"""Measure gbfix on a pinned real corpus, and check its correctness at scale.

    python benchmarks/run.py                       # the timing table (transformers)
    python benchmarks/run.py --repeat 3            # medians of three runs each
    python benchmarks/run.py --check-correctness   # transformers + timm + torchvision

The corpus is fetched from the package index with ``pip download --no-deps``
(wheels are zip files of the sources) into a cache directory and unzipped
once; a pinned version the index does not have is replaced by the nearest
one it has, and the table says which was used.

Timings, all in one run on the same files and the same number of workers:

* the floor: ``ast.parse`` of every file, in one process;
* ``gbfix scan`` (when this checkout has it) and ``gbfix apply --dry-run``,
  each with an empty result cache (cold);
* ``gbfix scan`` again over the unchanged tree, its cache filled (warm), and
  after one file of the tree changed (a comment line added before each run);
* libcst's own codemod runner with its no-op codemod on a fixed subset (every
  60th file), for the cost per file of a tool that parses everything.

Peak memory is the largest resident size of any one process
(``getrusage`` of the children) and the largest sum over the process tree
(sampled). Other work on the machine makes timings noisy: use ``--repeat``
and read the medians.

``--check-correctness`` runs gbfix the way a user would over each corpus in
a scratch git repository: no crashes; the patch applies with ``git apply
--check``; every changed file compiles; a second run changes nothing; and
the findings per rule, with the first few of each to read by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zipfile
from dataclasses import dataclass, field
from typing import Callable, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PINS = {"transformers": "5.24.0", "timm": "1.0.31", "torchvision": "0.28.0"}
TIMED = "transformers"
LIBCST_STEP = 60
TARGET_FLOOR_RATIO = 2.0
#: a warm scan over the unchanged tree, and after one file changed, against the floor
TARGET_WARM_RATIO = 0.2
TARGET_TOUCHED_RATIO = 0.3
#: ``apply --dry-run`` against a cold ``scan``
TARGET_APPLY_RATIO = 2.0
#: the file changed before each "one file changed" run (restored afterwards)
TOUCHED = os.path.join("transformers", "models", "bert", "modeling_bert.py")
TARGET_MEMORY_MB = 500

_SUMMARY = re.compile(
    r"gbfix: (?P<scanned>\d+) files scanned \((?P<out>\d+) screened out, (?P<parsed>\d+) parsed\)"
    r".*?(?P<errors>\d+) errors? in (?P<seconds>[\d.]+)s"
)


# -- the corpus -----------------------------------------------------------------------


def _version_key(version: str) -> tuple:
    return tuple(int(p) if p.isdigit() else -1 for p in re.split(r"[.+-]", version))


def _pip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True, text=True)


def _nearest_version(name: str, pinned: str) -> Optional[str]:
    listing = _pip("index", "versions", name)
    match = re.search(r"Available versions: (.*)", listing.stdout)
    if not match:
        return None
    versions = [v.strip() for v in match.group(1).split(",") if v.strip()]
    below = [v for v in versions if _version_key(v) <= _version_key(pinned)]
    pool = below or versions
    return max(pool, key=_version_key) if below else min(pool, key=_version_key)


def fetch(name: str, pinned: str, cache: str) -> tuple[str, str]:
    """The unzipped package directory and the version used."""
    wheels = os.path.join(cache, "wheels")
    os.makedirs(wheels, exist_ok=True)
    version = pinned
    wheel = _find_wheel(wheels, name, version)
    if wheel is None:
        result = _pip("download", "--no-deps", "--quiet", f"{name}=={version}", "-d", wheels)
        if result.returncode != 0:
            nearest = _nearest_version(name, pinned)
            if nearest is None:
                sys.exit(f"cannot download {name}=={pinned} and the index lists no other version:\n{result.stderr}")
            print(f"note: {name}=={pinned} is not available; using the nearest version, {nearest}", file=sys.stderr)
            version = nearest
            result = _pip("download", "--no-deps", "--quiet", f"{name}=={version}", "-d", wheels)
            if result.returncode != 0:
                sys.exit(f"cannot download {name}=={version}:\n{result.stderr}")
        wheel = _find_wheel(wheels, name, version)
        if wheel is None:
            sys.exit(f"pip downloaded no wheel for {name}=={version}")
    target = os.path.join(cache, "src", f"{name}-{version}")
    if not os.path.isdir(os.path.join(target, name)):
        with zipfile.ZipFile(wheel) as archive:
            members = [m for m in archive.namelist() if m.startswith(f"{name}/") and m.endswith(".py")]
            archive.extractall(target, members)
    return os.path.join(target, name), version


def _find_wheel(directory: str, name: str, version: str) -> Optional[str]:
    prefix = f"{name}-{version}-"
    for entry in sorted(os.listdir(directory)):
        if entry.startswith(prefix) and entry.endswith(".whl"):
            return os.path.join(directory, entry)
    return None


def python_files(root: str) -> list[str]:
    found = []
    for directory, dirs, files in os.walk(root):
        dirs.sort()
        found.extend(os.path.join(directory, f) for f in sorted(files) if f.endswith(".py"))
    return found


# -- running and measuring ------------------------------------------------------------


@dataclass
class Run:
    seconds: float
    returncode: int
    stderr: str
    #: the largest resident size of any one process, MB
    peak_process_mb: float
    #: the largest sum of resident sizes over the process tree, MB (sampled)
    peak_tree_mb: float
    #: CPU seconds of the command and its workers (steadier than wall time on a busy machine)
    cpu: float = 0.0


def _tree_rss_mb(root: int) -> float:
    """Resident size of ``root`` and its descendants, from /proc (0 where /proc is missing)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0.0
    page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parents[int(entry)] = int(fields[1])
        rss[int(entry)] = int(fields[21]) * page
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(child for child, parent in parents.items() if parent == pid)
    return total / 2**20


def run(cmd: list[str], cwd: str, stdout_path: Optional[str] = None) -> Run:
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    with tempfile.TemporaryFile("w+") as err, open(stdout_path or os.devnull, "w") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, env=env)
        peak_tree = [0.0]
        stop = threading.Event()

        def sample() -> None:
            while not stop.wait(0.2):
                peak_tree[0] = max(peak_tree[0], _tree_rss_mb(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - start
        stop.set()
        sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        stderr = err.read()
    # ru_maxrss is in KB on Linux: the largest process among the command and its workers
    return Run(
        seconds,
        proc.returncode,
        stderr,
        usage.ru_maxrss / 1024,
        max(peak_tree[0], usage.ru_maxrss / 1024),
        usage.ru_utime + usage.ru_stime,
    )


def gbfix(*args: str) -> list[str]:
    return [sys.executable, "-m", "rewriter", *args]


def has_scan() -> bool:
    return (
        subprocess.run(
            gbfix("scan", "--help"), capture_output=True, cwd=ROOT, env=dict(os.environ, PYTHONPATH=ROOT)
        ).returncode
        == 0
    )


# -- the timing table -------------------------------------------------------------------


@dataclass
class Row:
    name: str
    files: int
    runs: list[Run] = field(default_factory=list)
    parsed: Optional[int] = None
    screened_out: Optional[int] = None
    note: str = ""
    #: the most this row may take, as a multiple of the floor (or of ``versus``'s time)
    target: float = TARGET_FLOOR_RATIO
    versus: Optional["Row"] = None
    #: answered from the result cache: no per-parsed-file comparison with libcst
    warm: bool = False
    #: run before each timed run (a cache emptied, a file changed)
    prepare: Optional[Callable[[], None]] = None

    @property
    def seconds(self) -> float:
        return statistics.median(r.seconds for r in self.runs)

    @property
    def cpu(self) -> float:
        return statistics.median(r.cpu for r in self.runs)

    @property
    def memory(self) -> float:
        return max(r.peak_tree_mb for r in self.runs)

    @property
    def process_memory(self) -> float:
        return max(r.peak_process_mb for r in self.runs)


def _summary(row: Row, result: Run) -> None:
    match = _SUMMARY.search(result.stderr)
    if match:
        row.parsed = int(match.group("parsed"))
        row.screened_out = int(match.group("out"))
    if result.returncode not in (0, 1):
        errors = int(match.group("errors")) if match else "?"
        row.note = f"exit {result.returncode}: {errors} files not processed"


def timing(args: argparse.Namespace) -> int:
    root, version = fetch(TIMED, PINS[TIMED], args.cache)
    parent = os.path.dirname(root)
    files = python_files(root)
    relative = [os.path.relpath(f, parent) for f in files]
    subset = relative[::LIBCST_STEP]
    jobs = str(args.jobs)
    size = sum(os.path.getsize(f) for f in files) / 2**20
    print(f"corpus: {TIMED} {version} ({len(files)} files, {size:.0f} MiB) in {parent}")
    print(f"machine: {os.cpu_count()} CPUs, -j {jobs}; {args.repeat} run(s) each, medians shown\n")

    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as listing:
        listing.write("\n".join(relative))
    floor_code = (
        "import ast, sys\n"
        "for path in open(sys.argv[1]).read().split('\\n'):\n"
        "    with open(path, 'rb') as handle:\n"
        "        ast.parse(handle.read(), path)\n"
    )
    rows = [Row("ast.parse, every file (floor, 1 process)", len(files))]
    commands = [[sys.executable, "-c", floor_code, listing.name]]
    caches = tempfile.mkdtemp(prefix="gbfix-bench-cache-")
    touched = os.path.join(parent, TOUCHED)
    with open(touched, "rb") as source:
        original = source.read()
    edits = [0]

    def emptied(name: str) -> tuple[Callable[[], None], list[str]]:
        """A cache directory emptied before each run, and the flag naming it."""
        directory = os.path.join(caches, name)
        return (lambda: shutil.rmtree(directory, ignore_errors=True)), ["--cache-dir", directory]

    def touch() -> None:
        edits[0] += 1
        with open(touched, "wb") as changed:
            changed.write(original + f"# changed before run {edits[0]}\n".encode())

    warm = ["--cache-dir", os.path.join(caches, "warm")]
    scan = has_scan()
    cold: Optional[Row] = None
    if scan:
        empty, where = emptied("cold")
        cold = Row(f"gbfix scan -j {jobs} (cold)", len(files), prepare=empty)
        rows.append(cold)
        commands.append(gbfix("scan", TIMED, "-j", jobs, "--exit-zero", *where))
        rows.append(Row(f"gbfix scan -j {jobs} (warm, same tree)", len(files), target=TARGET_WARM_RATIO, warm=True))
        commands.append(gbfix("scan", TIMED, "-j", jobs, "--exit-zero", *warm))
        rows.append(
            Row(
                f"gbfix scan -j {jobs} (warm, one file changed)",
                len(files),
                target=TARGET_TOUCHED_RATIO,
                warm=True,
                prepare=touch,
            )
        )
        commands.append(gbfix("scan", TIMED, "-j", jobs, "--exit-zero", *warm))
        # the warm cache holds the tree as the first timed warm run finds it
        run(gbfix("scan", TIMED, "-j", jobs, "--exit-zero", *warm), parent)
    else:
        print("note: this checkout has no `gbfix scan` yet; skipped\n")
    empty, where = emptied("apply")
    rows.append(
        Row(
            f"gbfix apply --dry-run -j {jobs} (cold)",
            len(files),
            target=TARGET_APPLY_RATIO if cold else TARGET_FLOOR_RATIO,
            versus=cold,
            prepare=empty,
        )
    )
    commands.append(gbfix("apply", TIMED, "--dry-run", "-j", jobs, *where))
    rows.append(Row(f"libcst codemod noop -j {jobs} (every {LIBCST_STEP}th file)", len(subset)))
    commands.append(
        [
            # the command comes first: the runner reads it before its own options
            sys.executable,
            "-m",
            "libcst.tool",
            "codemod",
            "noop.NOOPCommand",
            "-j",
            jobs,
            "--no-format",
            "--hide-progress",
            "--include-generated",
            *subset,
        ]
    )
    try:
        for repeat in range(args.repeat):
            for row, command in zip(rows, commands, strict=False):
                if row.prepare is not None:
                    row.prepare()
                result = run(command, parent)
                row.runs.append(result)
                if command[1] == "-m" and command[2] == "rewriter":
                    _summary(row, result)
                elif result.returncode != 0:
                    row.note = f"exit {result.returncode}: {result.stderr.strip().splitlines()[-1:]}"
                print(f"  run {repeat + 1}: {row.name}: {result.seconds:.1f}s", file=sys.stderr)
    finally:
        os.unlink(listing.name)
        with open(touched, "wb") as restored:
            restored.write(original)
        shutil.rmtree(caches, ignore_errors=True)
    return _table(rows, len(files))


def _table(rows: list[Row], total: int) -> int:
    floor = rows[0].seconds
    libcst = rows[-1]
    libcst_per_file = libcst.seconds / max(1, libcst.files)
    header = (
        f"{'':52} {'seconds':>8} {'x floor':>8} {'cpu s':>7} {'parsed':>7} {'ms/parsed':>10} "
        f"{'x libcst':>9} {'peak MB':>8}"
    )
    print(header)
    verdicts = []
    for row in rows:
        ratio = row.seconds / floor
        parsed = libcst.files if row is libcst else row.parsed
        per_parsed = row.seconds / parsed if parsed else None
        versus = per_parsed / libcst_per_file if per_parsed is not None else None
        cells = [
            f"{row.name:52}",
            f"{row.seconds:8.1f}",
            f"{ratio:8.2f}",
            f"{row.cpu:7.1f}",
            f"{parsed if parsed is not None else '':>7}",
            f"{per_parsed * 1000:10.0f}" if per_parsed is not None else f"{'':>10}",
            f"{versus:9.2f}" if versus is not None else f"{'':>9}",
            f"{row.memory:8.0f}",
        ]
        print(" ".join(cells) + (f"   {row.note}" if row.note else ""))
        if row.name.startswith("gbfix"):
            verdicts.append((row, ratio, versus))
    print()
    ok = True
    for row, ratio, versus in verdicts:
        if row.versus is not None:
            against = row.seconds / row.versus.seconds
            checks = [(against <= row.target, f"{against:.2f}x {row.versus.name} (target <= {row.target:g}x)")]
        else:
            checks = [(ratio <= row.target, f"{ratio:.2f}x the floor (target <= {row.target:g}x)")]
        if not row.warm:
            checks.append(
                (
                    versus is not None and versus <= 1.0,
                    f"{versus:.2f}x libcst's no-op runner per parsed file (target <= 1x)"
                    if versus is not None
                    else "no parsed-file count",
                )
            )
        checks += [
            (
                row.memory <= TARGET_MEMORY_MB,
                f"peak {row.memory:.0f} MB over all processes, "
                f"{row.process_memory:.0f} MB in one (target <= {TARGET_MEMORY_MB} MB)",
            ),
        ]
        screened = f"{row.screened_out} of {total} files screened out; " if row.screened_out is not None else ""
        print(f"{row.name}: {screened}" + "; ".join(("met " if good else "MISSED ") + text for good, text in checks))
        ok = ok and all(good for good, _ in checks)
    return 0 if ok else 1


# -- correctness at scale ----------------------------------------------------------------


def correctness(args: argparse.Namespace) -> int:
    failures = 0
    for name, pinned in PINS.items():
        if args.only and name not in args.only:
            continue
        root, version = fetch(name, pinned, args.cache)
        print(f"\n== {name} {version}")
        failures += _check_corpus(name, root, args)
    print("\ncorrectness:", "all checks passed" if not failures else f"{failures} check(s) failed")
    return 1 if failures else 0


def _check_corpus(name: str, root: str, args: argparse.Namespace) -> int:
    failures = 0
    work = tempfile.mkdtemp(prefix=f"gbfix-{name}-")
    scratch = os.path.join(work, "repo")
    try:
        shutil.copytree(root, os.path.join(scratch, name))
        git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@localhost"]
        subprocess.run(["git", "init", "-q"], cwd=scratch, check=True)
        subprocess.run([*git, "add", "-A"], cwd=scratch, check=True)
        subprocess.run([*git, "commit", "-q", "-m", "corpus"], cwd=scratch, check=True)
        patch = os.path.join(work, f"{name}.patch")
        first = run(gbfix("apply", name, "--dry-run", "-j", str(args.jobs)), scratch, patch)
        crashes = [line for line in first.stderr.splitlines() if "internal error" in line]
        refused = [line for line in first.stderr.splitlines() if "does not parse" in line or "not idempotent" in line]
        errors = [line for line in first.stderr.splitlines() if ": error:" in line]
        print(
            f"first run: {first.seconds:.1f}s, exit {first.returncode}; "
            f"{len(errors)} file errors ({len(crashes)} crashes, {len(refused)} rewrites refused by the self-check)"
        )
        for line in (crashes + refused)[: args.show]:
            print("   ", line)
        failures += _report(not crashes, "0 crashes")
        with open(patch, encoding="utf-8") as handle:
            text = handle.read()
        changed = sorted(set(re.findall(r"^\+\+\+ b/(.+)$", text, flags=re.M)))
        print(f"patch: {len(changed)} files, {text.count(chr(10))} lines")
        check = subprocess.run(["git", "apply", "--check", patch], cwd=scratch, capture_output=True, text=True)
        failures += _report(check.returncode == 0, "the patch applies (git apply --check)", check.stderr)
        subprocess.run(["git", "apply", patch], cwd=scratch, capture_output=True)
        broken = []
        for path in changed:
            try:
                with open(os.path.join(scratch, path), "rb") as handle:
                    compile(handle.read(), path, "exec", dont_inherit=True)
            except (SyntaxError, ValueError) as exc:
                broken.append(f"{path}: {exc}")
        failures += _report(not broken, f"every changed file compiles ({len(changed)})", "\n".join(broken[:5]))
        second = run(gbfix("apply", name, "--dry-run", "-j", str(args.jobs)), scratch, patch + ".again")
        with open(patch + ".again", encoding="utf-8") as handle:
            again = handle.read()
        print(f"second run (on the patched tree): {second.seconds:.1f}s, exit {second.returncode}")
        failures += _report(
            not again,
            "a second run changes nothing",
            "\n".join(sorted(set(re.findall(r"^\+\+\+ b/(.+)$", again, flags=re.M)))[:5]),
        )
        subprocess.run(["git", "checkout", "-q", "."], cwd=scratch)
        if has_scan():
            _findings(name, scratch, os.path.join(work, f"{name}.json"), args)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return failures


def _report(good: bool, what: str, detail: str = "") -> int:
    print(("  ok    " if good else "  FAIL  ") + what)
    if not good and detail:
        print("        " + detail.strip().replace("\n", "\n        "))
    return 0 if good else 1


def _findings(name: str, scratch: str, out: str, args: argparse.Namespace) -> None:
    run(gbfix("scan", name, "--format", "json", "--exit-zero", "-j", str(args.jobs), "-o", out), scratch)
    try:
        with open(out, encoding="utf-8") as handle:
            findings = json.load(handle).get("findings", [])
    except (OSError, ValueError):
        print("  (no findings report)")
        return
    by_rule: dict[str, list[dict]] = {}
    for finding in findings:
        by_rule.setdefault(str(finding.get("code")), []).append(finding)
    print("findings per rule: " + ", ".join(f"{code} {len(items)}" for code, items in sorted(by_rule.items())))
    for code, items in sorted(by_rule.items()):
        for finding in items[: args.show]:
            where = f"{finding.get('path')}:{finding.get('line')}"
            print(f"    {code} [{finding.get('fix')}] {where}: {finding.get('message')}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--cache",
        default=os.environ.get("GBFIX_BENCH_CACHE", os.path.expanduser("~/.cache/gbfix-bench")),
        help="where wheels and sources are kept (default ~/.cache/gbfix-bench)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        help="workers for gbfix and libcst (default: every CPU)",
    )
    parser.add_argument("--repeat", type=int, default=1, help="runs of each timing; the table shows medians")
    parser.add_argument(
        "--check-correctness",
        action="store_true",
        help="check correctness over transformers, timm and torchvision instead of timing",
    )
    parser.add_argument("--show", type=int, default=3, help="findings (and errors) shown per rule")
    parser.add_argument(
        "--only", action="append", choices=sorted(PINS), help="with --check-correctness: only this corpus (repeatable)"
    )
    args = parser.parse_args()
    if args.check_correctness:
        return correctness(args)
    return timing(args)


if __name__ == "__main__":
    sys.exit(main())
