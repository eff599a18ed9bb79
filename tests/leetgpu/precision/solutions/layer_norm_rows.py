"""An honest float32 layer normalisation (issue 39), for LeetGPU's medium/113_layer_normalization: one
program per row, the row's mean, then its variance from the centred values (two passes over registers),
then weight * (x - mean) / sqrt(var + eps) + bias."""
import torch
import triton
import triton.language as tl


@triton.jit
def layer_norm(x, w, b, y, cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    offs = tl.arange(0, BLOCK)
    mask = offs < cols
    values = tl.load(x + row * cols + offs, mask=mask, other=0.0)
    mean = tl.sum(values, axis=0) / cols
    centred = tl.where(mask, values - mean, 0.0)
    var = tl.sum(centred * centred, axis=0) / cols
    out = centred / tl.sqrt(var + eps) * tl.load(w + offs, mask=mask, other=0.0) + tl.load(b + offs, mask=mask, other=0.0)
    tl.store(y + row * cols + offs, out, mask=mask)


def solve(input: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor, output: torch.Tensor, N: int, C: int,
          eps: float):
    layer_norm[(N,)](input, weight, bias, output, C, eps, BLOCK=triton.next_power_of_2(C))
