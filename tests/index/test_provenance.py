"""Provenance means what it says: primary documents, copies kept apart, checked dates only for real checks."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from pydantic import ValidationError

from engine.index.data import DEFAULT_DATA_DIR, chosen_scores, load_entries
from engine.index.provenance import is_primary, primary_named_in, split_source
from engine.index.schema import Score

from .conftest import REPO
from .helpers import DAY, entry, score

# Benchmarks whose figures come from different tests under one name: the figure must say which.
VARIANT_BENCHMARKS = {"AIME": re.compile(r"20[2-3][0-9]"), "LiveCodeBench": re.compile(r".")}


@pytest.fixture(scope="module")
def entries():
    return load_entries(REPO / DEFAULT_DATA_DIR)


def test_every_committed_figure_has_a_source_and_its_variant(entries):
    for e in entries:
        for s in e.scores:
            assert s.link.startswith(("https://", "http://")), (e.id, s.benchmark)
            pattern = VARIANT_BENCHMARKS.get(s.benchmark)
            if pattern is not None:
                assert s.variant and pattern.search(s.variant), (e.id, s.benchmark, s.variant)
            if s.secondary_url is not None:
                # A copy is never also the primary document (a lab's page can be the copy of a rival's figure).
                assert s.secondary_url != s.source_url, (e.id, s.secondary_url)
            if s.checked is not None:
                assert s.source_url and is_primary(s.source_url), (e.id, s.benchmark)


def test_every_mode_of_a_two_mode_model_is_its_own_entry(entries):
    by_repo = defaultdict(list)
    for e in entries:
        if e.hf_repo:
            by_repo[e.hf_repo.lower()].append(e)
    for repo, group in by_repo.items():
        if len(group) > 1:
            modes = [e.reasoning for e in group]
            assert None not in modes and len(set(modes)) == len(modes), repo


def test_no_import_date_poses_as_a_check(entries):
    # Every figure checked on one single date across all files is what an import looks like, not checking.
    dates = {s.checked for e in entries for s in e.scores if s.checked is not None}
    checked = sum(1 for e in entries for s in e.scores if s.checked is not None)
    total = sum(len(e.scores) for e in entries)
    assert checked < total or len(dates) > 1


def test_copies_and_primary_documents_are_told_apart():
    assert is_primary("https://huggingface.co/Qwen/Qwen3-8B")
    assert is_primary("https://arxiv.org/abs/2505.09388")
    assert is_primary("https://github.com/meta-llama/llama-models/blob/x/MODEL_CARD.md")
    assert not is_primary("https://github.com/someone/notes/blob/x/Qwen3_Technical_Report.md")
    note = "text copy of Qwen3 Technical Report arXiv:2505.09388v1 (orig https://arxiv.org/abs/2505.09388)"
    assert primary_named_in(note) == "https://arxiv.org/abs/2505.09388"
    assert primary_named_in("copy of HF model card Qwen/Qwen3-4B") == "https://huggingface.co/Qwen/Qwen3-4B"
    copy = "https://github.com/someone/notes/blob/x/card.md"
    assert split_source(copy, "a copy, no original named") == (None, copy)


def test_a_check_needs_the_primary_document_and_a_figure_needs_a_source():
    with pytest.raises(ValidationError, match="primary document"):
        Score(benchmark="AIME", value=10, secondary_url="https://x.org/c", measured_by="lab", checked=DAY)
    with pytest.raises(ValidationError, match="needs a source"):
        Score(benchmark="AIME", value=10, measured_by="lab")


def test_an_unverified_snapshot_figure_does_not_replace_a_verified_lab_figure():
    snapshot = dict(checked=None, source_url=None, secondary_url="https://x.org/snapshot")
    verified_lab = entry("a", [score("GPQA Diamond", 60, "lab"), score("GPQA Diamond", 50, "independent", **snapshot)])
    assert chosen_scores(verified_lab)["GPQA Diamond"].value == 60
    unverified_lab = entry(
        "b",
        [
            score("GPQA Diamond", 60, "lab", checked=None),
            score("GPQA Diamond", 50, "independent", **snapshot),
        ],
    )
    assert chosen_scores(unverified_lab)["GPQA Diamond"].value == 50
    checked_snapshot = entry("c", [score("GPQA Diamond", 60, "lab"), score("GPQA Diamond", 50, "independent")])
    assert chosen_scores(checked_snapshot)["GPQA Diamond"].value == 50


def test_model_page_shows_checked_dates_copies_and_the_verified_split():
    from engine.index.index import build_index
    from engine.publish.site.index_model_page import model_page_data, render_model_html

    copy = "https://github.com/someone/notes/blob/x/card.md"
    entries = [
        entry(f"m{k}", [score("MMLU-Pro", 30 + 5 * k), score("GPQA Diamond", 20 + 5 * k)]) for k in range(6)
    ]
    entries.append(
        entry("x", [score("MMLU-Pro", 50), score("GPQA Diamond", 40, checked=None, secondary_url=copy)])
    )
    html = render_model_html(model_page_data(build_index(entries), "x"))
    assert f"checked {DAY.isoformat()}" in html
    assert "read from a copy" in html and copy in html
    assert "Checked against their primary document: 1 of the 2 figures shown" in html
    assert "1 not yet compared with the primary document" in html


def test_a_page_never_dates_a_check_of_a_figure_it_does_not_show():
    from engine.index.index import build_index
    from engine.publish.site.index_model_page import checked_line, model_page_data, render_model_html

    snapshot = "https://github.com/someone/snapshot/blob/x/mmlu_pro.json"
    entries = [
        entry(f"m{k}", [score("MMLU-Pro", 30 + 5 * k), score("GPQA Diamond", 20 + 5 * k)]) for k in range(6)
    ]
    # Another lab's GPQA figure was checked; the unchecked lab figure outranks it, so the page shows that.
    entries.append(
        entry(
            "y",
            [
                score("GPQA Diamond", 55, "lab", checked=None),
                score("GPQA Diamond", 50, "other_lab"),
                score("MMLU-Pro", 40, "independent", checked=None, secondary_url=snapshot),
            ],
        )
    )
    data = model_page_data(build_index(entries), "y")
    line = checked_line(data)
    assert line.startswith("None of the 2 figures shown has been checked against its primary document yet.")
    assert DAY.isoformat() not in line
    assert "1 not yet compared with the primary document" in line
    assert "1 independent figures read from a copy of the evaluator's results" in line
    assert "cannot be read here" in render_model_html(data)


def test_unchecked_figures_say_why(entries):
    from engine.index.provenance import UNCHECKED_WHY, by_lab, unchecked_reason

    assert unchecked_reason(score("MMLU-Pro", 50)) is None
    no_primary = score("MMLU-Pro", 50, checked=None, source_url=None, secondary_url="https://x.org/copy")
    assert unchecked_reason(no_primary) == "no_primary" and "no_primary" in UNCHECKED_WHY
    # On the committed data every lab's count adds up, and the figures that cannot be read are a subset.
    for lab, st in by_lab(entries).items():
        assert st.verified + st.unreadable <= st.figures, lab


def test_a_figure_whose_primary_document_could_not_be_read_says_so():
    from engine.index.index import build_index
    from engine.publish.site.index_model_page import checked_line, model_page_data, render_model_html

    why = "2026-12-03: the report PDF is over the size limit of the stored copies"
    entries = [
        entry(f"m{k}", [score("MMLU-Pro", 30 + 5 * k), score("GPQA Diamond", 20 + 5 * k)]) for k in range(6)
    ]
    entries.append(entry("z", [score("MMLU-Pro", 50), score("GPQA Diamond", 40, checked=None, unreadable=why)]))
    data = model_page_data(build_index(entries), "z")
    assert "1 whose primary document could not be read here" in checked_line(data)
    assert f"not readable here: {why}" in render_model_html(data)
    with pytest.raises(ValidationError, match="unreadable is set but so is checked"):
        score("AIME", 10, unreadable=why)
