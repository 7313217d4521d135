"""What the bench knows about each kind of local server, in one table.

Four servers (and llama-cpp-python, the embedded one) speak the same OpenAI dialect but differ where a
harness goes wrong: where they report the context window, how thinking is switched, which sampling fields
they take, how many requests they serve at once, and which flag fixes a missing feature. Everything
server-specific that the client, the preflight and the runner need lives here, so each of them stays
server-neutral and a new server is one more entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

LLAMA_CPP = "llama.cpp"
LLAMA_CPP_PYTHON = "llama-cpp-python"
OLLAMA = "ollama"
LM_STUDIO = "lm-studio"
VLLM = "vllm"
OTHER = "other"

KINDS = (LLAMA_CPP, LLAMA_CPP_PYTHON, OLLAMA, LM_STUDIO, VLLM, OTHER)

# The sampler the bench sends when the user sets none. Sent explicitly on every request because an omitted
# value means something different on each server (vLLM takes it from the model's generation config,
# llama.cpp from its command line, Ollama from the Modelfile). 0.6 with nucleus 0.95 is what most current
# small-model cards recommend (Qwen3 thinking, Llama 3, the R1 distills) and sits near the others' advice;
# unlike greedy decoding it makes k trials independent samples, which pass^k needs.
DEFAULT_TEMPERATURE = 0.6
DEFAULT_TOP_P = 0.95


@dataclass(frozen=True)
class ServerProfile:
    kind: str
    label: str
    # Parallel requests when the user gives no --concurrency: None means "the slot count the server reports".
    concurrency: int | None
    # Fields merged into every request so that the sampler is the same whatever the server's own defaults
    # are (top-k and min-p off, no repetition penalty). Only fields the server is known to accept.
    sampler: dict[str, Any] = field(default_factory=dict)
    # How to give the server a larger context window (said after a run with silently truncated prompts).
    larger_window: str = ""
    # How to make tool calling work when the server says it does not.
    tools_fix: str = ""
    # The request field this server reads for --thinking (documentation and the run's meta).
    thinking_control: str = ""
    # Where the server counts tokens with the model's own tokenizer (POST, beside /v1), if it offers that.
    tokenize_path: str | None = None


PROFILES: dict[str, ServerProfile] = {
    LLAMA_CPP: ServerProfile(
        kind=LLAMA_CPP,
        label="llama.cpp llama-server",
        concurrency=None,
        sampler={"top_k": 0, "min_p": 0.0, "repeat_penalty": 1.0},
        larger_window=("restart llama-server with a larger -c, e.g. -c 32768 (with an explicit -np N and no "
                       "-kvu each slot gets c/N tokens; with the default automatic slots the KV cache is "
                       "unified and every slot can use the whole -c; the embedded server: --context, the window "
                       "of one slot)"),
        tools_fix=("restart llama-server with --jinja (the default in current builds; drop --no-jinja) so it "
                   "uses the model's chat template with tools, and --chat-template-file FILE if the model's "
                   "own template has no tool section"),
        thinking_control="chat_template_kwargs.enable_thinking",
        tokenize_path="/tokenize",
    ),
    LLAMA_CPP_PYTHON: ServerProfile(
        kind=LLAMA_CPP_PYTHON,
        label="llama-cpp-python server",
        concurrency=1,
        sampler={"top_k": 0, "min_p": 0.0, "repeat_penalty": 1.0},
        larger_window="restart llama_cpp.server with a larger --n_ctx",
        tools_fix=("start llama_cpp.server with a --chat_format that supports tools "
                   "(e.g. chatml-function-calling) or use a model whose template has tools"),
        thinking_control="chat_template_kwargs.enable_thinking (ignored by most templates)",
    ),
    OLLAMA: ServerProfile(
        kind=OLLAMA,
        label="Ollama",
        concurrency=1,
        # /v1 ignores sampler fields beyond temperature and top_p; top_k and repeat penalty come from the
        # Modelfile, which the run records as it can.
        sampler={},
        larger_window=("Ollama ignores the window asked for on /v1: set OLLAMA_CONTEXT_LENGTH=32768 before "
                       "`ollama serve`, or create a model with `PARAMETER num_ctx 32768` in its Modelfile"),
        tools_fix=("this Ollama model's template has no tool support (`ollama show MODEL` lists its "
                   "capabilities): pick a model or tag whose capabilities include tools"),
        thinking_control="reasoning_effort",
    ),
    LM_STUDIO: ServerProfile(
        kind=LM_STUDIO,
        label="LM Studio",
        concurrency=1,
        sampler={"top_k": 0, "min_p": 0.0, "repeat_penalty": 1.0},
        larger_window=("load the model with a larger context length (`lms load MODEL --context-length "
                       "32768`, or the Context Length setting when loading it in the app)"),
        tools_fix="load a model whose chat template supports tools (LM Studio marks them as tool-capable)",
        # Neither field is documented for LM Studio's /v1/chat/completions (its own switch is `reasoning` on
        # /api/v1/chat); they are sent in case the loaded engine passes them on, and the first reply checked.
        thinking_control=("chat_template_kwargs.enable_thinking and reasoning_effort (undocumented on LM "
                          "Studio's /v1/chat/completions; its own switch is `reasoning` on /api/v1/chat, "
                          "or the model's Thinking setting in the app)"),
    ),
    VLLM: ServerProfile(
        kind=VLLM,
        label="vLLM",
        concurrency=4,
        # vLLM fills omitted fields from the model's generation_config.json; override the ones that change
        # the distribution so the sampler matches the other servers.
        sampler={"top_k": -1, "min_p": 0.0, "repetition_penalty": 1.0},
        larger_window="restart vLLM with a larger --max-model-len",
        tools_fix=("restart vLLM with --enable-auto-tool-choice --tool-call-parser PARSER (the parser that "
                   "matches the model, e.g. hermes for Qwen, llama3_json for Llama 3)"),
        thinking_control="chat_template_kwargs.enable_thinking",
    ),
    OTHER: ServerProfile(
        kind=OTHER,
        label="an OpenAI-compatible server",
        concurrency=1,
        sampler={},
        larger_window="restart the server with a larger context window",
        tools_fix="use a server and model that support the tools field of chat completions",
        thinking_control="chat_template_kwargs.enable_thinking",
    ),
}


def root_url(endpoint: str) -> str:
    """The server's root, where the native endpoints live: the endpoint without its /v1."""
    base = endpoint.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


