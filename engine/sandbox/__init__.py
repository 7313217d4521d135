"""Where model-written code runs: one small interface over Docker/Podman, bubblewrap, or (opt-in) nothing.

Usage, once per bench run::

    sandbox = open_sandbox(args.sandbox, memory_mb=256)   # a SandboxHandle; raises if nothing safe works
    result = sandbox.run(program, {"constants.py": text}, timeout_s=5.0)
    result.ok, result.exit_code, result.stdout, result.stderr, result.timed_out, result.killed_reason

Record ``sandbox.label`` (the backend's name, and whether it confines) in the result file. Errors:

- :class:`SandboxUnavailable` (a ``UserError``): no working backend, or the one named does not work; the
  message says how to install one. Code tasks are then skipped, never run on the host.
- :class:`SandboxImageMissing` (an ``InfraError``, ``retryable=False``): the container engine has no image;
  the message names ``sandbox/build_image.sh``. Infra, never the model's failure.
- ``InfraError``: the container engine failed mid-run.
- ``ValueError``: a file name that is absolute, climbs out with ``..``, or is ``main.py``.
"""

from engine.sandbox.core import (
    PROGRAM_NAME,
    Backend,
    ExecResult,
    Limits,
    SandboxImageMissing,
    SandboxUnavailable,
)
from engine.sandbox.handle import SandboxHandle, open_sandbox, sandbox_or_reason
from engine.sandbox.selection import (
    AUTO_ORDER,
    BACKEND_NAMES,
    DEFAULT_TIMEOUT_S,
    make_backend,
    run,
    select_backend,
)

__all__ = [
    "AUTO_ORDER",
    "BACKEND_NAMES",
    "DEFAULT_TIMEOUT_S",
    "PROGRAM_NAME",
    "Backend",
    "ExecResult",
    "Limits",
    "SandboxHandle",
    "SandboxImageMissing",
    "SandboxUnavailable",
    "make_backend",
    "open_sandbox",
    "run",
    "sandbox_or_reason",
    "select_backend",
]
