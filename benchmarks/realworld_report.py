"""Tables of the real-model benchmark: ``results/realworld.md`` and ``.json``.

The JSON is what ``realworld.py`` measured, as is; the markdown is rendered
from it (and from ``realworld-medium.json`` when a ``--medium`` run left
one), so the two never disagree. ``python benchmarks/realworld_report.py``
re-renders the markdown from the JSON files without measuring anything.
"""

from __future__ import annotations

import json
import os
import statistics
import sys
from typing import Any, Iterable, Optional

HOW_COUNTED = """\
How the figures are counted (each side in a fresh process, torch.compile with a counting backend):

- **frames ok/total**: frames Dynamo's converter was handed, and those it compiled.
- **skipped**: frames that run eagerly, whole (conversion failed) plus partial
  (compiled up to an earlier point, the rest run as plain bytecode: Dynamo counts
  those as ok, they are caught from its graph-break log). Every skipped frame
  counts, gbfix helpers (`_gbfix_*`) and Dynamo resume functions included; *h*
  is how many of them are gbfix helpers.
- **breaks**: graph breaks Dynamo resumed from or that made it skip; **ops**: FX
  nodes (calls) in all compiled graphs, those of a frame compiled again
  (a recompile) counted again.
- **coverage**: of the top-level `aten::` ops one steady-state compiled call
  executes (profiled; an op inside another aten op is not counted again), the
  share that runs inside a compiled graph (every graph call is wrapped in a
  `record_function` marker). 100% is what `fullgraph=True` would give; the
  ops outside are the eager frames and the code between graphs. Counted with
  the eager backend, whose graphs run aten ops one by one.
- **compile**: first call, from a fresh process. **c/e**: compiled / eager
  steady-state time; **a/b**: after / before compiled time. Both ratios come
  from medians of calls interleaved in one process that holds both package
  copies, so machine load hits both sides alike; where that process could not
  compile the second copy, from each side's own process (a/b marked `*`).
- **mode (= static)**: the trace mode printed the same patch as the static
  mode, so the package under test is identical and its figures are reused.
- **equal**: every output tensor of the compiled run equals the eager run of
  the unmodified package (exactly, with the eager backend), and the rewritten
  package's eager run equals it too.
"""


# -- reading figures ------------------------------------------------------------------------


def _side(model: dict[str, Any], mode: Optional[str]) -> dict[str, Any]:
    """The before side (mode None) or a mode's after side; {} when missing."""
    if mode is None:
        return model.get("before") or {}
    return (model.get("after") or {}).get(mode) or {}


def _ok(side: dict[str, Any]) -> bool:
    return bool(side) and "error" not in side


def _equal(side: dict[str, Any]) -> Optional[bool]:
    if not _ok(side) or "compiled_vs_reference" not in side:
        return None
    return not side.get("compiled_vs_reference") and not side.get("eager_vs_reference")


def _coverage(side: dict[str, Any]) -> Optional[float]:
    return side.get("coverage") if _ok(side) else None


def _pct(value: Optional[float]) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _num(side: dict[str, Any], key: str) -> str:
    return str(side[key]) if _ok(side) and key in side else "–"


def _arrow(before: str, after: str) -> str:
    return before if before == after else f"{before} → {after}"


def _ratio(num: Optional[float], den: Optional[float]) -> str:
    return "–" if not num or not den else f"{num / den:.2f}"


# -- one-line progress ------------------------------------------------------------------------


def one_line(model: dict[str, Any]) -> str:
    """A model's figures on one line, for progress output."""
    if model.get("error"):
        return f"{model['name']}: error: {model['error'][:200]}"
    before = _side(model, None)
    parts = [
        f"{model['name']}: files {len(model.get('files', []))}",
        f"skipped {_num(before, 'skipped')}",
        f"ops {_num(before, 'ops')}",
        f"cov {_pct(_coverage(before))}",
    ]
    for mode in model.get("after") or {}:
        after = _side(model, mode)
        if not _ok(after):
            parts.append(f"{mode}: error: {str(after.get('error'))[:200]}")
            continue
        parts.append(
            f"{mode}: changed {len(after.get('changed_files', []))}, skipped {_num(after, 'skipped')}, "
            f"ops {_num(after, 'ops')}, cov {_pct(_coverage(after))}, equal {_equal(after)}"
        )
    return "; ".join(parts) + f" ({model.get('wall_s', 0):.0f}s)"


