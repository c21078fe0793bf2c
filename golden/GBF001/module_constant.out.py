"""A trip count from a module constant bound once: the loop is unrolled like `range(3)`."""
import torch

NUM_STEPS = 3


def step(x):
    x = x.sin()

    def _gbfix_inner_1(i):
        nonlocal x
        x = x * 1.5 + i
        print("iteration", i)

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    _gbfix_inner_1(2)
    return x.cos()


ENTRY = step


def example_inputs():
    return (torch.randn(4, 8),)
