"""small-llm-bench: an agentic benchmark for small local language models."""

__version__ = "0.1.0"
