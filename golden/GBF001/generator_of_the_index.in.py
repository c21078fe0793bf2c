"""A generator expression made in the loop reads the loop variable when it is consumed, after the loop:
unrolled, each would see its own value. The loop is outlined with the variable shared instead."""
import torch


def offsets(x):
    gens = []
    for i in range(3):
        x = x + 1
        print("step", i)
        gens.append(j + i for j in range(2))
    return x, torch.tensor([list(g) for g in gens])


ENTRY = offsets


def example_inputs():
    return (torch.ones(2),)
