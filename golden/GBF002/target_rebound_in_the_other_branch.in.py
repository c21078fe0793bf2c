"""A loop target the trip rebinds, that the other branch of an `if` outside any loop binds and reads
too (encodec's decode): that branch never sees the loop's value, so the per-trip function takes the
target as a parameter, with no `nonlocal`."""
import torch


def decode(codes: torch.Tensor, pad: int):
    if codes.shape[0] == 1:
        frame = codes[0]
        if pad > 0:
            frame = frame[..., :-pad]
        out = frame.sin()
    else:
        decoded = []
        for i, frame in enumerate(codes):
            print("frame", i)
            if i == codes.shape[0] - 1 and pad > 0:
                frame = frame[..., :-pad]
            decoded.append(frame.cos() * 2)
        out = torch.cat(decoded, -1)
    return out


def run(codes: torch.Tensor):
    return decode(codes, 2)


ENTRY = run
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3, 4, 6),)
