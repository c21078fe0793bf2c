"""Golden cases about where ``torch.compile`` goes (GBF005, GBF006, GBF007).

These cases skip no frame, so the generic golden checks (fewer skipped
frames, more graphs) do not apply. A case opts in with a module-level
``GOLDEN_KIND``:

``"placement"`` (GBF005, GBF006)
    ``ENTRY(*example_inputs())`` builds, compiles and runs a model, returning
    ``(output, model)``. The input runs with Dynamo forced eager (the
    reference); the output runs compiled. Outputs must be equal, Dynamo must
    have compiled frames, no ``OptimizedModule`` may remain, the module must
    be compiled in place (``Module.compile()``), and ``state_dict()`` keys
    must be the reference's without ``_orig_mod.``. For GBF006 the wrapper
    itself must not be compiled, only the module inside it. DDP/FSDP need a
    process group, so they are replaced by stubs that only hold the module.

``"strict"`` (GBF007)
    ``ENTRY`` runs code made strict by ``error_on_graph_break(True)`` that
    calls a third-party module from ``tests/fixtures/thirdparty_pkg``. The
    input must raise under ``torch.compile``; the output must compile, record
    the graph break it now allows, and give the eager output. A case left
    unchanged must compile as it is, or, with ``EXPECT_RAISES = True`` (a
    fix gbfix declines), still raise.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from typing import Any, Iterator, Optional

from rewriter.runtime.measure import (
    first_difference,
    measure,
    resolve_entry,
    run_eager,
    seed_everything,
)
from tests.golden import Case, load

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
_KIND = re.compile(r'^GOLDEN_KIND = "(\w+)"$', re.M)


def use_fixture_packages() -> None:
    """Make the fake third-party packages importable (and findable by gbfix)."""
    if FIXTURES not in sys.path:
        sys.path.insert(0, FIXTURES)


def golden_kind(case: Case) -> Optional[str]:
    match = _KIND.search(case.source)
    return match.group(1) if match else None


# -- stand-ins for the data-parallel wrappers --------------------------------------------


def _stub_classes() -> tuple[type, type]:
    from torch import nn

    class StubDDP(nn.Module):
        """Holds the module like DistributedDataParallel, without a process group."""

        def __init__(self, module: nn.Module, *args: Any, **kwargs: Any) -> None:
            super().__init__()
            self.module = module

        def forward(self, *args: Any, **kwargs: Any) -> Any:
            return self.module(*args, **kwargs)

    class StubFSDP(StubDDP):
        """Holds the module like FullyShardedDataParallel."""

    return StubDDP, StubFSDP


STUBS: dict[str, Any] = {}


def stub_fully_shard(module: Any, **kwargs: Any) -> Any:
    module.stub_sharded = True
    return module


def _stubs() -> dict[str, Any]:
    if not STUBS:
        ddp, fsdp = _stub_classes()
        STUBS.update(ddp=ddp, fsdp=fsdp)
    return STUBS


@contextlib.contextmanager
def parallel_stubs() -> Iterator[None]:
    """DDP, FSDP and ``fully_shard`` replaced where a case imports them from."""
    import torch.distributed.fsdp as fsdp
    import torch.nn.parallel as parallel

    # Only the package-level names: Dynamo itself reads the classes from
    # their defining modules, which must stay real.
    stubs = _stubs()
    patches = [
        (parallel, "DistributedDataParallel", stubs["ddp"]),
        (fsdp, "FullyShardedDataParallel", stubs["fsdp"]),
        (fsdp, "fully_shard", stub_fully_shard),
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in patches]
    try:
        for owner, name, value in patches:
            setattr(owner, name, value)
        yield
    finally:
        for owner, name, value in saved:
            setattr(owner, name, value)


def _load(path: str, source: str, tag: str) -> tuple[Any, Any, tuple]:
    module = load(path, source, tag)
    fn = resolve_entry(module.ENTRY)
    seed_everything(1)
    return module, fn, module.example_inputs()


# -- checks ----------------------------------------------------------------------------------


def check_case(case: Case) -> None:
    kind = golden_kind(case)
    if kind == "placement":
        # Stubs for the whole run: a case may look DDP up when it calls it.
        with parallel_stubs():
            check_placement(case)
    elif kind == "strict":
        check_strict(case)
    elif kind == "cause":
        from tests.golden_cause import check_cause

        check_cause(case)
    else:
        raise AssertionError(f"{case}: unknown GOLDEN_KIND {kind!r}")


def _run_forced_eager(fn: Any, args: tuple) -> Any:
    import torch

    with torch.compiler.set_stance("force_eager"):
        return run_eager(fn, args)


def _run_counting_graphs(fn: Any, args: tuple) -> tuple[Any, int]:
    """Run ``fn`` (which compiles internally) from a fresh Dynamo state; count graphs.

    ``counters["frames"]`` stays empty under ``fullgraph=True``; the graph
    count does not.
    """
    import torch._dynamo
    from torch._dynamo.utils import counters

    torch._dynamo.reset()
    counters.clear()
    result = run_eager(fn, args)
    return result, int(counters["stats"]["unique_graphs"])


def check_placement(case: Case) -> None:
    from torch._dynamo.eval_frame import OptimizedModule

    _, before_fn, args = _load(case.input_path, case.source, "before")
    reference, reference_model = _run_forced_eager(before_fn, args)
    (compiled_output, _), _ = _run_counting_graphs(before_fn, args)
    assert first_difference(reference, compiled_output) is None
    expected = case.expected
    if expected is None:
        return
    assert _holds(reference_model, OptimizedModule), "the input should compile through a wrapper"
    _, after_fn, after_args = _load(case.output_path, expected, "after")
    (output, model), graphs = _run_counting_graphs(after_fn, after_args)
    assert first_difference(reference, output) is None, "compiled output differs from eager"
    assert graphs > 0, "the rewritten code compiled nothing"
    assert not _holds(model, OptimizedModule), "an OptimizedModule is left"
    before_keys = {k.replace("_orig_mod.", "") for k in reference_model.state_dict()}
    after_keys = set(model.state_dict())
    assert not any("_orig_mod." in k for k in after_keys)
    assert after_keys == before_keys
    if case.rule == "GBF006":
        _check_inner_compiled(model)
    else:
        assert any(m._compiled_call_impl is not None for m in model.modules()), "not compiled in place"


def _holds(model: Any, cls: type) -> bool:
    return isinstance(model, cls) or any(isinstance(m, cls) for m in model.modules())


def _check_inner_compiled(model: Any) -> None:
    stubs = _stubs()
    if isinstance(model, (stubs["ddp"], stubs["fsdp"])):
        assert model._compiled_call_impl is None, "the wrapper itself was compiled"
        inner = model.module
    else:
        inner = model  # fully_shard returns the module itself
        assert getattr(inner, "stub_sharded", False), "fully_shard was not applied"
    assert inner._compiled_call_impl is not None, "the inner module was not compiled"


def check_strict(case: Case) -> None:
    import torch._dynamo.exc

    module, before_fn, args = _load(case.input_path, case.source, "before")
    reference = run_eager(before_fn, args)
    expected = case.expected
    if expected is None and not getattr(module, "EXPECT_RAISES", False):
        output, _ = measure(before_fn, args)
        assert first_difference(reference, output) is None
        return
    try:
        measure(before_fn, args)
    except torch._dynamo.exc.Unsupported:
        pass
    else:
        raise AssertionError("the input should raise under error_on_graph_break(True)")
    if expected is None:
        return  # a declined fix: the strict code still raises, as before
    _, after_fn, after_args = _load(case.output_path, expected, "after")
    assert first_difference(reference, run_eager(after_fn, after_args)) is None, "eager behaviour changed"
    output, stats = measure(after_fn, after_args)
    assert first_difference(reference, output) is None, "compiled output differs"
    assert stats.breaks, "the third-party break should now be allowed, and recorded"
