"""Without --unsafe-fixes a third-party submodule is reported, not rewritten."""
import torch
from torch import nn
from thirdparty_pkg import Block

GOLDEN_KIND = "strict"
EXPECT_RAISES = True


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = Block(8)

    @torch._dynamo.error_on_graph_break(True)
    def forward(self, x):
        return self.block(x)


ENTRY = Model


def example_inputs():
    return (torch.randn(2, 8),)
