"""`x.nonzero()` as a method: a data-dependent output shape, a break inside the loop."""
import torch


class Counter(torch.nn.Module):
    def forward(self, x):
        def _gbfix_inner_1(i):
            nonlocal x
            x = x + x.nonzero().sum() * (i + 1)

        _gbfix_inner_1(0)
        _gbfix_inner_1(1)
        _gbfix_inner_1(2)
        return x.relu()


ENTRY = Counter


def example_inputs():
    return (torch.tensor([1.0, 0.0, 3.0, 0.5]),)
