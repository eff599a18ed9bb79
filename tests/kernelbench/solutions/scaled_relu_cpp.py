"""1_Scaled_ReLU in C++ through load_inline, cpp_sources only: ninja and g++ build it on any machine, inside the
worker's sandbox (its build folder the one writable folder outside its own)."""
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_source = r"""
#include <torch/extension.h>
torch::Tensor scaled_relu(torch::Tensor x, double scale) {
    return torch::clamp_min(x, 0.0) * scale;
}
"""
_extension = load_inline(name="test_scaled_relu_cpp", cpp_sources=_source, functions=["scaled_relu"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return _extension.scaled_relu(x, self.scale)
