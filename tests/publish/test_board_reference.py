"""The board's k, flags and ranks against a declared reference setting, on small synthetic fleets and on the
committed reference folder: one file with other settings or more trials never moves the other rows."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
import yaml

from engine.cli import main
from engine.core.errors import UserError
from engine.core.reference_setting import SETTING_FILE_NAME, load_reference_setting
from engine.core.results import load_run_file, write_run_file
from engine.core.schema import RunFile
from engine.publish.board import Board, board_from_dir
from engine.publish.html import Links, separability_html, standalone_html
from tests.conftest import ROOT
from tests.helpers.fleet import make_fleet, write_setting

REFERENCE = ROOT / "results" / "reference"


def _rewrite(path: Path, update) -> RunFile:
    run = update(load_run_file(path))
    write_run_file(path, run)
    return run


def _settings(**changes):
    return lambda run: run.model_copy(update={"settings": run.settings.model_copy(update=changes)})


def _with_trials(n: int):
    """The run with n trials per task: trials dropped, or the first ones repeated as trials 3, 4 ..."""

    def update(run: RunFile) -> RunFile:
        by_task: dict[str, list] = {}
        for t in run.trials:
            by_task.setdefault(t.task_id, []).append(t)
        trials = []
        for records in by_task.values():
            records = sorted(records, key=lambda t: t.trial)
            for i in range(n):
                src = records[i % len(records)]
                trials.append(src.model_copy(update={"trial": i, "seed": i}))
        return run.model_copy(update={"trials": trials, "settings": run.settings.model_copy(update={"trials": n})})

    return update


def _renamed(path: Path, new_name: str) -> Path:
    run = load_run_file(path)
    out = path.with_name(f"{new_name}_raw_results.json")
    write_run_file(out, run.model_copy(update={"settings": run.settings.model_copy(update={"model": new_name})}))
    return out


@pytest.fixture
def fleet(tmp_path: Path) -> list[Path]:
    return make_fleet(tmp_path, 4, seed=3)


def _board(tmp_path: Path) -> Board:
    return board_from_dir(tmp_path / "results", tmp_path / "models.yaml")


def test_with_two_rows_only_the_row_that_differs_is_flagged(tmp_path: Path, fleet: list[Path]) -> None:
    """The case a majority vote got wrong: the reference row and one PR row with other settings."""
    for extra in fleet[2:]:
        extra.unlink()
    reference, pr = fleet[:2]
    _rewrite(pr, _settings(temperature=0.7, thinking=True))
    board = _board(tmp_path)
    ref_row = next(r for r in board.rows if r.source_file == reference.name)
    pr_row = next(r for r in board.rows if r.source_file == pr.name)
    assert ref_row.flags == [] and ref_row.rank is not None
    assert {f.field: (f.value, f.reference) for f in pr_row.flags} == {
        "thinking": ("on", "server default"),
        "sampling": ("temperature 0.7, top_p 0.95, seed 0", "temperature 0, top_p 0.95, seed 0"),
    }
    assert pr_row.rank is not None and board.flagged_rows == 1


def test_every_flag_of_a_row_is_shown(tmp_path: Path, fleet: list[Path]) -> None:
    _rewrite(fleet[1], _settings(max_tokens=512, stop_loops=True, sandbox_backend="unsandboxed (NOT confined)"))
    board = _board(tmp_path)
    row = next(r for r in board.rows if r.source_file == fleet[1].name)
    assert [f.field for f in row.flags] == ["max_tokens", "sandbox", "stop_loops"]
    html = standalone_html(board)
    card = html.split(f'id="m-{row.slug}"', 1)[1].split("</section>", 1)[0]
    for flag in row.flags:
        assert f"<li>{flag.label}: <code>{flag.value}</code> (reference setting: <code>{flag.reference}</code>)" in card


def test_a_file_with_more_trials_is_scored_at_the_declared_k(tmp_path: Path, fleet: list[Path]) -> None:
    before = {r.model: (r.rank, r.headline) for r in _board(tmp_path).rows}
    five = _rewrite(fleet[0], _with_trials(5))
    board = _board(tmp_path)
    assert board.k == 3
    # Every row stays ranked, and every other row keeps the headline it had.
    for row in board.rows:
        assert row.rank is not None and row.unranked_reason is None
        if row.model != five.settings.model:
            assert row.headline == before[row.model][1]
    row = next(r for r in board.rows if r.model == five.settings.model)
    assert row.flags == []  # more trials than k fit the reference setting
    scored = [t for t in row.tasks if t.scored]
    assert len(scored) == len(row.tasks) == 39
    for task in scored:
        assert task.pass_k == pytest.approx(math.comb(task.passed, 3) / math.comb(task.scorable, 3))
    # Some task passed 3 or 4 of its 5 trials: pass^3 strictly between 0 and 1, which n = k cannot give.
    assert any(t.scorable == 5 and 3 <= t.passed < 5 and 0 < t.pass_k < 1 for t in scored)


def test_a_file_with_fewer_trials_is_unranked_and_says_why(tmp_path: Path, fleet: list[Path]) -> None:
    two = _rewrite(fleet[2], _with_trials(2))
    board = _board(tmp_path)
    row = next(r for r in board.rows if r.model == two.settings.model)
    assert row.rank is None and row.headline is None and row.tier is None
    assert row.unranked_reason is not None
    assert "2 trials per task" in row.unranked_reason and "pass^3" in row.unranked_reason
    assert "--add-trials 1" in row.unranked_reason
    assert [(f.field, f.value, f.reference) for f in row.flags] == [("trials", "2", "at least 3")]
    others = [r for r in board.rows if r is not row]
    assert [r.rank for r in others] == [1, 2, 3]
    html = standalone_html(board)
    assert "Not ranked:" in html and f"Not ranked: {row.unranked_reason}." in html


def test_tied_rows_share_a_rank_and_are_not_called_higher_and_lower(tmp_path: Path, fleet: list[Path]) -> None:
    twin = _renamed(fleet[1], "fleet-twin")
    board = _board(tmp_path)
    original = next(r for r in board.rows if r.source_file == fleet[1].name)
    copy = next(r for r in board.rows if r.source_file == twin.name)
    assert original.headline == copy.headline and original.rank == copy.rank
    ranks = [r.rank for r in board.rows]
    # Competition ranking: the row after a tie skips the shared places.
    assert ranks == sorted(ranks)
    tied_rank = original.rank
    after = [r.rank for r in board.rows if r.rank is not None and r.rank > tied_rank]
    assert not after or min(after) == tied_rank + 2
    pair = next(p for p in board.separability.pairs if {p.a, p.b} == {original.model, copy.model})
    assert pair.tied and pair.wins_a == pair.wins_b == 0
    assert sum(p.tied for p in board.separability.pairs) == 1
    html = separability_html(board, Links(mode="anchor"))
    assert "<th>Higher</th>" not in html and "<th>Lower</th>" not in html
    assert html.count("(tied)") == 1 + pair.separable  # the adjacent table; separable pairs are listed again
    card = standalone_html(board).split(f'id="m-{copy.slug}"', 1)[1]
    assert f"rank {tied_rank} of {len(board.rows)} (tied)" in card


def test_the_reference_setting_decides_k_not_the_files(tmp_path: Path, fleet: list[Path]) -> None:
    write_setting(tmp_path / "results", k=2)
    board = _board(tmp_path)
    assert board.k == 2 and board.reference_setting["trials"] == "at least 2"
    assert all(r.rank is not None and not r.flags for r in board.rows)


def test_a_folder_of_results_without_a_setting_is_refused(tmp_path: Path, fleet: list[Path], capsys) -> None:
    (tmp_path / "results" / SETTING_FILE_NAME).unlink()
    with pytest.raises(UserError, match="setting.yaml: no reference setting"):
        _board(tmp_path)
    assert main(["leaderboard", "--results-dir", str(tmp_path / "results"), "-o", str(tmp_path / "b.html")]) == 2
    assert "--setting" in capsys.readouterr().err
    # --setting points at a setting elsewhere.
    elsewhere = write_setting(tmp_path)
    out = tmp_path / "b.html"
    assert main(["leaderboard", "--results-dir", str(tmp_path / "results"), "--setting", str(elsewhere),
                 "-o", str(out)]) == 0
    assert json.loads((tmp_path / "leaderboard.json").read_text())["k"] == 3


# ----------------------------------------------------------------------------------------------------------
# The committed reference folder


def test_the_committed_setting_fits_the_committed_row() -> None:
    setting = load_reference_setting(REFERENCE / SETTING_FILE_NAME)
    board = board_from_dir(REFERENCE, ROOT / "models.yaml")
    assert board.k == setting.k == 3
    assert all(r.rank is not None and r.flags == [] for r in board.rows)


def test_a_pr_row_with_other_settings_leaves_the_reference_row_ranked_and_unflagged(tmp_path: Path) -> None:
    folder = tmp_path / "reference"
    shutil.copytree(REFERENCE, folder)
    (ref_file,) = folder.glob("*_raw_results.json")
    pr = _renamed(ref_file, "pr-model")
    _rewrite(pr, _settings(temperature=1.0, thinking=False))
    more = _renamed(ref_file, "pr-five-trials")
    _rewrite(more, _with_trials(5))
    board = board_from_dir(folder, ROOT / "models.yaml")
    ref_row = next(r for r in board.rows if r.source_file == ref_file.name)
    assert ref_row.rank == 1 and ref_row.flags == [] and board.k == 3
    flagged = {r.model: [f.field for f in r.flags] for r in board.rows if r.flags}
    # thinking is "per model card" in the reference setting: off is not flagged, the temperature is.
    assert flagged == {"pr-model": ["sampling"]}
    # Every row scores 0 here (the reference model passes nothing), so all three share rank 1.
    assert [r.rank for r in board.rows] == [1, 1, 1]


def test_invalid_setting_files_name_the_file_and_the_field(tmp_path: Path) -> None:
    good = yaml.safe_load((REFERENCE / SETTING_FILE_NAME).read_text(encoding="utf-8"))
    cases = [
        ({**good, "kk": 3}, "field 'kk': unknown key"),
        ({**good, "k": 0}, "field 'k'"),
        ({**good, "thinking": "maybe"}, "field 'thinking'"),
        ({**good, "max_tokens": "lots"}, "field 'max_tokens': Value error, write 'per task'"),
        ({**good, "sampling": {**good["sampling"], "top_k": 40}}, "field 'sampling.top_k': unknown key"),
        ({key: v for key, v in good.items() if key != "task_set"}, "field 'task_set': Field required"),
    ]
    for doc, message in cases:
        path = tmp_path / SETTING_FILE_NAME
        path.write_text(yaml.safe_dump(doc), encoding="utf-8")
        with pytest.raises(UserError) as err:
            load_reference_setting(path)
        assert str(err.value).startswith(f"{path}: invalid reference setting")
        assert message in str(err.value)
    # YAML reads a bare on/off as a boolean; the file means the word.
    path.write_text(yaml.safe_dump(good).replace("thinking: per model card", "thinking: on"), encoding="utf-8")
    assert load_reference_setting(path).thinking == "on"


def test_neighbours_are_found_by_position_across_a_tie(tmp_path: Path, fleet: list[Path]) -> None:
    """The PR check names the rows around a new one; with ranks 1, 2, 2, 4 the rank-2 rows still have both."""
    _renamed(fleet[1], "fleet-twin")
    board = _board(tmp_path)
    ranks = [r.rank for r in board.rows]
    assert ranks == [1, 2, 2, 4, 5]
    names = [r.model for r in board.rows]
    for i, name in enumerate(names):
        above, below = board.neighbours(name)
        assert (above.model if above else None) == (names[i - 1] if i else None)
        assert (below.model if below else None) == (names[i + 1] if i + 1 < len(names) else None)
    assert board.neighbours("nobody") == (None, None)


def test_an_unranked_row_moves_no_other_rows_pair_verdicts(tmp_path: Path, fleet: list[Path]) -> None:
    _rewrite(fleet[2], _with_trials(2))
    with_it = _board(tmp_path)
    unranked = load_run_file(fleet[2]).settings.model
    fleet[2].unlink()
    without = _board(tmp_path)
    # The unranked row is in no pair, and every other pair's verdict (Holm-corrected over the pairs shown) is
    # what it is on a board without that row.
    assert all(unranked not in (p.a, p.b) for p in with_it.separability.pairs)
    assert with_it.separability == without.separability
    assert [(r.model, r.rank, r.headline) for r in with_it.rows if r.model != unranked] == [
        (r.model, r.rank, r.headline) for r in without.rows
    ]
