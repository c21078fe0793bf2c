"""Every tensor op of the function is inside the `with` block that breaks: an outline would run
them all eagerly in its helper and bring nothing into a graph, so the finding has no fix."""
import torch

EVENTS = []


class Tracker:
    def __enter__(self):
        EVENTS.append("enter")
        return self

    def __exit__(self, *exc):
        EVENTS.append("exit")
        return False


def fn(x):
    with Tracker():
        x = x * 2
        print("scaled")
        x = x + 1
    return x


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
