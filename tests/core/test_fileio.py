"""Crash-safe writes and text reads against real processes and real files: a write killed with SIGKILL, a
file saved with a byte-order mark."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from engine.core.config import read_dotenv
from engine.core.errors import UserError
from engine.core.fileio import atomic_write_text, read_text
from tests.conftest import ROOT, knowledge_responder
from tests.helpers.scripted_server import ScriptedServer
from tests.run.test_runner import cli

# Writes 200 MB to ``argv[1]``: long enough to be killed in the middle.
SLOW_WRITE = "import sys; from pathlib import Path; from engine.core.fileio import atomic_write_text; " \
             "atomic_write_text(Path(sys.argv[1]), 'x' * 200_000_000)"


def _temps(folder, name):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(f".{name}.") and p.name.endswith(".tmp"))


def test_a_write_killed_midway_leaves_the_old_file_and_the_next_write_removes_its_temp(tmp_path):
    target = tmp_path / "r.json"
    target.write_text("old")
    child = subprocess.Popen([sys.executable, "-c", SLOW_WRITE, str(target)], cwd=ROOT,
                             env={**os.environ, "PYTHONPATH": str(ROOT)})
    deadline = time.monotonic() + 60
    while not _temps(tmp_path, "r.json") and time.monotonic() < deadline:
        time.sleep(0.001)
    child.send_signal(signal.SIGKILL)
    child.wait()
    (left,) = _temps(tmp_path, "r.json")
    assert left.startswith(f".r.json.{child.pid}.") and target.read_text() == "old"
    # Another file's temporary file, and one of a process still running (ours), are not touched.
    (tmp_path / ".other.json.1.x.tmp").write_text("")
    mine = tmp_path / f".r.json.{os.getpid()}.inprogress.tmp"
    mine.write_text("")
    atomic_write_text(target, "new")
    assert target.read_text() == "new"
    assert _temps(tmp_path, "r.json") == [mine.name] and (tmp_path / ".other.json.1.x.tmp").exists()


def test_a_byte_order_mark_is_not_part_of_the_text(tmp_path):
    path = tmp_path / "f.yaml"
    path.write_bytes("\ufeffid: x\n".encode())
    assert read_text(path, "the file") == "id: x\n"


def test_a_dotenv_saved_with_a_byte_order_mark_keeps_its_first_key(tmp_path):
    path = tmp_path / ".env"
    path.write_bytes("\ufeffBENCH_MODEL=from-dotenv\r\nBENCH_TRIALS=2\r\n".encode())
    assert read_dotenv(path) == {"BENCH_MODEL": "from-dotenv", "BENCH_TRIALS": "2"}


@pytest.mark.parametrize("key", ["BENCH\u200b_MODEL", "\ufeffBENCH_MODEL", "2BENCH", "BENCH-MODEL"])
def test_a_dotenv_key_that_is_not_a_name_is_an_error_naming_the_line(tmp_path, key):
    path = tmp_path / ".env"
    path.write_text(f"BENCH_TRIALS=2\n{key}=m\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"\.env:2: .* is not a variable name"):
        read_dotenv(path)


def test_the_run_reads_the_first_key_of_a_dotenv_saved_with_a_byte_order_mark(tmp_path):
    with ScriptedServer(knowledge_responder()) as srv:
        (tmp_path / ".env").write_bytes(f"\ufeffBENCH_MODEL=bom-model\nBENCH_ENDPOINT={srv.url}\n".encode())
        done = cli("run", "--modules", "knowledge", "--filter", "kn_rail*", "--trials", "1", "-q", "--no-warm-up",
                   "--tasks-dir", str(ROOT / "tasks"), "--output", str(tmp_path / "r.json"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert '"model": "bom-model"' in (tmp_path / "r.json").read_text(encoding="utf-8")
