"""Stand-in for the interface of LeetGPU's core/challenge_base.py, written for
the judge's tests: the abstract methods a challenge defines and the lazy
tensor descriptors a performance test may return instead of tensors."""

from abc import ABC, abstractmethod


class _Lazy:
    def __init__(self, shape, dtype="float32"):
        self.shape = tuple(shape)
        self.dtype = dtype


class RandTensor(_Lazy):
    def __init__(self, shape, low=0.0, high=1.0, dtype="float32"):
        super().__init__(shape, dtype)
        self.low, self.high = low, high


class RandnTensor(_Lazy):
    def __init__(self, shape, mean=0.0, std=1.0, dtype="float32"):
        super().__init__(shape, dtype)
        self.mean, self.std = mean, std


class RandIntTensor(_Lazy):
    def __init__(self, shape, low, high, dtype="int32"):
        super().__init__(shape, dtype)
        self.low, self.high = low, high


class FullTensor(_Lazy):
    def __init__(self, shape, value=0.0, dtype="float32"):
        super().__init__(shape, dtype)
        self.value = value


class OutTensor(_Lazy):
    pass


class ChallengeBase(ABC):
    name = ""
    atol = 0.0
    rtol = 0.0
    num_gpus = 1

    def __init__(self, device="cuda"):
        self.device = device

    @abstractmethod
    def reference_impl(self, **kwargs): ...

    @abstractmethod
    def get_solve_signature(self): ...

    @abstractmethod
    def generate_example_test(self): ...

    @abstractmethod
    def generate_functional_test(self): ...

    @abstractmethod
    def generate_performance_test(self): ...
