"""A batch's label review: its file's shape, the corpus holding the reviewed labels, and the first-sight figure
read against them (the verdicts stay the first sight's)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from engine.core.errors import UserError
from engine.corpus.label_review import REVIEWS, load_review, under_review
from engine.publish.site.grader_accuracy import first_sight_markdown
from tests.conftest import ROOT


def _record() -> dict:
    # Two modules; the graders got kn/a wrong (labelled pass, graded fail) and kn/b right (labelled pass).
    return {"batch": "b9", "date": "2026-12-03", "grader_commit": "abc", "grader_tree_clean": True,
            "cases": 4, "false_fails": 1, "false_passes": 0, "errors": 0,
            "modules": [{"module": "knowledge", "cases": 3, "should_pass": 3, "should_fail": 0, "false_fails": 1,
                         "false_passes": 0, "errors": 0},
                        {"module": "format", "cases": 1, "should_pass": 0, "should_fail": 1, "false_fails": 0,
                         "false_passes": 0, "errors": 0}],
            "batches": [], "misgraded": [{"task": "kn_x", "module": "knowledge", "case": "a", "expect": "pass",
                                          "got": "fail", "reason": "no answer line", "why": "w", "batch": "b9"}]}


def _review(tmp: Path, changes: list[dict], how: str = "a second reader with the full prompt") -> Path:
    path = tmp / REVIEWS / "b9.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump({"batch": "b9", "date": "2026-12-03", "modules": ["knowledge"],
                                    "cases_reviewed": 3, "how": how, "changes": changes}), encoding="utf-8")
    return path


def _change(case: str, old: str, new: str) -> dict:
    return {"module": "knowledge", "task": "kn_x", "case": case, "old": old, "new": new,
            "why": "no Answer: line, which the full prompt asks for"}


def test_a_relabelled_misgrade_agrees_and_a_relabelled_agreement_becomes_a_misgrade(tmp_path: Path) -> None:
    review = load_review(_review(tmp_path, [_change("a", "pass", "fail"), _change("b", "pass", "fail")]))
    read = under_review(_record(), review)
    knowledge = next(m for m in read["modules"] if m["module"] == "knowledge")
    # a: the graders said fail, the review says fail: no longer wrong. b: the graders said pass (as the old
    # label did), the review says fail: now a false pass.
    assert knowledge == {"module": "knowledge", "cases": 3, "should_pass": 1, "should_fail": 2, "false_fails": 0,
                         "false_passes": 1, "errors": 0}
    assert [(m["case"], m["expect"], m["got"]) for m in read["misgraded"]] == [("b", "fail", "pass")]
    assert (read["false_fails"], read["false_passes"]) == (0, 1)
    # The record itself is left as it was written.
    assert _record()["misgraded"][0]["case"] == "a"


def test_a_review_that_changes_nothing_or_names_another_module_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="old and new are the same label"):
        load_review(_review(tmp_path, [_change("a", "pass", "pass")]))
    odd = _change("a", "pass", "fail") | {"module": "code"}
    with pytest.raises(UserError, match="module 'code' is not in the batch's record"):
        under_review(_record(), load_review(_review(tmp_path, [odd])))


def test_the_page_shows_both_readings_and_escapes_the_review(tmp_path: Path) -> None:
    folder = tmp_path / "results" / "first_sight"
    folder.mkdir(parents=True)
    (folder / "b9.json").write_text(json.dumps(_record()), encoding="utf-8")
    _review(tmp_path, [_change("a", "pass", "fail")], how="a reader <script>alert(1)</script> with {{ the prompt }}")
    page = first_sight_markdown(tmp_path)
    assert page.count("| **all** |") == 2
    assert "1 of 4 (25.0%" in page and "0 of 4 (0.0%" in page
    assert "<script>" not in page and "{{" not in page and "changed 1 label (" in page


def test_the_corpus_holds_the_labels_every_committed_review_gave() -> None:
    reviews = sorted((ROOT / REVIEWS).glob("b*.yaml"))
    assert reviews, "the b6 review is committed"
    for path in reviews:
        review = load_review(path)
        for change in review.changes:
            corpus = ROOT / "tests" / "corpus" / change.module / f"{change.task}.{review.batch}.yaml"
            cases = {c["name"]: c for c in yaml.safe_load(corpus.read_text(encoding="utf-8"))["cases"]}
            assert cases[change.case]["expect"] == change.new, f"{corpus.name}: {change.case}"


def test_batches_are_shown_newest_first_by_number(tmp_path):
    folder = tmp_path / "results" / "first_sight"
    folder.mkdir(parents=True)
    for batch in ("b2", "b10", "b9"):
        (folder / f"{batch}.json").write_text(json.dumps({**_record(), "batch": batch}), encoding="utf-8")
    page = first_sight_markdown(tmp_path)
    # b10 after b9 (text order would put it between b1 and b2), newest first
    assert page.index("**Batch b10**") < page.index("**Batch b9**") < page.index("**Batch b2**")
