"""A convolution stack whose layers pad by amounts kept in buffers: `F.pad` reads them from the
device, so each layer's call breaks the graph, and the loop over the stack makes Dynamo skip the
model's `forward`. The amounts reach the padding helper from its caller, which the analysis follows
within the file; the stack is built from a local list of layers."""
import torch
from torch import nn


class Conv(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(2, 2, kernel_size)
        self.padding_total = nn.Buffer(torch.tensor(kernel_size - 1), persistent=False)

    def _extra_padding(self, hidden: torch.Tensor) -> torch.Tensor:
        return (self.padding_total + hidden.shape[-1]) % 2

    @staticmethod
    def _pad1d(hidden: torch.Tensor, paddings: tuple[int, int]):
        return nn.functional.pad(hidden, paddings)

    def forward(self, hidden):
        extra = self._extra_padding(hidden)
        hidden = self._pad1d(hidden, (self.padding_total, extra))
        return self.conv(hidden)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        layers = [Conv(3)]
        layers += [nn.ELU()]
        layers.append(Conv(2))
        self.layers = nn.ModuleList(layers)

    def forward(self, x):
        x = torch.tanh(x) * 2
        for layer in self.layers:
            x = layer(x)
        return torch.sigmoid(x) + x.mean()


ENTRY = Model
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.ones(1, 2, 8),)
