"""judge.watch."""
