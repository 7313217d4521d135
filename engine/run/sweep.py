"""Running a sweep or a fleet: each job (a sweep plan's configuration, a fleet list's model) as one run
(request -> plan -> runner, as ``sllmb run``), one after the other, each into its own result file under the
plan's output folder.

Each run resumes as ``run`` does; a job whose result file is finished (every selected task has its trials, at
the settings the job asks for, and no checkpoint is left) is not run again, and its server is not even
started. The first job to fail stops the rest with its name; the files already written stay, and issuing the
same command again carries on from there.
"""

from __future__ import annotations

import contextlib
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from engine.core.errors import UserError
from engine.core.models_file import CardSampling, ModelEntry, load_models
from engine.core.outputlock import output_lock
from engine.core.results import load_run_file
from engine.episodes import MODULE_NAMES
from engine.model.gguf_file import checked_gguf, entry_for_file
from engine.model.local_server import choose_layout, embedded_server
from engine.model.requestlimits import RequestLimits
from engine.run.checkpoint import checkpoint_path
from engine.run.plan import Selection, select_tasks
from engine.run.request import RunRequest
from engine.run.resume import read_previous
from engine.run.resume_rule import MUST_MATCH, check_model_file, stands
from engine.run.runner import run_benchmark
from engine.run.sampling import card_sampling_of, resolve_sampling
from engine.run.sweep_plan import RunTarget, Shared, SweepPlan


@dataclass(frozen=True)
class Job:
    """One run of a sweep or a fleet: the shared selection, the model, its server and sampler, its file."""

    name: str  # the configuration's or the model's name, as --only takes it
    label: str  # how messages name it: "configuration 'q4'", "model 'qwen3-8b'"
    model: str  # the plan's model (a fleet's: the model itself)
    target: RunTarget
    output: Path  # the result file
    shared: Shared


@dataclass(frozen=True)
class SweepRun:
    job: Job
    output: Path
    reused: bool  # True: the finished result file was kept as it was


def sweep_jobs(plan: SweepPlan) -> list[Job]:
    """The plan's configurations, in its order, each into ``<output>/<name>_raw_results.json``."""
    assert plan.output is not None  # load_plan fills it
    return [Job(c.name, f"configuration '{c.name}'", plan.model, c, plan.output / f"{c.name}_raw_results.json",
                plan) for c in plan.configurations]


def _card(job: Job, model: str) -> CardSampling | None:
    """The card sampling a job run under ``model`` takes: its models.yaml row's, as ``sllmb run`` looks it up,
    else the plan's model's (a server's own name for the model, served_model, has no row)."""
    return card_sampling_of(model) or (card_sampling_of(job.model) if model != job.model else None)


def request_for(job: Job, *, api_key: str | None, warm_up: bool, show_progress: bool,
                limits: RequestLimits | None = None) -> RunRequest:
    """The run one job asks for: the shared selection, trials and seed, its own server and sampler (the
    sampling resolved as ``run`` resolves it: ``sampling.resolve_sampling``)."""
    t, shared = job.target, job.shared
    model = t.served_model or (t.embedded.model if t.embedded and t.embedded.model else None) or job.model
    return RunRequest(
        model=model, sampling=t.sampling, card_sampling=_card(job, model), endpoint=t.endpoint,
        api_key=api_key if t.endpoint else None,
        output=job.output, trials=shared.trials, profile=shared.profile,
        modules=tuple(shared.modules) if shared.modules else None, pattern=shared.filter,
        tasks_dir=shared.tasks_dir, seed=shared.seed, temperature=t.temperature, top_p=t.top_p, top_k=t.top_k,
        min_p=t.min_p, thinking=t.thinking,
        max_tokens=t.max_tokens, warm_up=warm_up, show_progress=show_progress, limits=limits,
    )


def finished(request: RunRequest, selection: Selection) -> bool:
    """Whether the result file already holds this run: no checkpoint beside it, the settings that decide what
    the model saw as asked (``resume_rule.MUST_MATCH``), and every selected task with its trials standing.
    Anything else goes to the run, which resumes it or says why it cannot."""
    if not request.output.is_file() or checkpoint_path(request.output).exists():
        return False
    try:
        run = load_run_file(request.output, MODULE_NAMES)
    except UserError:
        return False  # the run reads it again and names what is wrong
    sampling = resolve_sampling(request)
    wanted = {"model": request.model, "thinking": request.thinking, "temperature": sampling.temperature,
              "top_p": sampling.top_p, "top_k": sampling.top_k, "min_p": sampling.min_p, "seed": request.seed,
              "max_tokens": request.max_tokens, "stop_loops": request.stop_loops}
    if set(wanted) != set(MUST_MATCH) or any(getattr(run.settings, n) != wanted[n] for n in MUST_MATCH):
        return False
    tasks = {t.id: t for t in selection.tasks}
    held = Counter(r.task_id for r in run.trials if r.trial < request.trials and stands(r, tasks.get(r.task_id)))
    return all(held[t] == request.trials for t in tasks)


def own_file(job: Job) -> Path | None:
    """The job's GGUF file of the user's own, checked (``gguf_file.checked_gguf``); None: none given."""
    embedded = job.target.embedded
    if embedded is None or embedded.gguf is None:
        return None
    return checked_gguf(embedded.gguf, f"{job.label}: embedded.gguf")


