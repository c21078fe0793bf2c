"""What gbfix buys on real models: before vs after ``gbfix apply``, one table.

    python benchmarks/realworld.py                         # every default model, static and trace modes
    python benchmarks/realworld.py --models mixtral llava --mode static
    python benchmarks/realworld.py --backend aot_eager --calls 9
    python benchmarks/realworld.py --medium                # medium sizes, inductor, timings only
    python benchmarks/realworld.py --smoke                 # one small model, before and after (CI)
    python benchmarks/realworld.py --advise                # after sides under the setting gbfix advise proves

For each model of the zoo (``zoo.py``), each step in its own fresh process
(``model_run.py``):

1. *discover*: run the unmodified package eagerly once to save the reference
   output and list the package files the forward pass executes; with the
   trace mode, also compile it once under ``TORCH_TRACE`` to record its breaks;
2. *before*: measure the installed package;
3. per mode, *after*: run ``gbfix apply --dry-run`` on those files in a copy of
   the package (with ``--trace DIR`` in trace mode), keep the patch under
   ``results/diffs/<model>-<mode>.patch``, apply it to the copy, and measure
   with the copy first on ``sys.path``; the same process then imports the
   unmodified package too and times both sides, interleaved.

Timings are medians of ``--calls`` calls. Before/after and compiled/eager
ratios come from calls interleaved in one process (a b c d, b c d a, ...),
because single runs on a busy machine swing by a third. torch runs on one
CPU thread by default (``--threads``) for the same reason.

With ``--advise``, each rewritten copy also goes through ``gbfix advise``
(``advise_zoo.py``'s entry for the model, run with the copy first on the
path). The after side is then measured with the best recommended setting
applied to its compiled calls only; the report goes to
``results/realworld-advised.md`` and compares coverage with ``realworld.json``.

The report (``realworld_report.py``) goes to ``results/realworld.md`` and
``.json``; ``--medium`` writes ``results/realworld-medium.*`` and both are
rendered into the markdown. The exit status is 1 when any output differs
from the unmodified eager run or any step crashed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from importlib.util import find_spec
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import realworld_report  # noqa: E402
import zoo  # noqa: E402

MODES = ("static", "trace")
MEDIUM_MODELS = ("llama", "mixtral", "qwen2_vl", "mimi", "bert")
SMOKE_MODEL = "smolvlm"


@dataclass(frozen=True)
class Settings:
    """What one benchmark run does, from the command line."""

    models: tuple[str, ...]
    modes: tuple[str, ...]
    backend: str
    size: str
    calls: int
    device: str
    threads: int
    gbfix_root: str
    results: str
    timeout: int
    timings_only: bool = False
    min_time: float = 0.0
    #: time both package copies in one process (off for the smoke test: it checks, it does not time)
    pair: bool = True
    #: options ``gbfix apply`` gets besides ``--dry-run`` (``--ignore GBF010``, ``--unsafe-fixes``)
    apply_options: tuple[str, ...] = ()
    #: measure each rewritten package under the Dynamo settings ``gbfix advise`` recommends for it
    advise: bool = False


# -- subprocesses -------------------------------------------------------------------------


def model_env(cache_dir: Optional[str] = None, trace_dir: Optional[str] = None) -> dict[str, str]:
    """Environment of a model process: offline hub, its own compiler caches, optional TORCH_TRACE.

    Each process gets empty inductor/triton cache directories, so the first
    call's compile time is a cold compile on both sides (kernels compiled by
    an earlier process would otherwise be reused by the next one).
    """
    env = dict(os.environ)
    env.update(
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        TORCHINDUCTOR_FX_GRAPH_CACHE="0",
        TORCHINDUCTOR_AUTOGRAD_CACHE="0",
    )
    if cache_dir:
        env.update(
            TORCHINDUCTOR_CACHE_DIR=os.path.join(cache_dir, "inductor"),
            TRITON_CACHE_DIR=os.path.join(cache_dir, "triton"),
        )
    env.pop("TORCH_TRACE", None)
    if trace_dir:
        env["TORCH_TRACE"] = trace_dir
    return env


def run_model_task(
    task: str, model: str, settings: Settings, scratch: str, *extra: str, trace_dir: Optional[str] = None
) -> dict[str, Any]:
    """Run one ``model_run.py`` task in a fresh process; its JSON, or ``{"error": ...}``."""
    stem = os.path.join(scratch, f"{model}-{task}-{time.monotonic_ns()}")
    out = stem + ".json"
    command = [
        sys.executable,
        os.path.join(HERE, "model_run.py"),
        task,
        "--model",
        model,
        "--size",
        settings.size,
        "--backend",
        settings.backend,
        "--device",
        settings.device,
        "--calls",
        str(settings.calls),
        "--min-time",
        str(settings.min_time),
        "--threads",
        str(settings.threads),
        "--out",
        out,
        *extra,
    ]
    try:
        proc = subprocess.run(
            command, env=model_env(stem + "-cache", trace_dir), capture_output=True, text=True, timeout=settings.timeout
        )
    except subprocess.TimeoutExpired:
        return {"error": f"{task} timed out after {settings.timeout}s"}
    if proc.returncode != 0 or not os.path.exists(out):
        return {"error": f"{task} exited {proc.returncode}: {_tail(proc.stderr)}"}
    with open(out, encoding="utf-8") as handle:
        return json.load(handle)


def _tail(text: str, lines: int = 3) -> str:
    """The exception line of a traceback when there is one, else the last few lines."""
    rows = [line.strip() for line in text.strip().splitlines() if line.strip()]
    errors = [row for row in rows if re.match(r"^[\w.]+(Error|Exception|Unsupported)\b.*:", row)]
    return errors[-1][:400] if errors else " | ".join(rows[-lines:])[:400]


def gbfix(settings: Settings, cwd: str, *args: str) -> subprocess.CompletedProcess:
    """``python -m rewriter ARGS`` from ``--gbfix-root``, run in ``cwd`` (the package copy)."""
    env = dict(os.environ, PYTHONPATH=settings.gbfix_root)
    return subprocess.run(
        [sys.executable, "-m", "rewriter", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=settings.timeout,
    )


def gbfix_version(root: str) -> str:
    """The gbfix checkout's commit (short), or its package version when it is not a git checkout."""
    proc = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    if proc.returncode == 0:
        return proc.stdout.strip()
    init = os.path.join(root, "rewriter", "__init__.py")
    text = open(init, encoding="utf-8").read() if os.path.exists(init) else ""
    return next((line.split("=")[1].strip(" \"'") for line in text.splitlines() if "__version__" in line), "?")


