"""Helpers shared by the per-server tests: a knowledge-answering script and a run configuration."""

from __future__ import annotations

import shutil
import tempfile
from functools import cache
from pathlib import Path

from engine.run.request import RunRequest
from tests.conftest import KNOWLEDGE_ANSWERS, ROOT
from tests.helpers.fake_servers import Say, prompt_text


def knowledge_script(reasoning: str | None = None):
    """Answers each knowledge question right; the warm-up gets a one-word reply."""

    def script(body: dict) -> Say:
        prompt = prompt_text(body)
        for marker, answer in KNOWLEDGE_ANSWERS.items():
            if marker in prompt:
                return Say(text=f"Working it out.\nAnswer: {answer}", reasoning=reasoning)
        return Say(text="ready", reasoning=reasoning)

    return script


@cache
def knowledge_bank() -> Path:
    """The bank's knowledge tasks alone: loading the whole bank for every run would dominate these tests."""
    bank = Path(tempfile.mkdtemp(prefix="sllmb-servers-bank-"))
    shutil.copytree(ROOT / "tasks" / "knowledge", bank / "knowledge")
    return bank


def run_request(srv, out: Path, **kw) -> RunRequest:
    base = dict(
        model=srv.model,
        endpoint=srv.url,
        output=out,
        trials=1,
        modules=["knowledge"],
        tasks_dir=knowledge_bank(),
        backoff_s=0.01,
        max_retries=2,
        show_progress=False,
        warm_up=True,
        ready_timeout_s=10,
    )
    base.update(kw)
    return RunRequest(**base)


def write_long_task(bank: Path, *, words: int) -> str:
    """A knowledge task whose question is long enough to overflow a small window; the answer is at the end."""
    folder = bank / "knowledge"
    folder.mkdir(parents=True, exist_ok=True)
    filler = " ".join(f"Entry {i}: the shelf holds {i % 7} jars of plum jam." for i in range(words // 10))
    question = (
        f"Read the inventory log below. {filler} Final question: how many loaves did the bakery sell? "
        "The bakery sold 369 loaves."
    )
    text = (
        "id: kn_long_log\nmodule: knowledge\ntitle: Long log\nwhat_this_tests: reading a long log\n"
        "failure_mode: loses the front\nmax_turns: 1\nmax_tokens: 256\nbody:\n  kind: arithmetic\n"
        f"  question: {question!r}\n  answer: '369'\n"
    )
    (folder / "kn_long_log.yaml").write_text(text.replace("'369'", '"369"'), encoding="utf-8")
    return "kn_long_log"
