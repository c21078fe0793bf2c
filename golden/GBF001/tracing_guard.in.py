"""`not is_tracing(x) and (x == 0).all()`: while Dynamo traces, the guard is False and the tensor's truth is never read."""
import torch


def is_tracing(tensor=None) -> bool:
    return torch.compiler.is_compiling()


class Model(torch.nn.Module):
    def forward(self, x):
        for i in range(3):
            if not is_tracing(x) and (x == 0).all():
                x = x + 1
            done = is_tracing(x) or (x > 100).any()
            x = x * 2 - i
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