# -- the package copy ---------------------------------------------------------------------


class PackageCopy:
    """One copy of each installed package under ``root``; files a rewrite touched are restored before the next.

    Copying a whole package once per run (not per model) keeps the run short;
    restoring from the installed files keeps every model's "after" a rewrite
    of the pristine package.
    """

    def __init__(self, root: str, packages: tuple[str, ...]) -> None:
        self.root = root
        self.sources: dict[str, str] = {}
        self.touched: set[str] = set()
        for name in packages:
            source = installed_dir(name)
            self.sources[name] = source
            shutil.copytree(source, os.path.join(root, name), ignore=shutil.ignore_patterns("__pycache__"))

    def restore(self) -> None:
        """Put back every file a patch changed."""
        for relative in sorted(self.touched):
            package = relative.split("/")[0]
            original = os.path.join(os.path.dirname(self.sources[package]), relative)
            shutil.copy2(original, os.path.join(self.root, relative))
        self.touched.clear()

    def apply(self, patch: str) -> None:
        """Apply a ``-p1`` patch to the copy (the one gbfix printed), remembering the files it changes."""
        if not patch.strip():
            return
        self.touched.update(changed_files(patch))
        proc = subprocess.run(
            ["patch", "-p1", "-s", "--no-backup-if-mismatch"],
            input=patch,
            cwd=self.root,
            capture_output=True,
            text=True,
        )
        if proc.returncode != 0:
            raise RuntimeError(f"patch did not apply: {_tail(proc.stdout + proc.stderr)}")


