"""judge.history."""
