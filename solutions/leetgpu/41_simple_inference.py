# Simple inference for LeetGPU's easy/41_simple_inference: its PyTorch starter, filled in.
#
# Teaches: a model as an argument. solve() gets the nn.Module itself (an nn.Linear here);
# the judge ships it to the solution's process as data (torch.nn's own class, its
# attributes and weights; never a pickle) and every call gets its own copy. Run it with
# gradients off and write the result into the output in place.
# Judge it with a checkout of github.com/AlphaGPU/leetgpu-challenges:
#   judge run .leetgpu/challenges/easy/41_simple_inference solutions/leetgpu/41_simple_inference.py
import torch
import torch.nn as nn


# input, model, and output are on the GPU
def solve(input: torch.Tensor, model: nn.Module, output: torch.Tensor):
    with torch.no_grad():
        output.copy_(model(input))
