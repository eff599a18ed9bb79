"""Writes the answer over its input and returns the input (no output allocated)."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x.relu_().mul_(self.scale)
