"""One index model's page: its scores with their sources and checks, estimates, speed, our runs, and the
link to report a wrong figure.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlencode

from engine.index.index import IndexResult
from engine.index.provenance import UNCHECKED_WHY
from engine.index.schema import ModelEntry
from engine.publish.escape import esc
from engine.publish.glossary import aa_title
from engine.publish.index_view import CORE_MARK, Figure, IndexView, index_view
from engine.publish.site.index_common import WEEKLY_SYNC
from engine.publish.site.own_runs import OwnRun, runs_for


@dataclass(frozen=True)
class SpeedFacts:
    """The speed a model page shows and where it comes from."""

    kind: str  # "measured" (ours) or "aa" (Artificial Analysis's median)
    output_tokens_per_s: float | None
    ttft_s: float | None
    source: str
    source_url: str | None
    date: str


def speed_facts(entry: ModelEntry) -> SpeedFacts | None:
    """The speed a model page shows: our measurement when we have one, else Artificial Analysis's median."""
    if entry.speed is not None:
        s = entry.speed
        return SpeedFacts(
            kind="measured",
            output_tokens_per_s=s.output_tokens_per_s,
            ttft_s=s.ttft_s,
            source=(
                f"our measurement: median of {s.runs} streamed runs of one fixed prompt "
                f"({s.prompt_tokens or '?'} prompt tokens, up to {s.max_output_tokens} output tokens) "
                f"through {s.endpoint}, served by {s.provider}, {s.measured.isoformat()}"
            ),
            source_url=None,
            date=s.measured.isoformat(),
        )
    if entry.aa_speed is not None:
        a = entry.aa_speed
        return SpeedFacts(
            kind="aa",
            output_tokens_per_s=a.output_tokens_per_s,
            ttft_s=a.ttft_s,
            source=f"Artificial Analysis, median across the providers they measure (synced {a.synced})",
            source_url=a.source_url,
            date=a.synced.isoformat(),
        )
    return None


# GitHub's issue forms read field values from the query string, keyed by each field's id.
CORRECTION_FORM = "correction.yml"
MODEL_REQUEST_FORM = "model-request.yml"


def correction_url(repo_url: str | None, model_id: str | None = None, model_name: str | None = None) -> str | None:
    """Link to the correction form, with the model filled in when one is named; None when the site has no
    repository address."""
    if not repo_url:
        return None
    fields = {"template": CORRECTION_FORM}
    if model_id is not None:
        fields |= {"title": f"Correction: {model_name or model_id}", "model": model_id}
    query = urlencode(fields)
    return f"{repo_url.rstrip('/')}/issues/new?{query}"


@dataclass(frozen=True)
class ModelPage:
    """Everything one model's index section shows: its view (numbers rounded once) and the facts around it."""

    view: IndexView
    entry: ModelEntry
    speed: SpeedFacts | None
    own_runs: tuple[OwnRun, ...]
    sources: tuple[str, ...]  # every document a figure of the model cites, once
    correction_url: str | None

    @property
    def reported(self) -> tuple[Figure, ...]:
        return self.view.reported

    @property
    def estimated(self) -> tuple[Figure, ...]:
        return self.view.estimated


def model_page_data(
    result: IndexResult,
    model_id: str,
    own_runs: Sequence[OwnRun] = (),
    repo_url: str | None = None,
) -> ModelPage:
    row = result.row(model_id)
    if row is None:
        raise KeyError(model_id)
    entry = row.entry
    return ModelPage(
        view=index_view(result, row),
        entry=entry,
        speed=speed_facts(entry),
        own_runs=tuple(runs_for(entry, own_runs)),
        sources=tuple(sorted({s.link for s in entry.scores})),
        correction_url=correction_url(repo_url, entry.id, entry.name),
    )


