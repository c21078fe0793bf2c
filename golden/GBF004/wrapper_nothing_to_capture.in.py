"""A decorator's wrapper breaks inside its try, but runs no tensor op of its own: nothing to capture."""
import functools
import time

import torch

CALLS = []


def timed(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            CALLS.append(time.perf_counter())
            return func(*args, **kwargs)
        finally:
            CALLS.append(func.__name__)

    return wrapper


@timed
def fn(x):
    x = x.abs() + 1
    return x.sqrt()


ENTRY = fn


def example_inputs():
    return (torch.randn(3),)