def installed_dir(package: str) -> str:
    """Directory of an installed top-level package, found without importing it."""
    spec = find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError(f"package {package} is not installed (pip install -e '.[bench]')")
    return os.path.abspath(list(spec.submodule_search_locations)[0])


def compiled_options(spec: zoo.ModelSpec) -> list[str]:
    """``--compiled NAME`` for what the model's build compiles besides modules' ``forward``."""
    return [option for name in spec.compiled for option in ("--compiled", name)]


def changed_files(patch: str) -> list[str]:
    """Paths (relative to the copy root) named by ``+++ b/`` headers."""
    return [line[6:].strip() for line in patch.splitlines() if line.startswith("+++ b/")]


# -- one model --------------------------------------------------------------------------------


def run_model(spec: zoo.ModelSpec, settings: Settings, copy: PackageCopy, scratch: str) -> dict[str, Any]:
    """Discover, before, and each mode's after for one model; every figure in one dict."""
    started = time.perf_counter()
    reference = os.path.join(scratch, f"{spec.name}-reference.pt")
    trace_dir = os.path.join(scratch, f"{spec.name}-trace") if "trace" in settings.modes else None
    result: dict[str, Any] = {"name": spec.name, "family": spec.family, "note": spec.note}
    discovered = run_model_task("discover", spec.name, settings, scratch, "--reference", reference, trace_dir=trace_dir)
    result["files"] = discovered.get("files", [])
    if "error" in discovered:
        return {**result, "error": discovered["error"], "wall_s": time.perf_counter() - started}
    only = ["--timings-only"] if settings.timings_only else []
    result["before"] = run_model_task("measure", spec.name, settings, scratch, "--reference", reference, *only)
    result["after"] = {}
    for mode in settings.modes:
        result["after"][mode] = run_after(
            spec, mode, settings, copy, scratch, reference, trace_dir, result["files"], result["after"]
        )
    for side in result["after"].values():
        side.pop("patch_text", None)  # kept only to spot identical patches; the patch file holds it
    result["wall_s"] = time.perf_counter() - started
    return result


