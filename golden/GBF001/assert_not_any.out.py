"""`assert not (x > 100).any()`: the truth read under `not` is Dynamo's to make, not the assert's jump."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        def _gbfix_inner_1(i):
            nonlocal x
            assert not (x > 100).any(), "too large"
            x = x * 2

        _gbfix_inner_1(0)
        _gbfix_inner_1(1)
        _gbfix_inner_1(2)
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