def _embedded_entry(job: Job) -> ModelEntry:
    """The models.yaml row the embedded server runs (for a GGUF of the user's own, the row of its name if any:
    ``gguf_file.entry_for_file``), with the job's KV-cache type added to its server options."""
    config = job.target
    name = (config.embedded.model if config.embedded else None) or job.model
    if config.embedded is not None and config.embedded.gguf is not None:
        entry = entry_for_file(name)
    else:
        entry = load_models().find(name)
        if entry is None or entry.gguf is None:
            raise UserError(f"model '{name}' has no GGUF in models.yaml, so the embedded server cannot run it; give "
                            "it an endpoint of your own server, embedded.gguf a model file of your "
                            "own, or embedded.model a row with a gguf")
    kv = config.embedded.kv_cache_type if config.embedded else None
    extra = [f"cache_type_k={kv}", f"cache_type_v={kv}"] if kv else []
    return entry.model_copy(update={"server_args": [*entry.server_args, *extra]})


def run_job(job: Job, request: RunRequest, selection: Selection) -> None:
    with contextlib.ExitStack() as stack:
        embedded = None
        if job.target.endpoint is None:
            entry = _embedded_entry(job)
            options = job.target.embedded
            layout = choose_layout(entry, needed_context=selection.required_context,
                                   context=options.context if options else None,
                                   slots=options.slots if options else None)
            model_file = own_file(job)
            what = f"{model_file.name} as {entry.name}" if model_file is not None else entry.name
            print(f"  starting the embedded llama.cpp server with {what}: {layout.slots} slot(s) of "
                  f"{layout.context_per_slot} tokens", file=sys.stderr)
            embedded = stack.enter_context(embedded_server(entry, layout, model_file=model_file))
        stack.enter_context(output_lock(request.output))
        run_benchmark(request, tasks=selection, embedded=embedded)


def same_file(job: Job, output: Path) -> None:
    """A job with a GGUF of the user's own whose earlier attempt (its checkpoint, else its finished result
    file) ran another file is refused before any server starts, by the run's own rule
    (``resume_rule.check_model_file``), which the run applies again once its server is up."""
    config = job.target
    if config.embedded is None or config.embedded.gguf is None:
        return
    try:
        previous = read_previous(output, resume=True)
    except UserError:
        return  # the run reads it again and names what is wrong
    if previous.header is not None:
        try:
            check_model_file(previous.source, previous.header.model_file, config.embedded.gguf.name)
        except UserError as exc:
            raise UserError(f"{job.label}: {exc}") from exc


def chosen(jobs: Sequence[Job], only: list[str] | None, what: str) -> list[Job]:
    """The jobs named in ``only`` (all when None), in their order; an unknown name is a ``UserError`` listing
    the names ``what`` (the plan, the fleet list) has."""
    if only is None:
        return list(jobs)
    names = {j.name for j in jobs}
    unknown = [n for n in only if n not in names]
    if unknown:
        raise UserError(f"--only {', '.join(unknown)}: not in the {what}; it has {', '.join(j.name for j in jobs)}")
    return [j for j in jobs if j.name in only]


def run_jobs(jobs: Sequence[Job], *, api_key: str | None, warm_up: bool = True, show_progress: bool = True,
             limits: RequestLimits | None = None) -> list[SweepRun]:
    """Every job, in order; raises ``UserError`` naming the job that failed."""
    runs = []
    for job in jobs:
        request = request_for(job, api_key=api_key, warm_up=warm_up, show_progress=show_progress, limits=limits)
        try:
            resolve_sampling(request)  # a job asking for a card its row lacks: refused before any run
        except UserError as exc:
            raise UserError(f"{job.label}: {exc}") from exc
        selection = Selection.of(select_tasks(request))
        same_file(job, request.output)
        runs.append((job, request, selection, finished(request, selection)))
    for job, _, _, done_already in runs:
        if not done_already:
            own_file(job)  # every model file checked before the first server starts, not hours into a sweep
    done: list[SweepRun] = []
    for job, request, selection, done_already in runs:
        if done_already:
            print(f"{job.name}: {request.output} is finished; not run again", file=sys.stderr)
            done.append(SweepRun(job, request.output, reused=True))
            continue
        print(f"{job.name}: running into {request.output}", file=sys.stderr)
        try:
            run_job(job, request, selection)
        except UserError as exc:
            kept = ", ".join(d.job.name for d in done) or "none"
            raise UserError(f"{job.label}: {exc}. Finished ones are kept ({kept}); issue the same command again "
                            "to carry on") from exc
        done.append(SweepRun(job, request.output, reused=False))
    return done


def collected(jobs: Sequence[Job], command: str) -> list[SweepRun]:
    """Every job's result file as it stands, running nothing (the fleet workflow's last job, after each job
    ran one): a missing or unfinished file is a ``UserError`` naming the job, the file and the fix
    (``command``, e.g. ``sllmb sweep PLAN``, with ``--only NAME`` runs it)."""
    done = []
    for job in jobs:
        request = request_for(job, api_key=None, warm_up=False, show_progress=False)
        if not request.output.is_file():
            raise UserError(f"{job.label}: {request.output} is missing; run it ({command} --only {job.name}) or "
                            "see why its job left no result file")
        if not finished(request, Selection.of(select_tasks(request))):
            raise UserError(f"{job.label}: {request.output} is not finished at the settings asked for; run it "
                            f"again ({command} --only {job.name}), which resumes it or says what differs")
        done.append(SweepRun(job, request.output, reused=True))
    return done
