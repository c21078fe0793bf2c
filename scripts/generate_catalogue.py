"""Write the generated part of the break catalogue from the installed torch.

Run by hand when torch changes::

    python scripts/generate_catalogue.py            # read torch, probe, write the table
    python scripts/generate_catalogue.py --check    # probe, print what differs from the table (exit 1)
    python scripts/generate_catalogue.py --json     # probe, print the results as JSON (the tests read it)

What torch knows is read, not listed: the aten ops tagged
``torch.Tag.dynamic_output_shape`` or ``torch.Tag.data_dependent_output``,
and Dynamo's own sets of what it reorders or ignores
(``reorderable_logging_functions``, ``ignore_logger_methods``). Each tagged
op is mapped to the Python spellings that reach it: the public names its own
name gives (``_unique2`` and ``unique_dim`` are ``unique``, ``linalg_lstsq`` is
``torch.linalg.lstsq``) in ``torch``, ``torch.Tensor``,
``torch.nn.functional`` and ``torch.linalg``, and the conversions of a tensor
to a Python value (``Tensor.__bool__``…) for the op they run. A spelling counts
only when a call of it, run eagerly under a dispatch mode, reaches the tagged
op. A tagged op with no spelling that has argument forms below stops the
script: torch has a new one, and :data:`FORMS` needs its calls.

Each argument form is then probed: the call, in a 3-trip loop in a module's
``forward`` under ``torch.compile`` with a counting backend, skips the frame or
not. Forms that reach a tagged op but do not skip (``x.repeat_interleave(2)``
runs the untagged ``self_int`` overload; an ``output_size`` or a
``num_classes`` fixes the output shape) are recorded too: they are what
:data:`CONDITIONS` says about the arguments, and the tests check the
analysis against every probe.
"""

from __future__ import annotations

import argparse
import json
import os
import pprint
import re
import sys
from typing import Any, Optional

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TABLE = os.path.join(ROOT, "codemods", "analysis", "catalogue_table.py")
TAGS = ("dynamic_output_shape", "data_dependent_output")

#: the Python conversions of a tensor, and the builtin (or ``operator`` function) that calls each
CONVERSIONS = {
    "__bool__": "builtins.bool",
    "__int__": "builtins.int",
    "__float__": "builtins.float",
    "__index__": "operator.index",
}

#: the aten op boolean-mask indexing runs (``x[mask]``): no public name reaches it
MASK_INDEX_OP = "index"

