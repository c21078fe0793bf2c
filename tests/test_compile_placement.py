"""GBF005/GBF006/GBF007: where torch.compile goes, checked on real torch runs.

* GBF005: after the rewrite ``state_dict()`` keys carry no ``_orig_mod.``
  and outputs are those of the original.
* GBF006: no process group: the rewritten source compiles the inner module
  before wrapping it, and the object compiled is the inner one (a stub stands
  in for DDP, which needs a process group to be built).
* GBF007: under ``error_on_graph_break(True)`` the original raises and the
  rewritten code runs with equal outputs.

Plus the shared analysis they stand on: module evidence and the third-party
source lookup.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from dataclasses import replace
from types import ModuleType
from typing import Any, Optional

import libcst as cst
import pytest
import torch
import torch._dynamo
from libcst.metadata import MetadataWrapper

from codemods.analysis import third_party
from codemods.analysis.module_evidence import (
    EVIDENCE_METADATA,
    Evidence,
    ModuleFacts,
    is_torch_nn_class,
)
from rewriter.engine.config import Settings
from rewriter.engine.pipeline import transform_source
from rewriter.runtime.measure import first_difference, measure
from tests.golden import ROOT
from tests.golden_placement import FIXTURES, parallel_stubs, use_fixture_packages

use_fixture_packages()


def rewrite(source: str, *codes: str, path: str = "", **settings: Any) -> tuple[Optional[str], list]:
    text = textwrap.dedent(source)
    where = path or os.path.join(ROOT, "scratch", "case.py")
    outcome = transform_source(text, where, Settings(select=codes, **settings))
    return outcome.new_text, list(outcome.findings)


def load(source: str, name: str) -> ModuleType:
    module = ModuleType(name)
    sys.modules[name] = module  # Dynamo looks a frame's globals up by module name
    exec(compile(textwrap.dedent(source), f"<{name}>", "exec"), module.__dict__)
    return module


# -- GBF005 ------------------------------------------------------------------------------

TRAIN = """
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)
        self.b = nn.Linear(4, 2)

    def forward(self, x):
        return self.b(torch.relu(self.a(x)))


def build():
    torch.manual_seed(0)
    model = Net().cpu().train()
    model = torch.compile(model, backend="eager", dynamic=False)
    return model
"""


def test_module_compile_keeps_state_dict_keys_and_outputs():
    after, findings = rewrite(TRAIN, "GBF005")
    assert after is not None and [f.fix for f in findings] == ["safe"]
    assert 'model.compile(backend="eager", dynamic=False)' in after
    before_model = load(TRAIN, "gbf005_before").build()
    after_model = load(after, "gbf005_after").build()
    assert all(k.startswith("_orig_mod.") for k in before_model.state_dict())
    assert list(after_model.state_dict()) == [k.removeprefix("_orig_mod.") for k in before_model.state_dict()]
    assert type(after_model).__name__ == "Net"
    # A checkpoint of the rewritten model loads into a plain, uncompiled Net.
    plain = load(TRAIN, "gbf005_plain").Net()
    plain.load_state_dict(after_model.state_dict())
    x = torch.randn(3, 4)
    torch._dynamo.reset()
    assert first_difference(before_model(x), after_model(x)) is None
    assert first_difference(plain(x), after_model(x)) is None


def test_module_compile_declines_without_evidence_and_for_functions():
    source = """
    import torch

    def f(x):
        return x

    g = torch.compile(f)
    h = torch.compile(lambda x: x)

    @torch.compile(mode="reduce-overhead")
    def k(x):
        return x

    model = torch.compile(load_model())
    """
    after, findings = rewrite(source, "GBF005")
    assert after is None
    assert [(f.line, f.fix) for f in findings] == [(14, "none")]
    assert "nothing in this file shows" in findings[0].note


def test_module_compile_is_silent_on_a_method_of_the_class():
    source = """
    import torch

    class Runner:
        def __init__(self, model):
            self.model = model
            self.step = torch.compile(self._step)
            self.other = torch.compile(self.swapped)

        def _step(self, x):
            return self.model(x)

        def swapped(self, x):
            return x

        def swap(self, module):
            self.swapped = module
    """
    after, findings = rewrite(source, "GBF005")
    assert after is None
    # `self._step` is a method; `self.swapped` is also assigned, so it may be a module.
    assert [(f.line, f.fix) for f in findings] == [(8, "none")]


def test_module_compile_is_unsafe_when_the_original_name_is_used_later():
    source = """
    import torch
    from torch import nn

    class Net(nn.Module):
        def forward(self, x):
            return x

    def run(x):
        model = Net()
        fast = torch.compile(model)
        return fast(x) + model(x)
    """
    after, findings = rewrite(source, "GBF005")
    assert after is None and findings[0].fix == "unsafe"
    after, _ = rewrite(source, "GBF005", fix_mode="unsafe")
    assert after is not None and "model.compile()\n    fast = model\n" in after


# -- GBF006 -------------------------------------------------------------------------------

DDP_SCRIPT = """
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x) * 2


