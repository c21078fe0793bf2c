"""Inductor on CUDA for the zoo's models that skip: after/before steady-state time per model, under ten minutes.

    python benchmarks/zoo_cuda.py OUT.json                      # every measured model of results/zoo.jsonl
    python benchmarks/zoo_cuda.py OUT.json --mode trace --budget 480 --max-models 40

For each model of ``results/zoo.jsonl`` (the models with a skipped frame,
best ops gain first), in a fresh process of its own:

1. build it from the installed package at the medium size (hidden 256,
   sequence 128, image 64), compile it with inductor on CUDA, call it twice;
2. import the package copy that ``results/zoo-diffs/<mode>.patch`` rewrites
   (made once, here, from the installed package) and do the same;
3. time both compiled models' calls interleaved (a b, b a, ...) in that
   process, so the ratio is taken under one load, and compare the outputs.

A table goes to standard output and every figure to ``OUT.json``. Models are
started while the ``--budget`` (seconds) lasts, each with a timeout of what
is left, so the whole run ends within it. The exit status is 1 when an
after side is slower than its before side by more than ``--slower`` or
their outputs differ.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

RESULTS = os.path.join(HERE, "results")


def one_model(
    key: str,
    root: str,
    calls: int,
    min_time: float,
    device: str = "cuda",
    backend: str = "inductor",
    size: str = "medium",
) -> dict[str, Any]:
    """Before and after of one model in this process: compile times, interleaved medians, output check."""
    import model_run
    import torch
    import zoo_build

    zoo_build.set_size(size)
    library, _, name = key.partition(":")
    entry = zoo_build.Entry(library, name)
    sides = {}
    for label, package_root in (("before", None), ("after", root)):
        model_run.use_package_root(package_root, zoo_build.LIBRARIES)
        model_run.seed_everything(0)
        built = zoo_build.build(entry, device)
        compiled = torch.compile(built.fn, backend=backend)
        call = model_run.call_of(compiled, built, 0)
        started = time.perf_counter()
        call()
        model_run.synchronize(device)
        compile_s = time.perf_counter() - started
        output = call()
        sides[label] = {"call": call, "compile_s": compile_s, "output": model_run.flatten_output(output)}
    medians = model_run.interleaved_medians({k: v["call"] for k, v in sides.items()}, calls, device, min_time)
    difference = model_run.compare_outputs(sides["before"]["output"], sides["after"]["output"], exact=False)
    return {
        "model": key,
        "before_compile_s": sides["before"]["compile_s"],
        "after_compile_s": sides["after"]["compile_s"],
        "before_ms": 1000 * medians["before"],
        "after_ms": 1000 * medians["after"],
        "after_over_before": medians["after"] / medians["before"],
        "difference": difference,
    }


def make_copy(patch: str, packages: list[str], directory: str) -> str:
    """A copy of the installed packages with the zoo's patch applied."""
    import realworld

    copy = realworld.PackageCopy(directory, tuple(packages))
    with open(patch, encoding="utf-8") as handle:
        copy.apply(handle.read())
    return directory


def chosen(measured: str, mode: str, max_models: int) -> list[dict[str, Any]]:
    """Measured models whose rewrite changed something, the largest ops gain first."""
    import zoo_gbfix

    rows = [
        r
        for r in zoo_gbfix.load(measured)
        if r.get(f"equal_{mode}") and not r.get(f"crash_{mode}") and r.get(f"ops_after_{mode}") != r.get("ops_before")
    ]
    rows.sort(key=lambda r: -((r.get(f"ops_after_{mode}") or 0) - (r.get("ops_before") or 0)))
    return rows[:max_models] if max_models else rows


def run_all(args: argparse.Namespace) -> dict[str, Any]:
    started = time.monotonic()
    rows = chosen(args.measured, args.mode, args.max_models)
    packages = sorted({path.split("/")[0] for row in rows for path in row.get("files", [])})
    results = []
    with tempfile.TemporaryDirectory(prefix="gbfix-zoo-cuda-") as scratch:
        root = make_copy(
            os.path.join(os.path.dirname(args.measured), "zoo-diffs", f"{args.mode}.patch"), packages, scratch
        )
        for row in rows:
            left = args.budget - (time.monotonic() - started)
            if left < 20:
                results.append({"model": f"{row['library']}:{row['model']}", "error": "not run: out of time"})
                continue
            results.append(child(f"{row['library']}:{row['model']}", root, args, left))
            print(line(results[-1]), flush=True)
        shutil.rmtree(root, ignore_errors=True)
    return {"mode": args.mode, "wall_s": time.monotonic() - started, "models": results}


def child(key: str, root: str, args: argparse.Namespace, left: float) -> dict[str, Any]:
    """``one_model`` in a fresh process (fresh Dynamo and CUDA state), killed when the budget runs out."""
    command = [sys.executable, os.path.abspath(__file__), "--one", key, "--root", root, "--calls", str(args.calls)]
    command += ["--min-time", str(args.min_time), "--device", args.device, "--backend", args.backend]
    command += ["--size", args.size, "-"]
    env = dict(os.environ, HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=min(left, args.timeout), env=env)
    except subprocess.TimeoutExpired:
        return {"model": key, "error": f"timed out after {min(left, args.timeout):.0f}s"}
    if proc.returncode != 0:
        rows = [r for r in proc.stderr.strip().splitlines() if r.strip()]
        return {"model": key, "error": (rows[-1] if rows else f"exit {proc.returncode}")[:300]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def line(result: dict[str, Any]) -> str:
    if "error" in result:
        return f"{result['model']:60s} error: {result['error']}"
    return (
        f"{result['model']:60s} before {result['before_ms']:8.2f} ms  after {result['after_ms']:8.2f} ms  "
        f"after/before {result['after_over_before']:.3f}  {'outputs differ' if result['difference'] else ''}"
    )


def parse_args(argv: Optional[list[str]] = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="where the JSON goes ('-' with --one: standard output)")
    parser.add_argument("--measured", default=os.path.join(RESULTS, "zoo.jsonl"))
    parser.add_argument("--mode", choices=("static", "trace"), default="trace")
    parser.add_argument("--budget", type=float, default=540, help="seconds for the whole run")
    parser.add_argument("--timeout", type=float, default=150, help="seconds per model at most")
    parser.add_argument("--max-models", type=int, default=0)
    parser.add_argument("--calls", type=int, default=20)
    parser.add_argument("--min-time", type=float, default=0.5)
    parser.add_argument("--slower", type=float, default=1.05, help="after/before above this counts as slower")
    parser.add_argument("--device", default="cuda", help="cpu with --backend eager checks the plumbing only")
    parser.add_argument("--backend", default="inductor")
    parser.add_argument("--size", choices=("tiny", "medium"), default="medium")
    parser.add_argument("--one", default="", help=argparse.SUPPRESS)
    parser.add_argument("--root", default="", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: Optional[list[str]] = None) -> int:
    args = parse_args(argv)
    if args.one:
        result = one_model(args.one, args.root, args.calls, args.min_time, args.device, args.backend, args.size)
        print(json.dumps(result, default=str))
        return 0
    document = run_all(args)
    with open(args.out, "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1, default=str)
    done = [r for r in document["models"] if "error" not in r]
    bad = [r for r in done if r["after_over_before"] > args.slower or r["difference"]]
    print(f"{len(done)} models timed in {document['wall_s']:.0f}s; slower or different: {len(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
