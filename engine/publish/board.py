"""Result files + models.yaml -> one validated ``Board``: every row, tier, flag, size bucket and pair verdict.

The site, the single-file HTML and ``leaderboard.json`` all render from this one object, so they cannot
disagree, and no template or browser script works a number out: every figure a page shows is a field here.
Choices made here (written up in ``site_src/reading-the-leaderboard.md``):

* The headline is the judged pass^k on a 0-100 scale. A model with no judged file falls back to its raw
  pass^k and is marked ``fallback`` (drawn hatched); a judged file that did not cover every judged trial is
  marked ``partial`` (a warning sign, and a star on each module that kept its det scores).
* Tiers are fixed bands on the headline (S >= 90, A >= 80, B >= 70, C >= 60, D >= 45, E >= 30, F below): an
  editorial cut that stays put between runs. How many pairs the bank can actually tell apart is the
  separability count, from ``engine.analysis.stats`` (sign test over shared tasks, Holm across every pair shown).
* Size buckets cut on total parameters (what has to be loaded); inside a bucket, dense and sparse models are
  listed apart and ordered by active parameters (what a forward pass costs).
* The reference setting is declared in a file beside the result files (``setting.yaml``,
  ``engine.core.reference_setting``), never voted: every row is scored at its k (a row run with more trials
  too; one run with fewer is unranked and says why), and a row is flagged for every run setting that differs
  from it (``engine.publish.reference``), whatever the other rows did.
* Ranks are competition ranks on the headline: tied rows share one (1, 1, 3).
"""

from __future__ import annotations

import gc
import math
import statistics
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from engine.analysis.judge import NEVER_SENT, JudgedScore, score_judged
from engine.analysis.loaded_run import LoadedRun, load_runs
from engine.analysis.scoring import DEFAULT_PRESET, Scorecard, check_preset, unsure_share
from engine.analysis.stats import (
    ALPHA,
    PairVerdict,
    Separability,
    competition_ranks,
    model_interval,
    ranking,
    separability,
)
from engine.core.errors import UserError
from engine.core.fileio import atomic_write_text
from engine.core.models_file import ModelEntry, ModelsFile, load_models
from engine.core.percent import percent
from engine.core.reference_setting import ReferenceSetting, load_reference_setting, setting_path_for
from engine.core.results import RAW_SUFFIX, model_slug
from engine.core.schema import RunFile
from engine.episodes import MODULE_NAMES, SPECS
from engine.publish.dates import newest
from engine.publish.reference import (
    COMPARED,
    SettingFlag,
    reference_values,
    row_values,
    server_kind_flags,
    setting_flags,
)
from engine.publish.run_facts import gpu_text, machine_text, server_text
from engine.run.runcost import decode_median, run_minutes

BOARD_SCHEMA_VERSION = 1

# (name, lowest headline in the band, 0-100). Checked top down; F takes everything below E.
TIER_BANDS: tuple[tuple[str, float], ...] = (
    ("S", 90.0),
    ("A", 80.0),
    ("B", 70.0),
    ("C", 60.0),
    ("D", 45.0),
    ("E", 30.0),
    ("F", 0.0),
)
# (label, lowest total params in billions, highest exclusive). A model of unknown size goes to UNKNOWN_BUCKET.
SIZE_BUCKETS: tuple[tuple[str, float, float], ...] = (
    ("Under 2B", 0.0, 2.0),
    ("2B to 5B", 2.0, 5.0),
    ("5B to 10B", 5.0, 10.0),
    ("10B to 24B", 10.0, 24.0),
    ("24B and above", 24.0, math.inf),
)
UNKNOWN_BUCKET = "Size unknown"