def setup():
    torch.manual_seed(0)
    net = Net()
    ddp = DDP(torch.compile(net, backend="eager"), broadcast_buffers=False)
    return ddp
"""


def test_compile_inner_rewrites_the_source_in_order():
    after, findings = rewrite(DDP_SCRIPT, "GBF005", "GBF006")
    assert [f.code for f in findings] == ["GBF006"]
    assert after is not None
    lines = after.splitlines()
    compile_at = lines.index('    net.compile(backend="eager")')
    assert lines[compile_at + 1] == "    ddp = DDP(net, broadcast_buffers=False)"


def test_compile_inner_compiles_the_inner_module_not_the_wrapper():
    from torch._dynamo.eval_frame import OptimizedModule

    after, _ = rewrite(DDP_SCRIPT, "GBF006")
    assert after is not None
    with parallel_stubs():
        before = load(DDP_SCRIPT, "gbf006_before").setup()
        ddp = load(after, "gbf006_after").setup()
    assert isinstance(before.module, OptimizedModule)
    assert type(ddp).__name__ == "StubDDP" and type(ddp.module).__name__ == "Net"
    assert ddp._compiled_call_impl is None
    assert ddp.module._compiled_call_impl is not None
    assert not any("_orig_mod" in k for k in ddp.state_dict())
    x = torch.randn(2, 4)
    torch._dynamo.reset()
    assert first_difference(before(x), ddp(x)) is None


def test_compile_inner_resolves_aliases_by_qualified_name():
    source = """
    import torch
    import torch.nn.parallel as par
    from torch import nn

    class Net(nn.Module):
        def forward(self, x):
            return x

    class DDP(nn.Module):  # a local class that only shares the name
        def __init__(self, m):
            super().__init__()
            self.m = m

    def a(m: Net):
        return torch.compile(par.DistributedDataParallel(m))

    def b(m: Net):
        return torch.compile(DDP(m))
    """
    # `m` is a parameter: compiled in place, the caller's module runs compiled too, so the fix is unsafe
    after, findings = rewrite(source, "GBF006", fix_mode="unsafe")
    assert [f.line for f in findings] == [16]
    assert after is not None and "m.compile()\n    return par.DistributedDataParallel(m)" in after


# -- GBF007 -------------------------------------------------------------------------------

STRICT = """
import torch
from thirdparty_pkg import Encoder

torch.manual_seed(0)
encoder = Encoder()


@torch._dynamo.error_on_graph_break(True)
def infer(x):
    return encoder(x) - 1
