import ctypes

import torch
from core.challenge_base import ChallengeBase, FullTensor, RandIntTensor


class Challenge(ChallengeBase):
    name = "Histogram (test)"
    atol = 0
    rtol = 0
    num_gpus = 1

    def reference_impl(self, data, histogram, N, bins):
        histogram.copy_(torch.bincount(data.long(), minlength=bins).to(torch.int32))

    def get_solve_signature(self):
        return {"data": (ctypes.POINTER(ctypes.c_int), "in"), "histogram": (ctypes.POINTER(ctypes.c_int), "out"),
                "N": (ctypes.c_int, "in"), "bins": (ctypes.c_int, "in")}

    def _test(self, n, bins):
        return {"data": torch.randint(0, bins, (n,), dtype=torch.int32, device=self.device),
                "histogram": torch.zeros(bins, dtype=torch.int32, device=self.device), "N": n, "bins": bins}

    def generate_example_test(self):
        return {"data": torch.tensor([0, 1, 1, 3], dtype=torch.int32, device=self.device),
                "histogram": torch.zeros(4, dtype=torch.int32, device=self.device), "N": 4, "bins": 4}

    def generate_functional_test(self):
        return [self._test(1, 1), self._test(1000, 7), self._test(5000, 256)]

    def generate_performance_test(self):
        return {"data": RandIntTensor((1 << 20,), 0, 256), "histogram": FullTensor((256,), 0, dtype="int32"),
                "N": 1 << 20, "bins": 256}
