"""The one rule for which sampling a run sends: the model card's, the bench's fixed one, or values given by
hand, and the mode the result file records.

Default: the card's where the model's ``models.yaml`` row has one (``sampling:``), else the bench's
(temperature ``DEFAULT_TEMPERATURE``, top_p ``DEFAULT_TOP_P``, top-k and min-p the server kind's neutral
values). ``--sampling bench|card`` chooses; a ``--temperature``, ``--top-p``, ``--top-k`` or ``--min-p`` of
its own makes the run "custom" (a temperature or top-p not given the bench's, a top-k or min-p not given the
server kind's neutral one), and cannot be combined with ``--sampling``, which would leave it unclear which wins.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from engine.core.errors import UserError
from engine.core.models_file import CardSampling, ModelEntry, default_models_path, load_models
from engine.model import servers
from engine.run.request import RunRequest

Mode = Literal["bench", "card", "custom"]


@dataclass(frozen=True)
class Sampling:
    mode: Mode
    temperature: float
    top_p: float
    top_k: int | None = None  # None: the server kind's neutral value; 0: off
    min_p: float | None = None
    source: str | None = None  # the model card's address (card mode)

    def extra_fields(self) -> dict[str, Any]:
        """The request fields that replace the server kind's neutral ones (``servers.sampler_fields``)."""
        return {k: v for k, v in (("top_k", self.top_k), ("min_p", self.min_p)) if v is not None}


def card_sampling_of(model: str, embedded: ModelEntry | None = None) -> CardSampling | None:
    """The card sampling of the model's models.yaml row (the embedded entry's, or the row of the same name
    for a server of one's own); None where there is no row or no sampling in it. ``sllmb run`` and a sweep
    configuration both look the card up here."""
    if embedded is not None:
        return embedded.sampling
    path = default_models_path()
    entry = load_models(path).find(model) if path.is_file() else None
    return entry.sampling if entry is not None else None


def resolve_sampling(request: RunRequest) -> Sampling:
    """The run's sampling; ``UserError`` for a combination that cannot be honoured."""
    by_hand = any(v is not None for v in (request.temperature, request.top_p, request.top_k, request.min_p))
    if by_hand and request.sampling is not None:
        raise UserError(f"--sampling {request.sampling} and --temperature/--top-p/--top-k/--min-p (or "
                        "BENCH_TEMPERATURE) both choose the sampling: give one of them")
    card = request.card_sampling
    if request.sampling == "card" and card is None:
        raise UserError(f"--sampling card: the models.yaml row of '{request.model}' has no sampling from its model "
                        "card (or there is no row); add one (sampling: {temperature, top_p, top_k, min_p, source: "
                        "the card's https address}) or use --sampling bench")
    if by_hand:
        return Sampling("custom",
                        servers.DEFAULT_TEMPERATURE if request.temperature is None else request.temperature,
                        servers.DEFAULT_TOP_P if request.top_p is None else request.top_p,
                        request.top_k, request.min_p)
    if card is not None and request.sampling != "bench":
        return Sampling("card", card.temperature, card.top_p, card.top_k, card.min_p, card.source)
    return Sampling("bench", servers.DEFAULT_TEMPERATURE, servers.DEFAULT_TOP_P)
