import ctypes

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    """In place and not idempotent: a timed call that saw the previous call's result would be wrong."""

    name = "In-place Affine (test)"
    atol = 0
    rtol = 0
    num_gpus = 1

    def reference_impl(self, data, N):
        data.mul_(2).add_(1)

    def get_solve_signature(self):
        return {"data": (ctypes.POINTER(ctypes.c_float), "inout"), "N": (ctypes.c_int, "in")}

    def generate_example_test(self):
        return {"data": torch.tensor([-1.0, 2.0, -3.0], device=self.device), "N": 3}

    def generate_functional_test(self):
        return [{"data": torch.randn(n, device=self.device), "N": n} for n in (5, 999)]

    def generate_performance_test(self):
        return {"data": torch.randn(1 << 20, device=self.device), "N": 1 << 20}
