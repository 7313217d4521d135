"""The docker backend: one throw-away container per execution, driven through the ``docker`` SDK.

It speaks the Docker Engine API, so it drives Docker or Podman's compatible service alike (``DOCKER_HOST``,
or the usual socket paths of either). The container has no network, a read-only root, tmpfs scratch and
/tmp, a memory cap with no swap, a PID cap, one CPU, an unprivileged user, no capabilities and
no-new-privileges. The program reaches it as a tar copied into the stopped container; its PID 1 is
``_supervise.py``, which enforces the wall clock and the output cap from inside.
"""

from __future__ import annotations

import io
import json
import os
import resource
import tarfile
from pathlib import Path
from typing import Any

from engine.core.errors import InfraError
from engine.sandbox import _supervise
from engine.sandbox.core import (
    INSTALL_HINT,
    PROGRAM_NAME,
    ExecResult,
    Limits,
    SandboxImageMissing,
    SandboxUnavailable,
    decode,
    signal_status,
    validate_files,
)

DEFAULT_IMAGE = "localhost/small-llm-bench-sandbox:py3.11"
#: The image's interpreter and the uid:gid the program runs as (``nobody`` in the image we build).
IMAGE_PYTHON = "/usr/bin/python3"
RUN_AS = "65534:65534"
LABEL = "small-llm-bench.sandbox"
#: Seconds the host waits beyond the program's own timeout (container start and stop) before killing it.
HOST_GRACE_S = 20.0


def _nproc_ceiling() -> int:
    hard = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    return 4096 if hard == resource.RLIM_INFINITY else min(hard, 4096)


def _default_base_url() -> str | None:
    """``DOCKER_HOST`` if set, else the first engine socket that exists (Docker's, then Podman's)."""
    if os.environ.get("DOCKER_HOST"):
        return None  # docker.from_env reads it, with its TLS settings
    candidates = ["/var/run/docker.sock", "/run/podman/podman.sock"]
    runtime_dir = os.environ.get("XDG_RUNTIME_DIR")
    if runtime_dir:
        candidates.append(f"{runtime_dir}/podman/podman.sock")
    for path in candidates:
        if os.path.exists(path):
            return f"unix://{path}"
    return None


