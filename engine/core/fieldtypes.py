"""The constrained strings several file formats share: a model name and a web address.

A model name travels into a file name, a page's address and front matter, a Markdown job summary and a log
line. One narrow pattern, checked whenever a result file, a judged file or ``models.yaml`` is read, keeps it
harmless in every one of those places, instead of each place inventing its own escaping for it. A web
address from a file is shown as a link, so it must be ``https:`` (``javascript:`` and friends never are).
"""

from __future__ import annotations

import re
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, WithJsonSchema
from pydantic_core import PydanticCustomError

MODEL_NAME_MAX = 100
# Letters and digits first (so a name never starts a line as "::" or "-"), then letters, digits and . _ : / + -
# (Ollama's "qwen3:8b", a hub's "Qwen/Qwen3-8B", a quantisation's "q4_K_M", a "+": every name servers use).
MODEL_NAME_PATTERN = r"[A-Za-z0-9][A-Za-z0-9._:/+-]{0,99}"
MODEL_NAME_RULE = (
    f"1 to {MODEL_NAME_MAX} characters: ASCII letters, digits and . _ : / + -, starting with a letter or digit "
    "(e.g. qwen3:8b or Qwen/Qwen3-8B)"
)
_MODEL_NAME = re.compile(MODEL_NAME_PATTERN)

URL_MAX = 2_000


def model_name_problem(name: str) -> str | None:
    """Why ``name`` is not a model name, or None when it is one."""
    if _MODEL_NAME.fullmatch(name):
        return None
    return f"a model name is {MODEL_NAME_RULE}"


def _model_name(value: str) -> str:
    problem = model_name_problem(value)
    if problem:
        # The value itself is left out of the message: it is shown in logs and job summaries.
        raise PydanticCustomError("model_name", problem)
    return value


ModelName = Annotated[
    str,
    AfterValidator(_model_name),
    WithJsonSchema({"type": "string", "pattern": f"^{MODEL_NAME_PATTERN}$", "maxLength": MODEL_NAME_MAX}),
]


def https_url_problem(url: str) -> str | None:
    """Why ``url`` is not an https address a page may link to, or None when it is one."""
    rule = "must be an https:// address (e.g. https://huggingface.co/ORG/MODEL); no other scheme is linked"
    if len(url) > URL_MAX or any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in url):
        return rule + f", and it holds no spaces or control characters and at most {URL_MAX} characters"
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return rule
    if parts.scheme != "https" or not url.lower().startswith("https://") or not host:
        return rule
    return None


def _https_url(value: str) -> str:
    problem = https_url_problem(value)
    if problem:
        raise PydanticCustomError("https_url", problem)
    return value


HttpsUrl = Annotated[
    str,
    AfterValidator(_https_url),
    WithJsonSchema({"type": "string", "pattern": "^https://", "maxLength": URL_MAX}),
]
