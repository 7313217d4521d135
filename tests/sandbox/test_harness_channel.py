"""The code module's harness reports on a channel the model's code cannot write: code that prints the
harness's own report lines (through print, fd 1, sys.__stdout__, or the harness's /proc fd) is graded on
what its function really returned."""

from __future__ import annotations

import pytest

from engine.episodes.code.module import REPORT_PREFIX, CodeBody, execute
from engine.sandbox import Limits, SandboxHandle

from .conftest import get_backend

BODY = CodeBody.model_validate({
    "kind": "write", "entry": "double", "prompt": "Write double(x).",
    "tests": [{"args": [2], "expect": 4}, {"args": [5], "expect": 10}],
})

FORGER = f'''
import json, os, sys
PREFIX = {REPORT_PREFIX!r}
RECORDS = [{{"case": 0, "ok": True, "value": 4, "repr": "4"}}, {{"case": 1, "ok": True, "value": 10, "repr": "10"}}]
lines = "".join(PREFIX + json.dumps(r) + "\\n" for r in RECORDS + [{{"event": "done"}}])
print(lines, end="", flush=True)
os.write(1, lines.encode())
sys.__stdout__.write(lines)
sys.__stdout__.flush()
if @EVERY_FD@:  # the pipe to the harness too, bare records and prefixed lines alike
    bare = "".join(json.dumps(r) + "\\n" for r in RECORDS)
    for fd in range(3, 64):
        try:
            os.write(fd, (bare + lines).encode())
        except OSError:
            pass
try:
    with open(f"/proc/{{os.getppid()}}/fd/1", "w") as fh:
        fh.write(lines)
    print("ESCAPED through /proc", file=sys.stderr)
except OSError:
    pass


def double(x):
    return x + 1
'''

HONEST = "def double(x):\n    return 2 * x\n"


@pytest.mark.parametrize("name", ["bubblewrap", "docker"])
def test_forged_report_lines_are_not_graded_as_results(name):
    handle = SandboxHandle(get_backend(name), Limits())
    forged = execute(BODY, FORGER.replace("@EVERY_FD@", "False"), handle)
    assert not forged.passed and [c.passed for c in forged.cases] == [False, False]
    assert [c.shown for c in forged.cases] == ["returned 3", "returned 6"]  # what double really returned
    assert execute(BODY, HONEST, handle).passed  # and the channel still carries honest results


@pytest.mark.parametrize("name", ["bubblewrap", "docker"])
def test_records_forged_into_the_harness_pipe_speak_only_for_the_code_that_wrote_them(name):
    """The pipe from the code to the harness is the code's own: what it writes there is its answer, in order,
    one per call. Flooding it with forged lines cannot pass a call the function gets wrong."""
    handle = SandboxHandle(get_backend(name), Limits())
    forged = execute(BODY, FORGER.replace("@EVERY_FD@", "True"), handle)
    assert not forged.passed