#: spelling -> calls written with its arguments, over the probe's inputs: ``x`` (floats, shape
#: [6]), ``m`` (a bool mask of ``x``), ``i`` (small ints, shape [6]), ``r`` (repeat counts, shape
#: [6]), ``a``/``b`` (float matrices [6, 3] and [6, 2]), ``lp``/``tg`` (CTC log-probabilities
#: [5, 1, 4] and targets [1, 2]), ``o`` (an out= tensor of the right dtype)
FORMS: dict[str, tuple[str, ...]] = {
    "torch.nonzero": ("torch.nonzero(m)", "torch.nonzero(m, as_tuple=True)[0]", "torch.nonzero(m, out=o)"),
    "torch.Tensor.nonzero": ("m.nonzero()", "m.nonzero(as_tuple=True)[0]", "(i == 1).nonzero(as_tuple=False)"),
    "torch.argwhere": ("torch.argwhere(m)",),
    "torch.Tensor.argwhere": ("m.argwhere()",),
    "torch.masked_select": ("torch.masked_select(x, m)", "torch.masked_select(x, mask=m)"),
    "torch.Tensor.masked_select": ("x.masked_select(m)",),
    "torch.unique": (
        "torch.unique(i)",
        "torch.unique(i, return_counts=True)[1]",
        "torch.unique(i, sorted=False, return_inverse=True)[0]",
        "torch.unique(i, dim=0)",
    ),
    "torch.Tensor.unique": ("i.unique()", "i.unique(return_counts=True)[1]", "i.unique(dim=0)"),
    "torch.unique_consecutive": (
        "torch.unique_consecutive(i)",
        "torch.unique_consecutive(i, return_counts=True)[1]",
        "torch.unique_consecutive(i, dim=0)",
    ),
    "torch.Tensor.unique_consecutive": ("i.unique_consecutive()", "i.unique_consecutive(return_inverse=True)[0]"),
    "torch.repeat_interleave": (
        "torch.repeat_interleave(r)",
        "torch.repeat_interleave(x, r)",
        "torch.repeat_interleave(x, repeats=r, dim=0)",
        "torch.repeat_interleave(x, 2)",
        "torch.repeat_interleave(x, r, output_size=12)",
    ),
    "torch.Tensor.repeat_interleave": (
        "x.repeat_interleave(r)",
        "x.repeat_interleave(r, dim=0)",
        "x.repeat_interleave(2)",
        "x.repeat_interleave(2, dim=0)",
        "x.repeat_interleave(r, output_size=12)",
    ),
    "torch.bincount": ("torch.bincount(i)", "torch.bincount(i, minlength=8)", "torch.bincount(i, weights=x)"),
    "torch.Tensor.bincount": ("i.bincount()", "i.bincount(minlength=8)"),
    "torch.nn.functional.one_hot": (
        "torch.nn.functional.one_hot(i)",
        "torch.nn.functional.one_hot(i, 8)",
        "torch.nn.functional.one_hot(i, num_classes=8)",
    ),
    "torch.linalg.lstsq": ("torch.linalg.lstsq(a, b).solution",),
    "torch.nn.functional.ctc_loss": ("torch.nn.functional.ctc_loss(lp, tg, (5,), (2,))",),
    "torch.ctc_loss": ("torch.ctc_loss(lp, tg, (5,), (2,))",),
    "torch.Tensor.item": ("x.sum().item()",),
    "torch.equal": ("torch.equal(x, x)",),
    "torch.Tensor.equal": ("x.equal(x)",),
    "torch.allclose": ("torch.allclose(x, x)",),
    "torch.Tensor.allclose": ("x.allclose(x, atol=1e-3)",),
    "builtins.bool": ("bool(x.sum() > 0)",),
    "builtins.int": ("int(i.sum())",),
    "builtins.float": ("float(x.sum())",),
    "operator.index": ("operator.index(i.sum())",),
    # a mask is known where the function writes it (a parameter may hold integers)
    "x[mask]": ("x[x > 0]", "x[x.isfinite()]"),
}

#: what the arguments must be for a call to break, where a form that reaches the op does not:
#: spelling -> {"tensor_arg": (position, keyword) of an argument that breaks only as a tensor
#: (absent, the input itself is the repeats), "unless_arg": (position or -1, keyword) of an
#: argument whose presence fixes the output shape}
CONDITIONS: dict[str, dict[str, tuple[int, str]]] = {
    # the int overload (``self_int``) is not tagged: ``x.repeat_interleave(2)`` compiles
    "torch.repeat_interleave": {"tensor_arg": (1, "repeats"), "unless_arg": (-1, "output_size")},
    "torch.Tensor.repeat_interleave": {"tensor_arg": (0, "repeats"), "unless_arg": (-1, "output_size")},
    # ``num_classes`` given, the output shape is known without reading the input
    "torch.nn.functional.one_hot": {"unless_arg": (1, "num_classes")},
}

#: spelling -> why it breaks, by the tag of the op it reaches
REASONS = {
    "dynamic_output_shape": "{name} has a data-dependent output shape",
    "data_dependent_output": "{name} reads a value from the device",
}


def tagged_ops() -> dict[str, tuple[str, ...]]:
    """aten op name -> the tags of :data:`TAGS` any of its overloads carries."""
    import torch

    found: dict[str, set[str]] = {}
    names = sorted({s.name[6:] for s in torch._C._jit_get_all_schemas() if s.name.startswith("aten::")})
    for name in names:
        packet = getattr(torch.ops.aten, name)
        for overload in packet.overloads():
            for tag in getattr(packet, overload).tags:
                if tag.name in TAGS:
                    found.setdefault(name, set()).add(tag.name)
    return {name: tuple(sorted(tags)) for name, tags in sorted(found.items())}


def public_name(op: str) -> str:
    """The public name an aten op's name gives: ``_unique2`` and ``unique_dim`` are ``unique``."""
    name = re.sub(r"\d+$", "", op.lstrip("_"))
    return name.replace("_dim", "")


