"""Replay every corpus case through the real runner and compare its verdict with the person's label.

Each case runs as a one-trial run of its task against a loopback scripted server, exactly as a gold
transcript is replayed in the tests: the same preflight, episode loop, tool world, sandbox and grader a
real run uses. Nothing here grades; it only asks the runner and counts where it disagrees with the label.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import yaml
from pydantic import ValidationError

from engine.bank.load import load_bank
from engine.core.errors import UserError
from engine.core.fileio import read_text
from engine.core.yamlfile import invalid_file_message, read_mapping
from engine.corpus.schema import Case, CorpusFile
from engine.corpus.scripted_server import ScriptedServer, transcript
from engine.episodes.base import LoadedTask
from engine.sandbox.handle import SandboxHandle


@dataclass(frozen=True)
class CaseResult:
    task: str
    module: str
    case: str
    expect: str  # "pass" or "fail": the person's verdict
    got: str  # "pass", "fail", or "error" (the run recorded no grade: infra or an invalid trial)
    reason: str  # the grader's reason, or the error
    why: str  # the person's one-line reason for the label
    batch: str = "b0"  # the batch the case was written in

    @property
    def correct(self) -> bool:
        return self.got == self.expect


@dataclass(frozen=True)
class ModuleAccuracy:
    module: str
    cases: int
    should_pass: int
    should_fail: int
    false_fails: int  # labelled pass, graded fail
    false_passes: int  # labelled fail, graded pass
    errors: int  # no grade at all (a corpus or harness problem, never a verdict)


def load_corpus(corpus_dir: Path) -> list[CorpusFile]:
    """Every ``<module>/<task_id>.yaml`` (batch b0) and ``<module>/<task_id>.<batch>.yaml`` under the corpus
    folder, validated; the file name names the task and the batch its cases were written in."""
    if not corpus_dir.is_dir():
        raise UserError(f"{corpus_dir}: no corpus folder here; pass --corpus with the folder of case files")
    files: list[CorpusFile] = []
    for path in sorted(corpus_dir.glob("*/*.yaml")):
        raw = read_mapping(path, "corpus file")
        cut = _cut_by_comment(read_text(path, "the corpus file"))
        if cut:
            raise UserError(f"{path}: line {cut}: this unquoted text runs into ' #', which YAML reads as the "
                            f"start of a comment, so the rest of the line (a hashtag?) is lost; put the text in "
                            f"quotes or write it as a block (text: |-)")
        try:
            parsed = CorpusFile.model_validate(raw)
        except ValidationError as exc:
            raise UserError(invalid_file_message(path, "corpus file", exc.errors())) from exc
        task, _, batch = path.stem.partition(".")
        if parsed.task != task:
            raise UserError(f"{path}: field 'task' is {parsed.task!r}; name the file after its task "
                            f"({parsed.task}.yaml, or {parsed.task}.<batch>.yaml)")
        if parsed.batch != (batch or "b0"):
            raise UserError(f"{path}: field 'batch' is {parsed.batch!r} but the file name says "
                            f"{batch or 'b0'!r}; name the file {parsed.task}.{parsed.batch}.yaml "
                            f"(b0 files have no batch in their name)")
        files.append(parsed)
    return files


# Fields that hold a model's words or a person's: a '#' there is text, never a comment.
_TEXT_FIELDS = ("text", "why", "reasoning")
# libyaml's composer when PyYAML has it: the pure-Python one took seconds over the corpus, at every test
# session's start. Both give the same nodes and marks; a plain scalar's style is None in one, "" in the other.
_COMPOSER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _cut_by_comment(source: str) -> int | None:
    """The line (1-based) where a plain (unquoted) text field is cut short by what YAML reads as a comment
    (``text: Come early! #JuniperBakes`` loads as "Come early!"), else None."""
    lines = source.splitlines()
    cut: list[int] = []
    stack = [yaml.compose(source, Loader=_COMPOSER)]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
        elif isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.append(value)
                if (key.value in _TEXT_FIELDS and isinstance(value, yaml.ScalarNode) and not value.style
                        and value.end_mark.line < len(lines)):
                    end = value.end_mark
                    rest = lines[end.line][end.column:]
                    following = next((ln for ln in lines[end.line + 1:] if ln.strip()), "")
                    # A comment on a line indented past the key would have been the text's next line.
                    runs_on = len(following) - len(following.lstrip()) > key.start_mark.column
                    if re.match(r"\s+#", rest) or (not rest.strip() and following.lstrip().startswith("#") and runs_on):
                        cut.append(end.line + 1)
    return min(cut, default=None)


def _verdict(task: LoadedTask, case: Case, batch: str, srv: ScriptedServer, sandbox: SandboxHandle | None,
             workdir: Path) -> tuple[str, str]:
    # The runner imports the modules; keep these imports lazy.
    from engine.run.request import RunRequest
    from engine.run.runner import run_benchmark

    # One server for the whole corpus; each case plays its own transcript (cases run one after another).
    srv.responder = transcript([r.action() for r in case.replies])
    # A case's name is unique within its batch only: the batch is in the file name, or a case of another batch
    # with the same name would resume from this one's result file and be given its verdict.
    request = RunRequest(model="scripted", endpoint=srv.url, output=workdir / f"{task.id}.{batch}.{case.name}.json",
                         trials=1, max_retries=0, backoff_s=0.01, show_progress=False)
    run = run_benchmark(request, tasks=[task], sandbox=sandbox)
    trial = run.trials[0]
    if trial.grade is None:
        return "error", trial.error or trial.invalid_reason or "no grade recorded"
    return ("pass" if trial.grade.passed else "fail"), trial.grade.reason


def evaluate(
    corpus: Iterable[CorpusFile],
    tasks_dir: Path | None,
    *,
    sandbox: SandboxHandle | None = None,
    on_case: Callable[[CaseResult], None] | None = None,
) -> list[CaseResult]:
    """Replay every case of every file; a file whose task is not in the bank is a ``UserError``."""
    bank = {t.id: t for t in load_bank(tasks_dir)}
    results: list[CaseResult] = []
    with tempfile.TemporaryDirectory(prefix="sllmb-corpus-") as tmp, ScriptedServer(transcript([])) as srv:
        for cf in corpus:
            task = bank.get(cf.task)
            if task is None:
                raise UserError(f"corpus file for {cf.task!r}: no such task in the bank; rename or remove it")
            for case in cf.cases:
                got, reason = _verdict(task, case, cf.batch, srv, sandbox, Path(tmp))
                result = CaseResult(task=task.id, module=task.task.module, case=case.name, expect=case.expect,
                                    got=got, reason=reason, why=case.why, batch=cf.batch)
                results.append(result)
                if on_case:
                    on_case(result)
    return results


def accuracy(results: Iterable[CaseResult]) -> list[ModuleAccuracy]:
    """Per module, in name order: the cases and how many the graders got wrong in each direction."""
    by_module: dict[str, list[CaseResult]] = {}
    for r in results:
        by_module.setdefault(r.module, []).append(r)
    out = []
    for module in sorted(by_module):
        rs = by_module[module]
        out.append(ModuleAccuracy(
            module=module,
            cases=len(rs),
            should_pass=sum(r.expect == "pass" for r in rs),
            should_fail=sum(r.expect == "fail" for r in rs),
            false_fails=sum(r.expect == "pass" and r.got == "fail" for r in rs),
            false_passes=sum(r.expect == "fail" and r.got == "pass" for r in rs),
            errors=sum(r.got == "error" for r in rs),
        ))
    return out
