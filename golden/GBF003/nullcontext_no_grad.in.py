"""nullcontext() + no_grad(): Dynamo resumes in both; must stay unchanged."""
import contextlib

import torch


def fn(x):
    with contextlib.nullcontext():
        with torch.no_grad():
            x = x + 1
            torch._dynamo.graph_break()
    return x + 1


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
