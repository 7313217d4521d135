"""Item analysis: what each task does across a fleet of models.

A benchmark is only as good as its items. A task every model passes, or every model fails, spends trials
without telling models apart; a task whose trials disagree within one model adds noise; a task that small
models pass and large ones fail is either measuring something real about size or is broken. These classes
point a maintainer at the tasks worth a look. Definitions (see ``site_src/methodology/statistics.md``), each
over the models that have at least one scorable trial of the task:

* dead_easy: every model passed every scorable trial.
* dead_hard: every model failed every scorable trial.
* flaky: at least one model's trials disagree (some passed, some failed).
* discriminating: at least one model passed every trial and at least one failed every trial, so the models
  disagree in a way flakiness alone cannot explain.
* inverted: among pairs of models of known, different size, the smaller one has the higher pass fraction more
  often than the larger one does.

A task can carry several classes (flaky and discriminating, say); dead_easy and dead_hard exclude the others.
Trials count whether or not the task reached k scorable trials: an item's behaviour does not depend on k.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Literal

from pydantic import BaseModel, ConfigDict

from engine.analysis.scoring import Scorecard
from engine.episodes import MODULE_NAMES

ItemClass = Literal["discriminating", "flaky", "dead_easy", "dead_hard", "inverted"]


class ModelOutcome(BaseModel):
    model_config = ConfigDict(extra="forbid")

    passed: int
    trials: int

    @property
    def fraction(self) -> float:
        return self.passed / self.trials


class ItemReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    task_id: str
    module: str
    outcomes: dict[str, ModelOutcome]
    classes: list[ItemClass]
    flaky_models: list[str]
    # Size-ordered pairs where the smaller model did better (inverted) or worse (aligned); equal pass
    # fractions and models without a known size are left out.
    inverted_pairs: int
    aligned_pairs: int
    # Correlation across models between the pass fraction on this task and the mean pass fraction on all the
    # other tasks (the classical item-rest correlation); None with fewer than 3 models or no spread.
    discrimination: float | None


def _pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    n = len(xs)
    if n < 3:
        return None
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx <= 0 or syy <= 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def classify_items(
    cards: Sequence[Scorecard],
    sizes: Mapping[str, float | None] | None = None,
    module: str | None = None,
) -> list[ItemReport]:
    """One report per task seen in any card, in the bank's module order, then by task id.

    ``sizes`` maps a model name to its parameter count (any unit, used only to order); a model missing from
    it, or mapped to None, is left out of the inverted-by-size count and nothing else.
    """
    sizes = sizes or {}
    outcomes: dict[str, dict[str, ModelOutcome]] = {}
    modules: dict[str, str] = {}
    for card in cards:
        for task in card.tasks.values():
            if task.scorable_trials == 0:
                continue
            modules[task.task_id] = task.module
            outcomes.setdefault(task.task_id, {})[card.model] = ModelOutcome(
                passed=task.passed_trials, trials=task.scorable_trials
            )

    # Each model's mean pass fraction per task, for the item-rest correlation.
    fractions: dict[str, dict[str, float]] = {}
    for task_id, per_model in outcomes.items():
        for model, o in per_model.items():
            fractions.setdefault(model, {})[task_id] = o.fraction

    # The rest score is taken over every task, so filtering to one module does not change an item's numbers.
    chosen = [t for t in outcomes if module is None or modules[t] == module]
    reports = []
    order = {m: i for i, m in enumerate(MODULE_NAMES)}
    for task_id in sorted(chosen, key=lambda t: (order.get(modules[t], len(order)), modules[t], t)):
        per_model = outcomes[task_id]
        all_pass = all(o.passed == o.trials for o in per_model.values())
        all_fail = all(o.passed == 0 for o in per_model.values())
        flaky = sorted(m for m, o in per_model.items() if 0 < o.passed < o.trials)
        solid_pass = any(o.passed == o.trials for o in per_model.values())
        solid_fail = any(o.passed == 0 for o in per_model.values())

        inverted = aligned = 0
        sized = [(m, sizes[m]) for m in per_model if sizes.get(m) is not None]
        for (ma, sa), (mb, sb) in combinations(sized, 2):
            assert sa is not None and sb is not None
            if sa == sb:
                continue
            small, large = (ma, mb) if sa < sb else (mb, ma)
            fs, fl = per_model[small].fraction, per_model[large].fraction
            if fs > fl:
                inverted += 1
            elif fs < fl:
                aligned += 1

        xs, ys = [], []
        for model, o in per_model.items():
            rest = [f for t, f in fractions[model].items() if t != task_id]
            if rest:
                xs.append(o.fraction)
                ys.append(sum(rest) / len(rest))

        classes: list[ItemClass] = []
        if all_pass:
            classes.append("dead_easy")
        elif all_fail:
            classes.append("dead_hard")
        else:
            if solid_pass and solid_fail:
                classes.append("discriminating")
            if flaky:
                classes.append("flaky")
            if inverted > aligned:
                classes.append("inverted")
        reports.append(
            ItemReport(
                task_id=task_id,
                module=modules[task_id],
                outcomes=per_model,
                classes=classes,
                flaky_models=flaky,
                inverted_pairs=inverted,
                aligned_pairs=aligned,
                discrimination=_pearson(xs, ys),
            )
        )
    return reports


def class_counts(reports: Sequence[ItemReport]) -> dict[str, int]:
    """How many tasks carry each class (a task with two classes counts in both)."""
    counts = {c: 0 for c in ("discriminating", "flaky", "dead_easy", "dead_hard", "inverted")}
    for r in reports:
        for c in r.classes:
            counts[c] += 1
    return counts
