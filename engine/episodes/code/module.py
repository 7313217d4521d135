"""code: write a function or repair a bug, pass hidden tests in a sandbox, with an execute-and-fix loop.

An episode: the model gets the request (a function to write, or a bug report with the file as it is, plus
any sibling files it reads, such as a constants module) and replies with the whole file. The engine takes
the code out of the reply (:mod:`engine.episodes.code.extract`), runs it in the sandbox against every case of the task
— the visible examples, the hidden tests, and for repairs the regression cases the old code already got
right — and, when a case fails and attempts remain, tells the model what really happened: the traceback, or
the call and the value it returned. The expected value of a case never reaches the model, and never enters
the sandbox either: the harness program only reports what each call returned or raised, and the comparison
happens here, on the host.

Each attempt's code runs once: the run records every execution (``Ran``, in ``Env.record``) and the
grade reads its verdicts from that record. A transcript regraded from a result file (``rescore``) has no
record: its grade runs the code of every attempt again, so a file can be regraded with nothing but a sandbox.
A reply cut by the token limit while another attempt is left is an attempt that failed (the one cut rule,
:mod:`engine.episodes.cut`): when its code was not whole before the cut nothing runs, the model is told its
reply was cut, and it tries again; only a cut on the last attempt is the trial's truncation.
The score is 1.00, 0.85 or 0.70 for a pass at the first, second or third attempt; a trial that never passes
scores half the share of cases its last attempt passed (at most 0.5, so it can never count as a pass).
``first_try_pass`` in the grade's details feeds the board's first-try rate.
"""

from __future__ import annotations

import asyncio
import json
import math
import re
import sys
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from engine.core import modeljson
from engine.core.errors import InfraError, UserError
from engine.core.schema import Grade, Turn
from engine.episodes.base import Conversation, Env, LoadedTask, default_system_prompt, estimate_tokens
from engine.episodes.code.extract import Extraction, code_before_cut, extract_code
from engine.episodes.cut import goes_on_after_cut
from engine.episodes.spec import ModuleSpec, ModuleWeights
from engine.sandbox.handle import SandboxHandle

ATTEMPT_SCORES = (1.0, 0.85, 0.70)
#: A trial that never passes scores at most this, times the share of cases its last attempt passed.
FAIL_CAP = 0.5
#: Marks the harness's report lines on stdout; the model's own prints are captured away from it.
REPORT_PREFIX = "@@sllmb-case "
_IDENT = r"^[A-Za-z_][A-Za-z0-9_]*$"
_MODULE_FILE = r"^[a-z_][a-z0-9_]*\.py$"
#: Longest excerpt of a traceback or a returned value shown back to the model.
_FEEDBACK_CHARS = 1500
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class NoSandbox(InfraError):
    """A code trial reached model code with no sandbox to run it in: excluded, never run on the host."""

    def __init__(self) -> None:
        super().__init__(
            "no sandbox was given to the code module, so the model's code was not run (it never runs on the "
            "host); install bubblewrap or start Docker/Podman and run again, or pass --allow-unsandboxed",
            retryable=False,
        )


class Case(BaseModel):
    """One call of the function: its arguments and either the value it must return or the error it raises."""

    model_config = ConfigDict(extra="forbid")

    args: list[Any] = Field(default_factory=list)
    kwargs: dict[str, Any] = Field(default_factory=dict)
    expect: Any = None
    # Name of the exception class the call must raise (a subclass counts), instead of ``expect``.
    raises: str | None = Field(default=None, pattern=_IDENT)

    @model_validator(mode="after")
    def _one_outcome(self) -> Case:
        has_expect = "expect" in self.model_fields_set
        if has_expect == (self.raises is not None):
            raise ValueError("a case gives exactly one of 'expect' (the return value) or 'raises' "
                             "(an error name)")
        for key in self.kwargs:
            if not re.match(_IDENT, key):
                raise ValueError(f"kwargs key {key!r} is not a Python identifier")
        try:  # only JSON-like values: the harness receives the arguments as JSON
            json.dumps([self.args, self.kwargs, self.expect], allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"arguments and expected values must be plain data (numbers, strings, lists, "
                             f"mappings, true/false/null): {exc}") from None
        return self


