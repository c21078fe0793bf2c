"""Trips that end by appending to lists. Two appends of names the body binds: the per-trip
function returns both and the loop helper appends them. A trip that may `continue` before
its append: the `continue` stays with the loop helper (the statements up to the last break
run there), so a skipped trip appends nothing; where the `continue` stays in the function
(the work before it runs per trip too), so does the append."""
import torch


def encode(x, chunks=(0, 2, 4), keep=(True, False, True)):
    codes = []
    scales = []

    def _gbfix_chunks_loop_1():
        def _gbfix_offset_step_2(frame):
            code, scale = frame.tanh(), frame.abs().max()
            return code, scale

        for offset in chunks:
            frame = x[offset : offset + 2] * 2
            print("chunk", offset)
            code, scale = _gbfix_offset_step_2(frame)
            codes.append(code)
            scales.append(scale)

    _gbfix_chunks_loop_1()
    kept = []

    def _gbfix_keep_loop_3():
        def _gbfix_step_4(c):
            return c.relu()

        for flag, c in zip(keep, codes):
            if not flag:
                print("drop")
                continue
            kept.append(_gbfix_step_4(c))

    _gbfix_keep_loop_3()

    def _gbfix_codes_loop_5():
        def _gbfix_step_6(i, d):
            y = d.sin().cos().exp()
            if i == 1:
                print("skip", i)
                return
            kept.append(y)

        for i, d in enumerate(codes):
            _gbfix_step_6(i, d)

    _gbfix_codes_loop_5()
    return torch.cat(kept).sum() + torch.stack(scales).sum()


ENTRY = encode
EXPECT_SKIPPED_AFTER = 3


def example_inputs():
    return (torch.linspace(-1.0, 1.0, 6),)
