"""The same stack padding by plain numbers: `F.pad` traces, nothing breaks, nothing is reported."""
import torch
from torch import nn


class Conv(nn.Module):
    def __init__(self, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(2, 2, kernel_size)
        self.padding_total = kernel_size - 1

    @staticmethod
    def _pad1d(hidden: torch.Tensor, paddings: tuple[int, int]):
        return nn.functional.pad(hidden, paddings)

    def forward(self, hidden):
        hidden = self._pad1d(hidden, (self.padding_total, hidden.shape[-1] % 2))
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
EXPECT_SKIPPED_AFTER = 0


def example_inputs():
    return (torch.ones(1, 2, 8),)
