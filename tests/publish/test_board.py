"""The Board: tiers, judge states, flags, buckets and pair verdicts, from a synthetic fleet built here."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.analysis.judge import score_judged
from engine.analysis.loaded_run import load_run
from engine.analysis.stats import separability
from engine.core.errors import UserError
from engine.publish.board import (
    TIER_BANDS,
    UNKNOWN_BUCKET,
    Board,
    board_from_dir,
    board_json,
    bucket_for,
    build_board,
    load_results,
    read_board_json,
    tier_for,
    unique_slugs,
    write_board_json,
)
from tests.publish.fleet_site import HOSTILE


@pytest.fixture(scope="module")
def board(site_fleet: Path) -> Board:
    return board_from_dir(site_fleet / "results", site_fleet / "models.yaml")


@pytest.mark.parametrize(
    ("score", "tier"),
    [
        (100.0, "S"),
        (90.0, "S"),
        (89.99, "A"),
        (80.0, "A"),
        (70.0, "B"),
        (60.0, "C"),
        (59.9, "D"),
        (45.0, "D"),
        (44.9, "E"),
        (30.0, "E"),
        (29.99, "F"),
        (0.0, "F"),
        (None, None),
    ],
)
def test_tier_bands_are_fixed_cuts(score: float | None, tier: str | None) -> None:
    assert tier_for(score) == tier


def test_size_buckets_cut_on_total_params() -> None:
    assert bucket_for(1.99) == "Under 2B"
    assert bucket_for(2.0) == "2B to 5B"
    assert bucket_for(24.0) == "24B and above"
    assert bucket_for(None) == UNKNOWN_BUCKET


def test_rows_are_ranked_by_headline_with_one_k(board: Board) -> None:
    scored = [r for r in board.rows if r.headline is not None]
    assert [r.rank for r in scored] == list(range(1, len(scored) + 1))
    assert [r.headline for r in scored] == sorted((r.headline for r in scored), reverse=True)
    assert board.k == 3
    for group in board.tiers:
        for slug in group.slugs:
            assert tier_for(board.row(slug).headline) == group.name
    assert sum(len(g.slugs) for g in board.tiers) == len(scored)
    assert [g.name for g in board.tiers] == [name for name, _ in TIER_BANDS]


def test_headline_is_judged_pass_k_with_raw_fallback(board: Board, site_fleet: Path) -> None:
    states = {r.judge_state for r in board.rows}
    assert states == {"judged", "partial", "fallback"}
    for row in board.rows:
        item = load_run(site_fleet / "results" / row.source_file)
        assert item.judged_path == (None if row.judged_file is None else item.path.with_name(row.judged_file))
        score = score_judged(item.run, item.applied, k=board.k)
        if row.judge_state == "fallback":
            assert row.judged_file is None and row.judged_pass is None
            assert row.headline == pytest.approx(score.headline * 100, abs=1e-4)
        else:
            assert row.headline == pytest.approx(score.judged_headline * 100, abs=1e-4)
            assert row.judged_pass == pytest.approx(score.judged_headline)
        assert row.pass_k == pytest.approx(score.headline)


def test_partial_rows_star_the_uncovered_modules(board: Board) -> None:
    partial = [r for r in board.rows if r.judge_state == "partial"]
    assert len(partial) == 1
    row = partial[0]
    assert row.uncovered_modules == ["multi_turn_if"]
    starred = [c.module for c in row.modules if c.starred]
    assert starred == ["multi_turn_if"]
    assert row.judge_coverage is not None and 0 < row.judge_coverage < 1
    # Fully judged and unjudged rows star nothing.
    assert not any(c.starred for r in board.rows if r.judge_state != "partial" for c in r.modules)


def test_delta_pills_only_on_judged_rows_and_judgeable_modules(board: Board) -> None:
    pills = [(r, c) for r in board.rows for c in r.modules if c.delta is not None]
    assert pills, "the fleet has rescued and demoted verdicts, so some module moved"
    for row, cell in pills:
        assert row.judge_state != "fallback"
        assert cell.module not in ("format", "knowledge")
        assert cell.delta == pytest.approx(cell.judged_det - cell.det, abs=1e-6)


def test_rows_with_other_settings_are_flagged(board: Board) -> None:
    flagged = [r for r in board.rows if r.flags]
    assert len(flagged) == 1 and board.flagged_rows == 1
    fields = {f.field: f for f in flagged[0].flags}
    assert set(fields) == {"thinking", "max_tokens"}
    assert fields["thinking"].value == "on" and fields["thinking"].reference == "server default"
    assert board.reference_setting["max_tokens"] == "per task"


def test_buckets_split_dense_and_sparse_ordered_by_active_params(board: Board) -> None:
    seen = []
    for bucket in board.buckets:
        for slugs, sparse in ((bucket.dense, False), (bucket.sparse, True)):
            rows = [board.row(s) for s in slugs]
            assert all(r.size.sparse == sparse and r.size.bucket == bucket.label for r in rows)
            actives = [r.size.sort_params for r in rows if r.size.sort_params is not None]
            assert actives == sorted(actives)
            seen += slugs
    assert sorted(seen) == sorted(r.slug for r in board.rows)
    moe = [r for r in board.rows if r.size.badge == "MoE"]
    assert moe and all(r.size.active_params_b < r.size.total_params_b for r in moe)
    assert any(r.size.label == "?" and r.size.bucket == UNKNOWN_BUCKET for r in board.rows)


def test_board_pairs_are_the_stats_table_of_the_headline_cards_with_slugs(board: Board, site_fleet: Path) -> None:
    cards = []
    for item in load_results(site_fleet / "results"):
        score = score_judged(item.run, item.applied, k=3)
        cards.append(score.card if item.applied is None else score.judged_card)
    table = separability(cards)
    slug = {r.model: r.slug for r in board.rows}
    s = board.separability
    assert [(p.a, p.b) for p in s.pairs] == [(p.model_a, p.model_b) for p in table.pairs]
    for row, pair in zip(s.pairs, table.pairs, strict=True):
        assert (row.slug_a, row.slug_b) == (slug[pair.model_a], slug[pair.model_b])
        assert row.model_dump(exclude={"a", "b", "slug_a", "slug_b"}) == pair.model_dump(
            exclude={"model_a", "model_b"}
        )
    assert (s.pair_count, s.separable_count, s.adjacent_count, s.adjacent_separable) == (
        table.pair_count,
        table.separable_count,
        table.adjacent_count,
        table.adjacent_separable,
    )
    assert [r.model for r in board.rows] == table.ranking


def test_board_pairs_are_the_stats_verdicts(board: Board) -> None:
    s = board.separability
    assert s.pair_count == len(board.rows) * (len(board.rows) - 1) // 2
    assert s.separable_count == sum(p.separable for p in s.pairs)
    assert s.adjacent_count == len(s.adjacent) == len(board.rows) - 1
    assert 0 < s.separable_count < s.pair_count


def test_card_facts_come_from_the_run(board: Board) -> None:
    row = board.rows[0]
    assert row.run_time_min is not None and row.run_time_min > 0
    assert row.decode_tps is not None and 20 <= row.decode_tps <= 80
    assert row.radar.labels and len(row.radar.labels) == len(row.radar.values)
    assert all(0 <= v <= 100 for v in row.radar.values)
    assert sum(len(t.trials) for t in row.tasks) == 39 * 3
    assert {c.outcome for t in row.tasks for c in t.trials} <= {"pass", "fail", "excluded"}


def test_judge_moved_trials_are_marked(board: Board) -> None:
    moved = [c for r in board.rows for t in r.tasks for c in t.trials if c.judge_changed]
    assert moved
    assert sum(r.changed_verdicts for r in board.rows) == len(moved)


def test_slugs_are_unique_and_page_safe() -> None:
    slugs = unique_slugs(["qwen3:8b", "qwen3_8b", HOSTILE, "../../etc"])
    assert len(set(slugs.values())) == 4
    for slug in slugs.values():
        assert slug and all(ch.isalnum() or ch in "._-" for ch in slug) and not slug.startswith(".")


def test_json_round_trip_without_trial_detail(board: Board, tmp_path: Path) -> None:
    path = tmp_path / "leaderboard.json"
    write_board_json(path, board)
    back = read_board_json(path)
    assert [r.model for r in back.rows] == [r.model for r in board.rows]
    assert back.separability == board.separability
    assert all(r.tasks == [] for r in back.rows)
    assert '"tasks":[{' not in board_json(board)


def test_two_files_for_one_model_is_an_error(site_fleet: Path, tmp_path: Path) -> None:
    src = sorted((site_fleet / "results").glob("*_raw_results.json"))[3]
    (tmp_path / "a_raw_results.json").write_bytes(src.read_bytes())
    (tmp_path / "b_raw_results.json").write_bytes(src.read_bytes())
    with pytest.raises(UserError, match="both hold model"):
        board_from_dir(tmp_path)


def test_missing_folder_and_bad_preset_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="no such folder"):
        board_from_dir(tmp_path / "nope")
    with pytest.raises(UserError, match="unknown weight preset"):
        build_board([], None, weights="nope")


def test_empty_board_is_valid() -> None:
    empty = build_board([])
    assert empty.rows == [] and empty.separability.pair_count == 0 and len(empty.tiers) == 7
