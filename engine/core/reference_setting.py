"""The reference setting: the one file that says at what k the board scores every row and what run settings
every row is compared with (``results/reference/setting.yaml``, written up in ``results/reference/README.md``).

The setting is declared, never voted: a row that differs from it is flagged whatever the other rows did, so
a new row with other settings cannot get the reference rows flagged, and a file run with more trials than
the others cannot change the k they are scored at.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator, model_validator

from engine.core.errors import UserError
from engine.core.schema import Strict
from engine.core.yamlfile import invalid_file_message, read_mapping

# Where a board looks for its setting: beside the result files it is built from.
SETTING_FILE_NAME = "setting.yaml"
# The file is a dozen lines; anything far larger is not one.
MAX_SETTING_BYTES = 64 * 1024

Thinking = Literal["on", "off", "server default", "per model card"]


class ReferenceSampling(Strict):
    """The sampling every row uses: the mode (``--sampling`` of ``sllmb run``), the bench mode's values, and
    ``--seed``."""

    # "bench": every row sends the temperature and top_p below; "card": each row its model card's sampling
    # (models.yaml), so rows are compared by mode, not by value. Left out (a file from before the mode
    # existed): bench.
    mode: Literal["bench", "card"] = "bench"
    # The bench mode's values: required in bench mode, left out in card mode (each card has its own).
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    # The base seed, offset by the trial index; -1 sends none.
    seed: int = Field(ge=-1)

    @model_validator(mode="after")
    def _values_fit_the_mode(self) -> ReferenceSampling:
        given = self.temperature is not None, self.top_p is not None
        if self.mode == "bench" and not all(given):
            raise ValueError("mode bench needs temperature and top_p (the values every row sends)")
        if self.mode == "card" and any(given):
            raise ValueError("mode card takes no temperature or top_p: each row sends its own model card's")
        return self


class ReferenceSetting(Strict):
    schema_version: Literal[1] = 1
    # pass^k: every row is scored at this k. A row run with more trials is still scored at k (C(c,k)/C(n,k)
    # allows n > k); a row run with fewer cannot be, and is shown unranked with the reason.
    k: int = Field(ge=1, le=1000)
    profile: Literal["full", "fast"]
    # provenance.task_set_hash of the bank the fleet runs (``sllmb tasks`` prints it).
    task_set: str = Field(pattern=r"^[0-9a-f]{16}$")
    bench_version: str = Field(pattern=r"^[0-9A-Za-z][0-9A-Za-z.+-]{0,39}$")
    sampling: ReferenceSampling
    # "per task": each task's own completion budget (no --max-tokens); a number: that --max-tokens.
    max_tokens: Literal["per task"] | int
    # "per model card": on or off as the model's card recommends, so no value is flagged.
    thinking: Thinking
    # "confined": code ran in a sandbox that confines it (Docker, Podman or bubblewrap), whichever;
    # "any": the backend is not compared.
    sandbox: Literal["confined", "any"]
    stop_loops: bool
    early_stop: bool

    @field_validator("thinking", mode="before")
    @classmethod
    def _yaml_booleans(cls, value: Any) -> Any:
        # YAML reads a bare on/off as a boolean; the file means the words.
        if value is True:
            return "on"
        if value is False:
            return "off"
        return value

    @field_validator("max_tokens", mode="before")
    @classmethod
    def _token_budget(cls, value: Any) -> Any:
        # One message for every wrong value, instead of one per member of the union.
        if value == "per task" or (type(value) is int and 16 <= value <= 131072):
            return value
        raise ValueError("write 'per task' (each task's own budget) or a --max-tokens number from 16 to 131072")


def setting_path_for(results_dir: Path) -> Path:
    return results_dir / SETTING_FILE_NAME


def load_reference_setting(path: Path) -> ReferenceSetting:
    """The declared setting of ``path``; a missing, oversized or invalid file is a ``UserError`` naming the
    file, the field and the fix."""
    if not path.is_file():
        raise UserError(
            f"{path}: no reference setting. A board scores every row at the k this file declares and flags the "
            f"settings that differ from it: write one (results/reference/README.md says what it holds; "
            f"results/reference/{SETTING_FILE_NAME} is the reference fleet's) or pass --setting FILE"
        )
    size = path.stat().st_size
    if size > MAX_SETTING_BYTES:
        raise UserError(f"{path}: {size} bytes is not a reference setting (at most {MAX_SETTING_BYTES})")
    raw = read_mapping(path, "reference setting")
    try:
        return ReferenceSetting.model_validate(raw)
    except ValidationError as exc:
        raise UserError(invalid_file_message(path, "reference setting", exc.errors())) from exc
