"""A sweep's report: each configuration against the first, overall and per module.

Per configuration and scope: pass^k and the det score (``scoring``), what one pass cost (output tokens and
trial seconds spent over every scorable trial, divided by the trials that passed), and the paired sign test
against the baseline, Holm-corrected across the configurations (``stats.against_baseline``: the bench's one
pair test), with the tasks a bank would need to tell a gap of that size. Raw verdicts: a sweep is not judged.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from engine.analysis.scoring import Scorecard, common_k, score_run
from engine.analysis.stats import ALPHA, BaselineTest, against_baseline
from engine.core.percent import percent_text
from engine.core.schema import RunFile
from engine.episodes import MODULE_NAMES

OVERALL = "overall"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ConfigurationFile(_Model):
    name: str
    # The file's name, beside the report (no folder of the machine that wrote it: the report is committed).
    result_file: str
    # The settings its result file records that a plan may vary, as written there.
    settings: dict[str, str]
    duration_s: float
    reused: bool  # finished before this sweep ran; not run again


class ScopeRow(_Model):
    configuration: str
    pass_k: float | None
    det_score: float | None
    tasks_scored: int
    tokens_per_pass: float | None
    seconds_per_pass: float | None
    # Against the baseline; None on the baseline's own row.
    test: BaselineTest | None


class Scope(_Model):
    scope: str  # "overall" or a module's name
    rows: list[ScopeRow]


class SweepReport(_Model):
    plan: str  # the plan file's name
    model: str
    k: int
    weights: str
    alpha: float
    baseline: str
    configurations: list[ConfigurationFile]
    scopes: list[Scope]
    # One line per configuration: the overall verdict against the baseline.
    verdicts: list[str]


# sampling_mode: card, bench or custom, as each file records it (a report written before it was shown: "—").
SHOWN_SETTINGS = ("model", "endpoint_host", "sampling_mode", "temperature", "top_p", "top_k", "min_p", "thinking",
                  "max_tokens", "concurrency")


def _cost(run: RunFile, module: str | None) -> tuple[float | None, float | None]:
    trials = [t for t in run.trials if t.scorable and (module is None or t.module == module)]
    passed = sum(t.passed for t in trials)
    if not passed:
        return None, None
    return (round(sum(t.completion_tokens for t in trials) / passed, 1),
            round(sum(t.wall_s for t in trials) / passed, 2))


def _row(name: str, card: Scorecard, run: RunFile, module: str | None, test: BaselineTest | None) -> ScopeRow:
    tokens, seconds = _cost(run, module)
    if module is None:
        pass_k, det, scored = card.headline, card.det_score, card.tasks_scored
    else:
        ms = card.modules.get(module)
        pass_k, det, scored = (None, None, 0) if ms is None else (ms.pass_k, ms.det_score, ms.tasks_scored)
    return ScopeRow(configuration=name, pass_k=pass_k, det_score=det, tasks_scored=scored,
                    tokens_per_pass=tokens, seconds_per_pass=seconds, test=test)


def verdict_line(test: BaselineTest) -> str:
    counts = (f"{test.wins_baseline} task(s) better for {test.baseline}, {test.wins_candidate} for "
              f"{test.candidate}, {test.ties} level; Holm p {test.p_adjusted:.3g}")
    if test.verdict != "not separable":
        return f"{test.candidate} is {test.verdict} than {test.baseline} ({counts})"
    need = ("the two did equally on every task compared" if test.tasks_needed is None
            else f"about {test.tasks_needed} tasks would be needed to tell a gap this size, "
                 f"{test.more_tasks_needed} more than compared")
    return f"{test.candidate} and {test.baseline}: the bank cannot tell them apart ({counts}; {need})"


def build_report(plan: Path, model: str, named: Sequence[tuple[str, Path, RunFile, bool]],
                 weights: str = "balanced") -> SweepReport:
    """``named``: (configuration, result file, its run, reused) in the plan's order, the baseline first."""
    runs = [run for _, _, run, _ in named]
    k = common_k(runs)
    # The scorecards carry the configuration's name: every configuration is the same model.
    cards = [score_run(run, k=k, weights=weights).model_copy(update={"model": name})
             for name, _, run, _ in named]
    modules = [m for m in MODULE_NAMES if any(m in c.modules for c in cards)]
    scopes = []
    for module in (None, *modules):
        only = None if module is None else {t for c in cards for t, s in c.tasks.items() if s.module == module}
        tests = against_baseline(cards[0], cards[1:], only=only)
        rows = [_row(card.model, card, run, module, test)
                for card, run, test in zip(cards, runs, [None, *tests], strict=True)]
        scopes.append(Scope(scope=module or OVERALL, rows=rows))
    overall = [r.test for r in scopes[0].rows if r.test is not None]
    return SweepReport(
        plan=plan.name, model=model, k=k, weights=weights, alpha=ALPHA, baseline=cards[0].model,
        configurations=[
            ConfigurationFile(name=name, result_file=path.name, duration_s=run.provenance.duration_s, reused=reused,
                              settings={s: str(getattr(run.settings, s)) for s in SHOWN_SETTINGS})
            for name, path, run, reused in named
        ],
        scopes=scopes,
        verdicts=[verdict_line(t) for t in overall],
    )


def number_cell(v: float | None) -> str:
    return "—" if v is None else f"{v:g}"


def test_cell(test: BaselineTest | None) -> str:
    if test is None:
        return "baseline"
    more = "" if test.more_tasks_needed is None else f", ~{test.tasks_needed} tasks needed"
    return (f"{test.verdict} ({test.wins_baseline}-{test.wins_candidate}, {test.ties} level, "
            f"Holm p {test.p_adjusted:.3g}{more})")


def to_markdown(report: SweepReport) -> str:
    """The report as a Markdown page. Every name in it is a configuration or model name, held to a plain
    pattern when the plan and the result files were read, so nothing in it can be markup."""
    lines = [f"# Sweep of {report.model}", "",
             f"Plan `{Path(report.plan).name}`; pass^{report.k}, weights {report.weights}; each configuration "
             f"against `{report.baseline}` by the paired sign test over tasks, Holm-corrected across the "
             f"configurations (alpha {report.alpha}).", ""]
    lines += [f"- {v}" for v in report.verdicts] + ["", "## Configurations", "",
                                                    "| configuration | " + " | ".join(SHOWN_SETTINGS) +
                                                    " | minutes |",
                                                    "|---" * (len(SHOWN_SETTINGS) + 2) + "|"]
    for c in report.configurations:
        lines.append(f"| {c.name} | " + " | ".join(c.settings[s] for s in SHOWN_SETTINGS) +
                     f" | {c.duration_s / 60:.1f}{' (earlier)' if c.reused else ''} |")
    for scope in report.scopes:
        lines += ["", f"## {scope.scope}", "",
                  "| configuration | pass^k | det | tasks | output tokens / pass | seconds / pass | against the "
                  "baseline |", "|---|---|---|---|---|---|---|"]
        for r in scope.rows:
            lines.append(f"| {r.configuration} | {percent_text(r.pass_k)} | {percent_text(r.det_score)} | "
                         f"{r.tasks_scored} | {number_cell(r.tokens_per_pass)} | {number_cell(r.seconds_per_pass)} "
                         f"| {test_cell(r.test)} |")
    return "\n".join(lines) + "\n"
