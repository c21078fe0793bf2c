"""A tab-indented function in a file that indents with spaces keeps its tabs."""
import torch


def scale(x):
    return x * 2


def step(x):
	x = x.sin()
	for i in range(3):
		x = x * 1.5 + i
		print("iteration", i, x.shape)
	return x.cos()


ENTRY = step


def example_inputs():
    return (torch.randn(4, 8),)
