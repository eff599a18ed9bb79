import torch


# Stand-in PyTorch starter (tests/leetgpu): write model(input) into output.
def solve(input: torch.Tensor, model: torch.nn.Module, output: torch.Tensor):
    pass