def candidate_spellings(op: str) -> list[str]:
    """The public callables named like ``op`` in the namespaces users call tensor ops from."""
    import torch

    name = public_name(op)
    namespaces: list[tuple[str, Any]] = [
        ("torch", torch),
        ("torch.Tensor", torch.Tensor),
        ("torch.nn.functional", torch.nn.functional),
    ]
    if name.startswith("linalg_"):
        namespaces, name = [("torch.linalg", torch.linalg)], name[len("linalg_") :]
    found = [f"{prefix}.{name}" for prefix, space in namespaces if callable(getattr(space, name, None))]
    if op == MASK_INDEX_OP:
        found.append("x[mask]")
    if op in ("_local_scalar_dense", "item"):
        found.extend(CONVERSIONS[dunder] for dunder in CONVERSIONS if hasattr(torch.Tensor, dunder))
    return found


def probe_inputs() -> dict[str, Any]:
    import torch

    x = torch.tensor([1.0, -2.0, 3.0, 0.5, -0.25, 2.0])
    return {
        "x": x,
        "m": x > 0,
        "i": torch.tensor([1, 1, 3, 0, 2, 2]),
        "r": torch.tensor([1, 2, 3, 1, 2, 3]),
        "a": torch.arange(18.0).reshape(6, 3).sin(),
        "b": torch.arange(12.0).reshape(6, 2).cos(),
        "lp": torch.arange(20.0).reshape(5, 1, 4).log_softmax(-1),
        "tg": torch.tensor([[1, 2]]),
        "o": torch.empty(0, dtype=torch.long),
    }


def _namespace() -> dict[str, Any]:
    import operator

    import torch

    return {"torch": torch, "operator": operator}


def _with_out(form: str, inputs: dict[str, Any]) -> dict[str, Any]:
    """``o`` of the dtype the call's output has (``masked_select``: floats)."""
    import torch

    if "out=o" in form and "masked_select" in form:
        return {**inputs, "o": torch.empty(0)}
    return inputs


