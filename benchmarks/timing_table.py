"""The timing table: steady-state compiled time after/before ``gbfix apply``, per rewritten model.

    python benchmarks/realworld.py --medium --models mixtral --results DIR/mixtral   # one model a run
    python benchmarks/timing_table.py DIR/*/realworld-medium.json
    python benchmarks/timing_table.py --update DIR/encodec/realworld-medium.json   # replace one model's rows

Each run's after side times both packages in one process, their calls interleaved
(``pair_before_compiled_s`` and ``pair_after_compiled_s``, medians), so the ratio does not
depend on the load of the machine between runs. Models are run one at a time because an
inductor compile of a medium model takes minutes on a small machine; this script gathers
their documents into ``results/timing-medium.md`` and ``.json``. A ratio above ``LIMIT``
is a rewrite that costs, which gbfix should make cheaper or withhold.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
LIMIT = 1.02


def rows(documents: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per model and mode whose rewrite changed a file, or left a loop as written with the
    reason (``withheld``): a model whose rewrite is withheld by default has its row too."""
    found = []
    for document in documents:
        meta = document["meta"]
        for model in document["models"]:
            for mode, side in sorted(model.get("after", {}).items()):
                changed = bool(side.get("changed_files"))
                if not changed and not side.get("withheld"):
                    continue
                before, after = side.get("pair_before_compiled_s"), side.get("pair_after_compiled_s")
                ratio = after / before if before and after else None
                found.append(
                    {
                        "model": model["name"],
                        "mode": mode,
                        "before_ms": before * 1e3 if before else None,
                        "after_ms": after * 1e3 if after else None,
                        "ratio": ratio,
                        # the same code on both sides when nothing changed: the ratio is the noise
                        "costs": changed and ratio is not None and ratio > LIMIT,
                        "changed": changed,
                        "withheld": side.get("withheld", []),
                        "gbfix": meta["gbfix"],
                        "date": meta["date"],
                        "backend": meta["settings"]["backend"],
                        "size": meta["settings"]["size"],
                        "device": meta["settings"]["device"],
                    }
                )
    return sorted(found, key=lambda row: (row["model"], row["mode"]))


def merged(kept: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of an earlier table, each replaced by a new row of the same model and mode."""
    measured = {(row["model"], row["mode"]) for row in new}
    rest = [row for row in kept if (row["model"], row["mode"]) not in measured]
    return sorted(rest + new, key=lambda row: (row["model"], row["mode"]))


def markdown(found: list[dict[str, Any]]) -> str:
    lines = [
        "# Steady-state compiled time after/before, medium size",
        "",
        "Inductor on CPU (1 thread), hidden 256 and sequence 128; each model in its own run of",
        "`python benchmarks/realworld.py --medium --models MODEL --mode MODE`, both sides timed in",
        f"one process with their calls interleaved (medians). A ratio above {LIMIT} costs.",
        "Left as written: the loops gbfix withholds a rewrite from by default, by the reason its",
        "finding gives (each finding's full note is in timing-medium.json); where nothing is",
        "rewritten both sides run the same code and the ratio is the noise of the measurement",
        "(blank in rows measured before the benchmark recorded it).",
        "Written by `python benchmarks/timing_table.py`.",
        "",
        "| model | mode | before (ms) | after (ms) | after/before | left as written | gbfix | date |",
        "|---|---|---:|---:|---:|---|---|---|",
    ]
    for row in found:
        ratio = f"{row['ratio']:.2f}" if row["ratio"] is not None else "n/a"
        if row["costs"]:
            ratio += " (costs)"
        elif not row.get("changed", True):
            ratio += " (nothing rewritten)"
        before = f"{row['before_ms']:.1f}" if row["before_ms"] is not None else "n/a"
        after = f"{row['after_ms']:.1f}" if row["after_ms"] is not None else "n/a"
        left = reasons(row.get("withheld", []))
        lines.append(
            f"| {row['model']} | {row['mode']} | {before} | {after} | {ratio} | {left} "
            f"| {row['gbfix']} | {row['date']} |"
        )
    return "\n".join(lines) + "\n"


def reasons(withheld: list[str]) -> str:
    """Loops left as written, counted by the first clause of their note: ``costs more than it
    captures (2), nothing to capture (1)``; "" for none (or rows measured before this was recorded)."""
    counts: dict[str, int] = {}
    for entry in withheld:
        note = entry.split(": ", 1)[1].split(" ", 1)[1] if ": " in entry else entry
        first = note.split(":", 1)[0].strip()
        counts[first] = counts.get(first, 0) + 1
    return ", ".join(f"{reason} ({n})" for reason, n in counts.items())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("documents", nargs="+", help="realworld-medium.json files, one model each")
    parser.add_argument("--results", default=os.path.join(HERE, "results"), help="where the table goes")
    parser.add_argument(
        "--update",
        action="store_true",
        help="keep the rows of the table already there for the models and modes these documents do not hold",
    )
    args = parser.parse_args(argv)
    documents = []
    for path in args.documents:
        with open(path, encoding="utf-8") as handle:
            documents.append(json.load(handle))
    found = rows(documents)
    existing = os.path.join(args.results, "timing-medium.json")
    if args.update and os.path.exists(existing):
        with open(existing, encoding="utf-8") as handle:
            found = merged(json.load(handle), found)
    with open(os.path.join(args.results, "timing-medium.json"), "w", encoding="utf-8") as handle:
        json.dump(found, handle, indent=1)
        handle.write("\n")
    with open(os.path.join(args.results, "timing-medium.md"), "w", encoding="utf-8") as handle:
        handle.write(markdown(found))
    print(markdown(found), end="")
    return 1 if any(row["costs"] for row in found) else 0


if __name__ == "__main__":
    raise SystemExit(main())
