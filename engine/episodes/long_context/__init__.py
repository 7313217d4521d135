"""The long_context module: its episode, its grader and the helpers only it uses."""
