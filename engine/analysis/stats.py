"""How far a board's numbers can be trusted: intervals per model and paired tests between models.

The task is the unit everywhere. Trials of one task are not independent draws of the model's ability (the
same prompt fails the same way), so counting trials as the sample size would make every interval look three
times tighter than it is. What this module decides, each point explained in ``site_src/methodology/
statistics.md``:

* Interval: Wilson 95% on the headline, with the number of tasks as n. The headline is a weighted mean, so
  n is Kish's effective number of tasks, (sum of task weights)^2 / sum of squared task weights: the task
  count when every task weighs the same, smaller when a few tasks carry more weight.
* Pairs: exact two-sided sign test over the tasks both models scored. A task is a win for the model with the
  higher pass fraction (passed / scorable trials) on it; equal fractions are ties and drop out.
* Holm's step-down correction over every pair shown; a pair is separable when its adjusted p < alpha.
* Ranks: competition ranking on the headline (1, 1, 3): models with the same headline share a rank, and a
  pair of them is marked tied rather than higher and lower.
* Tasks needed: the McNemar sample-size formula with the discordant shares taken from the observed pair.
* Against a baseline (``sllmb sweep``, ``sllmb compare --fail-on-regression``): the same sign test of each
  configuration against the first, Holm-corrected across those comparisons only (not every pair among them).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from functools import cache
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict
from scipy.stats import binomtest, norm

from engine.analysis.scoring import Scorecard
from engine.core.errors import UserError

ALPHA = 0.05
POWER = 0.80


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Interval(_Model):
    model: str
    estimate: float
    low: float
    high: float
    # The n the interval was computed with: the effective number of tasks.
    n: float


class PairVerdict(_Model):
    """The sign test of one pair, whoever names it: the first model ranks above (or level with) the second."""

    # The two headlines are the same: neither model ranks above the other.
    tied: bool
    tasks: int
    wins_a: int
    wins_b: int
    ties: int
    p_value: float
    p_adjusted: float
    separable: bool
    adjacent: bool
    # Tasks a bank would need to separate this pair (McNemar); None when the pair showed no difference.
    tasks_needed: int | None


class PairTest(PairVerdict):
    model_a: str
    model_b: str


class BaselineTest(_Model):
    """One configuration against the baseline: the same sign test as a ``PairTest``, Holm-corrected across the
    configurations compared with that baseline. ``wins_baseline`` are the tasks the baseline did better on."""

    baseline: str
    candidate: str
    tasks: int
    wins_baseline: int
    wins_candidate: int
    ties: int
    p_value: float
    p_adjusted: float
    separable: bool
    # "worse" or "better" (the candidate, by the paired test) when separable, else "not separable".
    verdict: Literal["worse", "better", "not separable"]
    # Tasks a bank would need to separate the two (McNemar), and how many more than were compared; None when
    # they showed no difference on the tasks compared.
    tasks_needed: int | None
    more_tasks_needed: int | None


class Separability(_Model):
    alpha: float
    # Models from best to worst headline.
    ranking: list[str]
    pairs: list[PairTest]
    pair_count: int
    separable_count: int
    adjacent_count: int
    adjacent_separable: int


# ----------------------------------------------------------------------------------------------------------
# Intervals


def wilson_interval(successes: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval for a proportion. ``successes`` and ``n`` may be fractional (weighted counts)."""
    if n <= 0:
        raise ValueError(f"an interval needs n > 0, got {n}")
    if not 0 <= successes <= n:
        raise ValueError(f"successes {successes} must lie between 0 and n = {n}")
    z = float(norm.ppf(0.5 + confidence / 2))
    p = successes / n
    z2n = z * z / n
    centre = (p + z2n / 2) / (1 + z2n)
    half = z * math.sqrt(p * (1 - p) / n + z2n / (4 * n)) / (1 + z2n)
    return max(0.0, centre - half), min(1.0, centre + half)


def task_weights(card: Scorecard) -> dict[str, float]:
    """The weight each scored task carries in the headline: its module's weight shared among its tasks."""
    out: dict[str, float] = {}
    for module, weight in card.weights.items():
        ids = [t.task_id for t in card.tasks.values() if t.module == module and t.scored]
        for task_id in ids:
            out[task_id] = weight / len(ids)
    return out


def effective_task_count(card: Scorecard) -> float:
    """Kish's effective sample size of the headline's weighted mean over tasks."""
    weights = list(task_weights(card).values())
    squares = sum(w * w for w in weights)
    return sum(weights) ** 2 / squares if squares else 0.0


