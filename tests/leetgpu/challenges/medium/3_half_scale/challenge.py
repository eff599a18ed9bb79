import ctypes

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    name = "Half Scale (test)"
    atol = 1e-3
    rtol = 1e-3
    num_gpus = 1

    def reference_impl(self, x, y, alpha, N):
        y.copy_((x.float() * alpha).half())

    def get_solve_signature(self):
        return {"x": (ctypes.POINTER(ctypes.c_uint16), "in"), "y": (ctypes.POINTER(ctypes.c_uint16), "out"),
                "alpha": (ctypes.c_float, "in"), "N": (ctypes.c_int, "in")}

    def _test(self, n, alpha):
        return {"x": torch.empty(n, device=self.device, dtype=torch.float16).uniform_(-2, 2),
                "y": torch.empty(n, device=self.device, dtype=torch.float16), "alpha": alpha, "N": n}

    def generate_example_test(self):
        return self._test(4, 2.0)

    def generate_functional_test(self):
        return [self._test(n, a) for n, a in ((1, 0.5), (300, -1.5))]

    def generate_performance_test(self):
        return self._test(1 << 20, 3.0)