class DockerBackend:
    """Run programs in containers of ``image``. ``base_url`` overrides DOCKER_HOST and socket discovery."""

    name = "docker"
    confined = True

    def __init__(self, image: str = DEFAULT_IMAGE, base_url: str | None = None):
        self.image = image
        self.base_url = base_url
        self._client: Any = None
        self._engine = "unknown engine"
        self._init_source = Path(_supervise.__file__).read_text(encoding="utf-8")

    def describe(self) -> str:
        return f"docker ({self._engine}, image {self.image})"

    def enforced_limits(self, limits: Limits) -> list[str]:
        # The container engine puts each container in its own cgroup: memory (swap included), CPU and pids.
        return [
            f"memory: container cgroup {limits.memory_mb} MB, swap included (shared memory counted)",
            f"cpu: {limits.cpus:g} CPU(s) by the container's CPU quota",
            f"processes: {limits.pids} (container pids limit)",
            f"files: tmpfs {limits.scratch_mb} MB scratch; output: {limits.output_bytes} bytes per stream; "
            "network: none",
        ]

    def _connect(self) -> Any:
        if self._client is not None:
            return self._client
        # Imported here: a missing SDK disables this backend only.
        try:
            import docker  # type: ignore[import-untyped]
            from docker.errors import DockerException  # type: ignore[import-untyped]
        except ImportError as exc:
            raise SandboxUnavailable(
                f"docker: the `docker` Python package is missing ({exc}). {INSTALL_HINT}"
            ) from exc

        url = self.base_url or _default_base_url()
        try:
            client = docker.DockerClient(base_url=url, timeout=60) if url else docker.from_env(timeout=60)
            client.ping()
            version = client.version()
        except (DockerException, OSError) as exc:
            where = url or os.environ.get("DOCKER_HOST") or "the default socket"
            raise SandboxUnavailable(
                f"docker: no container engine answers at {where} ({exc.__class__.__name__}). {INSTALL_HINT}"
            ) from exc
        parts = version.get("Components") or [{}]
        self._engine = f"{parts[0].get('Name', 'Docker Engine')} {version.get('Version', '?')}"
        self._client = client
        return client

    def check(self) -> None:
        from docker.errors import DockerException, ImageNotFound  # type: ignore[import-untyped]

        client = self._connect()
        try:
            client.images.get(self.image)
        except ImageNotFound as exc:
            raise SandboxImageMissing(self.image) from exc
        except DockerException as exc:
            raise InfraError(f"docker: could not inspect image {self.image!r}: {exc}") from exc

    def _archive(self, program: str, files: dict[str, str]) -> bytes:
        buf = io.BytesIO()
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as tar:
            made: set[str] = set()
            for name, content in [(PROGRAM_NAME, program), *files.items()]:
                path = f"sandbox_in/{name}"
                parts = path.split("/")[:-1]
                for i in range(1, len(parts) + 1):
                    d = "/".join(parts[:i])
                    if d not in made:
                        info = tarfile.TarInfo(d)
                        info.type, info.mode = tarfile.DIRTYPE, 0o755
                        tar.addfile(info)
                        made.add(d)
                data = content.encode("utf-8")
                info = tarfile.TarInfo(path)
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
        return buf.getvalue()

    def _host_config(self, limits: Limits) -> dict[str, Any]:
        from docker.types import Ulimit  # type: ignore[import-untyped]

        tmpfs_opts = f"rw,noexec,nosuid,nodev,size={limits.scratch_mb}m,mode=1777"
        fsize = limits.file_size_mb * 1024 * 1024
        return {
            "network_mode": "none",
            "read_only": True,
            "tmpfs": {"/scratch": tmpfs_opts, "/tmp": tmpfs_opts},
            "user": RUN_AS,
            "cap_drop": ["ALL"],
            "security_opt": ["no-new-privileges"],
            "pids_limit": limits.pids,
            "mem_limit": f"{limits.memory_mb}m",
            "memswap_limit": f"{limits.memory_mb}m",
            "nano_cpus": int(limits.cpus * 1e9),
            "ulimits": [
                Ulimit(name="fsize", soft=fsize, hard=fsize),
                Ulimit(name="core", soft=0, hard=0),
                Ulimit(name="nofile", soft=256, hard=256),
                # Given explicitly because Podman replaces ALL its default ulimits once any is set, and
                # its own nproc default can exceed the host's hard limit (runc then refuses to start).
                # The real PID cap is pids_limit; this per-uid limit only has to be sane.
                Ulimit(name="nproc", soft=_nproc_ceiling(), hard=_nproc_ceiling()),
            ],
            "environment": {},
            "working_dir": "/scratch",
            "hostname": "sandbox",
            "labels": {LABEL: "1"},
        }

    @staticmethod
    def _read(stream: Any, cap: int) -> bytes:
        out = bytearray()
        try:
            for chunk in stream:
                out += chunk
                if len(out) > cap:
                    break
        finally:
            close = getattr(stream, "close", None)
            if close is not None:
                close()
        return bytes(out[:cap])

    def run(self, program: str, files: dict[str, str], *, limits: Limits, timeout_s: float) -> ExecResult:
        import requests
        from docker.errors import DockerException, ImageNotFound, NotFound  # type: ignore[import-untyped]

        named = validate_files(files)
        client = self._connect()
        argv = [IMAGE_PYTHON, "-I", "-c", self._init_source, repr(float(timeout_s)), str(limits.output_bytes)]
        container = None
        host_killed = False
        try:
            try:
                container = client.containers.create(self.image, argv, **self._host_config(limits))
            except ImageNotFound as exc:
                raise SandboxImageMissing(self.image) from exc
            if not container.put_archive("/", self._archive(program, named)):
                raise InfraError("docker: could not copy the program into the container")
            container.start()
            try:
                waited = container.wait(timeout=timeout_s + HOST_GRACE_S)
                status_code = waited.get("StatusCode")
            except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError):
                host_killed = True
                container.kill()
                status_code = None
            stdout = self._read(container.logs(stdout=True, stderr=False, stream=True), limits.output_bytes)
            raw_err = self._read(
                container.logs(stdout=False, stderr=True, stream=True), limits.output_bytes + 4096
            )
            container.reload()
            oom = bool(container.attrs.get("State", {}).get("OOMKilled"))
        except (DockerException, requests.exceptions.RequestException) as exc:
            if isinstance(exc, NotFound) and "image" in str(exc).lower():
                raise SandboxImageMissing(self.image) from exc
            raise InfraError(f"docker: the container engine failed during a run: {exc}") from exc
        finally:
            if container is not None:
                try:
                    container.remove(force=True)
                except (DockerException, requests.exceptions.RequestException):
                    pass
        return self._result(stdout, raw_err, status_code, oom, host_killed, limits)

    def _result(
        self, stdout: bytes, raw_err: bytes, status_code: int | None, oom: bool, host_killed: bool,
        limits: Limits,
    ) -> ExecResult:
        at = raw_err.rfind(_supervise.STATUS_PREFIX)
        status: dict[str, Any] | None = None
        stderr = raw_err
        if at >= 0:
            try:
                status = json.loads(raw_err[at + len(_supervise.STATUS_PREFIX):].decode().strip())
                stderr = raw_err[:at]
            except (ValueError, UnicodeDecodeError):
                status = None
        if status is None:
            # The init never reported: the container itself was killed (host timeout, OOM of PID 1...).
            died = "timeout" if host_killed else ("memory" if oom else "sandbox_died")
            return ExecResult(
                exit_code=signal_status(status_code), stdout=decode(stdout),
                stderr=decode(stderr[: limits.output_bytes]), timed_out=host_killed, backend=self.name,
                killed_reason=died, stdout_truncated=len(stdout) >= limits.output_bytes,
            )
        if "setup_error" in status:
            raise InfraError(f"docker: the sandbox image could not set up the run: {status['setup_error']} "
                             f"(rebuild it with `sandbox/build_image.sh {self.image}`)", retryable=False)
        code = status.get("returncode")
        reason = status.get("killed_reason")
        if reason is None and oom and code is not None and code < 0:
            reason = "memory"
        return ExecResult(
            exit_code=signal_status(code) if isinstance(code, int) else None,
            stdout=decode(stdout),
            stderr=decode(stderr[: limits.output_bytes]),
            timed_out=bool(status.get("timed_out")),
            backend=self.name,
            killed_reason=reason,
            stdout_truncated=bool(status.get("stdout_truncated")),
            stderr_truncated=bool(status.get("stderr_truncated")),
            duration_s=float(status.get("duration_s") or 0.0),
        )