def render_model_html(data: ModelPage) -> str:
    view, entry = data.view, data.entry
    out = [f'<div class="sli-model" data-model="{esc(view.id)}">']
    rng = f' <span class="sli-range">(likely {esc(view.range_text)})</span>' if view.range_text else ""
    out.append(
        f'<p class="sli-headline">Small LM Index <strong>{esc(view.index_text)}</strong>{rng} · '
        f"{esc(view.core_text)} core benchmarks reported · {esc(entry.lab)} · {esc(entry.region)} · "
        f"{esc(format(entry.total_params_b, 'g'))}B</p>"
    )
    out.append(
        '<div class="sli-scroll" tabindex="0" role="region" aria-label="reported scores">'
        '<table class="sli-scores"><thead><tr><th>Benchmark</th><th>Score</th><th>Label</th>'
        "<th>Variant</th><th>Source</th></tr></thead><tbody>"
    )
    for s in view.reported:
        label = s.label + (f": {s.evaluator}" if s.evaluator else "")
        lab_note = f"<br><small>lab reported {esc(s.lab_value)}</small>" if s.lab_value is not None else ""
        flag = ' <small class="sli-verify">needs verification</small>' if s.needs_verification else ""
        out.append(
            f'<tr class="sli-{esc(s.kind)}"><td>{esc(s.benchmark)}{" " + CORE_MARK if s.core else ""}</td>'
            f"<td>{esc(s.text)}{lab_note}</td>"
            f'<td title="{esc(label)}">{esc(s.label)}</td>'
            f"<td{aa_title(s.variant or '')}>{esc(s.variant or '')}</td>"
            f"<td>{source_cell(s)}{flag}</td></tr>"
        )
    for r in data.own_runs:
        score = "—" if r.pass_k is None else format(r.pass_k, ".1f")
        out.append(
            f'<tr class="sli-ours"><td>{esc(r.label)}</td><td>{esc(score)}</td>'
            f'<td title="run on our own harness">Our measurement</td>'
            f"<td><small>{esc(r.settings)}; {esc(r.tasks_scored)} tasks scored</small></td>"
            f"<td><code>{esc(r.file)}</code></td></tr>"
        )
    out.append("</tbody></table></div>")
    out.append(
        '<p class="sli-note"><small>★ one of the six core benchmarks; the index averages those it can estimate '
        "(see the methodology). Every score is on the 0–100 scale.</small></p>"
    )
    if data.own_runs:
        out.append(
            '<p class="sli-note"><small>Our measurement is small-llm-bench\'s pass^k (0–100) from our '
            "own run of the model, the figure its leaderboard row shows (on the judged verdicts where the run "
            "was judged); it is not one of the index's benchmarks and does not enter the index.</small></p>"
        )
    out.append(render_speed_html(data.speed))
    if view.estimated:
        out.append('<h3>Not reported: estimated</h3><ul class="sli-estimates">')
        for e in view.estimated:
            capped = " (capped at the best reported score)" if e.capped else ""
            name = e.benchmark + (f" (as {e.item})" if e.item else "")
            out.append(
                f'<li class="sli-estimated">{esc(name)}: {esc(e.text)} '
                f"<small>likely {esc(e.range_text)}"
                f"{esc(capped)}</small></li>"
            )
        out.append("</ul>")
    if view.not_estimated:
        names = ", ".join(esc(bench) for bench, _ in view.not_estimated)
        out.append(
            f'<p class="sli-note"><small>Not reported and not estimated: {names}. Its held-out estimates were '
            "no better than knowing nothing, so the index leaves it out of its average for every model (see the "
            "methodology).</small></p>"
        )
    # The section the methodology describes is on every page, so a reader knows where to look for one.
    earlier = entry.earlier_version
    if earlier is not None:
        out.append(
            f'<h3 id="earlier-version">Earlier version: {esc(earlier.name)}</h3><p><small>Context only: '
            "these never count toward the index.</small></p><ul>"
        )
        for e in earlier.scores:
            out.append(
                f"<li>{esc(e.benchmark)}: {esc(e.value)} "
                f'(<a href="{esc(e.link)}" rel="nofollow">source</a>)</li>'
            )
        out.append("</ul>")
    else:
        out.append(
            '<h3 id="earlier-version">Earlier version</h3><p class="sli-note"><small>No earlier version\'s scores '
            "are recorded for this model. When there are, they are listed here for context and never count "
            "toward the index.</small></p>"
        )
    out.append(
        f"<p><small>{esc(checked_line(data))}</small></p><h3>Sources</h3>"
        '<ol class="sli-sources">'
    )
    out.extend(f'<li><a href="{esc(u)}" rel="nofollow">{esc(u)}</a></li>' for u in data.sources)
    out.append("</ol>")
    if data.correction_url:
        out.append(
            f'<p class="sli-correct"><a href="{esc(data.correction_url)}" rel="nofollow">Report a wrong '
            "figure for this model</a> (a link to the source is required).</p>"
        )
    out.append("</div>")
    return "".join(out)


def source_cell(s: Figure) -> str:
    """The primary document's link with the date it was checked, or the copy the figure was read from."""
    parts = []
    if s.source_url:
        parts.append(f'<a href="{esc(s.source_url)}" rel="nofollow">source</a>')
    if s.secondary_url:
        parts.append(f'<a href="{esc(s.secondary_url)}" rel="nofollow">read from a copy</a>')
    if s.checked:
        parts.append(f"<small>checked {esc(s.checked)}</small>")
    elif s.unreadable:
        parts.append(f"<small>not readable here: {esc(s.unreadable)}</small>")
    return " · ".join(parts)


def checked_line(data: ModelPage) -> str:
    """How many of the figures shown were compared with their primary document, and why the others were not.

    The date is the latest check of a figure shown, never of one this page does not show (a lab's figure an
    independent one replaced), so "none checked" never comes with a date.
    """
    shown = data.reported
    dates = sorted(s.checked for s in shown if s.checked)
    if not shown:
        return "No figure is reported for this model."
    if dates and len(shown) == 1:
        head = f"The one figure shown was checked against its primary document on {dates[-1]}."
    elif dates:
        head = (
            f"Checked against their primary document: {len(dates)} of the {len(shown)} figures shown "
            f"(latest check {dates[-1]})."
        )
    else:
        head = (
            "The one figure shown has not been checked against its primary document yet."
            if len(shown) == 1
            else f"None of the {len(shown)} figures shown has been checked against its primary document yet."
        )
    counts: dict[str, int] = {}
    for s in shown:
        if s.unchecked:
            counts[s.unchecked] = counts.get(s.unchecked, 0) + 1
    parts = [f"{n} {UNCHECKED_WHY[why]}" for why, n in counts.items()]
    return head + ("" if not parts else " Unchecked: " + "; ".join(parts) + ".")


def render_speed_html(speed: SpeedFacts | None) -> str:
    if speed is None:
        return (
            '<h3>Speed</h3><p class="sli-speed sli-speed-none">No speed figure yet: we have not measured this '
            f"model, and {WEEKLY_SYNC} adds Artificial Analysis's median once they list it.</p>"
        )
    tps = "—" if speed.output_tokens_per_s is None else f"{speed.output_tokens_per_s:.1f} tokens/s"
    ttft = "—" if speed.ttft_s is None else f"{speed.ttft_s:.2f} s"
    source = esc(speed.source)
    if speed.source_url:
        source = f'<a href="{esc(speed.source_url)}" rel="nofollow">{source}</a>'
    return (
        f'<h3>Speed</h3><p class="sli-speed sli-speed-{esc(speed.kind)}">Output {esc(tps)} · '
        f"time to first token {esc(ttft)}<br><small>Source: {source}</small></p>"
    )
