"""A transpose whose answer changes from call to call on the same inputs, as a race's does: every second
call adds 1 to one element, a different one each time (issue 39: the message names non-determinism)."""
import torch

calls = 0


def solve(input: torch.Tensor, output: torch.Tensor, rows: int, cols: int):
    global calls
    calls += 1
    output.copy_(input.T)
    if calls % 2 == 0:
        output.view(-1)[calls % output.numel()] += 1.0
