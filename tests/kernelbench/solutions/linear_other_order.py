"""2_Linear, but a scratch parameter is made before the layer: the seeded draws then give the layer other
weights than Model's, and the outputs differ (what KernelBench's eval does too)."""
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, in_features: int, out_features: int):
        super().__init__()
        self.scratch = nn.Parameter(torch.randn(16))
        self.linear = nn.Linear(in_features, out_features)

    def forward(self, x):
        return self.linear(x)
