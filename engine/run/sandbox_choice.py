"""The run's code sandbox, chosen once when code tasks are selected, fail-closed.

With no working backend the code tasks are skipped (recorded with the reason, printed) and the rest runs;
they run unconfined only with ``--allow-unsandboxed``. The result file records the backend either way.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from engine.core.errors import UserError
from engine.episodes.base import LoadedTask
from engine.run.request import RunRequest


@dataclass(frozen=True)
class SandboxChoice:
    # The live backend the code episodes run in (None: no code task runs); it travels beside the plan.
    handle: object = None
    label: str | None = None  # what the result file records as the sandbox backend
    skipped: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))  # task id -> why
    # Which limits the backend enforces on this host, in words (the result file's provenance says them).
    limits: tuple[str, ...] = ()


def _enforced(handle: object) -> tuple[str, ...]:
    from engine.episodes.code.module import SandboxHandle

    if isinstance(handle, SandboxHandle):
        return tuple(handle.backend.enforced_limits(handle.limits))
    return ()  # a bare backend a test hands in: its limits are the test's business


def choose_sandbox(
    request: RunRequest,
    tasks: Sequence[LoadedTask],
    *,
    given: object = None,
    candidates: Sequence[object] | None = None,
) -> SandboxChoice:
    """``given`` is a backend the caller already holds (the task probe's, the tests'); ``candidates`` replaces
    the automatic backend list (configured backend objects, tried in order)."""
    from engine.episodes.code.module import open_sandbox, sandbox_label

    if given is not None:
        return SandboxChoice(handle=given, label=sandbox_label(given), limits=_enforced(given))
    code_ids = [t.id for t in tasks if t.task.module == "code"]
    if not code_ids:
        return SandboxChoice()
    handle, label = open_sandbox(request.sandbox_name, request.allow_unsandboxed, request.sandbox_memory_mb,
                                 candidates)
    if handle is not None:
        return SandboxChoice(handle=handle, label=label, limits=_enforced(handle))
    if len(code_ids) == len(tasks):
        raise UserError(f"every selected task is a code task and {label}")
    print(f"warning: {len(code_ids)} code task(s) skipped, the rest runs: {label}", file=sys.stderr)
    return SandboxChoice(label="none (code tasks skipped)",
                         skipped=MappingProxyType(dict.fromkeys(code_ids, label)))