def model_interval(card: Scorecard, confidence: float = 0.95) -> Interval | None:
    """Wilson interval on a scorecard's headline, the task as the unit; None when nothing was scored."""
    n = effective_task_count(card)
    if card.headline is None or n <= 0:
        return None
    estimate = min(max(card.headline, 0.0), 1.0)
    low, high = wilson_interval(estimate * n, n, confidence)
    return Interval(model=card.model, estimate=estimate, low=low, high=high, n=n)


# ----------------------------------------------------------------------------------------------------------
# Paired tests


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def mcnemar_tasks_needed(p10: float, p01: float, alpha: float = ALPHA, power: float = POWER) -> int | None:
    """Tasks needed for a two-sided paired test to detect the difference p10 - p01 (Connor 1987).

    n = (z_{1-alpha/2} sqrt(pd) + z_{power} sqrt(pd - d^2))^2 / d^2, with pd = p10 + p01 the share of
    discordant tasks and d = p10 - p01. None when d is 0: no bank size separates a pair that shows no gap.
    """
    if not (0 <= p10 <= 1 and 0 <= p01 <= 1 and p10 + p01 <= 1):
        raise ValueError(f"discordant shares must be proportions summing to at most 1, got {p10}, {p01}")
    d = p10 - p01
    if d == 0:
        return None
    pd = p10 + p01
    za = float(norm.ppf(1 - alpha / 2))
    zb = float(norm.ppf(power))
    n = (za * math.sqrt(pd) + zb * math.sqrt(max(pd - d * d, 0.0))) ** 2 / (d * d)
    return math.ceil(n - 1e-9)


def ranking(cards: Sequence[Scorecard]) -> list[Scorecard]:
    """Best first: headline, then det score, then name; cards with nothing scored go last. The det score and
    the name only order the rows of a tie; they share its rank (``competition_ranks``)."""

    def key(card: Scorecard) -> tuple[int, float, float, str]:
        if card.headline is None:
            return (1, 0.0, 0.0, card.model)
        return (0, -card.headline, -(card.det_score or 0.0), card.model)

    return sorted(cards, key=key)


# Two headlines closer than this are the same score: a weighted mean of the same pass^k values can differ in
# its last bits depending on the order it was summed in.
SCORE_TIE = 1e-9


