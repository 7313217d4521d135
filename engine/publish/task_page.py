"""A task's page: every model's trials of one task, and the place where the page's script (``evidence.js``)
shows a trial's whole evidence, or two models' trials side by side, from the task's JSON file
(``evidence.py``). The choice lives in the URL (``?a=<model>&b=<model>&trial=<n>``), so a view can be shared.

Everything here is escaped (``esc``); the transcripts are not in the HTML at all, only in the JSON file the
script reads and places as text.
"""

from __future__ import annotations

from engine.core.schema import TrialRecord
from engine.publish.escape import esc
from engine.publish.evidence import TaskEvidence
from engine.publish.html import SCROLL, Links, plural

# The file beside each task page that holds its trials (same origin, fetched by the page's script).
DATA_FILE = "trials.json"


def _mark(model_slug: str, trial: TrialRecord) -> str:
    outcome = "excluded" if not trial.scorable else "pass" if trial.passed else "fail"
    sign = {"pass": "✓", "fail": "✗", "excluded": "–"}[outcome]
    return (
        f'<button type="button" class="lb-trial {outcome}" data-ev-a="{esc(model_slug)}" '
        f'data-ev-trial="{trial.trial}" aria-label="trial {trial.trial}: {outcome}, show its evidence">'
        f"{sign}</button>"
    )


def _options(task: TaskEvidence, empty: str | None) -> str:
    first = "" if empty is None else f'<option value="">{esc(empty)}</option>'
    return first + "".join(f'<option value="{esc(slug)}">{esc(name)}</option>' for slug, name, _ in task.models)


def task_page_html(task: TaskEvidence, links: Links) -> str:
    """The page's body below its <h1>: the trials table, the side-by-side picker and the evidence view."""
    rows = []
    for slug, name, trials in task.models:
        scorable = [t for t in trials if t.scorable]
        marks = "".join(_mark(slug, t) for t in trials)
        rows.append(
            f'<tr id="m-{esc(slug)}"><td><a href="{esc(links.model(slug))}">{esc(name)}</a></td>'
            f"<td>{marks}</td><td>{sum(t.passed for t in scorable)}/{len(scorable)}</td></tr>"
        )
    most = max((len(trials) for _, _, trials in task.models), default=1)
    trial_options = "".join(f'<option value="{i}">{i}</option>' for i in range(most))
    return (
        f'<p class="lb-note">Module <code>{esc(task.module)}</code> · '
        f"{plural(len(task.models), 'model')}. Press a mark to read that trial: every turn as the model saw "
        "and answered it, each tool call with the tool's answer, then the grade. "
        f'<a href="{esc(links.root)}methodology/reading-a-trial/">How to read a trial</a>.</p>'
        f'{SCROLL}<table class="lb-t ev-models"><thead><tr><th>Model</th><th>Trials</th><th>Passed</th></tr>'
        f"</thead><tbody>{''.join(rows)}</tbody></table></div>"
        '<form class="ev-pick" data-ev-pick><fieldset><legend>Two models side by side</legend>'
        f'<label>Model A <select name="a">{_options(task, None)}</select></label> '
        f'<label>Model B <select name="b">{_options(task, "(none)")}</select></label> '
        f'<label>Trial <select name="trial">{trial_options}</select></label> '
        '<button type="submit" class="md-button">Show</button></fieldset></form>'
        f'<div class="ev" data-ev data-ev-src="{DATA_FILE}" aria-live="polite">'
        '<p class="lb-note">Press a mark above, or pick two models, to see the evidence.</p></div>'
        '<noscript><p class="lb-note">The transcripts are shown by the page\'s script. Without it, '
        "<code>sllmb show FILE --task ID --trial N</code> prints the same trial.</p></noscript>"
    )


def tasks_index_html(tasks: list[TaskEvidence]) -> str:
    """The list of every task page (``tasks/``), a section per module (``#mod-<module>``, where a module score
    on the board links). Given ``?a=<model>`` (as the board's links are), the page's script points each task's
    link at that model's trials (``#m-<model>``); without the script, a link opens the task's page."""
    by_module: dict[str, list[TaskEvidence]] = {}
    for t in tasks:
        by_module.setdefault(t.module, []).append(t)
    sections = []
    for module, mine in by_module.items():
        rows = "".join(
            f'<tr><td><a href="{esc(t.slug)}/" data-ev-task="{esc(t.slug)}"><code>{esc(t.task_id)}</code></a></td>'
            f"<td>{len(t.models)}</td></tr>"
            for t in mine
        )
        sections.append(
            f'<h2 id="mod-{esc(module)}">{esc(module)}</h2>'
            f'{SCROLL}<table class="lb-t"><thead><tr><th>Task</th><th>Models</th></tr></thead>'
            f"<tbody>{rows}</tbody></table></div>"
        )
    return (
        '<div data-ev-index><p class="lb-note">Every task of the board, by module, each with every model\'s '
        'trials and their evidence.</p><p class="lb-note" data-ev-for hidden></p>'
        f"{''.join(sections)}</div>"
    )
