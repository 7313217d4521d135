"""Where a figure was published, where it was read, and how much of the data has been checked.

A figure is only as good as the document behind it. The primary document is the lab's own model card,
technical report or launch post (or, for an independent figure, the evaluator's own site or output); a copy
of it in someone else's repository or an aggregator's table is a secondary source. This module tells the two
apart by address, recovers the primary document a copy names in its note, and counts how many figures cite a
primary document and how many have been checked against it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlparse

from engine.index.schema import CORE_BENCHMARKS, ModelEntry, Score

# Repository owners that publish their own models' documents (or, for TIGER-Lab and mlfoundations-dev, their
# own evaluations). A GitHub or Hugging Face address under any other owner is a copy. arXiv papers and the
# evaluator's site count as primary wherever they appear.
PRIMARY_OWNERS: dict[str, frozenset[str]] = {
    "github.com": frozenset(
        {
            "allenai", "Azure", "ByteDance-Seed", "deepseek-ai", "google-deepmind", "huggingface", "ibm-granite",
            "LG-AI-EXAONE", "meta-llama", "microsoft", "mistralai", "MoonshotAI", "NVIDIA-NeMo", "OpenBMB",
            "QwenLM", "swiss-ai", "Tencent-Hunyuan", "THUDM", "TIGER-AI-Lab", "tiiuae", "zai-org",
        }
    ),
    "huggingface.co": frozenset(
        {
            "allenai", "google", "HuggingFaceTB", "ibm-granite", "LGAI-EXAONE", "LiquidAI", "meta-llama",
            "microsoft", "mistralai", "moonshotai", "nvidia", "openai", "openbmb", "Qwen", "swiss-ai",
            "tencent", "tiiuae", "utter-project", "zai-org", "LLM360", "datasets/mlfoundations-dev",
        }
    ),
}
PRIMARY_HOSTS = frozenset(
    {"arxiv.org", "artificialanalysis.ai", "ai.google.dev", "mistral.ai", "qwenlm.github.io", "ai.meta.com",
     "blog.google", "developers.googleblog.com", "www.ibm.com", "allenai.org", "openai.com"}
)


def is_primary(url: str) -> bool:
    """True when the address is the publisher's own document rather than someone else's copy of it."""
    parsed = urlparse(url)
    host = parsed.netloc.lower()
    if host in PRIMARY_HOSTS:
        return True
    parts = [p for p in parsed.path.split("/") if p]
    owners = PRIMARY_OWNERS.get(host)
    if owners is None or not parts:
        return False
    owner = parts[0]
    if host == "huggingface.co" and owner == "datasets" and len(parts) > 1:
        owner = f"datasets/{parts[1]}"
    return owner in owners or owner.lower() in {o.lower() for o in owners}


# What a copy's note says about the document it copies, in the forms the gathered notes use.
_ORIGINAL = re.compile(r"\b(?:orig|original source|AA link)\s*:?\s*(https?://[^\s);,]+)", re.IGNORECASE)
_ARXIV = re.compile(r"arXiv[:\s]*([0-9]{4}\.[0-9]{4,5})", re.IGNORECASE)
_HF_CARD = re.compile(r"\b(?:HF|Hugging ?Face) (?:model )?card (?:of )?([A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)")


def primary_named_in(note: str | None) -> str | None:
    """The primary document a copy's note names: an address, an arXiv id, or a Hugging Face model card."""
    text = note or ""
    for pattern, make in (
        (_ORIGINAL, lambda m: m.group(1).rstrip(".")),
        (_HF_CARD, lambda m: f"https://huggingface.co/{m.group(1).rstrip('.')}"),
        (_ARXIV, lambda m: f"https://arxiv.org/abs/{m.group(1)}"),
    ):
        found = pattern.search(text)
        if found:
            url = make(found)
            if is_primary(url):
                return url
    return None


def split_source(url: str, note: str | None) -> tuple[str | None, str | None]:
    """(primary document, copy) for a figure read at ``url``: a copy keeps its address as the second."""
    if is_primary(url):
        return url, None
    return primary_named_in(note), url


# Why a figure is not checked yet, in the words a page uses. The first three are figures no one can check from
# here: a check was tried and the primary document could not be read (the figure's `unreadable` says why), an
# evaluator's own results are interactive pages that the stored copies we read from do not hold (the API
# behind them is read by `index sync-aa`, which needs a key), and a copy that names no primary document leaves
# nothing to compare with.
UNCHECKED_WHY: dict[str, str] = {
    "unreadable": "whose primary document could not be read here when a check was tried (its source says why)",
    "evaluator_copy": (
        "independent figures read from a copy of the evaluator's results: the evaluator's own pages cannot be "
        "read here (the index sync-aa command checks them against its API, with a key)"
    ),
    "no_primary": "read from a copy that names no primary document, so there is nothing to compare them with",
    "not_yet": "not yet compared with the primary document",
}


CANNOT_CHECK_HERE = frozenset({"unreadable", "evaluator_copy", "no_primary"})


def unchecked_reason(score: Score) -> str | None:
    """Which of ``UNCHECKED_WHY`` keeps a figure unchecked; None for a checked figure."""
    if score.checked is not None:
        return None
    if score.unreadable is not None:
        return "unreadable"
    if score.source_url is None:
        return "no_primary"
    if score.measured_by == "independent" and score.secondary_url is not None:
        return "evaluator_copy"
    return "not_yet"


@dataclass(frozen=True)
class ProvenanceStats:
    figures: int
    with_primary: int
    verified: int
    from_copy: int
    # Unchecked figures whose primary document cannot be read from here (``CANNOT_CHECK_HERE``).
    unreadable: int = 0

    @property
    def verified_share(self) -> float:
        return self.verified / self.figures if self.figures else 0.0

    @property
    def primary_share(self) -> float:
        return self.with_primary / self.figures if self.figures else 0.0


def core_figures(entries: Iterable[ModelEntry]) -> list[Score]:
    """Every core-benchmark figure in the files, whether or not it is the one the index uses."""
    return [s for e in entries for s in e.scores if s.benchmark in CORE_BENCHMARKS]


def provenance_stats(scores: Iterable[Score]) -> ProvenanceStats:
    scores = list(scores)
    return ProvenanceStats(
        figures=len(scores),
        with_primary=sum(1 for s in scores if s.source_url is not None),
        verified=sum(1 for s in scores if s.verified),
        from_copy=sum(1 for s in scores if s.secondary_url is not None),
        unreadable=sum(1 for s in scores if unchecked_reason(s) in CANNOT_CHECK_HERE),
    )


def by_lab(entries: Iterable[ModelEntry]) -> dict[str, ProvenanceStats]:
    """The core figures' provenance per lab, the unit a round of checking works through."""
    scores: dict[str, list[Score]] = {}
    for e in entries:
        scores.setdefault(e.lab, []).extend(s for s in e.scores if s.benchmark in CORE_BENCHMARKS)
    return {lab: provenance_stats(s) for lab, s in sorted(scores.items())}
