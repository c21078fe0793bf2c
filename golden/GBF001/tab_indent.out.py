"""A tab-indented function in a file that indents with spaces keeps its tabs."""
import torch


def scale(x):
    return x * 2


def step(x):
	x = x.sin()

	def _gbfix_inner_1(i):
		nonlocal x
		x = x * 1.5 + i
		print("iteration", i, x.shape)

	_gbfix_inner_1(0)
	_gbfix_inner_1(1)
	_gbfix_inner_1(2)
	return x.cos()


ENTRY = step


def example_inputs():
    return (torch.randn(4, 8),)
