"""judge.daemon."""
