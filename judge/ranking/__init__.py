"""judge.ranking."""
