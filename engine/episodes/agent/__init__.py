"""The agent loop shared by every module whose model acts through tools (``tools``, ``adversarial``'s
``tool_injection``): the system prompt (``prompt.py``), the reader of a stored episode (``transcript.py``)
and the gates over it (``gates.py``)."""
