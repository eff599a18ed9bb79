import ctypes

import torch
from core.challenge_base import ChallengeBase, OutTensor, RandnTensor


class Challenge(ChallengeBase):
    name = "Count Positive (test)"
    atol = 0
    rtol = 0
    num_gpus = 1

    def reference_impl(self, data, count, N):
        count.copy_((data > 0).sum().to(torch.int32).reshape(1))

    def get_solve_signature(self):
        return {"data": (ctypes.POINTER(ctypes.c_float), "in"), "count": (ctypes.POINTER(ctypes.c_int), "out"),
                "N": (ctypes.c_int, "in")}

    def generate_example_test(self):
        return {"data": torch.tensor([1.0, -2.0, 3.0, 0.0], device=self.device),
                "count": torch.zeros(1, dtype=torch.int32, device=self.device), "N": 4}

    def generate_functional_test(self):
        return [{"data": torch.randn(n, device=self.device), "count": torch.zeros(1, dtype=torch.int32, device=self.device),
                 "N": n} for n in (1, 100, 5000)]

    def generate_performance_test(self):
        return {"data": RandnTensor((1 << 20,)), "count": OutTensor((1,), dtype="int32"), "N": 1 << 20}
