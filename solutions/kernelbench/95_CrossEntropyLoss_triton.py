# Cross entropy for KernelBench's level1/95_CrossEntropyLoss, in Triton.
#
# Teaches: a program a row with an online log-sum-exp (a running maximum), an int64 input, and torch for the
# last mean (KernelBench allows torch calls).
# Judge it with a checkout of github.com/ScalingIntelligence/KernelBench (docs/kernelbench.md):
#   judge run KernelBench/KernelBench/level1/95_CrossEntropyLoss.py solutions/kernelbench/95_CrossEntropyLoss_triton.py
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def row_loss_kernel(x_ptr, target_ptr, loss_ptr, C, stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    base = x_ptr + row * stride
    running_max = tl.full((), float("-inf"), tl.float32)
    total = tl.zeros((), tl.float32)
    for c0 in range(0, C, BLOCK):
        cols = c0 + tl.arange(0, BLOCK)
        x = tl.load(base + cols, mask=cols < C, other=float("-inf"))
        new_max = tl.maximum(running_max, tl.max(x, axis=0))
        total = total * tl.exp(running_max - new_max) + tl.sum(tl.exp(x - new_max), axis=0)
        running_max = new_max
    target = tl.load(target_ptr + row)
    picked = tl.load(base + target)
    tl.store(loss_ptr + row, running_max + tl.log(total) - picked)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, predictions: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        predictions = predictions.contiguous()
        rows, classes = predictions.shape
        losses = torch.empty(rows, device=predictions.device, dtype=torch.float32)
        row_loss_kernel[(rows,)](predictions, targets, losses, classes, predictions.stride(0), BLOCK=1024,
                                 num_warps=4)
        return losses.mean()
