"""The loop calls a method of the object the tensor is read from (`holder.step()`), which may change
it: nothing is hoisted."""
import torch


class Holder:
    def __init__(self):
        self.scale = torch.tensor(1.0)

    def step(self):
        self.scale.add_(1)


def f(x, holder):
    for i in range(3):
        x = x * holder.scale.item() + i
        holder.step()
    return x


def run(x):
    return f(x, Holder())


ENTRY = run


def example_inputs():
    return (torch.ones(2),)
