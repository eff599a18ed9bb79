import torch
from core.challenge_base import ChallengeBase


def table_of_primes():
    raise RuntimeError("the table is missing")


PRIMES = table_of_primes()


class Challenge(ChallengeBase):
    name = "Import error (test)"