"""


def test_third_party_forward_original_raises_rewritten_runs():
    after, findings = rewrite(STRICT, "GBF007")
    assert after is not None and [f.fix for f in findings] == ["safe"]
    assert "logging call at thirdparty_pkg/encoder.py:" in findings[0].message
    assert "encoder.forward = torch._dynamo.error_on_graph_break(False)(encoder.forward)\n" in after
    x = torch.randn(2, 8)
    before = load(STRICT, "gbf007_before")
    with pytest.raises(torch._dynamo.exc.Unsupported):
        measure(before.infer, (x,))
    rewritten = load(after, "gbf007_after")
    reference = before.infer(x)
    output, stats = measure(rewritten.infer, (x,))
    assert first_difference(reference, output) is None
    assert stats.graphs >= 1 and stats.breaks


def test_third_party_forward_settings_decide_what_is_third_party(tmp_path):
    source = """
    import torch
    from somelib import Encoder

    encoder = Encoder()

    @torch._dynamo.error_on_graph_break(True)
    def infer(x):
        return encoder(x)
    """
    assert rewrite(source, "GBF007") == (None, [])
    after, findings = rewrite(source, "GBF007", breaking_third_party=("somelib",))
    assert after is not None and "listed in breaking_third_party" in findings[0].message
    assert rewrite(source, "GBF007", breaking_third_party=("somelib",), first_party=("somelib",)) == (None, [])
    # The fake package found under the project root is first-party; listed, third-party.
    inside = os.path.join(FIXTURES, "app.py")
    assert rewrite(STRICT, "GBF007", path=inside) == (None, [])
    after, _ = rewrite(STRICT, "GBF007", path=inside, third_party=("thirdparty_pkg",))
    assert after is not None


def test_third_party_forward_leaves_non_breaking_and_non_strict_calls():
    source = """
    import torch
    from thirdparty_pkg import Encoder, Quiet

    quiet = Quiet()
    encoder = Encoder()

    @torch._dynamo.error_on_graph_break(True)
    def infer(x):
        def later(y):
            return encoder(y)
        with torch._dynamo.error_on_graph_break(False):
            x = encoder(x)
        return quiet(x), later

    def loose(x):
        return encoder(x)
    """
    assert rewrite(source, "GBF007") == (None, [])


def test_third_party_forward_declines_objects_built_in_the_strict_region():
    source = """
    import torch
    from thirdparty_pkg import Encoder

    @torch._dynamo.error_on_graph_break(True)
    def infer(x):
        enc = Encoder()
        return enc(x)
    """
    after, findings = rewrite(source, "GBF007")
    assert after is None
    assert findings[0].fix == "none" and "inside the strict region" in findings[0].note


def test_third_party_forward_unsafe_for_copied_names():
    source = STRICT + "\nimport copy\nbackup = copy.deepcopy(encoder)\n"
    after, findings = rewrite(source, "GBF007")
    assert after is None and findings[0].fix == "unsafe"


# -- the shared analysis -------------------------------------------------------------------


class _Probe(cst.CSTVisitor):
    """Evidence for the argument of the last ``probe(...)`` call in a module."""

    METADATA_DEPENDENCIES = EVIDENCE_METADATA

    def __init__(self) -> None:
        super().__init__()
        self.found: list[cst.BaseExpression] = []
        self.result: Optional[Evidence] = None

    def visit_Call(self, node: cst.Call) -> None:
        if isinstance(node.func, cst.Name) and node.func.value == "probe":
            self.found.append(node.args[0].value)

    def leave_Module(self, original_node: cst.Module) -> None:
        facts = ModuleFacts(original_node, self.get_metadata)
        self.result = facts.evidence(self.found[-1])


def evidence_of(source: str) -> Optional[Evidence]:
    probe = _Probe()
    MetadataWrapper(cst.parse_module(textwrap.dedent(source))).visit(probe)
    return probe.result


def test_is_torch_nn_class_agrees_with_torch():
    from torch import nn

    for name in dir(nn):
        obj = getattr(nn, name)
        if isinstance(obj, type) and name[:1].isupper():
            assert is_torch_nn_class(f"torch.nn.{name}") == issubclass(obj, nn.Module), name
    assert not is_torch_nn_class("torch.nn.functional.relu")
    assert not is_torch_nn_class("torch.nn.utils.rnn.PackedSequence")


@pytest.mark.parametrize(
    "source,is_module,compiles",
    [
        ("import torch as t\nm = t.nn.Linear(2, 2)\nprobe(m)\n", True, False),
        (
            "from torch import nn\nclass A(nn.Module):\n    def forward(self, x): return x\n"
            "class B(A): pass\nm = B().cuda().eval()\nprobe(m)\n",
            True,
            True,
        ),
        ("from torch import nn\nclass S(nn.Sequential): pass\nprobe(S())\n", True, False),
        ("class Linear:\n    pass\nprobe(Linear())\n", None, None),
        ("from transformers import AutoModel\nm = AutoModel.from_pretrained('x')\nprobe(m)\n", True, True),
        ("from transformers import AutoTokenizer\nm = AutoTokenizer.from_pretrained('x')\nprobe(m)\n", None, None),
        ("from torch import nn\ndef f(m: nn.Module):\n    probe(m)\n", True, None),
        ("import torch\ndef f(m):\n    m = m.to('cpu')\n    probe(m)\n", None, None),
        ("import torch\nfrom torch import nn\nm = nn.Linear(2, 2)\nif c:\n    m = make()\nprobe(m)\n", None, None),
        ("import torch\nfrom torch import nn\nm = make()\nm = nn.Linear(2, 2)\nprobe(m)\n", True, False),
    ],
)
def test_module_evidence(source, is_module, compiles):
    found = evidence_of(source)
    if is_module is None:
        assert found is None or not found.is_module
    else:
        assert found is not None and found.is_module == is_module and found.compiles == compiles


def test_module_evidence_follows_straight_line_rebinding_through_a_wrapper():
    source = """
    from torch import nn
    from torch.nn.parallel import DistributedDataParallel as DDP

    class Net(nn.Module):
        def forward(self, x):
            return x

    def f():
        model = Net()
        model = DDP(model)
        probe(model)
    """
    found = evidence_of(source)
    assert found is not None and found.wrapper.endswith("DistributedDataParallel")
    assert found.inner is not None and found.inner.compiles is True


def test_third_party_source_is_read_without_importing(tmp_path):
    package = tmp_path / "loudpkg"
    package.mkdir()
    (package / "__init__.py").write_text("raise RuntimeError('imported!')\nfrom .mod import Thing\n")
    (package / "mod.py").write_text(
        "raise RuntimeError('imported!')\nclass Thing:\n    def forward(self, x):\n        print(x)\n        return x\n"
    )
    sys.path.insert(0, str(tmp_path))
    try:
        found = third_party.source_break("loudpkg.Thing")
        assert found is not None and found.kind == "class" and found.line == 4
        assert "loudpkg" not in sys.modules
        assert third_party.package_kind("loudpkg", (), (), str(ROOT)) == "third"
        assert third_party.package_kind("loudpkg", (), (), str(tmp_path)) == "first"
        hits = third_party._file_facts.cache_info().hits
        third_party.source_break("loudpkg.Thing")
        assert third_party._file_facts.cache_info().hits > hits, "the file should be analysed once"
    finally:
        sys.path.remove(str(tmp_path))


def test_third_party_never_covers_torch_or_the_standard_library():
    assert third_party.package_kind("torch", (), (), "") == "unknown"
    assert third_party.package_kind("logging", (), (), "") == "unknown"
    assert third_party.package_kind("no_such_package_here", (), (), "") == "unknown"


# -- the command line -------------------------------------------------------------------------


@pytest.mark.cli
def test_dry_run_shows_reviewable_diffs_for_training_and_strict_scripts(tmp_path):
    (tmp_path / "train.py").write_text(
        textwrap.dedent("""
        import torch
        from torch import nn
        from torch.nn.parallel import DistributedDataParallel as DDP


        class Net(nn.Module):
            def forward(self, x):
                return x


        def main(rank):
            model = Net().cuda()
            model = torch.compile(model)
            ddp = DDP(model, device_ids=[rank])
            return ddp
    """).lstrip()
    )
    (tmp_path / "serve.py").write_text(STRICT.lstrip())
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([FIXTURES, ROOT]))
    result = subprocess.run(
        [sys.executable, "-m", "rewriter", "apply", ".", "--dry-run"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert result.returncode == 1, result.stderr
    assert "-    model = torch.compile(model)\n+    model.compile()\n" in result.stdout
    assert "+encoder.forward = torch._dynamo.error_on_graph_break(False)(encoder.forward)\n" in result.stdout
    assert "2 would change" in result.stderr


def test_options_carry_the_settings():
    from rewriter.engine.pipeline import rule_options

    settings = replace(Settings(), first_party=("app",), breaking_third_party=("lib.X",))
    options = rule_options(settings, "", "/somewhere/file.py")
    assert options.first_party == ("app",) and options.breaking_third_party == ("lib.X",)
    assert options.project_root == "/somewhere"
