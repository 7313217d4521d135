"""The run's code sandbox, chosen once when code tasks are selected, fail-closed (opened with
``engine.sandbox.sandbox_or_reason``, as every caller opens one).

With no working backend the code tasks are skipped (recorded with the reason, printed) and the rest runs;
they run unconfined only with ``--allow-unsandboxed``. The result file records the backend either way.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from engine.core.errors import UserError
from engine.episodes import SPECS
from engine.episodes.base import LoadedTask
from engine.run.request import RunRequest
from engine.sandbox.core import Backend
from engine.sandbox.handle import SandboxHandle, sandbox_or_reason


@dataclass(frozen=True)
class SandboxChoice:
    # The sandbox the code episodes run in (None: no code task runs); it travels beside the plan.
    handle: SandboxHandle | None = None
    label: str | None = None  # what the result file records as the sandbox backend
    skipped: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # task id -> why
    # Which limits the backend enforces on this host, in words (the result file's provenance says them).
    limits: tuple[str, ...] = ()


def choose_sandbox(
    request: RunRequest,
    tasks: Sequence[LoadedTask],
    *,
    given: SandboxHandle | None = None,
    candidates: Sequence[Backend] | None = None,
) -> SandboxChoice:
    """``given`` is a sandbox the caller already holds (the task probe's, the grader corpus', the tests');
    ``candidates`` replaces the automatic backend list (configured backend objects, tried in order)."""
    if given is not None:
        return SandboxChoice(handle=given, label=given.label, limits=given.enforced_limits())
    code_ids = [t.id for t in tasks if SPECS[t.task.module].runs_code]
    if not code_ids:
        return SandboxChoice()
    handle, label = sandbox_or_reason(request.sandbox_name, allow_unsandboxed=request.allow_unsandboxed,
                                      memory_mb=request.sandbox_memory_mb, candidates=candidates)
    if handle is not None:
        return SandboxChoice(handle=handle, label=label, limits=handle.enforced_limits())
    if len(code_ids) == len(tasks):
        raise UserError(f"every selected task is a code task and {label}")
    print(f"warning: {len(code_ids)} code task(s) skipped, the rest runs: {label}", file=sys.stderr)
    return SandboxChoice(label="none (code tasks skipped)",
                         skipped=MappingProxyType(dict.fromkeys(code_ids, label)))
