"""One-argument `torch.where` breaks in a loop; the three-argument form does not (left alone)."""
import torch


class Picker(torch.nn.Module):
    def forward(self, x):
        def _gbfix_inner_1(i):
            nonlocal x
            x = x + torch.where(x > 1)[0].sum()

        _gbfix_inner_1(0)
        _gbfix_inner_1(1)
        for i in range(2):
            x = torch.where(x > 0, x, -x) + i
        return x


ENTRY = Picker


def example_inputs():
    return (torch.tensor([1.0, 2.0, 3.0, 0.5]),)
