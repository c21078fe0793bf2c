"""A WaveNet-style stack (VITS): each trip reads a scale from the device, then runs the layer that
`self.res_layers[i]` picks. Picking a submodule by the trip's int pins it: a per-trip function would
be compiled again for every layer (of every instance) up to Dynamo's recompile limit. The loop is
outlined whole instead: the trips run in the loop helper, the work around it compiles."""
import torch
from torch import nn


class WaveNet(nn.Module):
    def __init__(self, num_layers=3, hidden=4):
        super().__init__()
        torch.manual_seed(0)
        self.num_layers = num_layers
        self.in_layers = nn.ModuleList([nn.Linear(hidden, hidden) for _ in range(num_layers)])
        self.res_layers = nn.ModuleList([nn.Linear(hidden, hidden) for _ in range(num_layers)])

    def forward(self, inputs, scales):
        outputs = torch.zeros_like(inputs)
        inputs = inputs.tanh()

        def _gbfix_loop_1():
            nonlocal inputs, outputs
            for i in range(self.num_layers):
                hidden = self.in_layers[i](inputs)
                k = int(scales[i].item())
                acts = torch.tanh(hidden) * k
                res = self.res_layers[i](acts)
                if i < self.num_layers - 1:
                    inputs = inputs + res
                outputs = outputs + res

        _gbfix_loop_1()
        return outputs * 2


ENTRY = WaveNet
# the loop helper that runs the trips is skipped
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 8).reshape(2, 4), torch.tensor([1.0, 2.0, 3.0]))
