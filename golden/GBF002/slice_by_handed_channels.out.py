"""A gated activation split at a channel count the caller hands as an element of a tensor
(`widths[0]`): slicing by that parameter reads the tensor's value (`Tensor.__index__`), so the
call inside the layer loop breaks where Dynamo cannot resume, and `forward` is skipped."""
import torch
from torch import nn


def split_gate(acts, width):
    return torch.tanh(acts[:, :width]) * torch.sigmoid(acts[:, width:])


class GatedStack(nn.Module):
    def __init__(self, width=4, depth=3):
        super().__init__()
        self.width = width
        self.convs = nn.ModuleList([nn.Conv1d(width, 2 * width, 1) for _ in range(depth)])
        self.out = nn.Conv1d(width, width, 1)

    def forward(self, x):
        widths = torch.LongTensor([self.width])
        total = torch.zeros_like(x)

        def _gbfix_convs_loop_1():
            nonlocal total, x

            def _gbfix_conv_step_2(gated):
                nonlocal total, x
                x = (x + gated).relu()
                total = total + gated

            for conv in self.convs:
                gated = split_gate(conv(x), widths[0])
                _gbfix_conv_step_2(gated)

        _gbfix_convs_loop_1()
        return self.out(total) * 0.5


ENTRY = GatedStack
EXPECT_SKIPPED_AFTER = 2
#: `split_gate` slices by its parameter where Dynamo cannot resume: skipped before and after
STILL_SKIPPED = ("split_gate",)


def example_inputs():
    return (torch.randn(2, 4, 6),)
