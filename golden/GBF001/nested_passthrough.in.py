"""Nested unrolled loops: the outer helper passes the parent's `x` through.

A bare declaration in the outer helper would have made `x` its own, unbound,
variable (found by the fuzzer); the helper shares it with `nonlocal` instead."""
import torch


def f(x):
    x = x.sin()
    for i in range(2):
        torch._dynamo.graph_break()
        for j in range(2):
            torch._dynamo.graph_break()
            x += 1
    return x.cos()


ENTRY = f


def example_inputs():
    return (torch.ones(3),)