# -- aggregate --------------------------------------------------------------------------------


def aggregate(models: list[dict[str, Any]], mode: str) -> dict[str, Any]:
    """Totals over the models measured on both sides in ``mode``."""
    pairs = [(_side(m, None), _side(m, mode)) for m in models]
    pairs = [(b, a) for b, a in pairs if _ok(b) and _ok(a)]

    def total(side_index: int, key: str) -> int:
        return sum(int(pair[side_index].get(key) or 0) for pair in pairs)

    def coverage(side_index: int) -> Optional[float]:
        inside = total(side_index, "ops_inside")
        counted = inside + total(side_index, "ops_outside")
        return inside / counted if counted else None

    return {
        "mode": mode,
        "models": len(pairs),
        "skipped": [total(0, "skipped"), total(1, "skipped")],
        "skipped_helpers_after": total(1, "skipped_helpers"),
        "graph_breaks": [total(0, "graph_breaks"), total(1, "graph_breaks")],
        "ops": [total(0, "ops"), total(1, "ops")],
        "coverage": [coverage(0), coverage(1)],
        "coverage_median": [_median(_coverage(p[0]) for p in pairs), _median(_coverage(p[1]) for p in pairs)],
        "outputs_equal": sum(bool(_equal(b)) and bool(_equal(a)) for b, a in pairs),
        "models_changed": sum(bool(a.get("changed_files")) for _, a in pairs),
        "models_more_ops": sum(a.get("ops", 0) > b.get("ops", 0) for b, a in pairs),
        "models_fewer_skips": sum(a.get("skipped", 0) < b.get("skipped", 0) for b, a in pairs),
    }


def _median(values: Iterable[Optional[float]]) -> Optional[float]:
    present = [v for v in values if v is not None]
    return statistics.median(present) if present else None


# -- markdown -----------------------------------------------------------------------------------


DEFAULT_COMMAND = "python benchmarks/realworld.py"
REPRODUCE = f"`{DEFAULT_COMMAND}` (and `--medium` for the inductor timings)"


def render(document: dict[str, Any], medium: Optional[dict[str, Any]] = None, reproduce: str = "") -> str:
    """The whole markdown report; ``reproduce`` is the command that remakes it (by default, the
    one its settings and models say)."""
    meta = document["meta"]
    reproduce = reproduce or (
        f"`{meta['command']}`" if meta.get("command", DEFAULT_COMMAND) != DEFAULT_COMMAND else REPRODUCE
    )
    modes = meta["settings"]["modes"]
    lines = [
        "# gbfix on real models",
        "",
        *_meta_lines(meta),
        "",
        f"Reproduce: `pip install -e '.[bench]'` then {reproduce}.",
        "",
        "## Aggregate",
        "",
        *_aggregate_table([aggregate(document["models"], mode) for mode in modes]),
        "",
        "## Per model",
        "",
        *_model_table(document["models"], modes),
        "",
        HOW_COUNTED,
        "## What is skipped, and why",
        "",
        *_details(document["models"], modes),
    ]
    if medium:
        lines += ["", *_medium_section(medium)]
    return "\n".join(lines).rstrip() + "\n"


def _meta_lines(meta: dict[str, Any]) -> list[str]:
    versions = meta["versions"]
    settings = meta["settings"]
    machine = meta["machine"]
    return [
        f"- date: {meta['date']}; total time {meta['wall_s'] / 60:.1f} min",
        "- versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()) + f"; gbfix {meta['gbfix']}",
        f"- machine: {machine['cpus']} CPUs, {machine['processor']}, {machine['platform']}; "
        f"device {settings['device']}, torch threads {settings['threads'] or 'default'}",
        f"- settings: backend {settings['backend']}, size {settings['size']}, "
        f"median of {settings['calls']} calls (at least {settings.get('min_time', 0):g} s each), "
        f"modes {', '.join(settings['modes'])}"
        + (
            "; each rewritten package measured under the setting `gbfix advise` recommends for it, if any"
            if settings.get("advise")
            else ""
        ),
    ]