JudgeState = Literal["judged", "partial", "fallback"]
# What the board's "Judged" filter calls each judge state, in the order it lists them (the meta line's words).
JUDGE_LABELS: dict[str, str] = {"judged": "judged", "partial": "partly judged", "fallback": "unjudged"}
Outcome = Literal["pass", "fail", "excluded"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SizeFacts(_Model):
    """What models.yaml says about a model's size; ``known`` is False when it has no row or no total."""

    known: bool
    total_params_b: float | None = None
    active_params_b: float | None = None
    architecture: Literal["dense", "moe", "ple"] | None = None
    # "MoE" or "PLE" for a model that activates less than it loads; None for a dense (or unknown) one.
    badge: str | None = None
    sparse: bool = False
    family: str | None = None
    quantisation: str | None = None
    context: int | None = None
    card_url: str | None = None
    # "7B", "35B · 3B active", or "?".
    label: str
    # The number the Params column sorts on: active parameters (None sorts last).
    sort_params: float | None = None
    bucket: str


class ModuleCell(_Model):
    """One module of one row. Scores on a 0-1 scale; None when the module scored no task."""

    module: str
    label: str
    weight: float
    det: float | None
    pass_k: float | None
    judged_det: float | None
    judged_pass_k: float | None
    # judged det minus raw det, shown as a +/- pill; None when there is nothing to show (no judge, or a module
    # the judge never sees, or no difference).
    delta: float | None
    # The module goes to the judge at all (format and knowledge never do).
    judgeable: bool
    # A judged row whose judge did not cover every trial of this module: marked with a star.
    starred: bool
    tasks_scored: int


class TrialCell(_Model):
    trial: int
    outcome: Outcome
    score: float | None
    # Why a trial was excluded, or the hard gate that failed it; empty otherwise.
    note: str = ""
    # The judge moved this trial's verdict (rescued or demoted).
    judge_changed: bool = False


class TaskRow(_Model):
    task_id: str
    module: str
    scored: bool
    pass_k: float | None
    det: float | None
    passed: int
    scorable: int
    trials: list[TrialCell]


class SettingItem(_Model):
    field: str
    label: str
    value: str


class RadarData(_Model):
    """The radar on a model card: per-module pass^k on 0-100, in the bank's module order."""

    labels: list[str]
    values: list[float]


class Row(_Model):
    # Competition rank on the headline (tied rows share one); None for a row that could not be scored.
    rank: int | None
    # Why a row has no rank (too few trials for the board's k, or no task with k scorable trials).
    unranked_reason: str | None = None
    model: str
    slug: str
    source_file: str
    judged_file: str | None
    judge_state: JudgeState
    # The headline on 0-100: judged pass^k, or raw pass^k for a fallback row; None when nothing scored.
    headline: float | None
    tier: str | None
    interval_low: float | None
    interval_high: float | None
    det: float | None
    pass_k: float | None
    judged_det: float | None
    judged_pass: float | None
    tasks_scored: int
    tasks_excluded: int
    trials_excluded: int
    run_time_min: float | None
    decode_tps: float | None
    prefill_tps: float | None
    first_try_code_rate: float | None
    # Share of the trials sent to the judge whose verdict was applied; None for an unjudged row.
    judge_coverage: float | None
    # Share of scored trials whose verdict rests on a check that could not decide from the text.
    unsure_share: float | None = None
    uncovered_modules: list[str]
    changed_verdicts: int
    modules: list[ModuleCell]
    flags: list[SettingFlag]
    settings: list[SettingItem]
    size: SizeFacts
    radar: RadarData
    # When the run finished (its provenance.finished_at) and its judged file was written (created_at), as the
    # files record them; None where a file records none. Shown as days through publish/dates.py.
    finished_at: str | None = None
    judged_at: str | None = None
    # Per-task outcomes for the card; left out of leaderboard.json.
    tasks: list[TaskRow] = []


class TierGroup(_Model):
    name: str
    low: float
    # Upper edge (exclusive) of the band; None for the top tier.
    high: float | None
    label: str
    slugs: list[str]


class BucketGroup(_Model):
    label: str
    dense: list[str]
    sparse: list[str]


class FilterOption(_Model):
    value: str
    label: str
    count: int  # rows with this value


class BoardFilters(_Model):
    """The values the board can be filtered on, each with its count of rows. A row's own values are its
    ``size.bucket``, ``size.family`` and ``judge_state``: the page writes them on the row and its script only
    compares them, so no filter is worked out in the browser."""

    buckets: list[FilterOption] = []  # every size bucket, empty ones too (a visitor may ask for one)
    families: list[FilterOption] = []  # the models.yaml families of the rows, by name
    judge: list[FilterOption] = []  # every judge state


class PairRow(PairVerdict):
    """One tested pair, by display name and slug, with the verdict from ``engine.analysis.stats``."""

    a: str
    b: str
    slug_a: str
    slug_b: str


class SeparabilityView(_Model):
    alpha: float
    pair_count: int
    separable_count: int
    adjacent_count: int
    adjacent_separable: int
    adjacent: list[PairRow]
    pairs: list[PairRow]


class Board(_Model):
    schema_version: int = BOARD_SCHEMA_VERSION
    k: int
    weights_preset: str
    tier_bands: list[tuple[str, float]]
    modules: list[str]
    module_labels: dict[str, str]
    rows: list[Row]
    tiers: list[TierGroup]
    buckets: list[BucketGroup]
    separability: SeparabilityView
    # The declared reference setting every row is scored at and compared with, in the words of a card.
    reference_setting: dict[str, str]
    judged_rows: int
    fallback_rows: int
    partial_rows: int
    flagged_rows: int
    # A board file written before the filters existed reads with none.
    filters: BoardFilters = BoardFilters()
    # The newest date the rows' files record (a run finished, a judged file written); None when none does.
    # A rescore rewrites a result file without recording a date, so a regrade alone does not move it.
    last_changed: str | None = None

    @model_validator(mode="after")
    def _consistent(self) -> Board:
        slugs = [r.slug for r in self.rows]
        if len(set(slugs)) != len(slugs):
            raise ValueError("two rows share a slug")
        known = set(slugs)
        for group in [*self.tiers]:
            if not set(group.slugs) <= known:
                raise ValueError(f"tier {group.name} names a model that is not on the board")
        for bucket in self.buckets:
            if not set(bucket.dense + bucket.sparse) <= known:
                raise ValueError(f"bucket {bucket.label} names a model that is not on the board")
        return self

    def row(self, slug: str) -> Row:
        for r in self.rows:
            if r.slug == slug:
                return r
        raise KeyError(slug)

    def neighbours(self, model: str) -> tuple[Row | None, Row | None]:
        """The ranked rows listed just above and just below ``model``'s. Found by position, not by rank +/- 1:
        tied rows share a rank, so the ranks around a row need not be consecutive."""
        ranked = [r for r in self.rows if r.rank is not None]
        names = [r.model for r in ranked]
        if model not in names:
            return None, None
        i = names.index(model)
        return (ranked[i - 1] if i > 0 else None), (ranked[i + 1] if i + 1 < len(ranked) else None)


# ----------------------------------------------------------------------------------------------------------
# Small pure helpers


def tier_for(headline: float | None) -> str | None:
    if headline is None:
        return None
    for name, low in TIER_BANDS:
        if headline >= low - 1e-9:
            return name
    return TIER_BANDS[-1][0]


def bucket_for(total_params_b: float | None) -> str:
    if total_params_b is None:
        return UNKNOWN_BUCKET
    for label, low, high in SIZE_BUCKETS:
        if low <= total_params_b < high:
            return label
    return UNKNOWN_BUCKET


def _params_text(value: float) -> str:
    if value >= 10:
        return f"{value:.0f}B"
    if value >= 1:
        return f"{value:.3g}B"
    return f"{value * 1000:.0f}M"


def size_facts(entry: ModelEntry | None) -> SizeFacts:
    if entry is None or entry.total_params_b is None:
        return SizeFacts(
            known=False,
            label="?",
            bucket=UNKNOWN_BUCKET,
            architecture=entry.architecture if entry else None,
            family=entry.family if entry else None,
            quantisation=entry.quantisation if entry else None,
            context=entry.context if entry else None,
            card_url=entry.card_url if entry else None,
        )
    total = entry.total_params_b
    active = entry.active_params_b or total
    sparse = entry.architecture in ("moe", "ple") or active < total
    badge = {"moe": "MoE", "ple": "PLE"}.get(entry.architecture) or ("MoE" if sparse else None)
    label = _params_text(total) if not sparse else f"{_params_text(total)} · {_params_text(active)} active"
    return SizeFacts(
        known=True,
        total_params_b=total,
        active_params_b=active,
        architecture=entry.architecture,
        badge=badge,
        sparse=sparse,
        family=entry.family,
        quantisation=entry.quantisation,
        context=entry.context,
        card_url=entry.card_url,
        label=label,
        sort_params=active,
        bucket=bucket_for(total),
    )


def _median(values: list[float]) -> float | None:
    return float(statistics.median(values)) if values else None


def speeds(run: RunFile) -> tuple[float | None, float | None]:
    """Median decode and prefill rates (tokens/s) over the assistant turns that reported them."""
    prefill = [t.timings.prompt_tps for tr in run.trials for t in tr.turns
               if t.role == "assistant" and t.timings and t.timings.prompt_tps]
    decode = decode_median(run.trials)
    return None if decode is None else float(decode), _median(prefill)


# Shown on the card but not compared (they describe the machine, not what the model saw).
INFO_FIELDS: tuple[tuple[str, str, Callable[[RunFile], object]], ...] = (
    ("concurrency", "Concurrency", lambda r: r.settings.concurrency),
    ("served_context", "Served context", lambda r: r.provenance.served_context or "not reported"),
    ("filter", "Task filter", lambda r: r.settings.filter or "none"),
    ("started_at", "Started", lambda r: r.provenance.started_at),
    ("machine", "Machine", machine_text),
    ("gpus", "GPUs", gpu_text),
    ("server", "Server", server_text),
)


def unique_slugs(names: Sequence[str]) -> dict[str, str]:
    """A page-safe slug per model; two names that slug alike get -2, -3 ... in name order."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for name in sorted(names):
        base = model_slug(name).lower()
        slug, n = base, 1
        while slug in used:
            n += 1
            slug = f"{base}-{n}"
        used.add(slug)
        out[name] = slug
    return out


# ----------------------------------------------------------------------------------------------------------
# Loading


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Hold the cyclic garbage collector off while a board's millions of small objects are made.

    Loading 500 result files and building their board allocates millions of objects that all stay alive; each
    full collection walks every one of them, and at that size the collector cost more than the work itself
    (15 s of a 38 s board build on 500 models). Nothing made here forms garbage cycles that need collecting
    early, and plain reference counting still frees everything; the collector is restored on the way out.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        # Everything allocated meanwhile sits in the youngest generation; re-enabled as it is, the collector
        # would walk all of it again on the next young, middle and full passes. freeze() + unfreeze() moves
        # it straight into the oldest generation (a list splice, no walk), where it stays collectable.
        gc.freeze()
        gc.unfreeze()
        if was_enabled:
            gc.enable()


def result_files(results_dir: Path) -> list[Path]:
    if not results_dir.is_dir():
        raise UserError(
            f"{results_dir}: no such folder; pass --results-dir with the folder that holds "
            f"*{RAW_SUFFIX} files"
        )
    return sorted(results_dir.glob(f"*{RAW_SUFFIX}"))


def load_results(results_dir: Path) -> list[LoadedRun]:
    """Every raw result file of a folder with the judged file beside it, if any. One model, one file."""
    with _gc_paused():
        return load_runs(result_files(results_dir))


def load_models_optional(path: Path | None) -> ModelsFile | None:
    """models.yaml is optional for a board (sizes show "?" without it), but a broken one is an error."""
    if path is None or not path.is_file():
        return None
    with _gc_paused():  # usually called while a folder of loaded runs is alive (see ``_gc_paused``)
        return load_models(path)


# ----------------------------------------------------------------------------------------------------------
# Building


def _task_rows(item: LoadedRun, score: JudgedScore) -> list[TaskRow]:
    # Trials whose verdict the judge actually moved.
    changed = item.applied.changed if item.applied is not None else frozenset()
    card = score.judged_card
    by_task: dict[str, list[TrialCell]] = {}
    for t in sorted(item.run.trials, key=lambda x: (x.task_id, x.trial)):
        if not t.scorable:
            note = "infra error" if t.infra else (t.invalid_reason or "not graded")
            cell = TrialCell(trial=t.trial, outcome="excluded", score=None, note=note)
        else:
            assert t.grade is not None
            moved = (t.task_id, t.trial) in changed
            passed = t.grade.passed != moved  # a moved verdict flips the det verdict
            cell = TrialCell(
                trial=t.trial,
                outcome="pass" if passed else "fail",
                score=round(t.grade.score, 4),
                note=t.grade.hard_gate or ("" if passed else (t.error or "")),
                judge_changed=moved,
            )
        by_task.setdefault(t.task_id, []).append(cell)
    order = {m: i for i, m in enumerate(MODULE_NAMES)}
    rows = []
    for ts in sorted(card.tasks.values(), key=lambda x: (order.get(x.module, 99), x.task_id)):
        rows.append(
            TaskRow(
                task_id=ts.task_id,
                module=ts.module,
                scored=ts.scored,
                pass_k=ts.pass_k,
                det=ts.det_score,
                passed=ts.passed_trials,
                scorable=ts.scorable_trials,
                trials=by_task.get(ts.task_id, []),
            )
        )
    return rows


@dataclass
class _Scored:
    item: LoadedRun
    score: JudgedScore
    state: JudgeState
    headline_card: Scorecard


def _judge_state(item: LoadedRun, score: JudgedScore) -> JudgeState:
    if item.judged is None:
        return "fallback"
    return "partial" if score.uncovered_modules else "judged"


def build_board(
    runs: Sequence[LoadedRun],
    models: ModelsFile | None = None,
    weights: str = DEFAULT_PRESET,
    alpha: float = ALPHA,
    *,
    setting: ReferenceSetting | None = None,
) -> Board:
    """The board of ``runs``, scored at the k of ``setting`` and flagged against it. Only a board with no
    runs may go without a setting."""
    check_preset(weights)
    if not runs:
        return _empty_board(weights, alpha, setting)
    if setting is None:
        raise UserError("a board of result files needs the reference setting it scores them at (setting.yaml)")
    with _gc_paused():
        return _build_board(runs, models, weights, alpha, setting)


def unranked_reason(run: RunFile, card: Scorecard, k: int) -> str | None:
    """Why a row has no rank, in words that say how to fix it; None for a row that has one."""
    if card.headline is not None:
        return None
    trials = run.settings.trials
    if trials < k:
        return (
            f"run with {trials} trial{'s' if trials != 1 else ''} per task; the board scores pass^{k}, which "
            f"needs at least {k}: re-issue its run command with --add-trials {k - trials}"
        )
    return (
        f"no task has {k} scorable trials (the rest were excluded as infrastructure errors or invalid): "
        "re-issue its run command, which runs those trials again"
    )


def _build_board(
    runs: Sequence[LoadedRun], models: ModelsFile | None, weights: str, alpha: float, setting: ReferenceSetting
) -> Board:
    scored = [_score(item, setting.k, weights) for item in runs]
    cards = [s.headline_card for s in scored]
    # A row with nothing scored has no task to compare: its pairs would only add tests to Holm's correction and
    # so move the other rows' verdicts, which a row that could not be scored must not do.
    table = separability([c for c in cards if c.headline is not None], alpha=alpha)
    ordered = ranking(cards)
    rank_of = competition_ranks(ordered)
    slugs = unique_slugs([s.item.run.settings.model for s in scored])
    present = [m for m in MODULE_NAMES if any(m in s.score.card.modules for s in scored)]
    kind_flags = server_kind_flags([s.item.run for s in scored], models.same_model_key if models else None)
    rows = [_row(s, rank_of, slugs, present, models, setting, other_kinds)
            for s, other_kinds in zip(scored, kind_flags, strict=True)]
    # The ranking's order: headline, then det score and name inside a tie, unscored rows last.
    position = {c.model: i for i, c in enumerate(ordered)}
    rows.sort(key=lambda r: position[r.model])
    return Board(
        k=setting.k,
        weights_preset=weights,
        tier_bands=list(TIER_BANDS),
        modules=present,
        module_labels={m: SPECS[m].label for m in present},
        rows=rows,
        tiers=_tiers(rows),
        buckets=_buckets(rows),
        filters=board_filters(rows),
        separability=_separability_view(table, {r.model: r.slug for r in rows}),
        reference_setting=reference_values(setting),
        judged_rows=sum(r.judge_state == "judged" for r in rows),
        fallback_rows=sum(r.judge_state == "fallback" for r in rows),
        partial_rows=sum(r.judge_state == "partial" for r in rows),
        flagged_rows=sum(bool(r.flags) for r in rows),
        last_changed=newest([stamp for r in rows for stamp in (r.finished_at, r.judged_at)]),
    )


def _one_place(value: float | None) -> float | None:
    """Rounded once, to the one place every page shows, so leaderboard.json and the pages cannot differ by a
    second rounding (two places then one turned x.x49 into x.x5 and up); None stays None."""
    return None if value is None else round(value, 1)


def _score(item: LoadedRun, k: int, weights: str) -> _Scored:
    """One run scored at the board's k, with its judged verdicts where it has them; the headline's card is the
    judged one, or the raw one for a run without a judged file (a fallback row)."""
    score = score_judged(item.run, item.applied, k=k, weights=weights)
    state = _judge_state(item, score)
    return _Scored(item, score, state, score.card if state == "fallback" else score.judged_card)


def _row(
    s: _Scored,
    rank_of: dict[str, int | None],
    slugs: dict[str, str],
    present: Sequence[str],
    models: ModelsFile | None,
    setting: ReferenceSetting,
    other_kinds: list[SettingFlag],
) -> Row:
    """One model's row: its headline, tier and interval, its modules, flags, settings, size and trials."""
    run, score, name = s.item.run, s.score, s.item.run.settings.model
    card = s.headline_card
    headline = percent(card.headline)
    interval = model_interval(card)
    judged = s.state != "fallback"
    cells = [_module_cell(m, score, judged) for m in present]
    decode, prefill = speeds(run)
    return Row(
        rank=rank_of[name],
        unranked_reason=unranked_reason(run, card, setting.k),
        model=name,
        slug=slugs[name],
        source_file=s.item.path.name,
        judged_file=s.item.judged_path.name if s.item.judged_path else None,
        judge_state=s.state,
        headline=headline,
        tier=tier_for(headline),
        interval_low=percent(interval.low) if interval else None,
        interval_high=percent(interval.high) if interval else None,
        det=score.det_score,
        pass_k=score.headline,
        judged_det=score.judged_det_score if judged else None,
        judged_pass=score.judged_headline if judged else None,
        tasks_scored=card.tasks_scored,
        tasks_excluded=card.tasks_excluded,
        trials_excluded=card.trials_excluded,
        run_time_min=_one_place(run_minutes(run.provenance.duration_s)),
        decode_tps=decode,
        prefill_tps=prefill,
        first_try_code_rate=score.card.first_try_code_rate,
        judge_coverage=_judge_coverage(run, score) if judged else None,
        unsure_share=unsure_share(run),
        uncovered_modules=score.uncovered_modules if judged else [],
        changed_verdicts=score.changed_verdicts if judged else 0,
        modules=cells,
        flags=setting_flags(run, setting) + other_kinds,
        settings=_settings(run),
        size=size_facts(models.find(name) if models else None),
        radar=_radar(cells, judged),
        finished_at=run.provenance.finished_at,
        judged_at=s.item.judged.created_at if s.item.judged is not None and judged else None,
        tasks=_task_rows(s.item, score),
    )


def _module_cell(module: str, score: JudgedScore, judged: bool) -> ModuleCell:
    """One module of a row: raw and judged scores, the judge's +/- and its star; empty for a module the run did
    not score."""
    judgeable = module not in NEVER_SENT
    jm = score.modules.get(module)
    ms = score.card.modules.get(module)
    if jm is None or ms is None:
        return ModuleCell(
            module=module,
            label=SPECS[module].label,
            weight=0.0,
            det=None,
            pass_k=None,
            judged_det=None,
            judged_pass_k=None,
            delta=None,
            judgeable=judgeable,
            starred=False,
            tasks_scored=0,
        )
    delta = None
    if judged and judgeable and jm.det_score is not None and jm.judged_det_score is not None:
        d = jm.judged_det_score - jm.det_score
        delta = round(d, 6) if abs(d) > 1e-9 else None
    return ModuleCell(
        module=module,
        label=SPECS[module].label,
        weight=ms.weight,
        det=jm.det_score,
        pass_k=jm.pass_k,
        judged_det=jm.judged_det_score if judged else None,
        judged_pass_k=jm.judged_pass_k if judged else None,
        delta=delta,
        judgeable=judgeable,
        starred=judged and judgeable and not jm.covered,
        tasks_scored=ms.tasks_scored,
    )


def _judge_coverage(run: RunFile, score: JudgedScore) -> float | None:
    """Share of the trials sent to the judge whose verdict was applied, weighted by each module's trials."""
    sent = [t for t in run.trials if t.module not in NEVER_SENT and t.scorable]
    covered_share = [
        score.modules[m].coverage
        for m in score.modules
        if m not in NEVER_SENT and score.modules[m].coverage is not None
    ]
    if not (sent and covered_share):
        return None
    weights_by_module = Counter(t.module for t in sent)
    total = sum(weights_by_module.values())
    return (
        sum((score.modules[m].coverage or 0.0) * n for m, n in weights_by_module.items() if m in score.modules)
        / total
    )


def _settings(run: RunFile) -> list[SettingItem]:
    """The compared settings in the reference setting's words, then those shown but not compared."""
    mine = row_values(run)
    items = [SettingItem(field=c.field, label=c.label, value=mine[c.field]) for c in COMPARED]
    return items + [SettingItem(field=f, label=label, value=str(get(run))) for f, label, get in INFO_FIELDS]


def _radar(cells: Sequence[ModuleCell], judged: bool) -> RadarData:
    """Per-module pass^k on 0-100 (judged where the row is), for the modules that scored a task."""
    scored = [c for c in cells if c.tasks_scored]
    return RadarData(
        labels=[c.label for c in scored],
        values=[
            round(((c.judged_pass_k if judged and c.judged_pass_k is not None else c.pass_k) or 0.0) * 100, 2)
            for c in scored
        ],
    )


def _separability_view(table: Separability, slug_of: dict[str, str]) -> SeparabilityView:
    pairs = _pair_rows(table, slug_of)
    return SeparabilityView(
        alpha=table.alpha,
        pair_count=table.pair_count,
        separable_count=table.separable_count,
        adjacent_count=table.adjacent_count,
        adjacent_separable=table.adjacent_separable,
        adjacent=[p for p in pairs if p.adjacent],
        pairs=pairs,
    )


def _pair_rows(table: Separability, slug_of: dict[str, str]) -> list[PairRow]:
    """The pair verdicts of ``engine.analysis.stats`` by display name, with each model's slug for the links."""
    # Plain validated construction: in pydantic 2 it is faster than model_construct, which loops in Python.
    return [
        PairRow(
            a=p.model_a,
            b=p.model_b,
            slug_a=slug_of[p.model_a],
            slug_b=slug_of[p.model_b],
            tied=p.tied,
            tasks=p.tasks,
            wins_a=p.wins_a,
            wins_b=p.wins_b,
            ties=p.ties,
            p_value=p.p_value,
            p_adjusted=p.p_adjusted,
            separable=p.separable,
            adjacent=p.adjacent,
            tasks_needed=p.tasks_needed,
        )
        for p in table.pairs
    ]


def _tiers(rows: Sequence[Row]) -> list[TierGroup]:
    groups = []
    for i, (name, low) in enumerate(TIER_BANDS):
        high = TIER_BANDS[i - 1][1] if i else None
        label = f"≥ {low:g}" if name != TIER_BANDS[-1][0] else f"< {high:g}"
        groups.append(
            TierGroup(
                name=name, low=low, high=high, label=label, slugs=[r.slug for r in rows if r.tier == name]
            )
        )
    return groups


def _buckets(rows: Sequence[Row]) -> list[BucketGroup]:
    out = []
    for label in [b[0] for b in SIZE_BUCKETS] + [UNKNOWN_BUCKET]:
        mine = [r for r in rows if r.size.bucket == label]
        if not mine:
            continue

        def key(r: Row) -> tuple[bool, float, bool, float, str]:
            return (
                r.size.sort_params is None,
                r.size.sort_params or 0.0,
                r.headline is None,
                -(r.headline or 0.0),
                r.model,
            )

        out.append(
            BucketGroup(
                label=label,
                dense=[r.slug for r in sorted(mine, key=key) if not r.size.sparse],
                sparse=[r.slug for r in sorted(mine, key=key) if r.size.sparse],
            )
        )
    return out


def board_filters(rows: Sequence[Row]) -> BoardFilters:
    by_bucket = Counter(r.size.bucket for r in rows)
    buckets = [b[0] for b in SIZE_BUCKETS] + ([UNKNOWN_BUCKET] if by_bucket[UNKNOWN_BUCKET] else [])
    families = Counter(r.size.family for r in rows if r.size.family)
    states = Counter(r.judge_state for r in rows)
    return BoardFilters(
        buckets=[FilterOption(value=b, label=b, count=by_bucket[b]) for b in buckets],
        families=[
            FilterOption(value=f, label=f, count=families[f]) for f in sorted(families, key=lambda f: (f.lower(), f))
        ],
        judge=[FilterOption(value=v, label=label, count=states[v]) for v, label in JUDGE_LABELS.items()],
    )


def _empty_board(weights: str, alpha: float, setting: ReferenceSetting | None) -> Board:
    return Board(
        k=setting.k if setting is not None else 1,
        weights_preset=weights,
        tier_bands=list(TIER_BANDS),
        modules=[],
        module_labels={},
        rows=[],
        tiers=_tiers([]),
        buckets=[],
        separability=SeparabilityView(
            alpha=alpha,
            pair_count=0,
            separable_count=0,
            adjacent_count=0,
            adjacent_separable=0,
            adjacent=[],
            pairs=[],
        ),
        reference_setting=reference_values(setting) if setting is not None else {},
        judged_rows=0,
        fallback_rows=0,
        partial_rows=0,
        flagged_rows=0,
    )


def board_from_dir(
    results_dir: Path,
    models_path: Path | None = None,
    weights: str = DEFAULT_PRESET,
    setting_path: Path | None = None,
) -> Board:
    """The one entry point the site, the HTML file and the JSON use. The reference setting is read from
    ``setting_path``, by default the ``setting.yaml`` beside the result files."""
    runs = load_results(results_dir)
    setting = board_setting(results_dir, runs, setting_path)
    return build_board(runs, load_models_optional(models_path), weights, setting=setting)


def board_setting(
    results_dir: Path, runs: Sequence[LoadedRun], setting_path: Path | None = None
) -> ReferenceSetting | None:
    """The reference setting of a folder's board: ``setting_path``, by default ``setting.yaml`` beside the
    result files. A folder with result files must have one; an empty folder's board needs none."""
    path = setting_path or setting_path_for(results_dir)
    if not runs and not path.is_file():
        return None
    return load_reference_setting(path)


# ----------------------------------------------------------------------------------------------------------
# leaderboard.json


def board_json(board: Board) -> str:
    """The board as JSON: every row (without trial detail), tier, bucket and pair verdict."""
    # Serialised by pydantic-core in one pass (no intermediate dicts): compact, UTF-8 as is. Floats are written
    # in their shortest round-trip form (0.00006103515625 rather than 6.103515625e-05): the same numbers.
    return board.model_dump_json(exclude={"rows": {"__all__": {"tasks"}}}) + "\n"


def write_board_json(path: Path, board: Board) -> None:
    atomic_write_text(path, board_json(board))


def read_board_json(path: Path) -> Board:
    try:
        return Board.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError) as exc:
        raise UserError(f"{path}: not a board file written by `sllmb leaderboard`: {exc}") from exc
