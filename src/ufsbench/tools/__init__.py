"""Command-line tools around runs: publish a paper run, sum its cost, estimate a plan."""
