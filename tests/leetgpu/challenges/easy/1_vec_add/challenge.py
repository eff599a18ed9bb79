import ctypes

import torch
from core.challenge_base import ChallengeBase, OutTensor, RandTensor


class Challenge(ChallengeBase):
    name = "Vector Add (test)"
    atol = 1e-5
    rtol = 1e-5
    num_gpus = 1

    def reference_impl(self, A, B, C, N):
        torch.add(A, B, out=C)

    def get_solve_signature(self):
        return {"A": (ctypes.POINTER(ctypes.c_float), "in"), "B": (ctypes.POINTER(ctypes.c_float), "in"),
                "C": (ctypes.POINTER(ctypes.c_float), "out"), "N": (ctypes.c_int, "in")}

    def _test(self, n):
        return {"A": torch.empty(n, device=self.device).uniform_(-5, 5),
                "B": torch.empty(n, device=self.device).uniform_(-5, 5),
                "C": torch.empty(n, device=self.device), "N": n}

    def generate_example_test(self):
        return {"A": torch.tensor([1.0, 2.0, 3.0], device=self.device),
                "B": torch.tensor([4.0, 5.0, 6.0], device=self.device),
                "C": torch.empty(3, device=self.device), "N": 3}

    def generate_functional_test(self):
        return [self._test(n) for n in (1, 7, 1025, 100_000)]

    def generate_performance_test(self):
        n = 1 << 22
        return {"A": RandTensor((n,), -1.0, 1.0), "B": RandTensor((n,), -1.0, 1.0), "C": OutTensor((n,)), "N": n}
