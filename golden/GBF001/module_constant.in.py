"""A trip count from a module constant bound once: the loop is unrolled like `range(3)`."""
import torch

NUM_STEPS = 3


def step(x):
    x = x.sin()
    for i in range(NUM_STEPS):
        x = x * 1.5 + i
        print("iteration", i)
    return x.cos()


ENTRY = step


def example_inputs():
    return (torch.randn(4, 8),)
