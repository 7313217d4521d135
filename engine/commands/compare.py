"""``sllmb compare``: several result files side by side, with the settings that differ and the tasks where
the models disagree; with ``--fail-on-regression``, a gate for a CI job: the second file against the first by
the paired sign test, exit 1 only when it is significantly worse.

k is the one a reference setting declares (``--setting``), or else the smallest trial count of the files
(``common_k``), so that each file is scored on every task it ran; the output says which rule gave it. Two
files of one model (before and after a change to its stack) are told apart by their paths.

Every figure of a model comes from the verdicts the Board uses for it: its judged file's where one sits beside
the result file, the raw file's otherwise; the table and the JSON say which per model. The table has one row
per model, so a board of 28 models stays readable: no name or value is cut."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pydantic import BaseModel, ConfigDict
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from engine.analysis.judge import JudgedScore, score_judged
from engine.analysis.loaded_run import VERDICTS_HELP, LoadedRun, Verdicts, load_run
from engine.analysis.scoring import Scorecard, common_k
from engine.analysis.stats import BaselineTest, Separability, against_baseline, separability
from engine.commands.items import wide_console
from engine.commands.score import weights_arg
from engine.core.errors import UserError
from engine.core.percent import percent_text
from engine.core.reference_setting import load_reference_setting
from engine.core.schema import RunFile
from engine.episodes import MODULE_NAMES

# Settings that change what a model saw or how it was graded; a comparison across them is flagged.
COMPARED_SETTINGS = ("trials", "profile", "thinking", "temperature", "max_tokens", "seed", "sandbox_backend")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TaskRow(_Model):
    task_id: str
    module: str
    # passed/scorable per model, in the order of ``Comparison.models``; None where the model has no trial.
    outcomes: list[str | None]


class Comparison(_Model):
    k: int
    # Where k came from: "declared by FILE" (--setting) or "the smallest trial count of the files".
    k_rule: str
    weights: str
    # One label per file: its model name, or its path where two files hold the same model.
    models: list[str]
    # Per model: the verdicts ``cards``, the disagreements and the pair tests come from.
    verdicts: list[Verdicts]
    cards: list[Scorecard]
    # Raw and judged numbers side by side, for the models that have a judged file.
    judged: list[JudgedScore | None]
    # Setting name -> value per model, only for settings that are not the same in every file.
    differing_settings: dict[str, list[str]]
    task_set_hashes: list[str]
    disagreements: list[TaskRow]
    separability: Separability | None
    # --fail-on-regression: the second file against the first (the baseline).
    gate: BaselineTest | None = None


SMALLEST_K = "the smallest trial count of the files"


def _setting(run: RunFile, name: str) -> str:
    if name == "task_set_hash":
        return run.provenance.task_set_hash
    return str(getattr(run.settings, name))


def labels(loaded: list[LoadedRun]) -> list[str]:
    """The model names, or the paths where two files hold one model (a stack before and after a change)."""
    names = [item.model for item in loaded]
    return names if len(set(names)) == len(names) else [str(item.path) for item in loaded]


def load_compared(paths: list[Path]) -> list[LoadedRun]:
    if len(paths) < 2:
        raise UserError("compare needs at least two result files")
    resolved = [p.resolve() for p in paths]
    repeated = sorted({str(p) for p in paths if resolved.count(p.resolve()) > 1})
    if repeated:
        raise UserError(f"{', '.join(repeated)} given twice: give each result file once")
    return [load_run(p) for p in paths]


def compare_runs(loaded: list[LoadedRun], weights: str = "balanced", k: int | None = None,
                 k_rule: str = SMALLEST_K, gate: bool = False) -> Comparison:
    """``k``: a declared k (``k_rule`` says whose); None: the smallest trial count (``common_k``). ``gate``:
    test the second file against the first (``--fail-on-regression``), which needs exactly two."""
    if len(loaded) < 2:
        raise UserError("compare needs at least two result files")
    if gate and len(loaded) != 2:
        raise UserError(f"--fail-on-regression compares a candidate with a baseline: give exactly two result "
                        f"files, BASELINE then CANDIDATE (got {len(loaded)})")
    runs = [item.run for item in loaded]
    if k is None:
        k, k_rule = common_k(runs), SMALLEST_K
    scores = [score_judged(item.run, item.applied, k=k, weights=weights) for item in loaded]
    cards = [
        (s.card if item.applied is None else s.judged_card).model_copy(update={"model": label})
        for item, s, label in zip(loaded, scores, labels(loaded), strict=True)
    ]
    differing = {}
    for name in (*COMPARED_SETTINGS, "task_set_hash"):
        values = [_setting(r, name) for r in runs]
        if len(set(values)) > 1:
            differing[name] = values
    task_ids: dict[str, str] = {}
    for card in cards:
        for t in card.tasks.values():
            task_ids.setdefault(t.task_id, t.module)
    order = {m: i for i, m in enumerate(MODULE_NAMES)}
    rows = []
    for task_id, module in sorted(task_ids.items(), key=lambda kv: (order.get(kv[1], 99), kv[0])):
        fractions = []
        cells: list[str | None] = []
        for card in cards:
            ts = card.tasks.get(task_id)
            if ts is None or ts.scorable_trials == 0:
                cells.append(None)
                continue
            cells.append(f"{ts.passed_trials}/{ts.scorable_trials}")
            fractions.append(ts.passed_trials / ts.scorable_trials)
        if len(set(fractions)) > 1 or None in cells:
            rows.append(TaskRow(task_id=task_id, module=module, outcomes=cells))
    return Comparison(
        k=k,
        k_rule=k_rule,
        weights=weights,
        models=[c.model for c in cards],
        verdicts=[item.verdicts for item in loaded],
        cards=cards,
        judged=[s if item.applied is not None else None for item, s in zip(loaded, scores, strict=True)],
        differing_settings=differing,
        task_set_hashes=[r.provenance.task_set_hash for r in runs],
        disagreements=rows,
        separability=separability(cards),
        gate=_gate(cards, k) if gate else None,
    )


def _gate(cards: list[Scorecard], k: int) -> BaselineTest:
    test = against_baseline(cards[0], cards[1:])[0]
    if test.tasks == 0:
        # Nothing compared is no verdict: a gate that passed here would pass on anything.
        raise UserError(f"{cards[0].model} and {cards[1].model} have no task both scored at pass^{k} (a file with "
                        f"fewer than {k} trials per task scores none): run both with the same profile and trials")
    return test


def verdict_line(test: BaselineTest, k: int) -> str:
    """The gate's verdict in one line, for a CI log."""
    counts = (f"pass^{k} sign test over {test.tasks} tasks: baseline better on {test.wins_baseline}, candidate "
              f"on {test.wins_candidate}, {test.ties} level; p {test.p_value:.3g}")
    if test.verdict == "worse":
        return f"REGRESSION: {test.candidate} is significantly worse than {test.baseline} ({counts})"
    if test.verdict == "better":
        return f"ok: {test.candidate} is significantly better than {test.baseline} ({counts})"
    more = ("" if test.more_tasks_needed is None
            else f"; a bank of about {test.tasks_needed} tasks would be needed to tell a gap this size")
    return f"ok: {test.candidate} and {test.baseline} are not separable ({counts}{more})"


