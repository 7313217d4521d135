"""The sandbox interface: what a well-behaved program gets back, the limits, fail-closed selection, errors."""

from __future__ import annotations

import pytest

from engine.core.errors import InfraError, UserError
from engine.sandbox import (
    Backend,
    ExecResult,
    Limits,
    SandboxImageMissing,
    SandboxUnavailable,
    run,
    select_backend,
)
from engine.sandbox.bubblewrap import BubblewrapBackend
from engine.sandbox.core import validate_files
from engine.sandbox.docker_backend import DockerBackend
from engine.sandbox.unsandboxed import UnsandboxedBackend

from .conftest import get_backend

ALL = ["bubblewrap", "docker", "unsandboxed"]


@pytest.fixture(params=ALL)
def any_backend(request: pytest.FixtureRequest) -> Backend:
    """Every backend, the unsandboxed one included: only well-behaved programs run through this."""
    if request.param == "unsandboxed":
        return UnsandboxedBackend()
    return get_backend(request.param)


def test_program_runs_beside_its_files_and_imports_them(any_backend: Backend) -> None:
    files = {"constants.py": "RATE = 7\n", "data/table.txt": "a,b\n"}
    program = (
        "import constants, pathlib\n"
        "print(constants.RATE * 6)\n"
        "print(pathlib.Path('data/table.txt').read_text().strip())\n"
    )
    result = run(program, files, limits=Limits(), timeout_s=10, backend=any_backend)
    assert result.ok, result
    assert result.stdout.split() == ["42", "a,b"]
    assert result.backend == any_backend.name
    assert not result.timed_out and result.killed_reason is None


def test_failure_comes_back_with_the_real_traceback(any_backend: Backend) -> None:
    result = any_backend.run("def f():\n    return 1 / 0\nf()\n", {}, limits=Limits(), timeout_s=10)
    assert result.exit_code == 1 and not result.ok
    assert "ZeroDivisionError" in result.stderr and 'File "' in result.stderr


def test_exit_status_and_signal_death(any_backend: Backend) -> None:
    assert any_backend.run("raise SystemExit(3)", {}, limits=Limits(), timeout_s=10).exit_code == 3
    died = any_backend.run("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)", {}, limits=Limits(),
                           timeout_s=10)
    assert died.exit_code == -11 and not died.ok


def test_timeout_keeps_partial_output(any_backend: Backend) -> None:
    result = any_backend.run("import time\nprint('started', flush=True)\ntime.sleep(30)", {}, limits=Limits(),
                             timeout_s=1.0)
    assert result.timed_out and result.killed_reason == "timeout" and not result.ok
    assert "started" in result.stdout
    assert result.duration_s < 3


def test_closing_the_pipes_does_not_dodge_the_clock(any_backend: Backend) -> None:
    program = "import os\nos.close(1)\nos.close(2)\nwhile True:\n    pass\n"
    result = any_backend.run(program, {}, limits=Limits(), timeout_s=1.0)
    assert result.timed_out


def test_output_is_capped(any_backend: Backend) -> None:
    limits = Limits(output_bytes=1000)
    result = any_backend.run("import sys\nsys.stderr.write('e' * 5000)\n", {}, limits=limits, timeout_s=10)
    assert result.stderr == "e" * 1000 and result.stderr_truncated
    assert result.killed_reason == "output_limit" and not result.ok


def test_small_output_is_not_marked_truncated(any_backend: Backend) -> None:
    result = any_backend.run("print('x' * 10)", {}, limits=Limits(output_bytes=1000), timeout_s=10)
    assert result.ok and not result.stdout_truncated and not result.stderr_truncated


@pytest.mark.parametrize("name", ["bubblewrap", "docker"])
def test_memory_cap_is_configurable(name: str) -> None:
    backend = get_backend(name)
    program = "block = bytearray(150 << 20)\nblock[::4096] = b'x' * len(block[::4096])\nprint('held')\n"
    small = backend.run(program, {}, limits=Limits(memory_mb=64), timeout_s=10)
    assert not small.ok and "held" not in small.stdout
    big = backend.run(program, {}, limits=Limits(memory_mb=512), timeout_s=10)
    assert big.ok and "held" in big.stdout, big


