"""The machine a run ran on, as it reports itself: real fake GPU tools on PATH (executables, not patches),
answering well and answering badly."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

import pytest

from engine.core.schema import MachineInfo
from engine.run.machine import TOOL_OUTPUT_CAP, gather_machine, gpus, parse_nvidia_smi


def _tool(folder: Path, name: str, script: str) -> None:
    path = folder / name
    path.write_text("#!/bin/sh\n" + script + "\n", encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH of the test's own tools only, plus the shell's basics for the scripts themselves."""
    folder = tmp_path / "bin"
    folder.mkdir()
    for basic in ("sleep", "head", "tr", "cat", "yes"):
        for where in ("/usr/bin", "/bin"):
            if Path(where, basic).exists():
                os.symlink(Path(where, basic), folder / basic)
                break
    monkeypatch.setenv("PATH", str(folder))
    return folder


def test_nvidia_smi_lists_each_gpu_with_its_memory(bin_dir: Path) -> None:
    _tool(bin_dir, "nvidia-smi", 'printf "NVIDIA H200, 143771\\nNVIDIA GeForce RTX 4090, 24564\\n"')
    listed, tool, note = gpus()
    assert tool == "nvidia-smi" and note is None
    assert [(g.name, g.memory_mb) for g in listed] == [("NVIDIA H200", 143771), ("NVIDIA GeForce RTX 4090", 24564)]


def test_rocm_smi_answers_where_there_is_no_nvidia_smi(bin_dir: Path) -> None:
    _tool(bin_dir, "rocm-smi", """cat <<'JSON'
{"card0": {"Card Series": "AMD Instinct MI300X", "VRAM Total Memory (B)": "206141652992"}, "system": {}}
JSON""")
    listed, tool, note = gpus()
    assert tool == "rocm-smi" and note is None
    assert [(g.name, g.memory_mb) for g in listed] == [("AMD Instinct MI300X", 196592)]


def test_no_tool_is_no_gpu_and_no_note(bin_dir: Path) -> None:
    info = gather_machine()
    assert isinstance(info, MachineInfo)
    assert (info.gpus, info.gpu_tool, info.gpu_note) == ([], None, None)
    assert info.os and info.cpu_cores and info.cpu_cores >= 1
    assert info.memory_mb is None or info.memory_mb > 0


def test_a_hanging_tool_costs_its_deadline_and_leaves_a_note(bin_dir: Path) -> None:
    _tool(bin_dir, "nvidia-smi", "sleep 60")
    started = time.monotonic()
    listed, tool, note = gpus(timeout_s=1.0)
    assert time.monotonic() - started < 5
    assert listed == [] and tool == "nvidia-smi" and note == "nvidia-smi did not answer within 1 s"


def test_a_tool_that_closes_its_output_and_hangs_is_killed_too(bin_dir: Path) -> None:
    _tool(bin_dir, "nvidia-smi", 'printf "NVIDIA H200, 1\\n"; exec >&-; sleep 60')
    started = time.monotonic()
    listed, _, note = gpus(timeout_s=1.0)
    assert time.monotonic() - started < 5
    assert listed == [] and note is not None and "did not exit" in note


def test_a_flooding_tool_is_cut_at_the_cap(bin_dir: Path) -> None:
    _tool(bin_dir, "nvidia-smi", "yes 'NVIDIA H200, 143771'")
    started = time.monotonic()
    listed, _, note = gpus(timeout_s=5.0)
    assert time.monotonic() - started < 5
    assert listed == [] and note == f"nvidia-smi printed more than {TOOL_OUTPUT_CAP // 1024} KiB"


def test_garbage_is_not_read_as_gpus(bin_dir: Path) -> None:
    _tool(bin_dir, "nvidia-smi", 'printf "\\033[31mNVIDIA-SMI has failed because it could not communicate\\n"')
    listed, _, note = gpus()
    assert listed == [] and note == "nvidia-smi printed something that is not a GPU list"
    _tool(bin_dir, "nvidia-smi", "head -c 4000 /dev/urandom")
    listed, _, note = gpus()
    assert listed == [] and note is not None


def test_a_failing_tool_says_its_exit_code(bin_dir: Path) -> None:
    _tool(bin_dir, "nvidia-smi", "exit 9")
    assert gpus() == ([], "nvidia-smi", "nvidia-smi exited with code 9")


def test_names_are_one_clipped_line_of_printable_text() -> None:
    (gpu,) = parse_nvidia_smi("NVIDIA \x1b[2J\x07 H200" + "x" * 500 + ", [N/A]\n") or []
    assert gpu.memory_mb is None and len(gpu.name) == 200 and "\x1b" not in gpu.name and "\x07" not in gpu.name
    assert parse_nvidia_smi("just words\n") is None
