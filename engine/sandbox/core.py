"""Types shared by every backend: the limits, the result, the backend protocol and the errors."""

from __future__ import annotations

import posixpath
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from engine.core.errors import InfraError, UserError

if TYPE_CHECKING:
    from engine.sandbox._supervise import Outcome

#: The file the program is written to, inside the scratch directory; it runs as ``python3 -E -s main.py``.
PROGRAM_NAME = "main.py"
#: Interpreter flags: ignore PYTHON* variables and the user site. Not ``-I``: it would drop the scratch dir
#: from ``sys.path`` and a program could no longer import its sibling files.
PYTHON_FLAGS = ("-E", "-s")

INSTALL_HINT = (
    "Install one: `apt-get install -y bubblewrap` (Linux), or start Docker or Podman "
    "(`podman system service --time=0 unix:///run/podman/podman.sock` and "
    "DOCKER_HOST=unix:///run/podman/podman.sock) and build the image with `sandbox/build_image.sh`. "
    "Pass --allow-unsandboxed only to run model-written code on this host with no confinement."
)


class SandboxUnavailable(UserError):
    """No sandbox backend works here (or the one asked for does not). Code tasks are skipped, not run."""


class SandboxImageMissing(InfraError):
    """The container engine answers but the Python image is not there: the host's fault, never the model's."""

    def __init__(self, image: str):
        super().__init__(
            f"the sandbox image {image!r} is not in the container engine; build it with "
            f"`sandbox/build_image.sh {image}` (SANDBOX_ENGINE=docker for Docker), then run again",
            retryable=False,
        )
        self.image = image


@dataclass(frozen=True)
class Limits:
    """What one execution may use. Defaults follow the published sandbox: 256 MB, 64 pids, one CPU."""

    memory_mb: int = 256
    pids: int = 64
    cpus: float = 1.0
    scratch_mb: int = 16
    file_size_mb: int = 16
    output_bytes: int = 64 * 1024

    def __post_init__(self) -> None:
        if self.memory_mb < 32:
            raise UserError(f"sandbox memory must be at least 32 MB, got {self.memory_mb} (--sandbox-memory)")
        for name in ("pids", "scratch_mb", "file_size_mb", "output_bytes"):
            if getattr(self, name) < 1:
                raise UserError(f"sandbox limit {name} must be positive, got {getattr(self, name)}")
        if self.cpus <= 0:
            raise UserError(f"sandbox cpus must be positive, got {self.cpus}")


@dataclass(frozen=True)
class ExecResult:
    """How one execution ended.

    ``exit_code`` is the program's status; a program ended by signal N reports -N (bwrap and containers
    pass it on as 128+N, which :func:`signal_status` maps back, so a program that calls ``exit(137)``
    also reads as -9). ``killed_reason`` says why the sandbox stopped it: ``timeout``,
    ``output_limit``, ``memory`` (the container's OOM killer) or ``sandbox_died``; ``None`` when the program
    ended on its own. Everything here is the program's doing: a sandbox that cannot run raises instead.
    """

    exit_code: int | None
    stdout: str
    stderr: str
    timed_out: bool
    backend: str
    killed_reason: str | None = None
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    duration_s: float = 0.0

    @property
    def ok(self) -> bool:
        """The program ran to its end and exited 0: the only outcome a grader may count as a pass."""
        return self.exit_code == 0 and self.killed_reason is None and not self.timed_out


class Backend(Protocol):
    """One way of running code. ``check`` raises when it cannot run here; ``run`` executes one program."""

    name: str
    #: False only for the unsandboxed backend; result files record both the name and this.
    confined: bool

    def check(self) -> None: ...

    def describe(self) -> str: ...

    def enforced_limits(self, limits: Limits) -> list[str]:
        """Which of ``limits`` this backend enforces here and how, in words, for the result file."""
        ...

    def run(self, program: str, files: dict[str, str], *, limits: Limits, timeout_s: float) -> ExecResult: ...


def validate_files(files: dict[str, str]) -> dict[str, str]:
    """Check the extra files' names: relative, no ``..``, not the program itself. Returns normalised names."""
    out: dict[str, str] = {}
    for name, content in files.items():
        norm = posixpath.normpath(name)
        if (
            not name
            or name.startswith("/")
            or norm.startswith("..")
            or norm in (".", PROGRAM_NAME)
            or "\x00" in name
        ):
            raise ValueError(f"sandbox file name {name!r} must be a relative path inside the scratch dir "
                             f"and not {PROGRAM_NAME!r}")
        if not isinstance(content, str):
            raise ValueError(f"sandbox file {name!r} must be text (str), got {type(content).__name__}")
        out[norm] = content
    return out


def decode(data: bytes) -> str:
    return data.decode("utf-8", errors="replace")


def result_of(outcome: Outcome, backend: str, exit_code: int | None) -> ExecResult:
    """The ExecResult of a program run under ``_supervise.supervise`` on the host (bubblewrap, unsandboxed);
    the backend says how its exit status reads."""
    return ExecResult(
        exit_code=exit_code,
        stdout=decode(outcome.stdout),
        stderr=decode(outcome.stderr),
        timed_out=outcome.timed_out,
        backend=backend,
        killed_reason=outcome.killed_reason,
        stdout_truncated=outcome.stdout_truncated,
        stderr_truncated=outcome.stderr_truncated,
        duration_s=outcome.duration_s,
    )


def signal_status(code: int | None) -> int | None:
    """Map the shell convention 128+N (death by signal N) to Python's -N."""
    if code is not None and 128 < code <= 128 + 64:
        return 128 - code
    return code
