"""The multi_turn_if module: its episode, its grader and the helpers only it uses."""
