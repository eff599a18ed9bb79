"""judge.timer."""
