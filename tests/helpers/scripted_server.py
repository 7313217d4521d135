"""The tests' loopback server is the engine's own scripted server (``sllmb graders`` replays through it too)."""

from engine.corpus.scripted_server import (  # noqa: F401
    Action,
    Responder,
    ScriptedServer,
    assistant_turns,
    sequence,
    tool_call,
    transcript,
)