class CodeBody(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["write", "repair"]
    # The function the tests call, defined in ``filename``.
    entry: str = Field(pattern=_IDENT)
    filename: str = Field(default="solution.py", pattern=_MODULE_FILE)
    # The request (write) or the bug report (repair), in the user's words.
    prompt: str = Field(min_length=1)
    # The file as it is now: the buggy code of a repair, or an optional stub for a write task.
    source: str | None = None
    # Sibling files the code may import (a constants module ...): shown to the model, present in the sandbox.
    context_files: dict[str, str] = Field(default_factory=dict)
    # Cases shown to the model with their expected results.
    examples: list[Case] = Field(default_factory=list)
    # Cases the model never sees.
    tests: list[Case] = Field(min_length=1)
    # Repairs: cases the code before the fix already got right, which the fix must not break. Never shown.
    regression: list[Case] = Field(default_factory=list)
    max_attempts: int = Field(default=3, ge=1, le=3)
    timeout_s: float = Field(default=5.0, ge=0.5, le=30.0)
    # Absolute tolerance for float comparisons (0: exact).
    tolerance: float = Field(default=0.0, ge=0.0)

    @model_validator(mode="after")
    def _consistent(self) -> CodeBody:
        if self.kind == "repair" and not self.source:
            raise ValueError("a repair task needs 'source': the file with the bug")
        if self.kind == "write" and self.regression:
            raise ValueError("'regression' cases belong to repair tasks (code that worked before the fix)")
        for name in self.context_files:
            if not re.match(_MODULE_FILE, name) or name in (self.filename, "main.py"):
                raise ValueError(f"context file {name!r} must be a module file name (a_b.py), other than "
                                 f"{self.filename!r} and 'main.py'")
        for name in (self.filename, *self.context_files):
            if name[:-3] in sys.stdlib_module_names:
                raise ValueError(f"file name {name!r} shadows the standard library module {name[:-3]!r}; "
                                 "choose another name")
        return self

    def cases(self) -> list[tuple[str, Case]]:
        """Every case with its group, in the order the harness runs them."""
        return ([("example", c) for c in self.examples] + [("hidden", c) for c in self.tests]
                + [("regression", c) for c in self.regression])


# --------------------------------------------------------------------------------------------------------
# The harness program that runs in the sandbox


_HARNESS = '''\
import importlib, json, os, signal, sys, traceback

MODULE = {module!r}
ENTRY = {entry!r}
CALLS = json.loads({calls!r})
PREFIX = {prefix!r}
LINE_MAX = 1 << 18


def tb_text(exc):
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not (f.filename.endswith("main.py") or f.filename.startswith("<frozen")
                      or "/importlib/" in f.filename)]
    text = "".join(traceback.format_list(frames)) + "".join(traceback.format_exception_only(type(exc), exc))
    return ("Traceback (most recent call last):\\n" + text)[-3000:]


def plain(value):
    try:
        text = json.dumps(value, default=lambda o: {{"__unjsonable__": type(o).__name__}})
    except (TypeError, ValueError, RecursionError):
        return {{"__unjsonable__": type(value).__name__}}
    if len(text) > 20000:
        return {{"__too_large__": len(text)}}
    return json.loads(text)


def short_repr(value):
    try:
        text = repr(value)
    except BaseException:
        text = "<unprintable " + type(value).__name__ + ">"
    return text if len(text) <= 600 else text[:600] + "..."


def run_the_code(pipe):
    # In the child: stdout goes nowhere, and the only way out is the pipe to the harness.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    out = os.fdopen(pipe, "w", encoding="ascii")

    def send(record):
        out.write(json.dumps(record) + "\\n")
        out.flush()

    try:
        module = importlib.import_module(MODULE)
    except BaseException as exc:
        send({{"event": "import_error", "error": tb_text(exc)}})
        return
    fn = getattr(module, ENTRY, None)
    if not callable(fn):
        send({{"event": "missing"}})
        return
    send({{"event": "imported"}})
    for index, (args, kwargs) in enumerate(CALLS):
        try:
            value = fn(*args, **kwargs)
        except BaseException as exc:
            names = [c.__name__ for c in type(exc).__mro__]
            send({{"case": index, "ok": False, "exc": names, "error": tb_text(exc)}})
            continue
        send({{"case": index, "ok": True, "value": plain(value), "repr": short_repr(value)}})


def receive(reader):
    line = reader.readline(LINE_MAX)
    if not line:
        return None
    if not line.endswith(b"\\n"):  # over-long: skip the rest, and the record counts for nothing
        while line and not line.endswith(b"\\n"):
            line = reader.readline(LINE_MAX)
        return {{}}
    try:
        record = json.loads(line)
    except ValueError:
        return {{}}
    return record if isinstance(record, dict) else {{}}


def checked(index, record):
    # Only the fields the host reads, of the types it expects: the child's record is the code's to forge,
    # but it can only ever speak for the call it answers.
    if record.get("case") != index:
        return {{"case": index, "ok": False, "exc": [], "error": "no result came back for this call"}}
    if record.get("ok") is True:
        return {{"case": index, "ok": True, "value": record.get("value"), "repr": str(record.get("repr", ""))[:700]}}
    names = record.get("exc") if isinstance(record.get("exc"), list) else []
    return {{"case": index, "ok": False, "exc": [str(n)[:200] for n in names[:64]],
            "error": str(record.get("error", ""))[-3000:]}}


def main():
    # The code under test runs in a child with the same uid. This process is made not dumpable first, so the
    # child can neither open /proc/<this pid>/fd/* (the report channel) nor ptrace it; the child's stdout is
    # /dev/null. Report lines on stdout therefore come from here alone.
    try:
        import ctypes
        ctypes.CDLL(None).prctl(4, 0, 0, 0, 0)  # PR_SET_DUMPABLE = 4
    except (ImportError, OSError, AttributeError):
        pass
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    read_end, write_end = os.pipe()
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        channel_fd = channel.fileno()
        os.close(read_end)
        os.close(channel_fd)
        try:
            run_the_code(write_end)
        finally:
            os._exit(0)
    os.close(write_end)
    reader = os.fdopen(read_end, "rb")

    def report(record):
        channel.write(PREFIX + json.dumps(record) + "\\n")
        channel.flush()

    def child_ended():
        _, status = os.waitpid(pid, 0)
        if os.WIFSIGNALED(status):
            os._exit(128 + os.WTERMSIG(status))
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)

    first = receive(reader)
    if first is None:
        child_ended()
    event = first.get("event")
    if event == "import_error":
        report({{"event": "import_error", "error": str(first.get("error", ""))[-3000:]}})
        return
    if event != "imported":
        report({{"event": "missing"}})
        return
    for index in range(len(CALLS)):
        record = receive(reader)
        if record is None:
            child_ended()
        report(checked(index, record))
    report({{"event": "done"}})
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


main()
'''


def harness(body: CodeBody) -> str:
    """The ``main.py`` that runs the model's file in a child process and reports each call on a channel the
    child cannot write. It holds no expected value."""
    calls = json.dumps([[c.args, c.kwargs] for _, c in body.cases()])
    return _HARNESS.format(module=body.filename[:-3], entry=body.entry, calls=calls, prefix=REPORT_PREFIX)


# --------------------------------------------------------------------------------------------------------
# One execution and what it means


@dataclass
class CaseResult:
    group: str
    call: str
    passed: bool
    # What the model may be told: the value it returned, or its traceback. Never the expected value.
    shown: str = ""


@dataclass
class Execution:
    """How one attempt's code fared against every case."""

    found_code: bool
    cases: list[CaseResult] = field(default_factory=list)
    # Set when the program failed as a whole: no code, import error, missing function, killed, crashed.
    failure: str | None = None
    failure_detail: str = ""
    backend: str | None = None

    @property
    def passed(self) -> bool:
        return (self.found_code and self.failure is None and bool(self.cases)
                and all(c.passed for c in self.cases))

    def share(self, group: str | None = None) -> float:
        chosen = [c for c in self.cases if group is None or c.group == group]
        return sum(c.passed for c in chosen) / len(chosen) if chosen else 0.0


@dataclass(frozen=True)
class Ran:
    """One attempt as the run executed it: the code taken from the reply (None: none found) and how it fared.
    The run appends one per attempt to ``Env.record``; the grade reads them instead of running the code again."""

    code: str | None
    execution: Execution


def attempt_code(reply: Turn, entry: str) -> Extraction | None:
    """The code of one attempt's reply; None when the reply was cut by the token limit before its code was
    whole (every fence closed before the cut): such an attempt failed, and nothing of it runs."""
    if reply.finish_reason == "length" and not code_before_cut(reply.content, entry):
        return None
    return extract_code(reply.content, entry)


#: ``Execution.failure`` of an attempt whose reply was cut by the token limit before its code was whole.
CUT = "cut"


def call_text(entry: str, case: Case) -> str:
    parts = [repr(a) for a in case.args] + [f"{k}={v!r}" for k, v in case.kwargs.items()]
    return f"{entry}({', '.join(parts)})"


def _normalise(value: Any) -> Any:
    return json.loads(json.dumps(value))


def _equal(got: Any, want: Any, tol: float) -> bool:
    if isinstance(want, bool) or isinstance(got, bool):
        return type(got) is type(want) and got == want
    if isinstance(want, (int, float)) and isinstance(got, (int, float)):
        if isinstance(want, float) or isinstance(got, float):
            return math.isclose(got, want, rel_tol=0.0, abs_tol=tol) if tol else float(got) == float(want)
        return got == want
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(_equal(g, w, tol) for g, w in zip(got, want, strict=True))
    if isinstance(want, dict) and isinstance(got, dict):
        return got.keys() == want.keys() and all(_equal(got[k], want[k], tol) for k in want)
    return type(got) is type(want) and got == want


def _clip(text: str, limit: int = _FEEDBACK_CHARS) -> str:
    text = _CONTROL.sub("", text)
    return text if len(text) <= limit else text[: limit // 3] + "\n...\n" + text[-(2 * limit) // 3:]


def _reports(stdout: str) -> tuple[dict[int, dict], list[dict]]:
    """Per-case records (the first one for each case wins) and the harness's event records."""
    per_case: dict[int, dict] = {}
    events: list[dict] = []
    for line in stdout.splitlines():
        if not line.startswith(REPORT_PREFIX):
            continue
        try:
            # Bounded: the value in a record is the model's code's to shape (nesting a thousand deep, say).
            record = modeljson.loads(line[len(REPORT_PREFIX):])
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if "event" in record:
            events.append(record)
        elif isinstance(record.get("case"), int) and record["case"] not in per_case:
            per_case[record["case"]] = record
    return per_case, events


def execute(body: CodeBody, code: str, sandbox: SandboxHandle | None) -> Execution:
    """Run ``code`` against every case of the task in ``sandbox`` (at its limits) and judge each call on the
    host."""
    if sandbox is None:
        raise NoSandbox()
    files = {**body.context_files, body.filename: code}
    try:
        result = sandbox.run(harness(body), files, timeout_s=body.timeout_s)
    except UserError as exc:  # SandboxUnavailable mid-run: the host's problem, not the model's
        raise InfraError(f"the sandbox could not run the model's code: {exc}", retryable=False) from exc
    per_case, events = _reports(result.stdout)
    kinds = {e.get("event") for e in events}
    out = Execution(found_code=True, backend=result.backend)
    if "import_error" in kinds:
        error = next(e for e in events if e.get("event") == "import_error")
        out.failure, out.failure_detail = "import_error", str(error.get("error", ""))
    elif "missing" in kinds:
        out.failure = "missing_function"
    for index, (group, case) in enumerate(body.cases()):
        call = call_text(body.entry, case)
        record = per_case.get(index)
        if record is None:
            out.cases.append(CaseResult(group, call, False))
            continue
        if case.raises is not None:
            passed = not record.get("ok") and case.raises in (record.get("exc") or [])
        else:
            passed = bool(record.get("ok")) and _equal(record.get("value"), _normalise(case.expect),
                                                         body.tolerance)
        if record.get("ok"):
            shown = f"returned {record.get('repr', '')}"
        else:
            shown = f"raised an exception:\n```\n{str(record.get('error', '')).strip()}\n```"
        out.cases.append(CaseResult(group, call, passed, shown))
    if out.failure is None and "done" not in kinds:
        if result.timed_out or result.killed_reason == "timeout":
            out.failure = "timeout"
        elif result.killed_reason == "memory":
            out.failure = "memory"
        elif result.killed_reason == "output_limit":
            out.failure = "output_limit"
        else:
            out.failure = "crashed"
        out.failure_detail = f"exit status {result.exit_code}\n{result.stderr[-1200:]}".strip()
    return out


def feedback(body: CodeBody, run: Execution) -> str:
    """What the model is told after a failing attempt: what really happened, never what was expected."""
    again = (f"\n\nFix the code and reply with the complete corrected file `{body.filename}` in one "
             "```python block.")
    if run.failure == CUT:
        return ("Your reply was cut off by the token limit before its code was complete, so nothing was run. "
                f"Reply with the complete file `{body.filename}` in one ```python block, with less text "
                "around it.")
    if not run.found_code:
        return ("I could not find any Python code in your reply. Reply with the complete file "
                f"`{body.filename}` in one ```python block." )
    if run.failure == "import_error":
        return (f"Your code failed before any test could call `{body.entry}`:\n```\n"
                f"{_clip(run.failure_detail)}\n```{again}")
    if run.failure == "missing_function":
        return f"Your code does not define a function named `{body.entry}`.{again}"
    pending = next((c for c in run.cases if c.shown == ""), None)
    wrong = next((c for c in run.cases if not c.passed and c.shown), None)
    if run.failure is not None and (wrong is None or pending is not None and
                                    run.cases.index(pending) < run.cases.index(wrong)):
        during = f" during the test call `{_clip(pending.call, 300)}`" if pending else ""
        what = {
            "timeout": f"did not finish within {body.timeout_s:g} seconds and was stopped",
            "memory": "ran out of memory and was stopped",
            "output_limit": "printed too much output and was stopped",
        }.get(run.failure, "ended unexpectedly")
        text = f"Your code {what}{during}."
        if run.failure == "crashed" and run.failure_detail.strip():
            text += f"\n```\n{_clip(run.failure_detail)}\n```"
        return text + again
    if wrong is None:
        return f"Your code did not pass the tests.{again}"
    if wrong.shown.startswith("returned "):
        return (f"The test call `{_clip(wrong.call, 300)}` {_clip(wrong.shown, 700)}, which is not the right "
                f"result.{again}")
    return f"The test call `{_clip(wrong.call, 300)}` {_clip(wrong.shown)}{again}"


# --------------------------------------------------------------------------------------------------------
# The module


class CodeModule:
    spec = ModuleSpec(
        # runs_code: grade runs programs in the sandbox when it has no record of the run's (rescore); the runner
        # calls it in a thread so the event loop stays free.
        name="code", label="Code", bank_tasks=5, judge="advisory",
        uses_tools=False, runs_code=True, weights=ModuleWeights(balanced=0.15, agentic=0.08, coding=0.21),
    )
    version = "1"
    body_model = CodeBody

    def prompt(self, body: CodeBody) -> str:
        parts = [body.prompt.strip()]
        if body.kind == "repair":
            source = (body.source or "").rstrip()
            parts.append(f"This is `{body.filename}` as it is now:\n\n```python\n{source}\n```")
        elif body.source:
            parts.append(f"Start from this `{body.filename}`:\n\n```python\n{body.source.rstrip()}\n```")
        for name, text in body.context_files.items():
            parts.append(f"`{name}` sits beside it and can be imported (do not change it):\n\n"
                         f"```python\n{text.rstrip()}\n```")
        if body.examples:
            shown = "\n".join(f"- `{call_text(body.entry, c)}` "
                              + (f"returns `{c.expect!r}`" if c.raises is None else f"raises `{c.raises}`")
                              for c in body.examples)
            parts.append(f"Expected behaviour, for example:\n{shown}")
        what = "the complete corrected file" if body.kind == "repair" else "the complete file"
        parts.append(
            f"Reply with {what} `{body.filename}` in one ```python block. It must define `{body.entry}`; "
            "it is imported, not run, and tested with cases you have not seen. "
            + ("You have one attempt." if body.max_attempts == 1 else
               f"If a test fails you will see what went wrong and can try again "
               f"({body.max_attempts} attempts in all).")
        )
        return "\n\n".join(parts)

    def system_prompt(self, task: LoadedTask[CodeBody]) -> str | None:
        return default_system_prompt(task)

    async def run(self, task: LoadedTask[CodeBody], convo: Conversation, env: Env) -> None:
        body = task.body
        if env.sandbox is None:
            raise NoSandbox()
        convo.add("user", self.prompt(body))
        for attempt in range(1, body.max_attempts + 1):
            # A cut reply with an attempt left after it comes back here; a cut on the last one ends the episode.
            reply = await convo.ask(go_on_after_cut=goes_on_after_cut(self, task, attempt))
            extraction = attempt_code(reply, body.entry)
            if extraction is not None and extraction.found:
                outcome = await asyncio.to_thread(execute, body, extraction.code, env.sandbox)
            else:
                outcome = Execution(found_code=False, failure=CUT if extraction is None else None)
            if env.record is not None:
                env.record.append(Ran(extraction.code if extraction is not None and extraction.found else None,
                                      outcome))
            if outcome.passed or attempt == body.max_attempts:
                # Code that came whole before a cut passed: the trial ends on a cut reply after all, and the
                # one cut rule grades it (a pass marked unsure).
                cut = convo.truncation(reply)
                if cut is not None:
                    raise cut
                return
            convo.add("user", feedback(body, outcome))

    def another_attempt_after(self, task: LoadedTask[CodeBody], replies: int) -> bool:
        """Whether an attempt follows the ``replies``-th reply, so that a cut there is an attempt that failed
        rather than the trial's truncation (:func:`engine.episodes.cut.goes_on_after_cut`)."""
        return replies < task.body.max_attempts

    def attempts(self, body: CodeBody, turns: list[Turn]) -> list[Turn]:
        """The reply of each attempt, in order, at most ``max_attempts`` of them."""
        return [t for t in turns if t.role == "assistant"][: body.max_attempts]

    def complete_before_cut(self, task: LoadedTask[CodeBody], turns: list[Turn]) -> bool:
        """A cut reply is graded when its code came whole, in closed fences, before the cut
        (:mod:`engine.episodes.cut`)."""
        replies = [t.content for t in turns if t.role == "assistant"]
        return bool(replies) and code_before_cut(replies[-1], task.body.entry)

    def grade(self, task: LoadedTask[CodeBody], turns: list[Turn], env: Env) -> Grade:
        body = task.body
        if env.sandbox is None:
            raise NoSandbox()
        replies = self.attempts(body, turns)
        runs: list[Execution] = []
        summary: list[dict[str, Any]] = []
        for attempt, reply in enumerate(replies):
            extraction = attempt_code(reply, body.entry)
            if extraction is None:  # cut before its code was whole: an attempt that failed, nothing to run
                run, how = Execution(found_code=False, failure=CUT), "none"
            else:
                code = extraction.code if extraction.found else None
                run, how = _recorded(env.record, attempt, code), extraction.how
                if run is None:  # a stored transcript (rescore): the code runs again
                    run = execute(body, code, env.sandbox) if code is not None else Execution(found_code=False)
            runs.append(run)
            summary.append({
                "passed": run.passed, "extracted": how, "failure": run.failure,
                "cases_passed": sum(c.passed for c in run.cases), "cases": len(body.cases()),
            })
            if run.passed:
                break
        passed_at = next((i + 1 for i, r in enumerate(runs) if r.passed), None)
        backend = next((r.backend for r in runs if r.backend), env.sandbox.name)
        details: dict[str, Any] = {
            "first_try_pass": passed_at == 1,
            "attempts": len(runs),
            "passed_attempt": passed_at,
            "per_attempt": summary,
            "sandbox_backend": backend,
        }
        if not runs:
            return Grade(score=0.0, passed=False, reason="no reply", details=details,
                         breakdown={"examples": 0.0, "hidden": 0.0, "regression": 0.0})
        last = runs[-1] if passed_at is None else runs[passed_at - 1]
        breakdown = {g: round(last.share(g), 4) for g in ("example", "hidden", "regression")
                     if any(grp == g for grp, _ in body.cases())}
        if passed_at is not None:
            score = ATTEMPT_SCORES[passed_at - 1]
            return Grade(score=score, passed=True, breakdown=breakdown, details=details,
                         reason=f"passed on attempt {passed_at}")
        score = round(FAIL_CAP * last.share(), 4)
        return Grade(score=score, passed=False, breakdown=breakdown, details=details,
                     reason=_reason(last, len(runs)))

    def required_context(self, task: LoadedTask[CodeBody]) -> int:
        body = task.body
        shown = self.prompt(body)
        per_attempt = task.task.max_tokens + 400  # the reply, then the feedback on it
        return estimate_tokens(shown + (task.task.system or "")) + body.max_attempts * per_attempt + 256


def _recorded(record: list[object] | None, attempt: int, code: str | None) -> Execution | None:
    """How the run's own execution of this attempt fared, when the run recorded it (the same code, at the same
    attempt); None for a transcript without a record."""
    ran = record[attempt] if record is not None and attempt < len(record) else None
    return ran.execution if isinstance(ran, Ran) and ran.code == code else None


def _reason(run: Execution, attempts: int) -> str:
    tried = f"failed after {attempts} attempt{'s' if attempts != 1 else ''}"
    if run.failure == CUT:
        return f"{tried}: the last reply was cut by the token limit before its code was complete"
    if not run.found_code:
        return f"{tried}: no code found in the last reply"
    if run.failure in ("import_error", "missing_function", "timeout", "memory", "output_limit", "crashed"):
        return f"{tried}: {run.failure.replace('_', ' ')}"
    failed = [c for c in run.cases if not c.passed]
    groups = sorted({c.group for c in failed})
    return f"{tried}: {len(failed)} of {len(run.cases)} cases failed ({', '.join(groups)})"


MODULE = CodeModule()