@pytest.mark.parametrize("name", ["bubblewrap", "docker"])
def test_runs_as_an_unprivileged_user_with_an_empty_environment(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SLLMB_SHOULD_NOT_LEAK", "leak")
    backend = get_backend(name)
    program = "import os\nprint(os.getuid(), os.getgid())\nprint(sorted(os.environ))\n"
    result = backend.run(program, {}, limits=Limits(), timeout_s=10)
    uid_line, env_line = result.stdout.splitlines()
    assert uid_line == "65534 65534"
    assert "SLLMB_SHOULD_NOT_LEAK" not in env_line and "leak" not in result.stdout


@pytest.mark.parametrize("bad", ["../escape.py", "/etc/passwd", "main.py", "a/../../b", ""])
def test_file_names_must_stay_inside_scratch(bad: str) -> None:
    with pytest.raises(ValueError):
        validate_files({bad: "x"})


def test_limits_are_validated() -> None:
    with pytest.raises(UserError, match="--sandbox-memory"):
        Limits(memory_mb=8)
    with pytest.raises(UserError):
        Limits(pids=0)


def test_unknown_backend_name_is_a_user_error() -> None:
    with pytest.raises(UserError, match="bubblewrap"):
        select_backend("chroot")


def test_unsandboxed_needs_explicit_consent() -> None:
    with pytest.raises(UserError, match="--allow-unsandboxed"):
        select_backend("unsandboxed", allow_unsandboxed=False)
    chosen = select_backend("unsandboxed", allow_unsandboxed=True)
    assert chosen.name == "unsandboxed" and chosen.confined is False


def _broken_candidates() -> list[Backend]:
    return [DockerBackend(base_url="unix:///nonexistent/engine.sock"),
            BubblewrapBackend(bwrap="/nonexistent/bwrap")]


def test_fail_closed_when_no_sandbox_works() -> None:
    with pytest.raises(SandboxUnavailable) as caught:
        select_backend(None, allow_unsandboxed=False, candidates=_broken_candidates())
    message = str(caught.value)
    assert isinstance(caught.value, UserError)
    assert "apt-get install -y bubblewrap" in message and "Podman" in message and "skipped" in message


def test_no_sandbox_plus_consent_gives_the_unsandboxed_backend() -> None:
    chosen = select_backend(None, allow_unsandboxed=True, candidates=_broken_candidates())
    assert chosen.name == "unsandboxed"


def test_auto_selection_falls_back_to_bubblewrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/engine.sock")
    assert select_backend(None).name == "bubblewrap"


def test_auto_selection_prefers_a_working_docker() -> None:
    get_backend("docker")  # skips unless SANDBOX_DOCKER_TESTS=1 (which sets DOCKER_HOST)
    assert select_backend(None).name == "docker"


def test_named_backend_that_is_missing_fails_with_install_hint() -> None:
    with pytest.raises(SandboxUnavailable, match="apt-get install -y bubblewrap"):
        BubblewrapBackend(bwrap="/nonexistent/bwrap").check()
    with pytest.raises(SandboxUnavailable, match="no container engine answers"):
        DockerBackend(base_url="unix:///nonexistent/engine.sock").check()


def test_missing_image_is_an_infra_error_with_build_instructions() -> None:
    real = get_backend("docker")
    assert isinstance(real, DockerBackend)
    missing = DockerBackend(image="localhost/sllmb-no-such-image:0", base_url=real.base_url)
    with pytest.raises(SandboxImageMissing) as caught:
        missing.check()
    assert isinstance(caught.value, InfraError) and caught.value.retryable is False
    assert "sandbox/build_image.sh" in str(caught.value)
    with pytest.raises(SandboxImageMissing):
        missing.run("print(1)", {}, limits=Limits(), timeout_s=5)


def test_exec_result_ok_needs_a_clean_exit() -> None:
    base = {"stdout": "", "stderr": "", "backend": "bubblewrap"}
    assert ExecResult(exit_code=0, timed_out=False, **base).ok
    assert not ExecResult(exit_code=0, timed_out=False, killed_reason="output_limit", **base).ok
    assert not ExecResult(exit_code=None, timed_out=True, killed_reason="timeout", **base).ok
