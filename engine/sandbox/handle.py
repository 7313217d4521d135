"""The sandbox a caller holds: one checked backend with the limits every execution in it gets.

Every caller opens it the same way, with :func:`open_sandbox`: a run (through ``run/sandbox_choice.py``,
which skips the code tasks when none works), ``rescore`` and the pull-request check (regrading code trials),
``sllmb graders`` and the probe. What travels to an episode (``Env.sandbox``) is this handle, never a bare
backend, so the limits a run asked for (``--sandbox-memory``) hold for every execution of it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.sandbox.core import Backend, ExecResult, Limits, SandboxImageMissing, SandboxUnavailable
from engine.sandbox.selection import select_backend


@dataclass(frozen=True)
class SandboxHandle:
    """A checked backend with its limits: what ``Env.sandbox`` carries."""

    backend: Backend
    limits: Limits = field(default_factory=Limits)

    @property
    def name(self) -> str:
        return self.backend.name

    @property
    def confined(self) -> bool:
        return self.backend.confined

    @property
    def label(self) -> str:
        """What the result file records: the backend's name and whether it confines the code."""
        return f"{self.name} ({'confined' if self.confined else 'NOT confined'})"

    def enforced_limits(self) -> tuple[str, ...]:
        """Which of the limits the backend enforces on this host, in words, for the result file."""
        return tuple(self.backend.enforced_limits(self.limits))

    def run(self, program: str, files: dict[str, str], *, timeout_s: float) -> ExecResult:
        return self.backend.run(program, files, limits=self.limits, timeout_s=timeout_s)


def open_sandbox(
    name: str | None = None,
    *,
    allow_unsandboxed: bool = False,
    memory_mb: int = Limits.memory_mb,
    candidates: Sequence[Backend] | None = None,
) -> SandboxHandle:
    """Open the sandbox once, fail-closed: the backend named (``--sandbox``) or the first that works here
    (``candidates`` replaces the automatic list), with ``memory_mb`` per execution.

    Raises :class:`SandboxUnavailable` (a ``UserError``) when none works, or the one named does not, and
    :class:`SandboxImageMissing` when the container engine lacks the image. Runs unconfined only with
    ``allow_unsandboxed``, and says so.
    """
    limits = Limits(memory_mb=memory_mb)
    handle = SandboxHandle(select_backend(name, allow_unsandboxed, candidates=candidates), limits)
    if not handle.confined:
        print("warning: --allow-unsandboxed: no sandbox works here, so model-written code runs on this host "
              "WITHOUT confinement; the result file records it", file=sys.stderr)
    return handle


def sandbox_or_reason(
    name: str | None = None,
    *,
    allow_unsandboxed: bool = False,
    memory_mb: int = Limits.memory_mb,
    candidates: Sequence[Backend] | None = None,
) -> tuple[SandboxHandle | None, str]:
    """:func:`open_sandbox` for a caller that can go on without code: the handle and its label, or ``None``
    and the reason (which says how to install a sandbox). A backend named with ``--sandbox`` that does not
    work still raises: the person asked for it. A missing container image is the host's problem, not the
    model's: it is a reason, never a failure of the model."""
    try:
        handle = open_sandbox(name, allow_unsandboxed=allow_unsandboxed, memory_mb=memory_mb,
                              candidates=candidates)
    except SandboxImageMissing as exc:
        return None, str(exc)
    except SandboxUnavailable as exc:
        if name is not None:
            raise
        return None, str(exc)
    return handle, handle.label
