"""A run: trials, checkpoint and resume, run cost, the scorecard, rescoring a stored run."""
