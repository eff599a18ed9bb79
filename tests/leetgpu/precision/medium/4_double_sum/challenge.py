import ctypes

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    """A sum whose reference adds in float64, as LeetGPU's medium/4_reduction does: its float32 answer is the truth
    rounded once, so every honest float32 order is farther from it; and on inputs that cancel (a sum near zero,
    where the tolerance is atol alone) LeetGPU's atol/rtol reject them all.  On medium/4_reduction that happened on
    a few seeds in a hundred: ``output[:] = torch.sum(input)`` was a wrong answer in one run, accepted in the next."""

    name = "Reduction, float64 reference (test)"
    atol = 1e-5
    rtol = 1e-5
    num_gpus = 1

    def reference_impl(self, input, output, N):
        assert input.dtype == torch.float32
        output[0] = torch.sum(input.double()).float()

    def get_solve_signature(self):
        return {"input": (ctypes.POINTER(ctypes.c_float), "in"), "output": (ctypes.POINTER(ctypes.c_float), "out"),
                "N": (ctypes.c_int, "in")}

    def _test(self, n, cancel=False):
        values = torch.empty(n, device=self.device).uniform_(-1000.0, 1000.0)
        if cancel:  # the last value cancels the others: the sum is within a rounding of zero
            values[-1] = -values[:-1].double().sum().float()
        return {"input": values, "output": torch.empty(1, device=self.device), "N": n}

    def generate_example_test(self):
        return {"input": torch.tensor([1.0, 2.0, 3.0, 4.0], device=self.device),
                "output": torch.empty(1, device=self.device), "N": 4}

    def generate_functional_test(self):
        return [self._test(1), self._test(1000), self._test(10000), self._test(10000, cancel=True)]

    def generate_performance_test(self):
        return self._test(100_000)