def reached_ops(form: str, tagged: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The tagged aten ops an eager call of ``form`` runs."""
    from torch.utils._python_dispatch import TorchDispatchMode

    seen: set[str] = set()

    class Recording(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):  # type: ignore[no-untyped-def]
            seen.add(func._schema.name.partition("::")[2])
            return func(*args, **(kwargs or {}))

    inputs = _with_out(form, probe_inputs())
    with Recording():
        eval(form, _namespace(), dict(inputs))
    return tuple(sorted(op for op in seen if op in tagged))


PROBE_SOURCE = """
class Probe(torch.nn.Module):
    def forward(self, x, m, i, r, a, b, lp, tg, o):
        for _ in range(3):
            y = {form}
            x = x * 2
        return x, y
"""


def skips(form: str) -> bool:
    """Whether ``form``, in a 3-trip loop in a module's ``forward``, skips the frame."""
    import contextlib
    import io

    sys.path.insert(0, ROOT)
    from rewriter.runtime.measure import measure

    space = _namespace()
    exec(PROBE_SOURCE.format(form=form), space)
    module = space["Probe"]()
    inputs = _with_out(form, probe_inputs())
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        _, stats = measure(module, tuple(inputs.values()), calls=2, coverage=False)
    return stats.frames_skipped > 0


def probe_all(tagged: dict[str, tuple[str, ...]]) -> list[dict[str, Any]]:
    """One record per spelling and form: the tagged ops it reaches and whether it skips."""
    spellings = {s: op for op in tagged for s in candidate_spellings(op)}
    missing = [op for op in tagged if not any(s in FORMS for s in candidate_spellings(op))]
    if missing:
        raise SystemExit(f"no argument forms for the tagged op(s) {', '.join(missing)}: add them to FORMS")
    records = []
    for spelling in sorted(spellings):
        for form in FORMS.get(spelling, ()):
            reached = reached_ops(form, tagged)
            records.append({"spelling": spelling, "form": form, "reaches": reached, "skips": skips(form)})
    return records


def entries(tagged: dict[str, tuple[str, ...]], probes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The catalogue entries: each spelling some form of which reaches a tagged op and skips."""
    found = []
    for spelling in sorted({p["spelling"] for p in probes}):
        mine = [p for p in probes if p["spelling"] == spelling]
        if not any(p["reaches"] and p["skips"] for p in mine):
            continue
        ops = sorted({op for p in mine for op in p["reaches"]})
        tag = tagged[ops[0]][0]
        found.append(
            {
                "kind": _kind(spelling),
                "name": _entry_name(spelling),
                "ops": tuple(ops),
                "reason": REASONS[tag].format(name=_shown(spelling)),
                "with_arguments": spelling != "torch.Tensor.item",
                **CONDITIONS.get(spelling, {}),
            }
        )
    return found


def _kind(spelling: str) -> str:
    if spelling == "x[mask]":
        return "mask_index"
    if spelling.startswith("torch.Tensor."):
        return "method"
    return "tensor_read" if spelling in CONVERSIONS.values() else "qualified"


def _entry_name(spelling: str) -> str:
    return spelling.rpartition(".")[2] if spelling.startswith("torch.Tensor.") else spelling


def _shown(spelling: str) -> str:
    if spelling.startswith("torch.Tensor."):
        return f"Tensor.{spelling.rpartition('.')[2]}()"
    if spelling in CONVERSIONS.values():
        return f"{spelling.rpartition('.')[2]}() of a tensor"
    return spelling if spelling == "x[mask]" else f"{spelling}()"


def dynamo_sets() -> dict[str, tuple[str, ...]]:
    """What Dynamo's config says it reorders or ignores (a call there is no break)."""
    import torch._dynamo.config as config

    def names(values: Any) -> tuple[str, ...]:
        return tuple(sorted(getattr(v, "__qualname__", str(v)) for v in values))

    return {
        "reorderable_logging_functions": names(getattr(config, "reorderable_logging_functions", ())),
        "ignore_logger_methods": names(getattr(config, "ignore_logger_methods", ())),
    }


def render(version: str, tagged: dict, sets: dict, found: list, probes: list) -> str:
    def block(value: Any) -> str:
        return pprint.pformat(value, width=110, sort_dicts=False)

    return (
        f'"""The generated part of the break catalogue, read from torch {version}.\n\n'
        "Written by ``scripts/generate_catalogue.py``; do not edit by hand, run it again when\n"
        "torch changes. :mod:`codemods.analysis.catalogue` makes its entries from :data:`ENTRIES`;\n"
        ":data:`PROBES` are the measurements behind them (tests/test_catalogue_probes.py).\n"
        '"""\n\n'
        "from __future__ import annotations\n\n"
        "from typing import Any\n\n"
        f"TORCH_VERSION = {version!r}\n\n"
        "#: aten op -> its tags that make an output data-dependent\n"
        f"TAGGED_OPS: dict[str, tuple[str, ...]] = {block(tagged)}\n\n"
        "#: Dynamo's sets of calls it reorders or ignores instead of breaking\n"
        f"DYNAMO_SETS: dict[str, tuple[str, ...]] = {block(sets)}\n\n"
        "#: one entry per spelling that reaches a tagged op and skips a frame\n"
        f"ENTRIES: tuple[dict[str, Any], ...] = {block(tuple(found))}\n\n"
        "#: each argument form, in a 3-trip loop in a module's forward under torch.compile\n"
        f"PROBES: tuple[dict[str, Any], ...] = {block(tuple(probes))}\n"
    )


def formatted(text: str) -> str:
    """``text`` as ``ruff format`` writes it, so that the table passes the project's format check."""
    import subprocess

    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--stdin-filename", TABLE, "-"],
        input=text,
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return done.stdout


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="compare with the table written; exit 1 if it differs")
    parser.add_argument("--json", action="store_true", help="print the probe results as JSON")
    args = parser.parse_args(argv)
    import torch

    tagged = tagged_ops()
    probes = probe_all(tagged)
    if args.json:
        print(json.dumps({"version": torch.__version__, "tagged": tagged, "probes": probes}))
        return 0
    text = formatted(render(torch.__version__, tagged, dynamo_sets(), entries(tagged, probes), probes))
    if args.check:
        with open(TABLE, encoding="utf-8") as handle:
            same = handle.read() == text
        print("the table matches torch" if same else "the table differs from what torch says: regenerate it")
        return 0 if same else 1
    with open(TABLE, "w", encoding="utf-8") as handle:
        handle.write(text)
    print(f"wrote {len(probes)} probes and {len(entries(tagged, probes))} entries to {os.path.relpath(TABLE, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
