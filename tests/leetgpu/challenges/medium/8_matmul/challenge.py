import ctypes

import torch
from core.challenge_base import ChallengeBase, OutTensor, RandTensor


class Challenge(ChallengeBase):
    name = "Matrix Multiplication (test)"
    atol = 1e-5
    rtol = 1e-5
    num_gpus = 1

    def reference_impl(self, A, B, C, M, N, K):
        torch.matmul(A, B, out=C)

    def get_solve_signature(self):
        return {"A": (ctypes.POINTER(ctypes.c_float), "in"), "B": (ctypes.POINTER(ctypes.c_float), "in"),
                "C": (ctypes.POINTER(ctypes.c_float), "out"), "M": (ctypes.c_int, "in"),
                "N": (ctypes.c_int, "in"), "K": (ctypes.c_int, "in")}

    def _test(self, m, n, k):
        return {"A": torch.rand(m, k, device=self.device) - 0.5, "B": torch.rand(k, n, device=self.device) - 0.5,
                "C": torch.empty(m, n, device=self.device), "M": m, "N": n, "K": k}

    def generate_example_test(self):
        return self._test(2, 3, 4)

    def generate_functional_test(self):
        return [self._test(16, 16, 64), self._test(33, 17, 100)]

    def generate_performance_test(self):
        return {"A": RandTensor((1024, 1024)), "B": RandTensor((1024, 1024)), "C": OutTensor((1024, 1024)),
                "M": 1024, "N": 1024, "K": 1024}
