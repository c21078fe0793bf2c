# golden: --unsafe-fixes
import torch
from torch import nn

GOLDEN_KIND = "cause"
PRINTED = "none"
OPS_IN_GRAPH = 6


class Gate(nn.Module):
    """A library module: this file compiles nothing, so the fix is a guard, not a setting."""

    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        for step in range(2):
            x = torch.sigmoid(self.proj(x)) * x
            if not torch.compiler.is_compiling():
                print(f"gate step {step}: {x.abs().max()}")
        return x


ENTRY = Gate


def example_inputs():
    return (torch.randn(3, 4),)
