import ctypes

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    """A reference that writes torch's precision switches as it sees them: 0.0 where a switch is exact.  A
    solution that writes zeros is accepted only where the judge's reference ran in exact arithmetic."""

    name = "Reads the precision switches (test)"
    atol = 0.0
    rtol = 0.0
    num_gpus = 1

    def reference_impl(self, output, N):
        matmul = torch.backends.cuda.matmul
        seen = [torch.backends.cudnn.allow_tf32, matmul.allow_tf32, torch.get_float32_matmul_precision() != "highest",
                matmul.allow_fp16_reduced_precision_reduction, matmul.allow_bf16_reduced_precision_reduction]
        output.copy_(torch.tensor([float(bool(s)) for s in seen], device=output.device))

    def get_solve_signature(self):
        return {"output": (ctypes.POINTER(ctypes.c_float), "out"), "N": (ctypes.c_int, "in")}

    def _test(self):
        return {"output": torch.empty(5, device=self.device), "N": 5}

    def generate_example_test(self):
        return self._test()

    def generate_functional_test(self):
        return [self._test()]

    def generate_performance_test(self):
        return self._test()
