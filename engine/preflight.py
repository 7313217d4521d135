"""Before the first task: is the server there, what is it, and how large is its context window."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx

from engine.errors import UserError


@dataclass
class ServerInfo:
    kind: str = "unknown"
    version: str | None = None
    served_context: int | None = None
    slots: int | None = None
    models: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    def as_meta(self) -> dict[str, Any]:
        return {"kind": self.kind, "version": self.version, "served_context": self.served_context,
                "slots": self.slots, **self.details}


def _root(endpoint: str) -> str:
    base = endpoint.rstrip("/")
    return base[: -len("/v1")] if base.endswith("/v1") else base


async def _get_json(http: httpx.AsyncClient, url: str) -> Any | None:
    try:
        response = await http.get(url)
    except httpx.TransportError:
        return None
    if response.status_code != 200:
        return None
    try:
        return response.json()
    except ValueError:
        return None


async def probe(endpoint: str, api_key: str | None, model: str, *, timeout_s: float = 15.0) -> ServerInfo:
    """Check the endpoint answers and read what it says about itself. Bad settings raise ``UserError``."""
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    info = ServerInfo()
    async with httpx.AsyncClient(headers=headers, timeout=timeout_s) as http:
        try:
            response = await http.get(f"{endpoint.rstrip('/')}/models")
        except httpx.TransportError as exc:
            raise UserError(
                f"cannot reach the endpoint {endpoint} ({type(exc).__name__}); start the server, or fix "
                "--endpoint / BENCH_ENDPOINT (it must end in /v1, e.g. http://127.0.0.1:8080/v1)"
            ) from exc
        if response.status_code in (401, 403):
            raise UserError(f"the endpoint {endpoint} refused the credentials (HTTP {response.status_code}); "
                            "set BENCH_API_KEY to a valid key")
        if response.status_code == 200:
            try:
                listing = response.json().get("data") or []
            except (ValueError, AttributeError):
                listing = []
            info.models = [m.get("id", "") for m in listing if isinstance(m, dict)]
            for entry in listing:
                if isinstance(entry, dict) and entry.get("max_model_len"):
                    info.kind = "vllm"
                    info.served_context = int(entry["max_model_len"])
        props = await _get_json(http, f"{_root(endpoint)}/props")
        if isinstance(props, dict) and "default_generation_settings" in props:
            info.kind = "llama.cpp"
            info.served_context = props["default_generation_settings"].get("n_ctx") or info.served_context
            info.slots = props.get("total_slots")
            info.version = props.get("build_info")
    return info
