"""A small honest result file made by the real runner against the loopback scripted server: the four knowledge
tasks (one answered wrong, so the file holds passes and fails) and one code task answered with the corpus's
gold code, run in real bubblewrap. Tests of the re-derivation and of the pull-request check forge copies of
it; regrading it takes a second, where the committed reference file takes longer."""

from __future__ import annotations

import shutil
from pathlib import Path

import yaml

from engine.core.results import load_run_file
from engine.core.schema import RunFile
from engine.run.request import RunRequest
from engine.run.runner import run_benchmark
from engine.sandbox import SandboxHandle, make_backend
from tests.conftest import KNOWLEDGE_ANSWERS, ROOT
from tests.helpers.scripted_server import Action, ScriptedServer

CODE_TASK = "code_split_bill"
WRONG_MARKER = "words = "  # kn_slice_reverse is answered wrong


def _gold_code() -> str:
    corpus = yaml.safe_load((ROOT / "tests" / "corpus" / "code" / f"{CODE_TASK}.yaml").read_text(encoding="utf-8"))
    case = next(c for c in corpus["cases"] if c["expect"] == "pass")
    return case["replies"][0]["text"]


def small_bank(folder: Path) -> Path:
    """A copy of five tasks of the real bank, byte for byte, so their hashes are the bank's."""
    for path in [*sorted((ROOT / "tasks" / "knowledge").glob("*.yaml")), ROOT / "tasks" / "code" / f"{CODE_TASK}.yaml"]:
        target = folder / path.parent.name / path.name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, target)
    return folder


def _responder(code: str):
    def respond(body: dict) -> Action:
        prompt = " ".join(str(m.get("content")) for m in body["messages"] if m["role"] == "user")
        if "split_bill" in prompt:
            return Action(text=code)
        for marker, answer in KNOWLEDGE_ANSWERS.items():
            if marker in prompt:
                return Action(text=f"Working it out.\nAnswer: {'0' if marker == WRONG_MARKER else answer}")
        return Action(text="I do not know.")

    return respond


def make_honest_run(out: Path, model: str = "qwen3-8b", trials: int = 2) -> RunFile:
    """Run the small bank at ``trials`` trials as ``model`` and write the result file to ``out``."""
    bank = small_bank(out.parent / f".{out.stem}-bank")
    backend = make_backend("bubblewrap")
    backend.check()  # fails (not skips) when bubblewrap is missing
    with ScriptedServer(_responder(_gold_code())) as srv:
        request = RunRequest(model=model, endpoint=srv.url, output=out, trials=trials, tasks_dir=bank,
                             max_retries=0, backoff_s=0.01, show_progress=False)
        run_benchmark(request, sandbox=SandboxHandle(backend))
    shutil.rmtree(bank)
    return load_run_file(out)
