"""``sllmb run --gguf PATH`` with a path that cannot be run: exit 2 naming the file, why and the fix, before any
task is selected or any server started (the real start is in tests/e2e/test_embedded_llama.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.cli import main


def _run(capsys, *args: str) -> tuple[int, str]:
    code = main(["run", "-q", *args])
    return code, capsys.readouterr().err


@pytest.mark.parametrize(("write", "says"), [
    (None, "no such file"),
    (b"", "GGUF magic"),
    (b"GGML" + b"\0" * 64, "GGUF magic"),
    (b"GGUF\x03\0\0\0" + b"\0" * 8 + b"\x05" + b"\0" * 7 + b"\x02", "ends inside its header"),
], ids=["missing", "empty", "other-format", "cut"])
def test_a_gguf_that_cannot_run_exits_2_naming_it(tmp_path: Path, capsys, write, says) -> None:
    path = tmp_path / "own.Q8_0.gguf"
    if write is not None:
        path.write_bytes(write)
    code, err = _run(capsys, "--gguf", str(path), "--output", str(tmp_path / "r.json"))
    assert code == 2 and f"--gguf {path}: " in err and says in err and "GGUF format" in err
    assert not (tmp_path / "r.json").exists()


def test_serve_checks_a_gguf_the_same_way(tmp_path: Path, capsys) -> None:
    path = tmp_path / "dir.gguf"
    path.mkdir()
    assert main(["serve", "--gguf", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"--gguf {path}: is a folder" in err and "GGUF format" in err


def test_a_gguf_and_an_endpoint_are_refused_together(tmp_path: Path, capsys) -> None:
    code, err = _run(capsys, "--gguf", str(tmp_path / "m.gguf"), "--endpoint", "http://127.0.0.1:9/v1")
    assert code == 2 and "--gguf" in err and "--endpoint" in err and "give one of them" in err
