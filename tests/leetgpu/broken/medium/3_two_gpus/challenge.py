import ctypes

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    name = "Two GPUs (test)"
    atol = rtol = 0
    num_gpus = 2

    def reference_impl(self, x, N):
        x.zero_()

    def get_solve_signature(self):
        return {"x": (ctypes.POINTER(ctypes.c_float), "inout"), "N": (ctypes.c_int, "in")}

    def generate_example_test(self):
        return {"x": torch.ones(2, device=self.device), "N": 2}

    def generate_functional_test(self):
        return []

    def generate_performance_test(self):
        return {"x": torch.ones(8, device=self.device), "N": 8}
