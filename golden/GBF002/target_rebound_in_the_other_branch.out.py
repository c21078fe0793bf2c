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

        def _gbfix_codes_loop_1():
            def _gbfix_step_2(i, frame):
                if i == codes.shape[0] - 1 and pad > 0:
                    frame = frame[..., :-pad]
                return frame.cos() * 2

            for i, frame in enumerate(codes):
                print("frame", i)
                decoded.append(_gbfix_step_2(i, frame))

        _gbfix_codes_loop_1()
        out = torch.cat(decoded, -1)
    return out


def run(codes: torch.Tensor):
    return decode(codes, 2)


ENTRY = run
EXPECT_SKIPPED_AFTER = 1


def example_inputs():
    return (torch.randn(3, 4, 6),)
