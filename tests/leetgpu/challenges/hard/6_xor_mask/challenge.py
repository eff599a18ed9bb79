import ctypes

import torch
from core.challenge_base import ChallengeBase, OutTensor, RandIntTensor


class Challenge(ChallengeBase):
    name = "XOR Mask (test)"
    atol = 0
    rtol = 0
    num_gpus = 1

    def reference_impl(self, x, y, mask, N):
        y.copy_((x.to(torch.int64) ^ mask).to(torch.uint32))  # torch has few uint32 operations

    def get_solve_signature(self):
        return {"x": (ctypes.POINTER(ctypes.c_uint32), "in"), "y": (ctypes.POINTER(ctypes.c_uint32), "out"),
                "mask": (ctypes.c_uint32, "in"), "N": (ctypes.c_int, "in")}

    def _test(self, n):
        x = torch.randint(0, 2**32, (n,), dtype=torch.int64, device=self.device).to(torch.uint32)
        return {"x": x, "y": torch.empty(n, dtype=torch.uint32, device=self.device), "mask": 0x5A5A5A5A, "N": n}

    def generate_example_test(self):
        return self._test(4)

    def generate_functional_test(self):
        return [self._test(n) for n in (1, 1000)]

    def generate_performance_test(self):
        n = 1 << 20
        return {"x": RandIntTensor((n,), 0, 2**31, dtype="uint32"), "y": OutTensor((n,), dtype="uint32"),
                "mask": 0x5A5A5A5A, "N": n}
