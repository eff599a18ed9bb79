import ctypes

import torch
from core.challenge_base import ChallengeBase, OutTensor, RandTensor


class Challenge(ChallengeBase):
    name = "Sum and Difference (test)"
    atol = 1e-5
    rtol = 1e-5
    num_gpus = 1

    def reference_impl(self, a, b, total, diff, rows, cols):
        torch.add(a, b, out=total)
        torch.sub(a, b, out=diff)

    def get_solve_signature(self):
        return {"a": (ctypes.POINTER(ctypes.c_float), "in"), "b": (ctypes.POINTER(ctypes.c_float), "in"),
                "total": (ctypes.POINTER(ctypes.c_float), "out"), "diff": (ctypes.POINTER(ctypes.c_float), "out"),
                "rows": (ctypes.c_int, "in"), "cols": (ctypes.c_int, "in")}

    def _test(self, rows, cols):
        return {"a": torch.rand(rows, cols, device=self.device), "b": torch.rand(rows, cols, device=self.device),
                "total": torch.empty(rows, cols, device=self.device),
                "diff": torch.full((rows, cols), 7.0, device=self.device), "rows": rows, "cols": cols}

    def generate_example_test(self):
        return self._test(2, 3)

    def generate_functional_test(self):
        return [self._test(1, 1), self._test(17, 33)]

    def generate_performance_test(self):
        return {"a": RandTensor((1024, 1024)), "b": RandTensor((1024, 1024)), "total": OutTensor((1024, 1024)),
                "diff": OutTensor((1024, 1024)), "rows": 1024, "cols": 1024}
