"""Markdown compared on structure: formatting noise is forgiven, broken structure is not."""

from __future__ import annotations

from engine.world import compare_markdown, markdown_paths, markdown_problems
from tests.world.conftest import TABLE_DOC


def test_a_document_equals_itself() -> None:
    assert compare_markdown(TABLE_DOC, TABLE_DOC).equal


def test_formatting_noise_is_forgiven() -> None:
    noisy = (
        TABLE_DOC.replace("| Alpha     | Ana   | done   |", "|Alpha|Ana|done|")
        .replace("|-----------|-------|--------|", "| :--- | :---: | ---: |")
        .replace("- keep", "* keep")
        .replace("Owner: platform team.", "Owner:   platform\nteam.   ")
        + "\n\n\n"
    )
    result = compare_markdown(TABLE_DOC, noisy)
    assert result.equal, (result.missing, result.unexpected, result.changed)


def test_a_cell_change_is_one_change() -> None:
    edited = TABLE_DOC.replace("| Beta      | Ben   | open   |", "| Beta | Ben | done |")
    result = compare_markdown(TABLE_DOC, edited)
    assert list(result.changed) == ["§# Release plan > ## Milestones table0 row['Beta']['Status']"]
    assert result.changed["§# Release plan > ## Milestones table0 row['Beta']['Status']"] == ("open", "done")
    assert not result.missing and not result.unexpected


def test_a_row_missing_a_cell_is_caught() -> None:
    broken = TABLE_DOC.replace("| Beta      | Ben   | open   |", "| Beta | done |")
    result = compare_markdown(TABLE_DOC, broken)
    assert not result.equal
    row = "§# Release plan > ## Milestones table0 row['Beta']"
    assert result.changed[row] == ("row", "malformed: 2 cells for 3 columns")
    assert any("row 2 has 2 cells" in p for p in result.problems)


def test_a_lost_separator_row_is_caught() -> None:
    broken = TABLE_DOC.replace("|-----------|-------|--------|\n", "")
    result = compare_markdown(TABLE_DOC, broken)
    assert not result.equal
    assert any("separator" in p for p in result.problems)


def test_a_row_without_pipes_leaves_the_table() -> None:
    broken = TABLE_DOC.replace("| GA        | Cleo  | open   |", "GA | Cleo | open")
    assert not compare_markdown(TABLE_DOC, broken).equal


def test_a_bullet_without_its_space_is_not_a_bullet() -> None:
    broken = TABLE_DOC.replace("- tag every release", "-tag every release")
    result = compare_markdown(TABLE_DOC, broken)
    assert "§# Release plan > ## Notes list0 {- tag every release}" in result.missing
    assert any("bullet without a space" in p for p in result.problems)


def test_a_heading_without_its_space_is_caught() -> None:
    broken = TABLE_DOC.replace("## Notes", "##Notes")
    result = compare_markdown(TABLE_DOC, broken)
    assert not result.equal
    assert any("heading without a space" in p for p in result.problems)


def test_inserting_a_line_changes_only_that_line() -> None:
    edited = TABLE_DOC.replace("- tag every release\n", "- tag every release\n- announce it\n")
    result = compare_markdown(TABLE_DOC, edited)
    assert list(result.unexpected) == ["§# Release plan > ## Notes list0 {- announce it}"]
    assert not result.missing and not result.changed


def test_untouched_text_must_be_preserved() -> None:
    edited = TABLE_DOC.replace("Owner: platform team.\n", "")
    assert "§# Release plan ¶{Owner: platform team.}" in compare_markdown(TABLE_DOC, edited).missing


def test_rows_keyed_by_position_when_first_cells_repeat() -> None:
    doc = "| k | v |\n|---|---|\n| a | 1 |\n| a | 2 |\n"
    paths = markdown_paths(doc)
    assert paths["§(top) table0 row[1]['v']"] == "2"


def test_code_blocks_are_kept_verbatim() -> None:
    doc = "# T\n\n```\n| not | a table\n-not a bullet\n```\n"
    assert markdown_problems(doc) == []
    assert markdown_paths(doc)["§# T code0"] == "```\n| not | a table\n-not a bullet\n```"


def test_same_title_twice_gets_distinct_sections() -> None:
    doc = "## A\n\nx\n\n## A\n\ny\n"
    paths = markdown_paths(doc)
    assert "§## A ¶{x}" in paths and "§## A (2) ¶{y}" in paths
