import torch
import torch.nn as nn
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    """A model as an argument, in the shape of LeetGPU's easy/41_simple_inference: solve(input, model, output)
    with an nn.Linear (with and without bias), output = model(input)."""

    name = "Simple Inference (test)"
    atol = 1e-05
    rtol = 1e-05
    num_gpus = 1

    def reference_impl(self, input, model, output):
        with torch.no_grad():
            output.copy_(model(input))

    def get_solve_signature(self):
        return {"input": (torch.Tensor, "in"), "model": (nn.Module, "in"), "output": (torch.Tensor, "out")}

    def _test(self, batch, n_in, n_out, bias=True):
        model = nn.Linear(n_in, n_out, bias=bias)
        model.weight.data = torch.randn((n_out, n_in)) * 0.5
        if bias:
            model.bias.data = torch.randn(n_out) * 0.1
        return {"input": torch.randn((batch, n_in), device=self.device), "model": model.to(self.device),
                "output": torch.empty((batch, n_out), device=self.device)}

    def generate_example_test(self):
        model = nn.Linear(2, 2)
        model.weight.data = torch.tensor([[0.5, 1.0], [1.5, 0.5]])
        model.bias.data = torch.tensor([0.1, 0.2])
        return {"input": torch.tensor([[1.0, 2.0]], device=self.device), "model": model.to(self.device),
                "output": torch.empty((1, 2), device=self.device)}

    def generate_functional_test(self):
        return [self._test(3, 1, 1), self._test(2, 3, 2, bias=False), self._test(8, 4, 3), self._test(16, 10, 5)]

    def generate_performance_test(self):
        return self._test(100, 64, 32)
