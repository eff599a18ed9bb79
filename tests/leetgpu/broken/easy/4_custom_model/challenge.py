import torch
import torch.nn as nn
from core.challenge_base import ChallengeBase


class Doubler(nn.Module):
    """A model class of the challenge's own: the worker never runs the challenge's code, so it cannot be sent."""

    def forward(self, x):
        return 2 * x


class Challenge(ChallengeBase):
    name = "Custom model class (test)"
    atol = rtol = 0
    num_gpus = 1

    def reference_impl(self, input, model, output):
        output.copy_(model(input))

    def get_solve_signature(self):
        return {"input": (torch.Tensor, "in"), "model": (nn.Module, "in"), "output": (torch.Tensor, "out")}

    def generate_example_test(self):
        return {"input": torch.ones(3, device=self.device), "model": Doubler(),
                "output": torch.empty(3, device=self.device)}

    def generate_functional_test(self):
        return []

    def generate_performance_test(self):
        return self.generate_example_test()
