"""Zoo models as ``gbfix advise`` entries, run from ``benchmarks/``.

    cd benchmarks && gbfix advise --entry advise_zoo:mixtral --inputs advise_zoo:no_inputs --device cpu

``advise_zoo:NAME`` is an ``nn.Module`` class with no constructor arguments
(``gbfix advise`` builds it under a fixed seed): it builds the zoo model
``NAME`` at the tiny size on the CPU, from its config class, and its
``forward`` calls the model on the zoo's inputs without autograd, as the
real-model benchmark does. ``advise_zoo:no_inputs`` gives the (empty)
arguments.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import zoo  # noqa: E402


class ZooEntry(torch.nn.Module):
    """One zoo model and its inputs; the class attribute ``model_name`` says which."""

    model_name = ""

    def __init__(self) -> None:
        super().__init__()
        built = zoo.get(self.model_name).build("tiny", "cpu")
        self.model = built.fn
        self.args, self.kwargs = built.args, built.kwargs

    def forward(self) -> Any:
        with torch.no_grad():
            return self.model(*self.args, **self.kwargs)


def no_inputs() -> tuple:
    return ()


def __getattr__(name: str) -> type:
    if name not in zoo.names():
        raise AttributeError(name)
    return type(name, (ZooEntry,), {"model_name": name})
