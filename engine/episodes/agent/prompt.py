"""The system message of an agent episode: how to act (with the plain-text fallback for servers whose chat
template drops the ``tools`` field), then one line per offered tool."""

from __future__ import annotations

from typing import Any

from engine.world import World

# Shown to every model, so that a server whose chat template drops the ``tools`` field (llama.cpp with a
# template without tool support answers 200 and silently ignores them) still leaves the model a way to act.
SYSTEM_PROMPT = """You are an operations assistant with access to the tools listed below. Act by calling \
the tools; a task is only done when the tools have done it. You may call several tools in one reply. \
When the work is finished, reply with a short summary for the user and no tool call.

If your interface has no native tool calling, write each call on its own line exactly like this:
<tool_call>{"name": "TOOL_NAME", "arguments": {"ARG": "VALUE"}}</tool_call>

Tools:"""


def _signature(schema: dict[str, Any]) -> str:
    fn = schema["function"]
    params = fn["parameters"]
    required = set(params.get("required", []))
    args = ", ".join(n if n in required else f"{n}?" for n in params.get("properties", {}))
    return f"- {fn['name']}({args}): {fn['description'].splitlines()[0]}"


def system_prompt(world: World, extra: str | None = None) -> str:
    """The module's system message: how to act, then one line per offered tool (the schemas travel in
    the request's ``tools`` field as well)."""
    lines = [SYSTEM_PROMPT, *(_signature(s) for s in world.tool_schemas())]
    text = "\n".join(lines)
    return f"{extra.strip()}\n\n{text}" if extra and extra.strip() else text
