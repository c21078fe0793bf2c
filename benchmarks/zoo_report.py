"""The whole-zoo report: ``results/zoo.md`` from the discovery and the gbfix measurements.

    python benchmarks/zoo_report.py                                  # results/zoo.jsonl -> results/zoo.md
    python benchmarks/zoo_report.py --measured results/zoo-sample.jsonl --out results/zoo-sample.md

Sections: counts per library; the aggregate before -> after per mode; the
models whose skipped frames holding inline tensor ops are all gone; the most
frequent skip causes with the statement at each and a label; the precision
of gbfix's findings and rewritten functions against the frames the models
really skip; findings without a fix in skipped frames; outputs that differ and
crashes, by model.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections import Counter, defaultdict
from functools import lru_cache
from typing import Any, Iterable, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import precision  # noqa: E402
import realworld  # noqa: E402
import zoo_gbfix  # noqa: E402

RESULTS = os.path.join(HERE, "results")
MODES = ("static", "trace")
ERRORS = ("build_error", "eager_error", "process_error")
_INLINE = re.compile(r"its (\d+) inline tensor ops?")

#: break types a ``torch._dynamo.config`` setting lets Dynamo trace (the settings ``gbfix advise`` proves)
SETTING_FIXES = {
    "Unsupported Tensor.item() call with capture_scalar_outputs=False": "capture_scalar_outputs",
    "Dynamic shape operator": "capture_dynamic_output_shape_ops",
    "Dynamic shape operator (no meta kernel)": "capture_dynamic_output_shape_ops",
    "Logger not supported for non-export cases": "ignore_logger_methods",
    "Attempted to call function marked as skipped": "",
}
#: statements whose break a setting removes, when the log names only the loop around them
STATEMENT_SETTINGS = (
    (r"\.(item|tolist)\(\)", "capture_scalar_outputs"),
    (r"\b(nonzero|unique|masked_select|repeat_interleave)\(", "capture_dynamic_output_shape_ops"),
    (r"\b(logger\.\w+|warnings\.warn|print)\(", "reorderable_logging_functions"),
)
#: break types that a value held in a tensor decides: no rewrite of the source removes them
DATA_DEPENDENT = (
    "Data-dependent branching",
    "Data dependent operator",
    "data dependent",
    "Could not guard on data-dependent",
    "Unsupported Tensor.item()",
    "Tensor.tolist()",
)


def load_jsonl(path: str) -> list[dict[str, Any]]:
    return zoo_gbfix.load(path)


# -- counts ---------------------------------------------------------------------------------------


def status(row: dict[str, Any]) -> str:
    """What became of one discovered model."""
    if row.get("timed_out"):
        return "timed out"
    for name in ERRORS:
        if row.get(name):
            return name.replace("_", " ")
    if row.get("compile_error"):
        return "compile error"
    return "skips" if row.get("skipped") else "compiles without a skip"


def counts_table(discovery: list[dict[str, Any]], enumerated: dict[str, int]) -> list[str]:
    libraries = sorted({row["library"] for row in discovery} | set(enumerated))
    columns = ["enumerated", "run", "built", "ran eagerly", "compiled", "with a skip"]
    lines = ["| library | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    totals = Counter()
    for library in [*libraries, "all"]:
        rows = [r for r in discovery if library in (r["library"], "all")]
        figures = {
            "enumerated": enumerated.get(library, 0) if library != "all" else sum(enumerated.values()),
            "run": len(rows),
            "built": sum(bool(r.get("built")) for r in rows),
            "ran eagerly": sum(bool(r.get("built")) and not r.get("eager_error") for r in rows),
            "compiled": sum("frames_total" in r and not r.get("compile_error") for r in rows),
            "with a skip": sum(bool(r.get("skipped")) for r in rows),
        }
        totals.update(figures)
        lines.append(f"| {library} | " + " | ".join(str(figures[c]) for c in columns) + " |")
    return lines


def failures_table(discovery: list[dict[str, Any]], top: int = 15) -> list[str]:
    """The most frequent reasons a model did not build or run: what the input builder should learn next."""
    reasons = Counter()
    for row in discovery:
        state = status(row)
        if state in ("skips", "compiles without a skip"):
            continue
        text = next((row[k] for k in (*ERRORS, "compile_error") if row.get(k)), state)
        reasons[(state, re.sub(r"\d+", "N", text.split(":")[0] + ": " + text.split(":", 1)[-1])[:110])] += 1
    lines = ["| models | step | error |", "|---|---|---|"]
    lines += [f"| {n} | {state} | `{_cell(text)}` |" for (state, text), n in reasons.most_common(top)]
    return lines


# -- before -> after --------------------------------------------------------------------------------


def aggregate(rows: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    """Sums over the models measured in ``mode`` without a crash."""
    ok = [r for r in rows if not r.get(f"crash_{mode}") and r.get(f"ops_after_{mode}") is not None]
    before_cov = [r["coverage_before"] for r in ok if r.get("coverage_before") is not None]
    after_cov = [r[f"coverage_after_{mode}"] for r in ok if r.get(f"coverage_after_{mode}") is not None]
    return {
        "models": len(ok),
        "skipped_before": sum(r["skipped_before"] for r in ok),
        "skipped_after": sum(r[f"skipped_after_{mode}"] for r in ok),
        "helpers": sum(r.get(f"skipped_helpers_{mode}") or 0 for r in ok),
        "ops_before": sum(r["ops_before"] or 0 for r in ok),
        "ops_after": sum(r[f"ops_after_{mode}"] or 0 for r in ok),
        "coverage_before": sum(before_cov) / len(before_cov) if before_cov else None,
        "coverage_after": sum(after_cov) / len(after_cov) if after_cov else None,
        "gained_coverage": sum((r[f"coverage_after_{mode}"] or 0) > (r["coverage_before"] or 0) + 1e-9 for r in ok),
        "lost_coverage": sum((r[f"coverage_after_{mode}"] or 0) < (r["coverage_before"] or 0) - 1e-9 for r in ok),
        "fewer_skips": sum(r[f"skipped_after_{mode}"] < r["skipped_before"] for r in ok),
        "equal": sum(r.get(f"equal_{mode}") is True for r in ok),
        "crashes": sum(bool(r.get(f"crash_{mode}")) for r in rows),
    }


def aggregate_table(rows: list[dict[str, Any]], modes: Iterable[str]) -> list[str]:
    lines = [
        "| mode | models | skipped frames (gbfix helpers) | ops in graphs | mean coverage | fewer skips "
        "| gained / lost coverage | outputs equal | crashes |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for mode in modes:
        a = aggregate(rows, mode)
        ops_gain = f" ({100 * (a['ops_after'] / a['ops_before'] - 1):+.1f}%)" if a["ops_before"] else ""
        lines.append(
            f"| {mode} | {a['models']} | {a['skipped_before']} → {a['skipped_after']} ({a['helpers']}) "
            f"| {a['ops_before']} → {a['ops_after']}{ops_gain} "
            f"| {_pct(a['coverage_before'])} → {_pct(a['coverage_after'])} | {a['fewer_skips']} "
            f"| {a['gained_coverage']} / {a['lost_coverage']} | {a['equal']}/{a['models']} | {a['crashes']} |"
        )
    return lines


def _pct(value: Optional[float]) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


# -- skipped frames that hold inline tensor ops ---------------------------------------------------


_FRAME = re.compile(r"^(?P<name>\S+) \((?P<path>.+):(?P<line>\d+)\)$")


def frame_names(entries: Iterable[str]) -> set[tuple[str, str]]:
    """(file, function name) of skipped-frame entries; gbfix helpers and resume functions left out."""
    found = set()
    for entry in entries:
        match = _FRAME.match(entry)
        if match and not match["name"].startswith((realworld_helper(), "torch_dynamo_resume_in_")):
            found.add((match["path"], match["name"]))
    return found


def realworld_helper() -> str:
    return "_gbfix_"


def inline_frames(findings: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """(file, function) of every frame a finding says holds inline tensor ops."""
    found = set()
    for finding in findings:
        match = _INLINE.search(finding.get("message") or "")
        name = re.search(r"skip `([^`]+)`", finding.get("message") or "")
        if match and name and int(match[1]) > 0:
            found.add((finding["path"], name[1]))
    return found


def inline_gone(rows: list[dict[str, Any]], findings: list[dict[str, Any]], mode: str) -> tuple[int, int]:
    """Models with a skipped frame holding inline tensor ops; of those, the ones where all such frames compile."""
    holding = inline_frames(findings)
    having = gone = 0
    for row in rows:
        if row.get(f"crash_{mode}") or row.get(f"skipped_after_{mode}") is None:
            continue
        before = frame_names(row["skipped_frames_before"]) & holding
        if not before:
            continue
        having += 1
        gone += not (before & frame_names(row[f"skipped_frames_after_{mode}"]))
    return having, gone


# -- causes ------------------------------------------------------------------------------------------


_CAUSE = re.compile(r"^(?P<frame>\S+) \[(?P<kind>\w+)\]: (?P<type>.+) @ (?P<where>.+)$")


def causes(entries: Iterable[str]) -> Counter:
    """(break type, site) of each skip cause entry."""
    found: Counter = Counter()
    for entry in entries:
        match = _CAUSE.match(entry)
        if match:
            found[(match["type"], match["where"])] += 1
    return found


@lru_cache(maxsize=None)
def statement(where: str) -> str:
    """The source line at ``path:line`` in the installed package."""
    path, _, line = where.rpartition(":")
    try:
        root = os.path.dirname(realworld.installed_dir(path.split("/")[0]))
        with open(os.path.join(root, path), encoding="utf-8") as handle:
            lines = handle.read().splitlines()
        return lines[int(line) - 1].strip()[:100]
    except (OSError, ValueError, IndexError, RuntimeError):
        return ""


def costs_nothing(row: dict[str, Any], frame_name: str, where: str) -> bool:
    """Whether the frame a skip cause names is written in the break's file and holds no tensor op
    (gbfix's own count): skipping it loses nothing, its callees still compile."""
    path, _, line = where.rpartition(":")
    if not line.isdigit():
        return False
    firsts = [
        int(match["line"])
        for entry in row.get("skipped_frames_before", [])
        for match in [_FRAME.match(entry)]
        if match and match["name"] == frame_name and match["path"] == path and int(match["line"]) <= int(line)
    ]
    if not firsts:
        return False
    ops = precision.inline_ops(os.path.join(precision.package_root(path), path))
    return ops.get(max(firsts)) == 0


def label(gb_type: str, where: str, findings: list[dict[str, Any]], fixed_somewhere: bool) -> str:
    """What would remove a cause: a rule did, a proven setting would, a new rule would, or nothing (data)."""
    if fixed_somewhere:
        return "fixed by a rule"
    if gb_type in SETTING_FIXES and SETTING_FIXES[gb_type]:
        return f"fixable by a proven setting ({SETTING_FIXES[gb_type]})"
    if any(word.lower() in gb_type.lower() for word in DATA_DEPENDENT):
        return "data-dependent by nature"
    # a break in a loop is logged under the loop's type; the statement at the site says what broke
    text = statement(where) if where else ""
    for pattern, setting in STATEMENT_SETTINGS:
        if re.search(pattern, text):
            return f"fixable by a proven setting ({setting})"
    if re.match(r"(if|elif|while|assert)\b", text):
        return "data-dependent by nature"
    return "needs a new rule"


def cause_table(rows: list[dict[str, Any]], modes: Iterable[str], top: int = 25) -> list[str]:
    """The most frequent skip causes left after the rewrite (trace mode when measured), with before counts."""
    modes = list(modes)
    last = modes[-1] if modes else None
    before: Counter = Counter()
    after: dict[str, Counter] = {mode: Counter() for mode in modes}
    for row in rows:
        before.update(causes(row.get("skip_causes_before", [])))
        for mode in modes:
            after[mode].update(causes(row.get(f"skip_causes_after_{mode}", [])))
    ranking = after[last] if last else before
    harmless: Counter = Counter()
    for row in rows:
        for entry in row.get("skip_causes_before", []):
            match = _CAUSE.match(entry)
            if match and costs_nothing(row, match["frame"], match["where"]):
                harmless[(match["type"], match["where"])] += 1
    header = "| # | break | site | statement | before | " + " | ".join(f"after {m}" for m in modes) + " | label |"
    lines = [header, "|---" * (5 + len(modes) + 1) + "|"]
    for i, ((gb_type, where), _) in enumerate(ranking.most_common(top), 1):
        fixed = any(after[m][(gb_type, where)] < before[(gb_type, where)] for m in modes)
        counts = " | ".join(str(after[m][(gb_type, where)]) for m in modes)
        if harmless[(gb_type, where)] and harmless[(gb_type, where)] == before[(gb_type, where)] and not fixed:
            verdict = "nothing lost: no tensor op written in the skipped frame"
        else:
            verdict = label(gb_type, where, [], fixed)
        lines.append(
            f"| {i} | {_cell(gb_type)} | `{where}` | `{_cell(statement(where))}` | {before[(gb_type, where)]} "
            f"| {counts} | {verdict} |"
        )
    by_type: Counter = Counter()
    for (gb_type, _), n in ranking.items():
        by_type[gb_type] += n
    lines += ["", "By break type (all sites):", "", "| break | causes | label |", "|---|---|---|"]
    for gb_type, n in by_type.most_common(15):
        lines.append(f"| {_cell(gb_type)} | {n} | {label(gb_type, '', [], False)} |")
    return lines


# -- precision -------------------------------------------------------------------------------------------


def union_side(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Every model's skipped frames and break sites as one run (a frame some model skips counts)."""
    side: dict[str, Any] = {"skipped_whole": [], "skipped_partial": [], "break_sites": []}
    for row in rows:
        side["skipped_whole"] += row.get("skipped_whole_before", [])
        side["skipped_partial"] += row.get("skipped_partial_before", [])
        for entry in row.get("skip_causes_before", []):
            match = _CAUSE.match(entry)
            if match:
                side["break_sites"].append(f"{match['type']} @ {match['where']}")
    return side


def rewritten_frames(patch: str) -> list[tuple[str, int]]:
    """(file, first line of the old-side hunk) of each hunk: where each rewrite starts in the original file."""
    found = []
    path = ""
    for line in patch.splitlines():
        if line.startswith("--- a/"):
            path = line[6:].strip()
        match = re.match(r"^@@ -(\d+)(?:,(\d+))? ", line)
        if match and path:
            found.append((path, int(match[1]) + 3))  # the patch has three lines of context
    return found


def precision_table(rows: list[dict[str, Any]], findings: dict[str, list[dict[str, Any]]], results: str) -> list[str]:
    side = union_side(rows)
    files = sorted({path for row in rows for path in row.get("files", [])})
    lines = [
        "| mode | findings | in a skipped or breaking frame | precision | with a fix | of those, true "
        "| rewritten hunks | in a skipped frame |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for mode, found in findings.items():
        by_root = defaultdict(list)
        for path in files:
            by_root[os.path.dirname(realworld.installed_dir(path.split("/")[0]))].append(path)
        totals = Counter()
        hunks_total = hunks_true = 0
        patch_path = os.path.join(results, "zoo-diffs", f"{mode}.patch")
        patch = open(patch_path, encoding="utf-8").read() if os.path.exists(patch_path) else ""
        hunks = rewritten_frames(patch)
        for root, part in by_root.items():
            here = set(part)
            score = precision.score([f for f in found if f["path"] in here], side, root, part)
            for k in ("findings", "true_findings", "fixes", "true_fixes"):
                totals[k] += score[k]
            shown = precision.skipped_frames(side, root, here)
            for path, line in hunks:
                if path in here:
                    hunks_total += 1
                    hunks_true += precision.frame_at(root, path, line) in shown
        lines.append(
            f"| {mode} | {totals['findings']} | {totals['true_findings']} "
            f"| {_ratio(totals['true_findings'], totals['findings'])} | {totals['fixes']} | {totals['true_fixes']} "
            f"({_ratio(totals['true_fixes'], totals['fixes'])}) | {hunks_total} | {hunks_true} "
            f"({_ratio(hunks_true, hunks_total)}) |"
        )
    return lines


def _ratio(part: int, whole: int) -> str:
    return f"{100 * part / whole:.0f}%" if whole else "-"


def no_fix_table(rows: list[dict[str, Any]], findings: dict[str, list[dict[str, Any]]]) -> list[str]:
    """Findings without a fix whose frame some model skips, by rule and the reason the scan gives."""
    side = union_side(rows)
    files = sorted({path for row in rows for path in row.get("files", [])})
    lines = ["| mode | rule | reason | findings |", "|---|---|---|---|"]
    for mode, found in findings.items():
        reasons: Counter = Counter()
        for path in files:
            root = os.path.dirname(realworld.installed_dir(path.split("/")[0]))
            skipped = precision.skipped_frames(side, root, {path})
            for finding in found:
                if finding["path"] == path and finding.get("fix") == "none":
                    if precision.frame_at(root, path, finding["line"]) in skipped:
                        reason = (finding.get("note") or "").split(":")[0].split(";")[0][:90]
                        reasons[(finding["code"], reason)] += 1
        lines += [f"| {mode} | {code} | {_cell(reason)} | {n} |" for (code, reason), n in reasons.most_common(20)]
    return lines


def problems(rows: list[dict[str, Any]], modes: Iterable[str]) -> list[str]:
    lines = []
    for row in rows:
        for mode in modes:
            if row.get(f"crash_{mode}"):
                lines.append(f"- crash, {mode}: {row['library']}:{row['model']}: `{_cell(row[f'crash_{mode}'])}`")
            elif row.get(f"equal_{mode}") is False:
                lines.append(
                    f"- output differs, {mode}: {row['library']}:{row['model']}: "
                    f"`{_cell(row.get(f'difference_{mode}'))}`"
                )
    return lines or ["none"]


# -- the page ----------------------------------------------------------------------------------------------


def render(
    discovery: list[dict[str, Any]],
    rows: list[dict[str, Any]],
    meta: dict[str, Any],
    findings: dict[str, list[dict[str, Any]]],
    enumerated: dict[str, int],
    results: str,
) -> str:
    modes = [m for m in MODES if rows and f"skipped_after_{m}" in rows[0]]
    versions = (discovery[0].get("versions") if discovery else None) or meta.get("versions", {})
    seconds = sum(r.get("wall_s") or 0 for r in discovery)
    out = [
        "# The whole zoo: every model class that skips",
        "",
        "Generated by `python benchmarks/zoo_report.py` from `zoo-discovery.jsonl` (`zoo_discover.py run`) "
        f"and `{os.path.basename(meta.get('out', 'zoo.jsonl'))}` (`{meta.get('command', '')}`).",
        "",
        f"Versions: {', '.join(f'{k} {v}' for k, v in versions.items())}; gbfix {meta.get('gbfix', '?')}; "
        f"eager backend on CPU, tiny configs (2 layers, hidden ≤ 64), random weights.",
        "",
        "## Counts",
        "",
        *counts_table(discovery, enumerated),
        "",
        f"Discovery time: {seconds / 3600:.1f} h of model processes over {len(discovery)} models "
        f"(mean {seconds / max(1, len(discovery)):.0f} s).",
        "",
        "Most frequent reasons a model was not compiled (what the generic input builder should learn next):",
        "",
        *failures_table(discovery),
        "",
        "## Before → after",
        "",
        *aggregate_table(rows, modes),
        "",
    ]
    for mode in modes:
        having, gone = inline_gone(rows, findings.get("static", []), mode)
        a = aggregate(rows, mode)
        out.append(
            f"- {mode}: of {having} models with a skipped frame holding inline tensor ops (as the scan counts them), "
            f"{gone} have all such frames compiled after; {a['gained_coverage']} models gained coverage."
        )
    runs = meta.get("runs", [])
    if runs:
        out += ["", "| mode | files given to gbfix | gbfix s | measure s | changed files | gbfix summary |"]
        out += ["|---|---|---|---|---|---|"]
        for run in runs:
            out.append(
                f"| {run['mode']} | {run['files']} | {run['gbfix_s']} | {run.get('measure_s', '-')} "
                f"| {len(run.get('changed_files', []))} | {_cell(run.get('summary', ''))} |"
            )
    for again in meta.get("measured_again", []):
        # a later gbfix changed the rewrite of some files: only the models that run them were measured again
        out += [
            "",
            f"Measured again at gbfix {again['gbfix']}, whose rewrites differ only in "
            f"{', '.join(f'`{path}`' for path in again['files'])}: {', '.join(again['models'])}.",
        ]
    out += ["", "## Remaining skip causes", "", *cause_table(rows, modes), ""]
    if findings:
        out += [
            "## Precision",
            "",
            "Findings of the rules about skipped frames, and rewritten hunks, in the files the skipping models "
            "run; true when the frame holding them is one some model skips (or breaks in, for findings).",
            "",
            *precision_table(rows, findings, results),
            "",
            "## Findings without a fix in skipped frames",
            "",
            *no_fix_table(rows, findings),
            "",
        ]
    out += ["## Outputs not equal, and crashes", "", *problems(rows, modes), ""]
    return "\n".join(out)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--discovery", default=os.path.join(RESULTS, "zoo-discovery.jsonl"))
    parser.add_argument("--measured", default=os.path.join(RESULTS, "zoo.jsonl"))
    parser.add_argument("--out", default="")
    parser.add_argument("--enumerated", default=os.path.join(RESULTS, "zoo-classes.txt"))
    args = parser.parse_args(argv)
    discovery = load_jsonl(args.discovery)
    rows = load_jsonl(args.measured)
    results = os.path.dirname(os.path.abspath(args.measured))
    meta_path = args.measured.replace(".jsonl", "-meta.json")
    meta = json.load(open(meta_path, encoding="utf-8")) if os.path.exists(meta_path) else {}
    meta["out"] = args.measured
    findings_path = args.measured.replace(".jsonl", "-findings.json")
    findings = json.load(open(findings_path, encoding="utf-8")) if os.path.exists(findings_path) else {}
    enumerated: Counter = Counter()
    if os.path.exists(args.enumerated):
        enumerated.update(line.split(":")[0] for line in open(args.enumerated, encoding="utf-8") if line.strip())
    text = render(discovery, rows, meta, findings, dict(enumerated), results)
    out = args.out or args.measured.replace(".jsonl", ".md")
    with open(out, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
