"""Trips that end by appending to lists. Two appends of names the body binds: the per-trip
function returns both and the loop helper appends them. A trip that may `continue` before
its append: the `continue` stays with the loop helper (the statements up to the last break
run there), so a skipped trip appends nothing; where the `continue` stays in the function
(the work before it runs per trip too), so does the append."""
import torch


def encode(x, chunks=(0, 2, 4), keep=(True, False, True)):
    codes = []
    scales = []
    for offset in chunks:
        frame = x[offset : offset + 2] * 2
        print("chunk", offset)
        code, scale = frame.tanh(), frame.abs().max()
        codes.append(code)
        scales.append(scale)
    kept = []
    for flag, c in zip(keep, codes):
        if not flag:
            print("drop")
            continue
        kept.append(c.relu())
    for i, d in enumerate(codes):
        y = d.sin().cos().exp()
        if i == 1:
            print("skip", i)
            continue
        kept.append(y)
    return torch.cat(kept).sum() + torch.stack(scales).sum()


ENTRY = encode
EXPECT_SKIPPED_AFTER = 3


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 6),)
