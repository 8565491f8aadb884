"""Command-line tools around the workflow: costs, estimates, publishing."""
