"""A decoding loop that carries five names from trip to trip and reads them after (transformers'
`_sample` carries 11): its helper would declare them all `nonlocal`, past what a reviewer reads in
one pass, so it is left as written, with the names in the finding."""
import torch


def decode(x: torch.Tensor, steps: int):
    tokens = x
    scores = x.new_zeros(())
    best = x
    length = 0
    finished = False
    while not finished:
        logits = tokens.sin() * 2
        scores = scores + logits.sum()
        best = torch.maximum(best, logits)
        tokens = logits.cos()
        length += 1
        print("step", length)
        finished = length >= steps
    return tokens, scores, best, length


def run(x: torch.Tensor):
    return decode(x, 3)


ENTRY = run


def example_inputs():
    return (torch.randn(4),)
