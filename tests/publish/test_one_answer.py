"""One folder of result files, one answer: ``sllmb items``, ``sllmb compare`` and the Board score every model on
the same verdicts (judged where a judged file sits beside the raw file, raw otherwise), so they count the same
separable pairs, and each says which verdicts it used."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from engine.analysis.scoring import score_run
from engine.analysis.stats import separability
from engine.cli import main
from engine.core.results import load_run_file
from engine.publish.board import Board, board_from_dir
from tests.helpers.fleet import make_fleet
from tests.publish.fleet_site import write_judged


class EveryAppeal(random.Random):
    """A draw that always falls under ``write_judged``'s odds: every tools and multi_turn_if trial the judge
    may move (no hard gate) is rescued or demoted."""

    def random(self) -> float:
        return 0.0


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    root = tmp_path_factory.mktemp("one-answer")
    paths = make_fleet(root, 6, seed=11)
    write_judged(paths[0], EveryAppeal())
    write_judged(paths[3], random.Random(1))
    return root, paths


@pytest.fixture(scope="module")
def board(folder: tuple[Path, list[Path]]) -> Board:
    root, _ = folder
    return board_from_dir(root / "results", root / "models.yaml")


def _json(capsys: pytest.CaptureFixture[str], args: list[str]) -> dict:
    assert main([*args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _items(folder: tuple[Path, list[Path]], capsys: pytest.CaptureFixture[str]) -> dict:
    root, _ = folder
    return _json(capsys, ["items", "--results-dir", str(root / "results"), "--models", str(root / "models.yaml")])


def _compare(folder: tuple[Path, list[Path]], capsys: pytest.CaptureFixture[str]) -> dict:
    _, paths = folder
    return _json(capsys, ["compare", *map(str, paths)])


def test_the_judged_file_changes_the_answer(folder: tuple[Path, list[Path]], board: Board) -> None:
    _, paths = folder
    moved = {r.model: r.changed_verdicts for r in board.rows if r.judge_state != "fallback"}
    assert len(moved) == 2 and all(n > 0 for n in moved.values())
    # On raw verdicts alone the folder would give another count: the test below could tell the two apart.
    raw = separability([score_run(load_run_file(p), k=board.k) for p in paths])
    assert raw.separable_count != board.separability.separable_count


def test_items_compare_and_the_board_count_the_same_separable_pairs(
    folder: tuple[Path, list[Path]], board: Board, capsys: pytest.CaptureFixture[str]
) -> None:
    items, compare = _items(folder, capsys), _compare(folder, capsys)
    s = board.separability
    assert items["separability"]["separable_count"] == compare["separability"]["separable_count"] == s.separable_count
    assert items["separability"]["pair_count"] == compare["separability"]["pair_count"] == s.pair_count == 15
    # Not only the count: every pair's verdict is the same in all three.
    on_board = {(p.a, p.b): (p.wins_a, p.wins_b, p.ties, p.p_adjusted) for p in s.pairs}
    for report in (items, compare):
        pairs = {
            (p["model_a"], p["model_b"]): (p["wins_a"], p["wins_b"], p["ties"], p["p_adjusted"])
            for p in report["separability"]["pairs"]
        }
        assert pairs == on_board


def test_every_output_says_which_verdicts_it_used(
    folder: tuple[Path, list[Path]], board: Board, capsys: pytest.CaptureFixture[str]
) -> None:
    expected = {r.model: "raw" if r.judge_state == "fallback" else "judged" for r in board.rows}
    assert sorted(expected.values()) == ["judged"] * 2 + ["raw"] * 4
    items, compare = _items(folder, capsys), _compare(folder, capsys)
    assert {m["model"]: m["verdicts"] for m in items["models"]} == expected
    assert dict(zip(compare["models"], compare["verdicts"], strict=True)) == expected
    # The headline of each is the board's.
    headline = {r.model: r.headline for r in board.rows}
    for m in items["models"]:
        assert m["headline"] * 100 == pytest.approx(headline[m["model"]], abs=1e-4)
    for card in compare["cards"]:
        assert card["headline"] * 100 == pytest.approx(headline[card["model"]], abs=1e-4)


def test_the_tables_name_the_verdicts_per_model(
    folder: tuple[Path, list[Path]], board: Board, capsys: pytest.CaptureFixture[str]
) -> None:
    root, paths = folder
    judged = {r.model for r in board.rows if r.judge_state != "fallback"}
    for args in (["items", "--results-dir", str(root / "results")], ["compare", *map(str, paths)]):
        assert main(args) == 0
        lines = capsys.readouterr().out.splitlines()
        for row in board.rows:
            # The model's first line is its row of the models table, which both commands print first.
            line = next(ln for ln in lines if f" {row.model} " in ln)
            assert ("judged" if row.model in judged else "raw") in line, (args[0], line)
