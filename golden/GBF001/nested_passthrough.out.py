"""Nested unrolled loops: the outer helper passes the parent's `x` through.

A bare declaration in the outer helper would have made `x` its own, unbound,
variable (found by the fuzzer); the helper shares it with `nonlocal` instead."""
import torch


def f(x):
    x = x.sin()

    def _gbfix_inner_1(i):
        nonlocal x
        torch._dynamo.graph_break()

        def _gbfix_inner_2(j):
            nonlocal x
            torch._dynamo.graph_break()
            x += 1

        _gbfix_inner_2(0)
        _gbfix_inner_2(1)

    _gbfix_inner_1(0)
    _gbfix_inner_1(1)
    return x.cos()


ENTRY = f


def example_inputs():
    return (torch.ones(3),)
