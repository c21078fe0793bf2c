"""Padding undone into Python lists: each trip reads a length off the device (`int()` of a
tensor) and stores `.tolist()` of a slice. The loop's results are lists of Python numbers: host
work, reported with no fix."""
import torch
from torch import nn


def undo_padding(batch, lengths):
    width = batch.shape[1]
    as_list = []
    for seq, seq_length in zip(batch, lengths):
        size = int(torch.round(seq_length * width))
        as_list.append(seq.narrow(0, 0, size).tolist())
    return as_list


class Decoder(nn.Module):
    def forward(self, logits, lengths):
        tokens = logits.argmax(-1)
        return logits.log_softmax(-1), undo_padding(tokens, lengths)


ENTRY = Decoder


def example_inputs():
    return (torch.arange(24.0).reshape(2, 4, 3), torch.tensor([0.5, 1.0]))
