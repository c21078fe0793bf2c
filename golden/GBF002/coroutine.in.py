"""A coroutine is not rewritten: Dynamo cannot resume one after a graph break, so an outline would make it fail."""
import torch


async def scale_steps(x, n):
    for i in range(n):
        x = x * 2
        print("step", i)
    return x + 1


def run(x):
    steps = scale_steps(x, 3)
    try:
        steps.send(None)
    except StopIteration as done:
        return done.value
    raise RuntimeError("the coroutine awaited")


ENTRY = run


def example_inputs():
    return (torch.ones(2),)