def run_after(
    spec: zoo.ModelSpec,
    mode: str,
    settings: Settings,
    copy: PackageCopy,
    scratch: str,
    reference: str,
    trace_dir: Optional[str],
    files: list[str],
    earlier: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """Rewrite the copy for one mode, keep the patch, measure the rewritten package against the installed one.

    When an earlier mode printed the very same patch, the package under test
    is the same, so its figures are reused (``same_as`` says from which mode)
    instead of measuring identical code twice.
    """
    copy.restore()
    args = ["apply", "--dry-run", *settings.apply_options, *compiled_options(spec), *files]
    if mode == "trace":
        args[2:2] = ["--trace", trace_dir or ""]
    started = time.perf_counter()
    try:
        proc = gbfix(settings, copy.root, *args)
    except subprocess.TimeoutExpired:
        return {"error": f"gbfix timed out after {settings.timeout}s"}
    gbfix_s = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        return {"error": f"gbfix exited {proc.returncode}: {_tail(proc.stderr)}", "gbfix_s": gbfix_s}
    patch_path = save_patch(settings.results, spec.name, mode, proc.stdout)
    # scan decides as apply does; fix safety is apply's own choice
    left = withheld(settings, copy.root, ["scan", "--format", "json", *(a for a in args[2:] if a != "--unsafe-fixes")])
    same = next(
        (name for name, done in earlier.items() if done.get("patch_text") == proc.stdout and "error" not in done), None
    )
    if same:
        reused = {k: v for k, v in earlier[same].items() if k not in ("patch", "gbfix_s", "same_as")}
        return {**reused, "same_as": same, "patch": patch_path, "gbfix_s": gbfix_s, "withheld": left}
    try:
        copy.apply(proc.stdout)
    except RuntimeError as exc:
        return {"error": str(exc), "gbfix_s": gbfix_s, "patch": patch_path}
    extra = ["--reference", reference, "--package-root", copy.root]
    advised = advise(spec, settings, copy.root) if settings.advise else {}
    if advised.get("config"):
        extra += ["--dynamo-config", json.dumps(advised["config"])]
    if settings.pair:
        extra.append("--pair-with-before")
    if settings.timings_only:
        extra.append("--timings-only")
    measured = run_model_task("measure", spec.name, settings, scratch, *extra)
    return {
        **measured,
        "gbfix_s": gbfix_s,
        "patch": patch_path,
        "changed_files": changed_files(proc.stdout),
        "gbfix_summary": _summary_line(proc.stderr),
        "withheld": left,
        "patch_text": proc.stdout,
        **({"advised": advised} if settings.advise else {}),
    }


#: the rules whose findings on a loop say, when they have no fix, why the loop is left as written
LOOP_RULES = ("GBF001", "GBF002")


def withheld(settings: Settings, cwd: str, scan_args: list[str]) -> list[str]:
    """The loops gbfix leaves as written, each ``path:line: CODE note`` (the note says why: a frame
    per trip that costs more than it captures, nothing to capture, host work, ...); [] when the scan fails."""
    try:
        proc = gbfix(settings, cwd, *scan_args)
        findings = json.loads(proc.stdout)["findings"] if proc.returncode in (0, 1) else []
    except (subprocess.TimeoutExpired, ValueError, KeyError):
        return []
    return [
        f"{f['path']}:{f['line']}: {f['code']} {f['note']}"
        for f in findings
        if f.get("code") in LOOP_RULES and f.get("fix") == "none" and f.get("note")
    ]


def advise(spec: zoo.ModelSpec, settings: Settings, package_root: str) -> dict[str, Any]:
    """``gbfix advise`` on the rewritten package copy: its best recommendation, or why there is none.

    The entry is ``advise_zoo:NAME`` (the model at the tiny size on its
    inputs), run with the copy first on the path, so the settings are proven
    on the very code the after side measures. The result holds the winning
    candidate's name and config (``{}`` when none was recommended) and the
    advisor's own figures for the baseline and each candidate it ran.
    """
    env = model_env()
    env["PYTHONPATH"] = os.pathsep.join([package_root, HERE, settings.gbfix_root])
    command = [sys.executable, "-m", "rewriter", "advise", "--entry", f"advise_zoo:{spec.name}"]
    command += ["--inputs", "advise_zoo:no_inputs", "--device", settings.device, "--backend", settings.backend]
    command += ["--json", "--timeout", str(settings.timeout)]
    started = time.perf_counter()
    try:
        proc = subprocess.run(command, cwd=HERE, env=env, capture_output=True, text=True, timeout=4 * settings.timeout)
    except subprocess.TimeoutExpired:
        return {"error": f"gbfix advise timed out after {4 * settings.timeout}s"}
    if proc.returncode != 0:
        return {"error": f"gbfix advise exited {proc.returncode}: {_tail(proc.stderr)}"}
    return advised_of(json.loads(proc.stdout), time.perf_counter() - started)


def advised_of(advice: dict[str, Any], seconds: float = 0.0) -> dict[str, Any]:
    """The first recommended candidate of ``gbfix advise --json`` output, with the runs that chose it."""
    runs = [advice["baseline"], *advice["candidates"]]
    best = next((run for run in advice["candidates"] if advice["recommended"][:1] == [run["candidate"]]), None)
    return {
        "candidate": best["candidate"] if best else None,
        "config": best["config"] if best else {},
        "runs": [
            {k: run.get(k) for k in ("candidate", "skipped", "error", "graph_breaks", "coverage", "outputs_equal")}
            for run in runs
        ],
        "seconds": round(seconds, 1),
    }


def save_patch(results: str, model: str, mode: str, patch: str) -> str:
    """Write the dry-run patch beside the results; the path relative to the results directory."""
    relative = os.path.join("diffs", f"{model}-{mode}.patch")
    path = os.path.join(results, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(patch)
    return relative


def _summary_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if line.startswith("gbfix:")]
    return lines[-1] if lines else ""


# -- the run ----------------------------------------------------------------------------------


def versions() -> dict[str, str]:
    """Versions of the libraries the models come from, read from package metadata (no imports)."""
    from importlib import metadata

    found = {}
    for name in ("torch", "transformers", "diffusers"):
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def run(settings: Settings) -> dict[str, Any]:
    """Every model of the run in turn; the results document."""
    specs = [zoo.get(name) for name in settings.models]
    packages = tuple(sorted({p for spec in specs for p in spec.packages}))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="gbfix-realworld-") as scratch:
        copy = PackageCopy(os.path.join(scratch, "copy"), packages)
        models = []
        for spec in specs:
            print(f"[{len(models) + 1}/{len(specs)}] {spec.name} ...", file=sys.stderr, flush=True)
            models.append(run_model(spec, settings, copy, scratch))
            print(f"    {realworld_report.one_line(models[-1])}", file=sys.stderr, flush=True)
    return {"meta": meta(settings, time.perf_counter() - started), "models": models}


