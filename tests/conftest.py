"""Shared fixtures: the scripted loopback server and a knowledge-answering responder."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.helpers.scripted_server import Action  # noqa: E402

KNOWLEDGE_ANSWERS = {
    "bakery": "369",
    "Single tickets": "85.80",
    "words = ": "fdb3",
    "counts = {}": "10:3,8:1,4:1,3:1",
}


def knowledge_responder(wrong_for: tuple[str, ...] = (), delay_s: float = 0.0):
    """Answers each knowledge question correctly, except those whose marker is in ``wrong_for``."""

    def respond(body: dict) -> Action:
        prompt = " ".join(str(m.get("content")) for m in body["messages"] if m["role"] == "user")
        for marker, answer in KNOWLEDGE_ANSWERS.items():
            if marker in prompt:
                value = "0" if marker in wrong_for else answer
                return Action(text=f"Working it out.\nAnswer: {value}", delay_s=delay_s)
        return Action(text="I do not know.", delay_s=delay_s)

    return respond


@pytest.fixture
def repo_root() -> Path:
    return ROOT
