"""A second stand-in base (see ../../README.md): loading a challenge here must use this one."""

WHICH = "broken"


class ChallengeBase:
    def __init__(self, device="cuda"):
        self.device = device
