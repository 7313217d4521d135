"""Running a sweep: each configuration of the plan as one run (request -> plan -> runner, as ``sllmb run``),
one after the other, each into its own result file under the plan's output folder.

Each run resumes as ``run`` does; a configuration whose result file is finished (every selected task has its
trials, at the settings the plan asks for, and no checkpoint is left) is not run again, and its server is not
even started. The first configuration to fail stops the sweep with its name; the files already written stay,
and issuing the same command again carries on from there.
"""

from __future__ import annotations

import contextlib
import sys
from collections import Counter
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
from engine.run.resume_rule import MUST_MATCH, stands
from engine.run.runner import run_benchmark
from engine.run.sampling import card_sampling_of, resolve_sampling
from engine.run.sweep_plan import Configuration, SweepPlan


@dataclass(frozen=True)
class SweepRun:
    configuration: Configuration
    output: Path
    reused: bool  # True: the finished result file was kept as it was


def result_file(plan: SweepPlan, config: Configuration) -> Path:
    assert plan.output is not None  # load_plan fills it
    return plan.output / f"{config.name}_raw_results.json"


def _card(plan: SweepPlan, model: str) -> CardSampling | None:
    """The card sampling a configuration run under ``model`` takes: its models.yaml row's, as ``sllmb run``
    looks it up, else the plan's model's (a server's own name for the model, served_model, has no row)."""
    return card_sampling_of(model) or (card_sampling_of(plan.model) if model != plan.model else None)


