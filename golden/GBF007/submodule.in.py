# golden: --unsafe-fixes
"""A third-party submodule (`self.block`): fixed only with --unsafe-fixes (deepcopy, pickling)."""
import torch
from torch import nn
from thirdparty_pkg import Block

GOLDEN_KIND = "strict"


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Linear(8, 8)
        self.block = Block(8)

    @torch._dynamo.error_on_graph_break(True)
    def forward(self, x):
        return self.block(self.stem(x))


ENTRY = Model


def example_inputs():
    return (torch.randn(2, 8),)
