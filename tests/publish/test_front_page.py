"""The front page's "add your model" blocks: what a visitor copies must be a models.yaml row that loads and a
command that runs at the reference setting, with nothing hidden under the copy button."""

from __future__ import annotations

import shlex

import yaml

from engine.cli import build_parser
from engine.core.models_file import ModelEntry
from engine.core.reference_setting import load_reference_setting
from engine.core.results import FLEET_DIR
from engine.publish.board import build_board
from engine.publish.escape import esc
from engine.publish.html import Links
from engine.publish.site.macros import ADD_MODEL_COMMAND, ADD_MODEL_ROW, front_board_html
from tests.conftest import ROOT

# Material's copy button sits over the top right of a block: its first line must end well before it.
FIRST_LINE_MAX = 30


def test_the_add_model_blocks_have_nothing_under_the_copy_button() -> None:
    for block in (ADD_MODEL_ROW, ADD_MODEL_COMMAND):
        lines = block.rstrip("\n").splitlines()
        assert lines[0].startswith("#") and len(lines[0]) <= FIRST_LINE_MAX, lines[0]
        assert not any(line.rstrip().endswith("\\") for line in lines), block


def test_the_add_model_row_is_a_valid_models_yaml_row() -> None:
    rows = yaml.safe_load(ADD_MODEL_ROW)
    assert isinstance(rows, list) and len(rows) == 1
    entry = ModelEntry.model_validate(rows[0])
    assert entry.name == "my-model-8b" and entry.total_params_b and entry.card_url


def test_the_add_model_command_runs_at_the_reference_setting() -> None:
    commands = [line for line in ADD_MODEL_COMMAND.splitlines() if not line.startswith("#")]
    assert len(commands) == 1
    argv = shlex.split(commands[0])
    assert argv[0] == "sllmb"
    args = build_parser().parse_args(argv[1:])
    setting = load_reference_setting(ROOT / FLEET_DIR / "setting.yaml")
    assert args.trials == setting.k and args.profile == setting.profile
    assert args.concurrency is None  # left to its default, as the add-a-model guide says
    assert args.output.parent == FLEET_DIR and args.model == yaml.safe_load(ADD_MODEL_ROW)[0]["name"]


def test_an_empty_board_shows_both_blocks() -> None:
    html = front_board_html(build_board([]), Links(root=""))
    assert esc(ADD_MODEL_ROW) in html and esc(ADD_MODEL_COMMAND) in html


def test_the_front_pages_model_count_is_the_models_with_an_index() -> None:
    """"One number for N models" counts the rows that have one (it said 121 when 104 had an index)."""
    import re

    from engine.index.data import DEFAULT_DATA_DIR, load_entries
    from engine.index.published import published_index
    from engine.publish.site.index_table import render_front_html, table_rows

    rows = table_rows(published_index(load_entries(ROOT / DEFAULT_DATA_DIR))[0])
    html = render_front_html(rows, {}, "")
    with_index = sum(r.view.index is not None for r in rows)
    shown = re.search(r'<strong class="sli-front-count">(\d+)</strong> open-weight models( \((\d+) more)?', html)
    assert shown and int(shown.group(1)) == with_index
    assert with_index < len(rows) and int(shown.group(3)) == len(rows) - with_index
    assert html.count("<tr><td>") == 5