def render(cmp: Comparison, console: Console) -> None:
    modules = [m for m in MODULE_NAMES if any(m in c.modules for c in cmp.cards)]
    t = Table(title=f"pass^{cmp.k} (det score) · weights {cmp.weights} · k: {escape(cmp.k_rule)}")
    # One row per model: the name is never folded; the figures fold rather than being cut when the terminal
    # is narrow.
    t.add_column("model", no_wrap=True)
    t.add_column("verdicts", overflow="fold")
    for m in modules:
        t.add_column(m, justify="right", overflow="fold")
    t.add_column("headline", justify="right", overflow="fold")
    judged_any = any(j is not None for j in cmp.judged)
    if judged_any:
        t.add_column("raw headline", justify="right", overflow="fold")
    t.add_column("tasks scored / excluded", justify="right", overflow="fold")
    for name, verdicts, card, judged in zip(cmp.models, cmp.verdicts, cmp.cards, cmp.judged, strict=True):
        cells = [escape(name), verdicts + (" ⚠" if judged is not None and judged.uncovered_modules else "")]
        for m in modules:
            ms = card.modules.get(m)
            cells.append("—" if ms is None else f"{percent_text(ms.pass_k)} ({percent_text(ms.det_score)})")
        cells.append(f"[bold]{percent_text(card.headline)}[/bold] ({percent_text(card.det_score)})")
        if judged_any:
            both = None if judged is None else f"{percent_text(judged.headline)} ({percent_text(judged.det_score)})"
            cells.append(both or "—")
        cells.append(f"{card.tasks_scored} / {card.tasks_excluded}")
        t.add_row(*cells)
    console.print(t)
    if any(j is not None and j.uncovered_modules for j in cmp.judged):
        console.print(
            "⚠: the judge did not cover every trial of a module; that module keeps its raw verdicts",
            markup=False,
        )
    if cmp.differing_settings:
        console.print("[yellow]settings differ; the comparison is not like for like:[/yellow]")
        for name, values in cmp.differing_settings.items():
            console.print(
                f"  {name}: " + ", ".join(f"{m}={v}" for m, v in zip(cmp.models, values, strict=True)),
                markup=False,
            )
    if cmp.separability is not None:
        sep = cmp.separability
        console.print(
            f"pairs separable: {sep.separable_count} of {sep.pair_count} (sign test over shared tasks, "
            f"Holm-corrected, alpha {sep.alpha})",
            markup=False,
        )
        for p in sep.pairs:
            console.print(
                f"{p.model_a} vs {p.model_b}: wins {p.wins_a}-{p.wins_b}, ties {p.ties}, "
                f"Holm p {p.p_adjusted:.3g} ({'separable' if p.separable else 'not separable'})",
                markup=False,
            )
    if cmp.disagreements:
        # One row per task and one line of outcomes in the models' order above: a column per model would cut
        # every cell to a few characters on a board of many models.
        d = Table(title=f"tasks where they differ ({len(cmp.disagreements)}; passed/scorable, models in order)")
        d.add_column("task", overflow="fold")
        d.add_column("module", overflow="fold")
        d.add_column("outcomes", overflow="fold")
        for row in cmp.disagreements:
            d.add_row(escape(row.task_id), row.module, " ".join("-" if o is None else o for o in row.outcomes))
        console.print(d)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="several result files side by side",
        description="Score several result files with one k and show them side by side, one row per model: "
        "per module pass^k and det score, the raw headline beside the judged one where a judged file "
        "sits beside the result, the settings that differ, the paired sign test of each pair, and the "
        f"tasks where the models disagree. {VERDICTS_HELP}",
    )
    p.add_argument("results", nargs="+", type=Path,
                   help="two or more *_raw_results.json files (with --fail-on-regression: BASELINE CANDIDATE)")
    weights_arg(p)
    p.add_argument("--setting", type=Path, metavar="FILE",
                   help="score at the k this reference setting declares (results/reference/setting.yaml is the "
                        "board's); default: the smallest trial count of the files")
    p.add_argument("--fail-on-regression", action="store_true",
                   help="a gate for CI: exit 1 when the candidate (second file) is significantly worse than the "
                        "baseline (first) by the paired sign test over tasks, 0 when it is not separable or "
                        "better, 2 on bad input; the verdict is printed in one line")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON (with the gate's verdict)")
    p.set_defaults(func=handle)


def handle(args: argparse.Namespace) -> int:
    k, rule = None, SMALLEST_K
    if args.setting is not None:
        k, rule = load_reference_setting(args.setting).k, f"declared by {args.setting}"
    cmp = compare_runs(load_compared(list(args.results)), weights=args.weights, k=k, k_rule=rule,
                       gate=args.fail_on_regression)
    if args.json:
        sys.stdout.write(
            cmp.model_dump_json(indent=1, exclude={"judged": {"__all__": {"card", "judged_card"}}}) + "\n"
        )
    else:
        render(cmp, wide_console())
    if cmp.gate is None:
        return 0
    # The verdict goes to stderr with --json, so that stdout stays one JSON document.
    print(verdict_line(cmp.gate, cmp.k), file=sys.stderr if args.json else sys.stdout)
    return 1 if cmp.gate.verdict == "worse" else 0