def ollama_model_name(name: str) -> str:
    """A model name as Ollama resolves it: host/namespace/model:tag, with its defaults filled in
    (registry.ollama.ai, library, latest), case-insensitive, any @digest dropped. /api/ps lists a model
    asked for as ``qwen3`` as ``qwen3:latest``; both become ``registry.ollama.ai/library/qwen3:latest``."""
    text = name.strip().lower().split("@", 1)[0]
    slash, colon = text.rfind("/"), text.rfind(":")
    base, tag = (text[:colon], text[colon + 1:]) if colon > slash else (text, "")
    parts = base.split("/")
    if len(parts) == 1:
        parts = ["registry.ollama.ai", "library", *parts]
    elif len(parts) == 2:
        parts = ["registry.ollama.ai", *parts]
    return "/".join(parts) + ":" + (tag or "latest")


def profile(kind: str | None) -> ServerProfile:
    return PROFILES.get(kind or OTHER, PROFILES[OTHER])


def thinking_fields(kind: str | None, on: bool) -> dict[str, Any]:
    """The request fields that ask this server for reasoning on or off.

    Ollama switches thinking with ``reasoning_effort`` ("none" turns it off); the llama.cpp family and vLLM
    pass ``chat_template_kwargs`` to the model's template, which is where Qwen3-style templates read
    ``enable_thinking``. LM Studio gets both, since its engines differ. Whether it took effect is checked
    on the first reply, because a template without the switch ignores it silently.
    """
    kind = kind or OTHER
    if kind == OLLAMA:
        return {"reasoning_effort": "medium" if on else "none"}
    if kind == LM_STUDIO:
        fields: dict[str, Any] = {"chat_template_kwargs": {"enable_thinking": on}}
        if on:
            fields["reasoning_effort"] = "medium"
        return fields
    return {"chat_template_kwargs": {"enable_thinking": on}}


def default_concurrency(kind: str | None, slots: int | None) -> int:
    """Parallel trials when the user chose none: what the server actually runs at once."""
    chosen = profile(kind).concurrency
    if chosen is None:
        return max(1, slots or 1)
    return chosen


def sampler_fields(kind: str | None, chosen: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The sampler fields sent to this kind of server besides temperature and top_p: its neutral ones (top-k
    and min-p off, no repetition penalty), with the run's ``chosen`` top-k and min-p (a card's, or given by
    hand) in their place. A chosen top-k of 0 means off, which is the kind's own neutral value where it has
    one (vLLM's off is -1; older releases refuse 0)."""
    fields = dict(profile(kind).sampler)
    for key, value in (chosen or {}).items():
        if key == "top_k" and value == 0 and "top_k" in fields:
            continue
        fields[key] = value
    return fields


def larger_window_advice(kind: str | None) -> str:
    return profile(kind).larger_window


def tools_fix(kind: str | None) -> str:
    return profile(kind).tools_fix
