"""The knowledge module: its episode, its grader and the helpers only it uses."""