def command_of(settings: Settings) -> str:
    """The command line that runs ``settings`` (the options that differ from the default run)."""
    medium = settings.size == "medium"
    words = ["python benchmarks/realworld.py"]
    if medium:
        words.append("--medium")
    elif settings.backend != "eager":
        words.append(f"--backend {settings.backend}")
    if settings.advise:
        words.append("--advise")
    if tuple(settings.modes) != (("static",) if medium else MODES):
        words.append(f"--mode {settings.modes[0] if len(settings.modes) == 1 else 'both'}")
    if tuple(settings.models) != tuple(MEDIUM_MODELS if medium else zoo.default_names()):
        words.append("--models " + " ".join(settings.models))
    if os.path.abspath(settings.results) != os.path.join(HERE, "results"):
        words.append(f"--results {os.path.relpath(settings.results, REPO)}")
    return " ".join(words)


def meta(settings: Settings, wall_s: float) -> dict[str, Any]:
    return {
        "command": command_of(settings),
        "date": time.strftime("%Y-%m-%d %H:%M %Z"),
        "versions": {**versions(), "python": platform.python_version()},
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform(), "processor": platform.machine()},
        "gbfix": gbfix_version(settings.gbfix_root),
        "settings": {
            "backend": settings.backend,
            "size": settings.size,
            "calls": settings.calls,
            "min_time": settings.min_time,
            "device": settings.device,
            "threads": settings.threads,
            "modes": list(settings.modes),
            "apply_options": list(settings.apply_options),
            "advise": settings.advise,
        },
        "wall_s": wall_s,
    }


def failures(document: dict[str, Any]) -> list[str]:
    """Models whose outputs differ or whose steps crashed."""
    bad = []
    for model in document["models"]:
        sides = [("before", model.get("before"))] + list(model.get("after", {}).items())
        for label, side in sides:
            if side is None:
                continue
            for key in ("error", "compiled_vs_reference", "eager_vs_reference"):
                if side.get(key):
                    bad.append(f"{model['name']} {label}: {side[key]}")
        if model.get("error"):
            bad.append(f"{model['name']}: {model['error']}")
    return bad


# -- smoke test -------------------------------------------------------------------------------------


def smoke(gbfix_root: str = REPO, model: str = SMOKE_MODEL) -> int:
    """One small real model before and after a static rewrite, plus the coverage toy; 0 when all is well.

    Meant for CI (under a minute on two cores): a crash, an output that
    differs, or a coverage counter that no longer gives 0/16 and 13/16 on the
    toy loop makes it non-zero.
    """
    toy = subprocess.run(
        [sys.executable, os.path.join(HERE, "model_run.py"), "self-check"],
        capture_output=True,
        text=True,
        env=model_env(),
    )
    expected = {
        "as_written": {"ops_inside": 0, "ops_outside": 16},
        "body_per_iteration": {"ops_inside": 13, "ops_outside": 3},
    }
    problems = (
        []
        if toy.returncode == 0 and json.loads(toy.stdout.splitlines()[-1]) == expected
        else [f"coverage self-check: {toy.stdout.strip()[-300:]} {_tail(toy.stderr)}"]
    )
    with tempfile.TemporaryDirectory(prefix="gbfix-smoke-") as results:
        settings = Settings(
            models=(model,),
            modes=("static",),
            backend="eager",
            size="tiny",
            calls=3,
            device="cpu",
            threads=1,
            gbfix_root=gbfix_root,
            results=results,
            timeout=300,
            pair=False,
        )
        document = run(settings)
        problems += failures(document)
        print(realworld_report.one_line(document["models"][0]))
    for problem in problems:
        print(f"smoke: {problem}", file=sys.stderr)
    return 1 if problems else 0


