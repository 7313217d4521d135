"""The mkdocs-macros module: the macros that place the board, the CLI reference and the changelog in pages.

Each macro only renders something computed elsewhere (the Board, argparse's own help, CHANGELOG.md, the
module specs). The
Small LM Index registers its own macros from ``engine.publish.site.index_macros`` when that module is present.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path
from typing import Any

if importlib.util.find_spec("engine") is None:  # `mkdocs build` from a checkout that is not pip-installed
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from engine.core.results import FLEET_DIR  # noqa: E402
from engine.publish.board import Board  # noqa: E402
from engine.publish.escape import esc  # noqa: E402
from engine.publish.html import (  # noqa: E402
    Links,
    chip,
    fmt,
    leaderboard_html,
    plural,
    separability_html,
    tier_badge,
)
from engine.publish.reference import COMPARED  # noqa: E402
from engine.publish.site.context import board_source, site_board  # noqa: E402
from engine.publish.site.module_tables import judge_table_markdown, weights_table_markdown  # noqa: E402

# The front page shows this many rows of each table; below FEW_ROWS the board's part is a call to add a model.
FRONT_ROWS = 5
FEW_ROWS = 3
# The front page's "add your model": the models.yaml row, then the run at the reference setting (concurrency left
# to its default, as the add-a-model guide says). Each block opens with a short comment line because the copy
# button sits over the top right of a block; the command is one line (no trailing backslash to copy wrong),
# wrapped by the page's CSS, not by the text.
ADD_MODEL_ROW = (
    "# models.yaml, under models:\n"
    "  - name: my-model-8b\n"
    "    family: MyFamily\n"
    "    total_params_b: 8.03\n"
    "    active_params_b: 8.03\n"
    "    architecture: dense\n"
    "    quantisation: Q4_K_M\n"
    "    card_url: https://example.org/my-model-8b\n"
)
ADD_MODEL_COMMAND = (
    "# the reference setting:\n"
    "sllmb run --model my-model-8b --endpoint http://127.0.0.1:8080/v1 --trials 3 --profile full "
    f"--output {FLEET_DIR.as_posix()}/my-model-8b_raw_results.json"
)

# argparse wraps help to the terminal width; a fixed width keeps the generated reference stable, and 80
# columns fit the code blocks of a 1366 px screen (100 were cut off at their right edge).
HELP_WIDTH = "80"


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


def reference_setting_markdown(board: Board) -> str:
    """The declared reference setting the board is scored at and flags against, as a Markdown table."""
    if not board.reference_setting:
        return "No reference setting: the board has no result files."
    lines = ["| setting | reference |", "| --- | --- |", f"| k (pass^k) | {board.k} |"]
    for c in COMPARED:
        # The values come from a committed file and are validated, but a table cell still must not hold a |.
        value = esc(board.reference_setting.get(c.field, "")).replace("|", "&#124;")
        lines.append(f"| {c.label} | {value} |")
    return "\n".join(lines)


def front_board_html(board: Board, links: Links) -> str:
    """The board's part of the front page: its top rows, or while it holds few, how to add a model."""
    scored = [r for r in board.rows if r.headline is not None]
    rows = "".join(
        f"<tr><td>{r.rank or ''}</td><td>{tier_badge(r.tier)}</td>"
        f'<td><a href="{esc(links.model(r.slug))}">{esc(r.model)}</a></td><td>{fmt(r.headline)}</td></tr>'
        for r in scored[:FRONT_ROWS]
    )
    table = (
        "<table><thead><tr><th>#</th><th>Tier</th><th>Model</th><th>pass^k (0–100)</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
        if rows
        else ""
    )
    facts = (
        f", scored on pass^{board.k} ({board.judged_rows} judged, {board.fallback_rows} not judged)"
        if board.rows
        else ""
    )
    pairs = f" {chip(board, links)}" if board.separability.pair_count else ""
    head = (
        f"<p>The board holds <strong>{plural(len(board.rows), 'model')}</strong> run on our own harness"
        f"{facts}.{pairs}</p>"
    )
    if len(board.rows) >= FEW_ROWS:
        return f"{head}{table}"
    return (
        f"{head}{table}<p><strong>Add your model.</strong> Describe it in <code>models.yaml</code> (every "
        "figure from its model card), run it against any OpenAI-compatible server and open a pull request "
        "with the row and the result file; the board, the model's page and the JSON rebuild from them:</p>"
        f'<pre class="sllmb-cmd"><code>{esc(ADD_MODEL_ROW)}</code></pre>'
        f'<pre class="sllmb-cmd"><code>{esc(ADD_MODEL_COMMAND)}</code></pre>'
        f'<p><a href="{esc(links.root)}contributing/add-a-model/">How to add a model, step by step</a></p>'
    )


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
    def board_changes() -> str:
        from engine.publish.board_history import board_history
        from engine.publish.site.board_changes import board_changes_html

        history = board_history(board_source(env.conf).results_dir)
        return board_changes_html(history, board(), Links(root=_root(env)))

    @env.macro
    def board_chip() -> str:
        return chip(board(), Links(root=_root(env)))

    @env.macro
    def front_board() -> str:
        return front_board_html(board(), Links(root=_root(env)))

    @env.macro
    def board_facts() -> dict:
        """Counts for prose (numbers only, never a name from a result file)."""
        b = board()
        s = b.separability
        return {
            "models": len(b.rows),
            "models_text": plural(len(b.rows), "model"),
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
    def reference_setting_table() -> str:
        return reference_setting_markdown(board())

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
    def glossary() -> str:
        from engine.publish.glossary import glossary_markdown

        return glossary_markdown()

    @env.macro
    def module_weights_table() -> str:
        return weights_table_markdown()

    @env.macro
    def judge_rules_table() -> str:
        return judge_table_markdown()

    @env.macro
    def grader_accuracy() -> str:
        from engine.publish.site.grader_accuracy import grader_accuracy_markdown

        return grader_accuracy_markdown(Path(env.project_dir))

    @env.macro
    def grader_first_sight() -> str:
        from engine.publish.site.grader_accuracy import first_sight_markdown

        return first_sight_markdown(Path(env.project_dir))

    if importlib.util.find_spec("engine.publish.site.index_macros") is not None:
        from engine.publish.site.index_macros import define_index_macros

        define_index_macros(env)
