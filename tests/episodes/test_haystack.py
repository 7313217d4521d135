"""The haystack generator: reproducible to the byte, different across seeds, needles where they were put."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from engine.bank.load import load_bank
from engine.episodes.long_context.haystack import (
    HAYSTACK_VERSION,
    ChainSpec,
    HaystackSpec,
    Insert,
    SeededStream,
    build,
    document_prefix,
    filler_only,
)
from engine.episodes.long_context.module import MODULE, prompt

ROOT = Path(__file__).resolve().parent.parent.parent

PROSE = HaystackSpec(seed="test/prose/one", title="Notes", filler_tokens=1500,
                     inserts=(Insert(0.25, "NEEDLE-A sits here."), Insert(0.75, "NEEDLE-B sits here.")))
MEETING = HaystackSpec(seed="test/meeting/one", title="Weekly", filler_tokens=1200, style="meeting",
                       speakers=("Ana", "Bo", "Cy"),
                       inserts=(Insert(0.5, "Ana: FIRST line\nBo: SECOND line"),))
CHAIN = HaystackSpec(seed="test/chain/one", title="Ledger", filler_tokens=3000, chain=ChainSpec(6, (2, 3)))

# Digests of reference documents for HAYSTACK_VERSION "1". If the generator changes, these change: bump
# HAYSTACK_VERSION (which re-hashes every long_context task) and update them together.
PINNED = {
    "1": {
        "prose": "31e11712af82f26b",
        "meeting": "9d54a591dfee826d",
        "chain": "691df4b032a44ff9",
    }
}


def _digest(spec: HaystackSpec) -> str:
    return hashlib.sha256(build(spec).text.encode("utf-8")).hexdigest()[:16]


@pytest.mark.parametrize("spec", [PROSE, MEETING, CHAIN], ids=["prose", "meeting", "chain"])
def test_same_spec_gives_identical_bytes(spec):
    assert build(spec).text.encode() == build(spec).text.encode()


def test_documents_are_pinned_for_this_version():
    assert HAYSTACK_VERSION in PINNED, "a new HAYSTACK_VERSION needs its reference digests in PINNED"
    got = {"prose": _digest(PROSE), "meeting": _digest(MEETING), "chain": _digest(CHAIN)}
    assert got == PINNED[HAYSTACK_VERSION], (
        "the generator's output changed without a version bump: bump HAYSTACK_VERSION and re-pin"
    )


def test_different_seeds_give_different_documents_and_prefixes():
    other = HaystackSpec(seed="test/prose/two", title=PROSE.title, filler_tokens=PROSE.filler_tokens,
                         inserts=PROSE.inserts)
    a, b = build(PROSE).text, build(other).text
    assert a != b
    assert a.split("\n", 1)[0] != b.split("\n", 1)[0]
    # Not just a different header: the filler itself differs from the first sentence on.
    assert a.split("\n\n")[1][:80] != b.split("\n\n")[1][:80]


def test_prefix_depends_on_version_and_seed():
    assert build(PROSE).text.startswith(document_prefix(PROSE.seed) + " · Notes\n")
    assert document_prefix("x") != document_prefix("y")
    assert re.fullmatch(r"[0-9a-f]{12}", document_prefix("x"))


def test_needles_are_placed_in_order_near_their_depth():
    text = build(PROSE).text
    a, b = text.index("NEEDLE-A"), text.index("NEEDLE-B")
    assert a < b
    assert 0.15 < a / len(text) < 0.35 and 0.65 < b / len(text) < 0.85
    assert text.count("NEEDLE-A") == 1 and text.count("NEEDLE-B") == 1


def test_filler_size_follows_the_token_budget():
    small = len(filler_only(PROSE))
    big = len(filler_only(HaystackSpec(seed=PROSE.seed, title="Notes", filler_tokens=6000)))
    assert 1500 * 3 <= small < 1500 * 3 + 1200
    assert 6000 * 3 <= big < 6000 * 3 + 1200


def test_filler_says_nothing_a_question_could_be_about():
    for spec in (PROSE, CHAIN):
        body = filler_only(spec).split("\n", 1)[1]
        assert not re.search(r"\d{3,}", body), "filler must not hold numbers of three or more digits"
        assert not re.search(r"\b(code|owner|owns|VAR_|Set)\b", body)
    meeting = filler_only(MEETING).split("\n", 1)[1]
    assert not re.search(r"\b(I'll|take|taking|own|owns|owner)\b", meeting)


def test_meeting_lines_are_timestamped_in_order_with_the_needle_lines_kept_together():
    lines = build(MEETING).text.splitlines()[2:]
    stamps = [line[1:9] for line in lines]
    assert all(re.fullmatch(r"\d\d:\d\d:\d\d", s) for s in stamps)
    assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)
    first = next(i for i, line in enumerate(lines) if "Ana: FIRST line" in line)
    assert "Bo: SECOND line" in lines[first + 1]
    speakers = {line[11:].split(":", 1)[0] for line in lines}
    assert speakers == {"Ana", "Bo", "Cy"}


def test_meeting_needs_two_speakers():
    with pytest.raises(ValueError, match="two speakers"):
        build(HaystackSpec(seed="s", title="t", filler_tokens=300, style="meeting", speakers=("Ana",)))


def test_chain_resolves_to_its_value_and_has_a_near_twin_decoy():
    stack = build(CHAIN)
    assignments = dict(re.findall(r"Set (VAR_[A-Z]{5}) = (\w+)\.", stack.text))
    assert len(re.findall(r"Set (VAR_[A-Z]{5}) =", stack.text)) == len(assignments), "each assigned once"
    chain = stack.chain
    assert chain is not None and len(chain.names) == 7 and len(chain.decoy_roots) == 2

    def resolve(name: str) -> str:
        value = assignments[name]
        return resolve(value) if value.startswith("VAR_") else value

    assert resolve(chain.final) == chain.value
    for root, last in chain.decoy_roots.items():
        assert resolve(last) == root != chain.value
    twin = chain.final[:-2] + chain.final[-1] + chain.final[-2]
    assert twin in chain.decoy_roots.values()
    # The chain runs top to bottom: each copy comes after its source.
    positions = [stack.text.index(f"Set {n} =") for n in chain.names]
    assert positions == sorted(positions)


def test_seeded_stream_is_reproducible_and_in_range():
    a, b = SeededStream("seed"), SeededStream("seed")
    xs = [a.below(7) for _ in range(500)]
    assert xs == [b.below(7) for _ in range(500)]
    assert set(xs) == set(range(7))
    with pytest.raises(ValueError):
        a.below(0)


def test_bank_documents_differ_across_tasks_and_version_enters_the_hash():
    tasks = [t for t in load_bank(ROOT / "tasks") if t.task.module == "long_context"]
    assert len(tasks) == 4
    prompts = [prompt(t.body) for t in tasks]
    first_lines = [p.split("\n", 1)[0] for p in prompts]
    assert len(set(first_lines)) == 4
    assert len({p[:12] for p in prompts}) == 4, "the very first characters already differ"
    assert len({t.body.seed for t in tasks}) == 4
    assert HAYSTACK_VERSION in MODULE.version