def _aggregate_table(rows: list[dict[str, Any]]) -> list[str]:
    out = [
        "| mode | models | rewritten | skipped frames | graph breaks | ops in graphs | coverage (all ops) "
        "| coverage (median model) | outputs equal | more ops | fewer skips |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        out.append(
            f"| {row['mode']} | {row['models']} | {row['models_changed']} "
            f"| {row['skipped'][0]} → {row['skipped'][1]} (helpers {row['skipped_helpers_after']}) "
            f"| {row['graph_breaks'][0]} → {row['graph_breaks'][1]} | {row['ops'][0]} → {row['ops'][1]} "
            f"| {_pct(row['coverage'][0])} → {_pct(row['coverage'][1])} "
            f"| {_pct(row['coverage_median'][0])} → {_pct(row['coverage_median'][1])} "
            f"| {row['outputs_equal']}/{row['models']} | {row['models_more_ops']} | {row['models_fewer_skips']} |"
        )
    return out


def _model_table(models: list[dict[str, Any]], modes: list[str]) -> list[str]:
    out = [
        "| model | family | mode | files (changed) | frames ok/total | skipped (h) | breaks | graphs | ops "
        "| coverage | compile s | c/e before, after | a/b | equal |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for model in models:
        if model.get("error"):
            out.append(f"| {model['name']} | {model['family']} | – | error: {_cell(model['error'])} " + "| " * 10 + "|")
            continue
        for mode in modes:
            out.append(_model_row(model, mode))
    return out


def _model_row(model: dict[str, Any], mode: str) -> str:
    before, after = _side(model, None), _side(model, mode)
    if not _ok(after):
        return (
            f"| {model['name']} | {model['family']} | {mode} | error: {_cell(str(after.get('error')))} "
            + "| " * 10
            + "|"
        )

    def frames(side: dict[str, Any]) -> str:
        return f"{_num(side, 'frames_ok')}/{_num(side, 'frames_total')}"

    def skipped(side: dict[str, Any]) -> str:
        helpers = side.get("skipped_helpers", 0) if _ok(side) else 0
        return _num(side, "skipped") + (f" ({helpers})" if helpers else "")

    def seconds(side: dict[str, Any]) -> str:
        return f"{side['compile_s']:.1f}" if _ok(side) and "compile_s" in side else "–"

    ce_before, ce_after, after_before = timing_ratios(before, after)
    equal = _equal(after)
    mode_cell = f"{mode} (= {after['same_as']})" if after.get("same_as") else mode
    if (after.get("advised") or {}).get("candidate"):
        mode_cell += " + setting"
    return (
        f"| {model['name']} | {model['family']} | {mode_cell} "
        f"| {len(model.get('files', []))} ({len(after.get('changed_files', []))}) "
        f"| {_arrow(frames(before), frames(after))} | {_arrow(skipped(before), skipped(after))} "
        f"| {_arrow(_num(before, 'graph_breaks'), _num(after, 'graph_breaks'))} "
        f"| {_arrow(_num(before, 'graphs'), _num(after, 'graphs'))} "
        f"| {_arrow(_num(before, 'ops'), _num(after, 'ops'))} "
        f"| {_arrow(_pct(_coverage(before)), _pct(_coverage(after)))} "
        f"| {_arrow(seconds(before), seconds(after))} | {ce_before}, {ce_after} | {after_before} "
        f"| {'yes' if equal else 'NO' if equal is False else '–'} |"
    )


def timings(before: dict[str, Any], after: dict[str, Any]) -> tuple[dict[str, Optional[float]], bool]:
    """Median seconds (before/after x compiled/eager) and whether they come from the paired rounds.

    Paired: both package copies timed in one process, interleaved. Otherwise
    each side's own process (its compiled and eager calls still interleaved).
    """
    keys = ("before_compiled", "after_compiled", "before_eager", "after_eager")
    if after.get("pair_after_compiled_s"):
        return {key: after.get(f"pair_{key}_s") for key in keys}, True
    return {
        "before_compiled": before.get("compiled_s"),
        "after_compiled": after.get("compiled_s"),
        "before_eager": before.get("eager_s"),
        "after_eager": after.get("eager_s"),
    }, False


def timing_ratios(before: dict[str, Any], after: dict[str, Any]) -> tuple[str, str, str]:
    """compiled/eager before, compiled/eager after, after/before compiled, as table cells (``*``: not paired)."""
    t, paired = timings(before, after)
    after_before = _ratio(t["after_compiled"], t["before_compiled"])
    return (
        _ratio(t["before_compiled"], t["before_eager"]),
        _ratio(t["after_compiled"], t["after_eager"]),
        after_before if paired or after_before == "–" else after_before + "*",
    )


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")[:160]


def _details(models: list[dict[str, Any]], modes: list[str]) -> list[str]:
    out = []
    for model in models:
        if model.get("error"):
            continue
        before = _side(model, None)
        out.append(f"### {model['name']} ({model['family']}{': ' + model['note'] if model.get('note') else ''})")
        out.append("")
        out += _side_details("before", before)
        for mode in modes:
            after = _side(model, mode)
            label = f"after, {mode}"
            if after.get("patch"):
                label += f" ([patch]({after['patch']}), {len(after.get('changed_files', []))} files changed)"
            if after.get("same_as"):
                out.append(f"- {label}: the same patch as {after['same_as']}, figures above")
                continue
            out += _side_details(label, after)
        out.append("")
    return out


def _side_details(label: str, side: dict[str, Any]) -> list[str]:
    if not _ok(side):
        return [f"- {label}: error: {_cell(str(side.get('error', 'not run')))}"]
    skipped = side.get("skipped_whole", []) + [f"{name} [partial]" for name in side.get("skipped_partial", [])]
    reasons = ", ".join(f"{k} ×{v}" for k, v in side.get("break_reasons", {}).items()) or "none"
    problems = [side[k] for k in ("compiled_vs_reference", "eager_vs_reference") if side.get(k)]
    lines = [f"- {label}: skipped {', '.join(f'`{s}`' for s in skipped) or 'none'}; breaks: {reasons}"]
    lines += [f"  - cause: `{cause}`" for cause in side.get("skip_causes", [])]
    if "advised" in side:
        lines.append(f"  - {_advised_line(side['advised'])}")
    if side.get("pair_error"):
        lines.append(f"  - paired timing not taken: {_cell(side['pair_error'])}")
    lines += [f"  - output differs: {_cell(p)}" for p in problems]
    return lines


def _advised_line(advised: dict[str, Any]) -> str:
    """What ``gbfix advise`` recommended for the rewritten package, and the runs it chose from."""
    if advised.get("error"):
        return f"settings: gbfix advise failed: {_cell(advised['error'])}"

    def run(entry: dict[str, Any]) -> str:
        if entry.get("skipped"):
            return f"{entry['candidate']} not run"
        if entry.get("error"):
            return f"{entry['candidate']} {_cell(entry['error'].split(':')[0])}"
        equal = "" if entry.get("outputs_equal") else ", outputs differ"
        return f"{entry['candidate']} {_pct(entry.get('coverage'))}{equal}"

    ran = "; ".join(run(entry) for entry in advised.get("runs", []) if not entry.get("skipped"))
    chosen = f"`{advised['candidate']}`" if advised.get("candidate") else "none recommended"
    return f"settings (gbfix advise): {chosen} (its runs, coverage: {ran})"


def _medium_section(medium: dict[str, Any]) -> list[str]:
    meta = medium["meta"]
    out = [
        "## Medium sizes (timings)",
        "",
        *_meta_lines(meta),
        "",
        "| model | mode | skipped | ops | compile s before, after | compiled ms before, after "
        "| eager ms before, after | c/e before, after | a/b | equal (tolerance) |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for model in medium["models"]:
        for mode in meta["settings"]["modes"]:
            out.append(_medium_row(model, mode))
    return out


def _medium_row(model: dict[str, Any], mode: str) -> str:
    before, after = _side(model, None), _side(model, mode)
    if model.get("error") or not _ok(after):
        return (
            f"| {model['name']} | {mode} | error: {_cell(str(model.get('error') or after.get('error')))} "
            + "| " * 8
            + "|"
        )
    t, _ = timings(before, after)
    ce_before, ce_after, after_before = timing_ratios(before, after)

    def ms(key: str) -> str:
        return f"{1000 * t[key]:.1f}" if t.get(key) else "–"

    compile_before = f"{before['compile_s']:.1f}" if _ok(before) else "–"
    equal = _equal(after)
    return (
        f"| {model['name']} | {mode} | {_arrow(_num(before, 'skipped'), _num(after, 'skipped'))} "
        f"| {_arrow(_num(before, 'ops'), _num(after, 'ops'))} | {compile_before}, {after['compile_s']:.1f} "
        f"| {ms('before_compiled')}, {ms('after_compiled')} | {ms('before_eager')}, {ms('after_eager')} "
        f"| {ce_before}, {ce_after} | {after_before} | {'yes' if equal else 'NO' if equal is False else '–'} |"
    )


# -- files ------------------------------------------------------------------------------------------


def write(document: dict[str, Any], results: str, name: str) -> None:
    """Save ``name``.json and re-render realworld.md from the JSON files present."""
    document = {
        **document,
        "aggregate": [aggregate(document["models"], mode) for mode in document["meta"]["settings"]["modes"]],
    }
    with open(os.path.join(results, f"{name}.json"), "w", encoding="utf-8") as handle:
        json.dump(document, handle, indent=1, default=str)
        handle.write("\n")
    render_files(results)


def render_files(results: str) -> bool:
    """realworld.md from realworld.json (+ realworld-medium.json), and realworld-advised.md from its JSON.

    False when there is nothing to render.
    """
    main_doc, medium_doc = _load(results, "realworld"), _load(results, "realworld-medium")
    advised = _load(results, "realworld-advised")
    if main_doc is not None or medium_doc is not None:
        if main_doc is None:
            text = "# gbfix on real models\n\n" + "\n".join(_medium_section(medium_doc or {})) + "\n"
        else:
            text = render(main_doc, medium_doc)
        _write_text(os.path.join(results, "realworld.md"), text)
    if advised is not None:
        _write_text(os.path.join(results, "realworld-advised.md"), render_advised(advised, main_doc))
    return main_doc is not None or medium_doc is not None or advised is not None


def _write_text(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)


def render_advised(advised: dict[str, Any], structural: Optional[dict[str, Any]]) -> str:
    """The ``--advise`` run's report, opening with graph coverage against the run of the rewrites alone."""
    text = render(
        advised, reproduce="" if advised["meta"].get("command") else "`python benchmarks/realworld.py --advise`"
    )
    if structural is None:
        return text
    head, sep, rest = text.partition("## Aggregate")
    return head + "\n".join(_against_structural(advised, structural)) + "\n\n" + sep + rest


def _against_structural(advised: dict[str, Any], structural: dict[str, Any]) -> list[str]:
    """Per model and mode: coverage before, after the rewrites alone (realworld.json), and with the setting."""
    alone = {model["name"]: model for model in structural["models"]}
    modes = advised["meta"]["settings"]["modes"]
    out = [
        "## Rewrites alone, and with the settings `gbfix advise` proved",
        "",
        f"Rewrites alone: `realworld.json` (gbfix {structural['meta']['gbfix']}, {structural['meta']['date']}).",
        "",
        "| mode | ops in graphs: before → rewrites alone → with setting | coverage (all ops) |",
        "|---|---|---|",
    ]
    totals = {mode: (aggregate(structural["models"], mode), aggregate(advised["models"], mode)) for mode in modes}
    for mode, (left, right) in totals.items():
        out.append(
            f"| {mode} | {left['ops'][0]} → {left['ops'][1]} → {right['ops'][1]} "
            f"| {_pct(left['coverage'][0])} → {_pct(left['coverage'][1])} → {_pct(right['coverage'][1])} |"
        )
    out += [
        "",
        "| model | mode | setting | coverage: before → rewrites alone → with setting | equal |",
        "|---|---|---|---|---|",
    ]
    for model in advised["models"]:
        for mode in modes:
            after = _side(model, mode)
            chosen = (after.get("advised") or {}).get("candidate")
            if not chosen or model["name"] not in alone:
                continue
            before, plain = _side(model, None), _side(alone[model["name"]], mode)
            equal = _equal(after)
            out.append(
                f"| {model['name']} | {mode} | `{chosen}` | {_pct(_coverage(before))} → {_pct(_coverage(plain))} "
                f"→ {_pct(_coverage(after))} | {'yes' if equal else 'NO' if equal is False else '–'} |"
            )
    return out


def _load(results: str, name: str) -> Optional[dict[str, Any]]:
    path = os.path.join(results, f"{name}.json")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


if __name__ == "__main__":
    folder = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
    sys.exit(0 if render_files(folder) else 1)
