"""The Board changes page's data, read from a real temporary git repository: what was added, changed and
removed, when, with the commit's subject as text; and "history not available" without a history."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from engine.publish.board import build_board
from engine.publish.board_history import board_history
from engine.publish.html import Links
from engine.publish.site.board_changes import board_changes_html

HOSTILE = "<script>alert(1)</script> \x1b[31m{{ config }}\x1f&amp;"


def _git(repo: Path, *args: str, date: str = "2026-11-05T23:30:00-02:00") -> None:
    env = dict(os.environ, GIT_COMMITTER_DATE=date, GIT_AUTHOR_DATE=date)
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false", *args],
                   cwd=repo, check=True, capture_output=True, env=env)


def _write(repo: Path, rel: str, text: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """Three commits: qwen added; qwen rescored and llama added; llama removed (and noise around them)."""
    repo = tmp_path / "repo"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    _write(repo, "results/reference/qwen3-8b_raw_results.json", "{}")
    _write(repo, "results/reference/qwen3-8b_judged.json", "{}")  # not a board row's result file
    _write(repo, "README.md", "x")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Add qwen3-8b")
    _write(repo, "results/reference/qwen3-8b_raw_results.json", '{"rescored": true}')
    _write(repo, "results/reference/llama-3.2-3b_raw_results.json", "{}")
    _write(repo, "results/reference/old/x_raw_results.json", "{}")  # a subfolder is not the board
    _write(repo, "results/sweeps/s/qwen3-8b_raw_results.json", "{}")  # nor is a sweep
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", f"Rescore qwen3-8b {HOSTILE}", date="2026-11-06T10:00:00+00:00")
    _git(repo, "rm", "-q", "results/reference/llama-3.2-3b_raw_results.json")
    _git(repo, "commit", "-q", "-m", "Remove llama-3.2-3b", date="2026-11-07T10:00:00+00:00")
    return repo


def test_each_change_is_one_file_of_one_commit_newest_first(repo: Path) -> None:
    history = board_history(repo / "results" / "reference")
    assert history.unavailable is None and not history.cut
    got = [(c.date, c.model, c.what) for c in history.changes]
    assert got == [
        ("2026-11-07", "llama-3.2-3b", "removed"),
        ("2026-11-06", "llama-3.2-3b", "added"),
        ("2026-11-06", "qwen3-8b", "changed"),
        # 23:30 at UTC-2 is the next day in UTC, the day every board date is written in.
        ("2026-11-06", "qwen3-8b", "added"),
    ]
    rescore = history.changes[2]
    # The subject is kept as text, its control characters dropped: escaping is the page's job.
    assert rescore.subject.startswith("Rescore qwen3-8b <script>alert(1)</script>")
    assert "\x1b" not in rescore.subject and "\x1f" not in rescore.subject
    assert len(rescore.commit) == 10


def test_the_page_escapes_every_string_and_links_a_model_on_the_board(repo: Path) -> None:
    history = board_history(repo / "results" / "reference")
    html = board_changes_html(history, build_board([], None, "balanced", setting=None), Links(root="../"))
    assert "<script>" not in html and "{{" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html and "&amp;amp;" in html
    assert "4 changes in 3 commits" in html
    assert html.count("<tr>") == 4 + 1  # the head's row and one a change
    assert "removed" in html and "changed: rescored or re-run" in html


@pytest.mark.parametrize("how", ["archive", "shallow"])
def test_without_the_history_the_page_says_so(repo: Path, tmp_path: Path, how: str) -> None:
    if how == "archive":
        copy = tmp_path / "unpacked"
        (copy / "results" / "reference").mkdir(parents=True)
        (copy / "results" / "reference" / "qwen3-8b_raw_results.json").write_text("{}", encoding="utf-8")
    else:
        copy = tmp_path / "shallow"
        subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(copy)], check=True,
                       capture_output=True)
    history = board_history(copy / "results" / "reference")
    assert history.changes == ()
    assert history.unavailable is not None and history.unavailable.startswith("history not available")
    if how == "shallow":
        assert "shallow" in history.unavailable
    html = board_changes_html(history, build_board([], None, "balanced", setting=None), Links())
    assert "History not available" in html and "<table" not in html


def test_a_repository_with_no_result_file_yet_says_what_starts_the_list(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    (tmp_path / "results").mkdir()
    _write(tmp_path, "README.md", "x")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-q", "-m", "start")
    history = board_history(tmp_path / "results")
    assert history.unavailable is None and history.changes == ()
    html = board_changes_html(history, build_board([], None, "balanced", setting=None), Links())
    assert "No result file has been committed" in html
