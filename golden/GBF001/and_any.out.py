"""`if i > 0 and (x > 0).any():`: the right operand of `and` is a tensor whose truth the `if` reads."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        def _gbfix_inner_1(i):
            nonlocal x
            if i > 0 and (x > 0).any():
                x = x - 1
            x = x * 2

        _gbfix_inner_1(0)
        _gbfix_inner_1(1)
        _gbfix_inner_1(2)
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
