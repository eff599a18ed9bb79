import ctypes

import torch
from core.challenge_base import ChallengeBase


class Challenge(ChallengeBase):
    """A valid 2-D cross-correlation with F.conv2d as the reference and LeetGPU's tolerance (atol = rtol =
    1e-5), in the shape of LeetGPU's medium/10_2d_convolution: under torch's defaults cuDNN computes the
    reference in TF32 on a GPU, and an exact float32 convolution was rejected (issue 39)."""

    name = "2D Convolution (test)"
    atol = 1e-5
    rtol = 1e-5
    num_gpus = 1

    def reference_impl(self, input, kernel, output, input_rows, input_cols, kernel_rows, kernel_cols):
        image = input.view(1, 1, input_rows, input_cols)
        weights = kernel.view(1, 1, kernel_rows, kernel_cols)
        output.copy_(torch.nn.functional.conv2d(image, weights).view(-1))

    def get_solve_signature(self):
        floats = ctypes.POINTER(ctypes.c_float)
        return {"input": (floats, "in"), "kernel": (floats, "in"), "output": (floats, "out"),
                "input_rows": (ctypes.c_int, "in"), "input_cols": (ctypes.c_int, "in"),
                "kernel_rows": (ctypes.c_int, "in"), "kernel_cols": (ctypes.c_int, "in")}

    def _test(self, rows, cols, krows, kcols):
        out = (rows - krows + 1) * (cols - kcols + 1)
        return {"input": torch.empty(rows * cols, device=self.device).uniform_(-1.0, 1.0),
                "kernel": torch.empty(krows * kcols, device=self.device).uniform_(-1.0, 1.0),
                "output": torch.empty(out, device=self.device), "input_rows": rows, "input_cols": cols,
                "kernel_rows": krows, "kernel_cols": kcols}

    def generate_example_test(self):
        return self._test(3, 3, 2, 2)

    def generate_functional_test(self):
        return [self._test(1, 1, 1, 1), self._test(5, 7, 3, 2), self._test(40, 33, 15, 15), self._test(70, 45, 7, 9)]

    def generate_performance_test(self):
        return self._test(3072, 3072, 15, 15)
