"""judge.authoring."""
