"""Command-line tools around runs: publish a run, its cost, an estimate, the headlines."""
