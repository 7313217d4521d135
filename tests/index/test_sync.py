"""sync-prices and sync-hub against a real HTTP server on loopback serving the documented shapes."""

from __future__ import annotations

import datetime as dt
import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from engine.index.data import entry_to_yaml, load_entries
from engine.index.sync import SyncError, blended_per_million, sync_hub, sync_prices

from .helpers import entry, score

TODAY = dt.date(2026, 12, 1)


class Routes:
    def __init__(self) -> None:
        self.routes: dict[str, tuple[int, str]] = {}

    def set(self, path: str, status: int, body: object) -> None:
        self.routes[path] = (status, body if isinstance(body, str) else json.dumps(body))


@pytest.fixture
def server() -> Iterator[tuple[str, Routes]]:
    routes = Routes()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            status, body = routes.routes.get(self.path, (404, json.dumps({"error": "not found"})))
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            if status == 429:
                self.send_header("Retry-After", "30")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: object) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", routes
    finally:
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    for e in (
        entry("alpha", [score("MMLU-Pro", 50)], hf_repo="org/Alpha-8B"),
        entry("beta", [score("MMLU-Pro", 60)], hf_repo="org/Beta-4B", openrouter_id="org/beta-4b"),
        entry("gamma", [score("MMLU-Pro", 70)], hf_repo="org/Gamma-1B"),
        entry("delta", [score("MMLU-Pro", 40)]),
    ):
        (tmp_path / f"{e.id}.yaml").write_text(entry_to_yaml(e), encoding="utf-8")
    return tmp_path


def _snapshot(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())}


def _models_body() -> dict:
    return {
        "data": [
            {
                "id": "org/alpha-8b",
                "hugging_face_id": "org/Alpha-8B",
                "pricing": {"prompt": "0.0000002", "completion": "0.0000006"},
            },
            {
                "id": "org/beta-4b",
                "hugging_face_id": "",
                "pricing": {"prompt": "0.0000001", "completion": "0.0000001"},
            },
        ]
    }


def test_blended_price():
    assert blended_per_million(2e-7, 6e-7) == pytest.approx(0.3)


def test_sync_prices_writes_prices_providers_and_date(server, data_dir):
    base, routes = server
    routes.set("/api/v1/models", 200, _models_body())
    routes.set(
        "/api/v1/models/org/alpha-8b/endpoints",
        200,
        {"data": {"endpoints": [{"provider_name": "A"}, {"provider_name": "B"}, {"provider_name": "A"}]}},
    )
    routes.set("/api/v1/models/org/beta-4b/endpoints", 200, {"data": {"endpoints": [{"provider_name": "C"}]}})
    report = sync_prices(data_dir, base, TODAY)
    assert sorted(report.updated) == ["alpha", "beta"]
    assert report.missing == ["gamma"] and report.skipped == ["delta"]
    got = {e.id: e for e in load_entries(data_dir)}
    alpha = got["alpha"].pricing
    assert alpha.input_per_m == pytest.approx(0.2) and alpha.output_per_m == pytest.approx(0.6)
    assert alpha.blended_per_m == pytest.approx(0.3)
    assert alpha.providers == 2 and alpha.synced == TODAY
    assert got["alpha"].openrouter_id == "org/alpha-8b"  # matched through the Hugging Face id
    assert got["beta"].pricing.providers == 1
    assert got["gamma"].pricing is None


@pytest.mark.parametrize(
    ("status", "body", "message"),
    [
        (429, {"error": "slow down"}, "rate limited (429) (retry after 30 s)"),
        (503, {"error": "down"}, "HTTP 503"),
        (200, "<html>not json</html>", "not JSON"),
        (200, {"models": []}, "field 'data' missing"),
        (
            200,
            {
                "data": [
                    {
                        "id": "org/alpha-8b",
                        "hugging_face_id": "org/Alpha-8B",
                        "pricing": {"prompt": "free?", "completion": "0"},
                    }
                ]
            },
            "data[0].pricing.prompt",
        ),
        (
            200,
            {"data": [{"id": "org/alpha-8b", "hugging_face_id": "org/Alpha-8B", "pricing": {}}]},
            "data[0].pricing.prompt",
        ),
    ],
)
def test_sync_prices_fails_clearly_and_writes_nothing(server, data_dir, status, body, message):
    base, routes = server
    routes.set("/api/v1/models", status, body)
    before = _snapshot(data_dir)
    with pytest.raises(SyncError) as exc:
        sync_prices(data_dir, base, TODAY)
    assert message in str(exc.value) and "nothing was written" in str(exc.value)
    assert _snapshot(data_dir) == before


def test_sync_prices_error_late_in_the_run_still_writes_nothing(server, data_dir):
    base, routes = server
    routes.set("/api/v1/models", 200, _models_body())
    routes.set(
        "/api/v1/models/org/alpha-8b/endpoints", 200, {"data": {"endpoints": [{"provider_name": "A"}]}}
    )
    routes.set("/api/v1/models/org/beta-4b/endpoints", 200, {"data": {"endpoints": "oops"}})
    before = _snapshot(data_dir)
    with pytest.raises(SyncError, match="data.endpoints"):
        sync_prices(data_dir, base, TODAY)
    assert _snapshot(data_dir) == before


def test_sync_hub_writes_downloads_likes_and_reports_missing(server, data_dir):
    base, routes = server
    routes.set("/api/models/org/Alpha-8B", 200, {"id": "org/Alpha-8B", "downloads": 12345, "likes": 67})
    routes.set("/api/models/org/Beta-4B", 200, {"id": "org/Beta-4B", "downloads": 0, "likes": 3})
    report = sync_hub(data_dir, base, TODAY)
    assert sorted(report.updated) == ["alpha", "beta"] and report.missing == ["gamma"]
    got = {e.id: e for e in load_entries(data_dir)}
    assert got["alpha"].hub.downloads_30d == 12345 and got["alpha"].hub.likes == 67
    assert got["alpha"].hub.synced == TODAY and got["gamma"].hub is None


@pytest.mark.parametrize(
    ("status", "body", "message"),
    [
        (429, {"error": "rate"}, "429"),
        (200, {"id": "org/Alpha-8B", "likes": 1}, "field 'downloads' missing"),
        (200, {"downloads": "many", "likes": 1}, "field 'downloads' is 'many'"),
        (200, "{truncated", "not JSON"),
    ],
)
def test_sync_hub_fails_clearly_and_writes_nothing(server, data_dir, status, body, message):
    base, routes = server
    routes.set("/api/models/org/Alpha-8B", 200, {"downloads": 5, "likes": 1})
    routes.set("/api/models/org/Beta-4B", status, body)  # the second model fails after the first succeeded
    before = _snapshot(data_dir)
    with pytest.raises(SyncError) as exc:
        sync_hub(data_dir, base, TODAY)
    assert message in str(exc.value)
    assert _snapshot(data_dir) == before


def test_unreachable_server_is_a_clear_error(data_dir):
    before = _snapshot(data_dir)
    with pytest.raises(SyncError, match="failed"):
        sync_hub(data_dir, "http://127.0.0.1:9", TODAY)
    assert _snapshot(data_dir) == before
