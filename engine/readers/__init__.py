"""Readers of what a model's text says, shared by the world's answer checks and the episodes' graders."""
