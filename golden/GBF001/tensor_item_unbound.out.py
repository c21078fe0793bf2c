"""`torch.Tensor.item(t)`: the method called through the class, the tensor its first argument."""
import torch


class Model(torch.nn.Module):
    def forward(self, x):
        def _gbfix_inner_1(i):
            nonlocal x
            x = x * torch.Tensor.item(x.mean())

        _gbfix_inner_1(0)
        _gbfix_inner_1(1)
        _gbfix_inner_1(2)
        return x.relu()


ENTRY = Model


def example_inputs():
    return (torch.tensor([1.0, -2.0, 3.0, 0.5]),)
