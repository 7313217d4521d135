"""Replay a scripted transcript of one task through the real runner and return the graded trial.

Used by every module's gold and near-miss tests: the scripted server plays reply i to the request that
already holds i assistant messages, so a transcript is just the list of the model's replies in order.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from engine.core.schema import TrialRecord
from engine.run.request import RunRequest
from engine.run.runner import run_benchmark
from engine.sandbox import SandboxHandle
from tests.helpers.scripted_server import Action, ScriptedServer, transcript

ROOT = Path(__file__).resolve().parent.parent.parent


def assert_prefix_kept(requests: list[dict]) -> None:
    """Each request of the conversation repeats the previous one byte for byte and only appends to it, so
    a server's prefix cache can serve everything but the new turn (what the model sees is unchanged)."""
    chats = [r for r in requests if "messages" in r]
    for before, after in zip(chats, chats[1:], strict=False):
        head = after["messages"][: len(before["messages"])]
        assert head == before["messages"], "a later request rewrote an earlier message of the conversation"
        assert len(after["messages"]) > len(before["messages"]), "a later request sent no new message"
        assert after.get("tools") == before.get("tools"), "the tool list changed between turns"


def replay(task_id: str, replies: Sequence[Action], *, sandbox: SandboxHandle | None = None,
           window: int | None = None,
           **config: object) -> TrialRecord:
    """``window``: the server says its context window is this many tokens, as llama.cpp's /props does."""
    props = {"default_generation_settings": {"n_ctx": window}} if window else None
    with ScriptedServer(transcript(replies), props=props) as srv, tempfile.TemporaryDirectory() as tmp:
        request = RunRequest(
            model="scripted", endpoint=srv.url, output=Path(tmp) / "replay.json", trials=1,
            pattern=task_id, tasks_dir=ROOT / "tasks", max_retries=0, backoff_s=0.01, show_progress=False,
            **config,  # type: ignore[arg-type]
        )
        run = run_benchmark(request, sandbox=sandbox)
        assert_prefix_kept(srv.requests)
    matching = [t for t in run.trials if t.task_id == task_id]
    assert len(matching) == 1, f"expected one trial of {task_id}, got {[t.task_id for t in run.trials]}"
    return matching[0]