def same_score(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and abs(a - b) <= SCORE_TIE


def competition_ranks(ordered: Sequence[Scorecard]) -> dict[str, int | None]:
    """Rank per model of a ``ranking`` (best first): 1 + the number of models with a higher headline, so tied
    models share a rank and the next rank skips (1, 1, 3). A model with nothing scored has no rank."""
    ranks: dict[str, int | None] = {}
    previous: Scorecard | None = None
    for position, card in enumerate(ordered, start=1):
        if card.headline is None:
            ranks[card.model] = None
        elif previous is not None and same_score(previous.headline, card.headline):
            ranks[card.model] = ranks[previous.model]
        else:
            ranks[card.model] = position
        previous = card
    return ranks


def _pass_fractions(ordered: Sequence[Scorecard]) -> np.ndarray:
    """One row per card, one column per task any card has: the pass fraction, NaN where the card did not score
    the task."""
    task_ids = sorted({t for c in ordered for t in c.tasks})
    col = {t: i for i, t in enumerate(task_ids)}
    fractions = np.full((len(ordered), len(task_ids)), np.nan)
    for i, card in enumerate(ordered):
        for tid, ts in card.tasks.items():
            if ts.scored and ts.pass_fraction is not None:
                fractions[i, col[tid]] = ts.pass_fraction
    return fractions


@cache
def sign_test_p(wins: int, decided: int) -> float:
    """The exact two-sided sign test's p-value: ``wins`` of ``decided`` tasks; 1 when none was decided."""
    return float(binomtest(wins, decided, 0.5, alternative="two-sided").pvalue) if decided else 1.0


@cache
def _needed(wins_a: int, wins_b: int, tasks: int, alpha: float, power: float) -> int | None:
    return mcnemar_tasks_needed(wins_a / tasks, wins_b / tasks, alpha, power) if tasks else None


def separability(cards: Sequence[Scorecard], alpha: float = ALPHA, power: float = POWER) -> Separability:
    """Every pair of models tested, Holm-corrected across all of them, adjacent pairs marked.

    The one pair table of the bench: ``sllmb items``, ``sllmb compare`` and the Board all take theirs from
    here. It stays fast on a board of hundreds of models: one array operation gives a model's wins, losses and
    ties against every model ranked below it, and the sign test's p-value (which depends only on wins and
    decided tasks) and the tasks-needed figure (only on wins, losses and tasks) are memoised.
    """
    ks = {c.k for c in cards}
    if len(ks) > 1:
        raise UserError(f"scorecards were scored with different k ({sorted(ks)}): score a board with one k")
    names = [c.model for c in cards]
    if len(set(names)) != len(names):
        raise UserError("two scorecards carry the same model name: a board holds one result per model")
    ordered = ranking(cards)
    fractions = _pass_fractions(ordered)

    # (index a, index b in ``ordered``, wins_a, wins_b, ties, p)
    raw: list[tuple[int, int, int, int, int, float]] = []
    for i in range(len(ordered) - 1):
        a = fractions[i]
        below = fractions[i + 1 :]
        both = ~np.isnan(below) & ~np.isnan(a)
        diff = np.where(both, below - a, 0.0)
        tie = both & (np.abs(diff) <= 1e-12)
        wins_a = (both & ~tie & (diff < 0)).sum(axis=1).tolist()
        wins_b = (both & ~tie & (diff > 0)).sum(axis=1).tolist()
        ties = tie.sum(axis=1).tolist()
        for j, (wa, wb, tt) in enumerate(zip(wins_a, wins_b, ties, strict=True)):
            raw.append((i, i + 1 + j, wa, wb, tt, sign_test_p(wa, wa + wb)))
    adjusted = holm([r[5] for r in raw])
    # Plain validated construction: in pydantic 2 it is faster than model_construct, which loops in Python.
    pairs = [
        PairTest(
            model_a=ordered[i].model,
            model_b=ordered[j].model,
            tied=same_score(ordered[i].headline, ordered[j].headline),
            tasks=wa + wb + tt,
            wins_a=wa,
            wins_b=wb,
            ties=tt,
            p_value=p,
            p_adjusted=padj,
            separable=padj < alpha,
            adjacent=j - i == 1,
            tasks_needed=_needed(wa, wb, wa + wb + tt, alpha, power),
        )
        for (i, j, wa, wb, tt, p), padj in zip(raw, adjusted, strict=True)
    ]
    adjacent = [p for p in pairs if p.adjacent]
    return Separability(
        alpha=alpha,
        ranking=[c.model for c in ordered],
        pairs=pairs,
        pair_count=len(pairs),
        separable_count=sum(p.separable for p in pairs),
        adjacent_count=len(adjacent),
        adjacent_separable=sum(p.separable for p in adjacent),
    )


def against_baseline(baseline: Scorecard, candidates: Sequence[Scorecard], *, only: Collection[str] | None = None,
                     alpha: float = ALPHA, power: float = POWER) -> list[BaselineTest]:
    """Each candidate against ``baseline`` by the paired sign test over the tasks both scored (``only``: those
    of these task ids), Holm-corrected across the candidates: the question a sweep and a regression gate ask
    ("is this setup different from mine?"), which needs no test between two candidates."""
    cards = [baseline, *candidates]
    if len({c.k for c in cards}) > 1:
        raise UserError(f"scorecards were scored with different k ({sorted({c.k for c in cards})}): score them "
                        "with one k")
    if only is not None:
        keep = set(only)
        cards = [c.model_copy(update={"tasks": {t: s for t, s in c.tasks.items() if t in keep}}) for c in cards]
    fractions = _pass_fractions(cards)
    base = fractions[0]
    counts = []
    for row in fractions[1:]:
        both = ~np.isnan(base) & ~np.isnan(row)
        diff = np.where(both, row - base, 0.0)
        tie = both & (np.abs(diff) <= 1e-12)
        wins_base, wins_cand = int((both & ~tie & (diff < 0)).sum()), int((both & ~tie & (diff > 0)).sum())
        counts.append((wins_base, wins_cand, int(tie.sum())))
    p_values = [sign_test_p(wb, wb + wc) for wb, wc, _ in counts]
    out = []
    for card, (wb, wc, tt), p, padj in zip(cards[1:], counts, p_values, holm(p_values), strict=True):
        separable = padj < alpha
        needed = _needed(wb, wc, wb + wc + tt, alpha, power)
        out.append(BaselineTest(
            baseline=baseline.model, candidate=card.model, tasks=wb + wc + tt, wins_baseline=wb,
            wins_candidate=wc, ties=tt, p_value=p, p_adjusted=padj, separable=separable,
            verdict=("worse" if wb > wc else "better") if separable else "not separable",
            tasks_needed=needed, more_tasks_needed=None if needed is None else max(0, needed - (wb + wc + tt)),
        ))
    return out
