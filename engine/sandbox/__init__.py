"""Where model-written code runs: one small interface over Docker/Podman, bubblewrap, or (opt-in) nothing.

Usage, once per bench run::

    backend = select_backend(args.sandbox, args.allow_unsandboxed)   # raises if nothing safe works
    result = run(program, {"constants.py": text}, limits=Limits(memory_mb=256), timeout_s=5.0,
                 backend=backend)
    result.ok, result.exit_code, result.stdout, result.stderr, result.timed_out, result.killed_reason

Record ``backend.name`` (and ``backend.confined``) in the result file. Errors:

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
    "SandboxImageMissing",
    "SandboxUnavailable",
    "make_backend",
    "run",
    "select_backend",
]
