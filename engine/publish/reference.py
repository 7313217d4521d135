"""What the board compares between a row and the declared reference setting, and the flags that come of it.

Each compared setting is read from the run file and from the ``ReferenceSetting`` in the same words, so the
card can show "value (reference: declared)", and one rule per setting says whether the row fits. A row is
flagged for every setting that does not fit, whatever the other rows on the board did.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict

from engine.core.reference_setting import ReferenceSetting
from engine.core.results import recorded_top_p
from engine.core.schema import RunFile


class SettingFlag(BaseModel):
    model_config = ConfigDict(extra="forbid")

    field: str
    label: str
    # The row's value and the reference setting's, in the words the card shows.
    value: str
    reference: str


def _num(value: float | int | None) -> str:
    # 0 and 0.0, 1 and 1.0 are the same setting: one spelling for both sides.
    return "not recorded" if value is None else f"{value:g}"


def _sampling(temperature: float | None, top_p: float | None, seed: int) -> str:
    temp = "server default" if temperature is None else _num(temperature)
    return f"temperature {temp}, top_p {_num(top_p)}, seed {seed}"


def _row_sampling(run: RunFile) -> str:
    s = run.settings
    values = _sampling(s.temperature, recorded_top_p(run), s.seed)
    if s.sampling_mode != "card":
        return values
    extra = "".join(f", {name} {_num(v)}" for name, v in (("top_k", s.top_k), ("min_p", s.min_p)) if v is not None)
    return f"model card: {values}{extra}"


def _reference_sampling(ref: ReferenceSetting) -> str:
    s = ref.sampling
    if s.mode == "card":
        return f"each model's card, seed {s.seed}"
    return _sampling(s.temperature, s.top_p, s.seed)


def _fits_sampling(run: RunFile, ref: ReferenceSetting) -> bool:
    """By mode, not by value: in card mode every row sends its own card's values, so a row fits when it ran in
    card mode; in bench mode a row fits when it sent the bench's values (bench, or the same values by hand; a
    file from before the mode was recorded counts as bench). The seed always."""
    s = run.settings
    if s.seed != ref.sampling.seed:
        return False
    if ref.sampling.mode == "card":
        return s.sampling_mode == "card"
    return s.sampling_mode != "card" and _row_sampling(run) == _reference_sampling(ref)


def _thinking(value: bool | None) -> str:
    return {None: "server default", True: "on", False: "off"}[value]


def _on_off(value: bool) -> str:
    return "on" if value else "off"


def _max_tokens(value: int | str | None) -> str:
    return "per task" if value is None or value == "per task" else str(value)


@dataclass(frozen=True)
class Compared:
    field: str
    label: str
    # The row's value, in the words the card shows.
    value: Callable[[RunFile], str]
    # The reference setting's value, in the same words.
    reference: Callable[[ReferenceSetting], str]
    # Whether the row fits; by default its value reads the same as the reference's.
    fits: Callable[[RunFile, ReferenceSetting], bool] | None = None


def _fits_trials(run: RunFile, ref: ReferenceSetting) -> bool:
    # More trials than k still score at k (C(c,k)/C(n,k) allows n > k); fewer cannot.
    return run.settings.trials >= ref.k


def _fits_thinking(run: RunFile, ref: ReferenceSetting) -> bool:
    return ref.thinking == "per model card" or _thinking(run.settings.thinking) == ref.thinking


def _fits_sandbox(run: RunFile, ref: ReferenceSetting) -> bool:
    return ref.sandbox == "any" or (run.settings.sandbox_backend or "").endswith("(confined)")


COMPARED: tuple[Compared, ...] = (
    Compared("task_set", "Task set", lambda r: r.provenance.task_set_hash, lambda s: s.task_set),
    Compared("bench_version", "Bench version", lambda r: r.provenance.bench_version, lambda s: s.bench_version),
    Compared("trials", "Trials", lambda r: str(r.settings.trials), lambda s: f"at least {s.k}", _fits_trials),
    Compared("profile", "Profile", lambda r: r.settings.profile, lambda s: s.profile),
    Compared("thinking", "Thinking", lambda r: _thinking(r.settings.thinking), lambda s: s.thinking, _fits_thinking),
    Compared(
        "max_tokens", "Max tokens", lambda r: _max_tokens(r.settings.max_tokens), lambda s: _max_tokens(s.max_tokens)
    ),
    Compared(
        "sampling",
        "Sampling",
        _row_sampling,
        _reference_sampling,
        _fits_sampling,
    ),
    Compared(
        "sandbox",
        "Sandbox",
        lambda r: r.settings.sandbox_backend or "none",
        lambda s: "confined (any backend)" if s.sandbox == "confined" else "any",
        _fits_sandbox,
    ),
    # --stop-loops ends looping replies early; verdicts should not change, but a row that used it says so.
    Compared("stop_loops", "Stop loops", lambda r: _on_off(r.settings.stop_loops), lambda s: _on_off(s.stop_loops)),
    # --early-stop scores a failed task on fewer trials: its pass^k is the same, its det score is not.
    Compared("early_stop", "Early stop", lambda r: _on_off(r.settings.early_stop), lambda s: _on_off(s.early_stop)),
)


def row_values(run: RunFile) -> dict[str, str]:
    """Every compared setting of a run, in the words the card shows."""
    return {c.field: c.value(run) for c in COMPARED}


def reference_values(ref: ReferenceSetting) -> dict[str, str]:
    """Every compared setting as the reference declares it, in the same words."""
    return {c.field: c.reference(ref) for c in COMPARED}


def setting_flags(run: RunFile, ref: ReferenceSetting) -> list[SettingFlag]:
    """One flag per compared setting in which the run does not fit the reference, in the order of COMPARED."""
    flags = []
    for c in COMPARED:
        value, wanted = c.value(run), c.reference(ref)
        fits = c.fits(run, ref) if c.fits is not None else value == wanted
        if not fits:
            flags.append(SettingFlag(field=c.field, label=c.label, value=value, reference=wanted))
    return flags


def flag_text(flag: SettingFlag) -> str:
    """One flag in words (plain text: escape it for the page or the Markdown it goes into)."""
    return f"{flag.label.lower()} is {flag.value}; the reference setting says {flag.reference}"


def _server_kind(run: RunFile) -> str:
    kind = run.provenance.server.get("kind")
    return kind[:50] if isinstance(kind, str) and kind else "not recorded"


def server_kind_flags(
    runs: Sequence[RunFile], same_model: Callable[[str], str] | None = None
) -> list[list[SettingFlag]]:
    """Per run, a flag when the same model is on the board from more than one server kind (llama.cpp and
    Ollama, say): their scores are not like for like, since the server decides the chat template, the sampler
    and the quantization it runs. Every such row of the model is flagged, naming the other kinds.

    A board holds one row per model name, so two rows of one model carry two names (``qwen3-8b`` and
    ``qwen3-8b-ollama``); ``same_model`` maps a name to what makes two names one model (the board passes the
    model card's address from models.yaml). Without it, only equal names count as one model."""
    key = same_model or (lambda name: name)
    kinds: dict[str, set[str]] = {}
    for run in runs:
        kinds.setdefault(key(run.settings.model), set()).add(_server_kind(run))
    flags = []
    for run in runs:
        mine, seen = _server_kind(run), kinds[key(run.settings.model)]
        others = sorted(seen - {mine})
        flags.append([] if not others else [SettingFlag(
            field="server_kind", label="Server kind", value=mine,
            reference=f"one server kind for every row of this model (also run on {', '.join(others)})")])
    return flags
