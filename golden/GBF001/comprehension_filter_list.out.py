"""`[y for y in ys if y.sum() > 0]` over a list of tensors made in place: the filter reads each one's values."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        def _gbfix_inner_1(i):
            nonlocal x
            ys = [x * k for k in (-1.0, 2.0)]
            kept = [y for y in ys if y.sum() > 0]
            x = x + kept[0]

        _gbfix_inner_1(0)
        _gbfix_inner_1(1)
        _gbfix_inner_1(2)
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
