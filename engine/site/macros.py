"""The mkdocs-macros module: the macros that place the board, the CLI reference and the changelog in pages.

Each macro only renders something computed elsewhere (the Board, argparse's own help, CHANGELOG.md). The
Small LM Index registers its own macros from ``engine.site.index_macros`` when that module is present.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

if importlib.util.find_spec("engine") is None:  # `mkdocs build` from a checkout that is not pip-installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from engine.board import Board  # noqa: E402
from engine.site.context import site_board  # noqa: E402
from engine.site.html import Links, chip, leaderboard_html, separability_html  # noqa: E402

# argparse wraps help to the terminal width; a fixed width keeps the generated reference stable.
HELP_WIDTH = "100"


def _root(env: Any) -> str:
    """Relative path from the page being rendered to the site root (directory URLs: one ../ per level)."""
    page = getattr(env, "page", None)
    url = getattr(page, "url", "") or ""
    return "../" * url.count("/")


def _subcommands(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:  # argparse keeps subparsers here; there is no public accessor
        if isinstance(action, argparse._SubParsersAction):
            return list(action.choices.items())
    return []


def cli_reference_markdown(parser: argparse.ArgumentParser | None = None) -> str:
    """Every command's ``--help``, as argparse prints it, one section per command (and sub-command)."""
    if parser is None:
        from engine.cli import build_parser

        parser = build_parser()
    old = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = HELP_WIDTH
    try:
        parts = ["## sllmb", "", "```text", parser.format_help().rstrip(), "```", ""]
        for name, sub in _subcommands(parser):
            parts += [f"## sllmb {name}", "", "```text", sub.format_help().rstrip(), "```", ""]
            for subname, subsub in _subcommands(sub):
                parts += [
                    f"### sllmb {name} {subname}",
                    "",
                    "```text",
                    subsub.format_help().rstrip(),
                    "```",
                    "",
                ]
    finally:
        if old is None:
            os.environ.pop("COLUMNS", None)
        else:
            os.environ["COLUMNS"] = old
    return "\n".join(parts)


def define_env(env: Any) -> None:
    def board() -> Board:
        return site_board(env.conf)

    @env.macro
    def leaderboard() -> str:
        return leaderboard_html(board(), Links(root=_root(env)))

    @env.macro
    def separability_tables() -> str:
        return separability_html(board(), Links(root=_root(env)))

    @env.macro
    def board_chip() -> str:
        return chip(board(), Links(root=_root(env)))

    @env.macro
    def board_facts() -> dict:
        """Counts for prose (numbers only, never a name from a result file)."""
        b = board()
        s = b.separability
        return {
            "models": len(b.rows),
            "k": b.k,
            "judged": b.judged_rows,
            "fallback": b.fallback_rows,
            "partial": b.partial_rows,
            "flagged": b.flagged_rows,
            "pairs": s.pair_count,
            "separable": s.separable_count,
            "adjacent": s.adjacent_count,
            "adjacent_separable": s.adjacent_separable,
            "weights": b.weights_preset,
        }

    @env.macro
    def cli_reference() -> str:
        return cli_reference_markdown()

    @env.macro
    def changelog() -> str:
        path = Path(env.project_dir) / "CHANGELOG.md"
        text = path.read_text(encoding="utf-8") if path.is_file() else "No changelog yet."
        # The page has its own title; the file's first heading would repeat it.
        lines = text.splitlines()
        if lines and lines[0].startswith("# "):
            lines = lines[1:]
        return "\n".join(lines)

    @env.macro
    def grader_accuracy() -> str:
        from engine.site.grader_accuracy import grader_accuracy_markdown

        return grader_accuracy_markdown(Path(env.project_dir))

    if importlib.util.find_spec("engine.site.index_macros") is not None:
        from engine.site.index_macros import define_index_macros

        define_index_macros(env)
