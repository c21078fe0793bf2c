"""`[y for y in ys if y.sum() > 0]` over a list of tensors made in place: the filter reads each one's values."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        for i in range(3):
            ys = [x * k for k in (-1.0, 2.0)]
            kept = [y for y in ys if y.sum() > 0]
            x = x + kept[0]
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
