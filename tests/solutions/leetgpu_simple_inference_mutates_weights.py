"""Right output, then zeroes the model's weights in place: the judge's reference (on its own copy of the
model) is untouched, the next call gets its own model, and the test says the input 'model.weight' changed."""
import torch


def solve(input: torch.Tensor, model: torch.nn.Module, output: torch.Tensor):
    with torch.no_grad():
        output.copy_(model(input))
        model.weight.zero_()
