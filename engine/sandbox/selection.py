"""Choosing a backend, fail-closed: a real sandbox or a clear error, never a silent fall to the host."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from engine.core.errors import UserError
from engine.sandbox.core import (
    INSTALL_HINT,
    Backend,
    ExecResult,
    Limits,
    SandboxImageMissing,
    SandboxUnavailable,
)

#: The order ``--sandbox`` (unset) tries them in. ``unsandboxed`` is never tried on its own.
AUTO_ORDER = ("docker", "bubblewrap")
BACKEND_NAMES = (*AUTO_ORDER, "unsandboxed")
DEFAULT_TIMEOUT_S = 5.0


def make_backend(name: str) -> Backend:
    """A backend object by name, not yet checked. Unknown names are a :class:`UserError`."""
    if name == "docker":
        from engine.sandbox.docker_backend import DockerBackend

        return DockerBackend()
    if name == "bubblewrap":
        from engine.sandbox.bubblewrap import BubblewrapBackend

        return BubblewrapBackend()
    if name == "unsandboxed":
        from engine.sandbox.unsandboxed import UnsandboxedBackend

        return UnsandboxedBackend()
    raise UserError(f"unknown sandbox {name!r} (--sandbox): choose one of {', '.join(BACKEND_NAMES)}")


def select_backend(
    name: str | None = None,
    allow_unsandboxed: bool = False,
    *,
    candidates: Sequence[Backend] | None = None,
) -> Backend:
    """Return a backend that works here.

    ``name`` (``--sandbox``) picks one and raises if it does not work: :class:`SandboxUnavailable` (a
    :class:`UserError`) when it is not installed or not reachable, :class:`SandboxImageMissing` (an
    ``InfraError`` with ``retryable=False``) when the container engine lacks the image. With no name, the
    backends of :data:`AUTO_ORDER` are tried in turn; when none works, the unsandboxed backend is returned
    only if ``allow_unsandboxed`` (``--allow-unsandboxed``), else :class:`SandboxUnavailable` lists why each
    failed. Call it once per bench run and keep the backend: checking starts a probe execution.
    ``candidates`` replaces the automatic list (configured backend objects, tried in order).
    """
    if name == "unsandboxed" and not allow_unsandboxed:
        raise UserError("--sandbox unsandboxed runs model-written code on this host; add --allow-unsandboxed "
                        "to confirm")
    if name is not None:
        backend = make_backend(name)
        backend.check()
        return backend
    reasons: list[str] = []
    if candidates is None:
        names = [n for n in AUTO_ORDER if n != "bubblewrap" or sys.platform.startswith("linux")]
        candidates = [make_backend(n) for n in names]
    for backend in candidates:
        try:
            backend.check()
        except (SandboxUnavailable, SandboxImageMissing) as exc:
            reasons.append(str(exc).split(". Install one")[0])
            continue
        return backend
    if allow_unsandboxed:
        return make_backend("unsandboxed")
    raise SandboxUnavailable(
        "no sandbox can run model-written code here, so code tasks are skipped. "
        + " | ".join(reasons) + f". {INSTALL_HINT}"
    )


def run(
    program: str,
    files: dict[str, str] | None = None,
    *,
    limits: Limits | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    backend: Backend | str | None = None,
    allow_unsandboxed: bool = False,
) -> ExecResult:
    """Run ``program`` (as ``main.py``) beside ``files`` in a fresh scratch dir; return how it ended.

    Whatever the program does — crash, loop, flood, fork, escape attempts — comes back as an
    :class:`ExecResult` (the model's failure); only a sandbox that cannot run raises.
    """
    chosen = backend if backend is not None and not isinstance(backend, str) else select_backend(
        backend, allow_unsandboxed
    )
    return chosen.run(program, dict(files or {}), limits=limits or Limits(), timeout_s=timeout_s)
