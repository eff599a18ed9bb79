"""Hostile: the twin of scaled_relu_cpp.py whose build writes outside its own folder, into the folder beside it in
the judge's cache where another solution's build would be (a later run of that solution would load what this one
left).  The sandbox gives the worker its own build folder only: the build fails, and nothing is written there."""
import os

import torch.nn as nn
from torch.utils.cpp_extension import load_inline

_elsewhere = os.path.join(os.path.dirname(os.environ["TORCH_EXTENSIONS_DIR"]), "planted-by-a-solution")
os.makedirs(_elsewhere, exist_ok=True)  # load_inline builds in a build_directory that exists
_extension = load_inline(name="planted", cpp_sources="int planted() { return 1; }", functions=["planted"],
                         build_directory=_elsewhere, verbose=False)


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x.clamp_min(0) * self.scale
