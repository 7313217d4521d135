"""A GGUF file of the user's own for the embedded server (``sllmb run --gguf PATH``, a sweep configuration's
``embedded: {gguf: PATH}``): "Q4 or Q8" asked of a file no package ships.

The path and the file are input from outside: before any server starts, the path must name a regular file
(not a folder, a device or a pipe, which could block the read) whose header the one GGUF reader
(``gguf_header``) walks within its bounds, or the run stops with the file, why, and the fix. The result file
then records the file's name and its quantization the way it does for a packaged file
(``server_facts.embedded_meta``, from the same header).
"""

from __future__ import annotations

import stat
from pathlib import Path

from engine.core.errors import UserError
from engine.core.fieldtypes import model_name_problem
from engine.core.models_file import ModelEntry, default_models_path, load_models
from engine.model import gguf_header

_FIX = ("give the path of a model file in llama.cpp's GGUF format (a .gguf file downloaded whole, or one "
        "llama.cpp's convert and quantize tools wrote)")


def checked_gguf(path: Path, given_as: str) -> Path:
    """``path``, made absolute, once it names a regular file whose GGUF header the reader walks; a ``UserError``
    naming ``given_as`` (the flag or the plan's field), the file, why and the fix otherwise."""
    where = f"{given_as} {path}"
    try:
        mode = path.stat().st_mode  # follows a link: a link to a model file is a model file
    except FileNotFoundError:
        raise UserError(f"{where}: no such file; {_FIX}") from None
    except OSError as exc:
        raise UserError(f"{where}: cannot be read ({exc.strerror or exc}); {_FIX}") from None
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise UserError(f"{where}: is {kind}; {_FIX}")
    problem = gguf_header.check(path)
    if problem is not None:
        raise UserError(f"{where}: not a GGUF model file the bench can read: {problem}; {_FIX}")
    return path.absolute()  # not resolved: the result file records the name the user gave


def model_name_for(path: Path, given: str | None, given_as: str) -> str:
    """The name the run records and the server answers to: ``given``, else the file's stem; a stem that is not
    a model name is refused with the fix (name it)."""
    name = given or path.stem
    problem = model_name_problem(name)
    if problem:
        source = "the model name" if given else f"the file's stem '{path.stem[:80]}', the default model name,"
        raise UserError(f"{given_as} {path}: {source} will not do: {problem}; give --model NAME (a sweep: the "
                        "plan's model or embedded.model)")
    return name


def entry_for_file(name: str) -> ModelEntry:
    """The embedded server's settings for a user's file run under ``name``: the models.yaml row of that name
    where there is one (its context, server options and card sampling: the same model in another file), with
    its packaged file dropped; else a row of the name alone (the window then defaults as for any row)."""
    path = default_models_path()
    row = load_models(path).find(name) if path.is_file() else None
    return row.model_copy(update={"gguf": None}) if row is not None else ModelEntry(name=name)