# -- command line -------------------------------------------------------------------------------------


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", metavar="NAME", help=f"default: {' '.join(zoo.default_names())}")
    parser.add_argument("--mode", choices=("static", "trace", "both"), default="both")
    parser.add_argument(
        "--backend",
        choices=("eager", "aot_eager", "inductor"),
        default=None,
        help="default: eager (inductor with --medium)",
    )
    parser.add_argument(
        "--calls", type=int, default=None, help="timed calls per side (median); default 15, 11 with --medium"
    )
    parser.add_argument(
        "--min-time",
        type=float,
        default=0.0,
        help="seconds each timed callable runs at least (more rounds than --calls for "
        "millisecond calls; use 1 or more on a busy machine)",
    )
    parser.add_argument(
        "--medium",
        action="store_true",
        help=f"medium sizes (hidden 256, sequence 128), inductor, timings only; default models: "
        f"{' '.join(MEDIUM_MODELS)}",
    )
    parser.add_argument("--device", default="cpu", help="cpu, cuda or auto (cuda when available)")
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (0: torch's default)")
    parser.add_argument("--gbfix-root", default=REPO, help="directory holding the gbfix code (rewriter/)")
    parser.add_argument("--results", default=os.path.join(HERE, "results"), help="where the report goes")
    parser.add_argument("--timeout", type=int, default=900, help="seconds per step")
    parser.add_argument(
        "--ignore", metavar="CODES", help="rules gbfix apply leaves out (GBF010: structural rules only)"
    )
    parser.add_argument("--unsafe-fixes", action="store_true", help="gbfix apply makes unsafe fixes too")
    parser.add_argument(
        "--advise",
        action="store_true",
        help="run gbfix advise on each rewritten package and measure it under the settings it recommends "
        "(tiny size only)",
    )
    parser.add_argument("--smoke", action="store_true", help="one small model, static mode; for CI")
    parser.add_argument("--list", action="store_true", help="print the zoo and exit")
    return parser.parse_args(argv)


def settings_from(args: argparse.Namespace) -> Settings:
    medium = args.medium
    return Settings(
        models=tuple(args.models or (MEDIUM_MODELS if medium else zoo.default_names())),
        modes=(("static",) if medium else MODES) if args.mode == "both" else (args.mode,),
        backend=args.backend or ("inductor" if medium else "eager"),
        size="medium" if medium else "tiny",
        calls=args.calls or (11 if medium else 15),
        device=args.device,
        threads=args.threads,
        gbfix_root=os.path.abspath(args.gbfix_root),
        results=os.path.abspath(args.results),
        timeout=args.timeout,
        timings_only=medium,
        min_time=args.min_time,
        apply_options=(
            *(("--ignore", args.ignore) if args.ignore else ()),
            *(("--unsafe-fixes",) if args.unsafe_fixes else ()),
        ),
        advise=args.advise,
    )


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    if args.list:
        for spec in zoo.ZOO:
            print(f"{spec.name:16s} {spec.family:10s} {'default' if spec.default else 'extra':8s} {spec.note}")
        return 0
    if args.smoke:
        return smoke(os.path.abspath(args.gbfix_root))
    if args.advise and args.medium:
        print("--advise measures the tiny size only (gbfix advise builds the models at the tiny size)", file=sys.stderr)
        return 2
    settings = settings_from(args)
    unknown = [name for name in settings.models if name not in zoo.names()]
    if unknown:
        print(f"unknown models: {' '.join(unknown)}; known: {' '.join(zoo.names())}", file=sys.stderr)
        return 2
    os.makedirs(settings.results, exist_ok=True)
    document = run(settings)
    name = "realworld-medium" if args.medium else "realworld-advised" if args.advise else "realworld"
    realworld_report.write(document, settings.results, name)
    bad = failures(document)
    for problem in bad:
        print(f"problem: {problem}", file=sys.stderr)
    print(f"done in {document['meta']['wall_s'] / 60:.1f} min; report in {settings.results}", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
