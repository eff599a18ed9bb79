"""judge.base."""