def request_for(plan: SweepPlan, config: Configuration, *, api_key: str | None, warm_up: bool,
                show_progress: bool, limits: RequestLimits | None = None) -> RunRequest:
    """The run one configuration asks for: the plan's selection, trials and seed, its own server and sampler
    (the sampling resolved as ``run`` resolves it: ``sampling.resolve_sampling``)."""
    model = config.served_model or (config.embedded.model if config.embedded and config.embedded.model else None)
    model = model or plan.model
    return RunRequest(
        model=model, sampling=config.sampling, card_sampling=_card(plan, model), endpoint=config.endpoint,
        api_key=api_key if config.endpoint else None,
        output=result_file(plan, config), trials=plan.trials, profile=plan.profile,
        modules=tuple(plan.modules) if plan.modules else None, pattern=plan.filter, tasks_dir=plan.tasks_dir,
        seed=plan.seed, temperature=config.temperature, top_p=config.top_p, top_k=config.top_k,
        min_p=config.min_p, thinking=config.thinking,
        max_tokens=config.max_tokens, warm_up=warm_up, show_progress=show_progress, limits=limits,
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


def own_file(config: Configuration) -> Path | None:
    """The configuration's GGUF file of the user's own, checked (``gguf_file.checked_gguf``); None: none given."""
    if config.embedded is None or config.embedded.gguf is None:
        return None
    return checked_gguf(config.embedded.gguf, f"configuration '{config.name}': embedded.gguf")


def _embedded_entry(plan: SweepPlan, config: Configuration) -> ModelEntry:
    """The models.yaml row the embedded server runs (for a GGUF of the user's own, the row of its name if any:
    ``gguf_file.entry_for_file``), with the configuration's KV-cache type added to its server options."""
    name = (config.embedded.model if config.embedded else None) or plan.model
    if config.embedded is not None and config.embedded.gguf is not None:
        entry = entry_for_file(name)
    else:
        entry = load_models().find(name)
        if entry is None or entry.gguf is None:
            raise UserError(f"model '{name}' has no GGUF in models.yaml, so the embedded server cannot run it; give "
                            "the configuration an endpoint of your own server, embedded.gguf a model file of your "
                            "own, or embedded.model a row with a gguf")
    kv = config.embedded.kv_cache_type if config.embedded else None
    extra = [f"cache_type_k={kv}", f"cache_type_v={kv}"] if kv else []
    return entry.model_copy(update={"server_args": [*entry.server_args, *extra]})


def run_configuration(plan: SweepPlan, config: Configuration, request: RunRequest, selection: Selection) -> None:
    with contextlib.ExitStack() as stack:
        embedded = None
        if config.endpoint is None:
            entry = _embedded_entry(plan, config)
            options = config.embedded
            layout = choose_layout(entry, needed_context=selection.required_context,
                                   context=options.context if options else None,
                                   slots=options.slots if options else None)
            model_file = own_file(config)
            what = f"{model_file.name} as {entry.name}" if model_file is not None else entry.name
            print(f"  starting the embedded llama.cpp server with {what}: {layout.slots} slot(s) of "
                  f"{layout.context_per_slot} tokens", file=sys.stderr)
            embedded = stack.enter_context(embedded_server(entry, layout, model_file=model_file))
        stack.enter_context(output_lock(request.output))
        run_benchmark(request, tasks=selection, embedded=embedded)


def same_file(config: Configuration, output: Path) -> None:
    """A GGUF of the user's own is named in the result file only by its file name (``provenance.server``), and
    the resume rule reads the settings alone: a configuration whose earlier result ran another file is refused,
    so that trials of two files never share one result."""
    if config.embedded is None or config.embedded.gguf is None or not output.is_file():
        return
    try:
        ran = load_run_file(output, MODULE_NAMES).provenance.server.get("model_file")
    except UserError:
        return  # the run reads it again and names what is wrong
    if ran is not None and ran != config.embedded.gguf.name:
        raise UserError(f"configuration '{config.name}': {output} holds a run of {str(ran)[:200]!r}, and the plan "
                        f"now names {config.embedded.gguf.name!r}; give the configuration a new name, or move the "
                        "old result file away to run the new file from scratch")


def chosen(plan: SweepPlan, only: list[str] | None) -> list[Configuration]:
    """The plan's configurations named in ``only`` (all when None), in the plan's order; an unknown name is a
    ``UserError`` listing the plan's names."""
    if only is None:
        return list(plan.configurations)
    names = {c.name for c in plan.configurations}
    unknown = [n for n in only if n not in names]
    if unknown:
        raise UserError(f"--only {', '.join(unknown)}: not a configuration of the plan; it has "
                        f"{', '.join(c.name for c in plan.configurations)}")
    return [c for c in plan.configurations if c.name in only]


def run_sweep(plan: SweepPlan, *, api_key: str | None, warm_up: bool = True, show_progress: bool = True,
              only: list[str] | None = None, limits: RequestLimits | None = None) -> list[SweepRun]:
    """Every configuration (or those ``only`` names), in the plan's order; raises ``UserError`` naming the
    configuration that failed."""
    runs = []
    for config in chosen(plan, only):
        request = request_for(plan, config, api_key=api_key, warm_up=warm_up, show_progress=show_progress,
                              limits=limits)
        try:
            resolve_sampling(request)  # a configuration asking for a card its row lacks: refused before any run
        except UserError as exc:
            raise UserError(f"configuration '{config.name}': {exc}") from exc
        selection = Selection.of(select_tasks(request))
        same_file(config, request.output)
        runs.append((config, request, selection, finished(request, selection)))
    for config, _, _, done_already in runs:
        if not done_already:
            own_file(config)  # every model file checked before the first server starts, not hours into a sweep
    done = []
    for config, request, selection, done_already in runs:
        if done_already:
            print(f"{config.name}: {request.output} is finished; not run again", file=sys.stderr)
            done.append(SweepRun(config, request.output, reused=True))
            continue
        print(f"{config.name}: running into {request.output}", file=sys.stderr)
        try:
            run_configuration(plan, config, request, selection)
        except UserError as exc:
            kept = ", ".join(d.configuration.name for d in done) or "none"
            raise UserError(f"configuration '{config.name}': {exc}. Finished configurations are kept ({kept}); "
                            "issue the same command again to carry on") from exc
        done.append(SweepRun(config, request.output, reused=False))
    return done


def collected(plan: SweepPlan) -> list[SweepRun]:
    """Every configuration's result file as it stands, running nothing (the fleet workflow's last job, after
    each job ran one configuration): a missing or unfinished file is a ``UserError`` naming the configuration,
    the file and the fix."""
    done = []
    for config in plan.configurations:
        request = request_for(plan, config, api_key=None, warm_up=False, show_progress=False)
        if not request.output.is_file():
            raise UserError(f"configuration '{config.name}': {request.output} is missing; run it "
                            f"(sllmb sweep PLAN --only {config.name}) or see why its job left no result file")
        if not finished(request, Selection.of(select_tasks(request))):
            raise UserError(f"configuration '{config.name}': {request.output} is not finished at the settings the "
                            f"plan asks for; run it again (sllmb sweep PLAN --only {config.name}), which resumes "
                            "it or says what differs")
        done.append(SweepRun(config, request.output, reused=True))
    return done
