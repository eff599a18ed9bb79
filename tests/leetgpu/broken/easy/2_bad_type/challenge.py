import ctypes

import torch
from core.challenge_base import WHICH, ChallengeBase

assert WHICH == "broken", "loaded another checkout's core package"


class Challenge(ChallengeBase):
    name = "Unsupported type (test)"
    atol = rtol = 0
    num_gpus = 1

    def reference_impl(self, text, out, N):
        out.zero_()

    def get_solve_signature(self):
        return {"text": (ctypes.c_char_p, "in"), "out": (ctypes.POINTER(ctypes.c_float), "out"),
                "N": (ctypes.c_int, "in")}

    def generate_example_test(self):
        return {"text": "abc", "out": torch.zeros(3, device=self.device), "N": 3}

    def generate_functional_test(self):
        return []

    def generate_performance_test(self):
        return self.generate_example_test()
