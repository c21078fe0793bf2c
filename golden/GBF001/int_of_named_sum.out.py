"""`int(total)` of a name bound once to a tensor (`total = x.sum()`) reads its value."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        def _gbfix_inner_1(i):
            nonlocal x
            total = x.sum()
            x = x * int(total)

        _gbfix_inner_1(0)
        _gbfix_inner_1(1)
        _gbfix_inner_1(2)
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
