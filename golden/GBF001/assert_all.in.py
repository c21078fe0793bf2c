"""`assert torch.isfinite(x).all()` in a loop: Dynamo traces an assert on a tensor without a break."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        for i in range(3):
            assert torch.isfinite(x).all()
            x = x * 2 - i
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
