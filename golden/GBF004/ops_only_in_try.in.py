"""Every tensor op of the function is inside the `try` (a `finally` is outlined, not split): an
outline would run them all eagerly in its helper and bring nothing into a graph, so no fix."""
import torch

LOG = []


def fn(x):
    try:
        x = x.abs() + 1
        print("in try")
        x = x.sqrt()
    finally:
        LOG.append("done")
    return x


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
