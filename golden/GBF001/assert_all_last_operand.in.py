"""`assert i >= 0 and (x > -100).all()`: Dynamo traces the assert's jump on its last operand: no skip."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        for i in range(3):
            assert i >= 0 and (x > -100).all()
            x = x * 2
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
