"""The neighbour of the host-work cases: the same kind of loop (a length read off the device per
trip) stores tensors (each row's mean), which the function stacks into its result. That is model
compute: the loop is rewritten, one function per trip."""
import torch
from torch import nn


class Pooling(nn.Module):
    def forward(self, x, lengths):
        x = x * 2
        means = []

        def _gbfix_loop_1():
            def _gbfix_row_step_2(row):
                size = int(torch.round(lengths[row] * x.shape[1]))
                return x[row, :size].mean(dim=0)

            for row in range(x.shape[0]):
                means.append(_gbfix_row_step_2(row))

        _gbfix_loop_1()
        return torch.stack(means)


#: the per-trip function, which breaks at its read, is what stays skipped
EXPECT_SKIPPED_AFTER = 1
ENTRY = Pooling


def example_inputs():
    return (torch.arange(24.0).reshape(2, 4, 3), torch.tensor([0.5, 1.0]))
