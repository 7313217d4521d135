"""The unsandboxed backend: runs the program directly on the host. No isolation at all.

It exists for machines where no real sandbox can run, and only when the person running the bench passes
``--allow-unsandboxed``; the result file then records ``unsandboxed``. What it still does is cosmetic next
to a sandbox: a temp directory as working dir, an empty environment, rlimits, the wall clock and the output
cap. The program can read and write whatever the engine's user can, and reach the network.
"""

from __future__ import annotations

import math
import os
import resource
import sys
import tempfile
from collections.abc import Callable

from engine.sandbox._supervise import supervise
from engine.sandbox.core import PROGRAM_NAME, PYTHON_FLAGS, ExecResult, Limits, result_of, validate_files


class UnsandboxedBackend:
    name = "unsandboxed"
    confined = False

    def __init__(self, python: str | None = None):
        self.python = python or sys.executable

    def describe(self) -> str:
        return f"unsandboxed ({self.python}; NO isolation)"

    def check(self) -> None:
        return None

    def enforced_limits(self, limits: Limits) -> list[str]:
        return [f"memory: address-space rlimit {limits.memory_mb} MB only; NO isolation of files, network or "
                "processes (--allow-unsandboxed)"]

    @staticmethod
    def _rlimits(limits: Limits, timeout_s: float) -> Callable[[], None]:
        memory = limits.memory_mb * 1024 * 1024
        fsize = limits.file_size_mb * 1024 * 1024
        cpu = math.ceil(timeout_s) + 1

        def apply() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))
            resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        return apply

    def run(self, program: str, files: dict[str, str], *, limits: Limits, timeout_s: float) -> ExecResult:
        named = validate_files(files)
        with tempfile.TemporaryDirectory(prefix="sllmb-unsandboxed-") as scratch:
            for name, content in [(PROGRAM_NAME, program), *named.items()]:
                path = os.path.join(scratch, name)
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "w", encoding="utf-8") as fh:
                    fh.write(content)
            outcome = supervise(
                [self.python, *PYTHON_FLAGS, PROGRAM_NAME],
                timeout_s=timeout_s,
                output_bytes=limits.output_bytes,
                env={"PATH": "/usr/bin:/bin", "HOME": scratch, "LANG": "C.UTF-8"},
                cwd=scratch,
                preexec_fn=self._rlimits(limits, timeout_s),
            )
        return result_of(outcome, self.name, outcome.returncode)
