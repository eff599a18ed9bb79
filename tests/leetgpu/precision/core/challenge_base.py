"""A third stand-in base (see ../../README.md), for the challenges of issue 39: references whose
precision matters (a float32 scan, a convolution, a reference that reads torch's precision switches)."""


class ChallengeBase:
    def __init__(self, device="cuda"):
        self.device = device
