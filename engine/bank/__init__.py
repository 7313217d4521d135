"""The task bank: load and validate the task files, hash them, select a profile's tasks."""
