"""Fixtures of the site tests: a synthetic fleet, the built site (from it and from the committed results),
a loopback HTTP server for the built site, and a real headless Chromium driven by Playwright."""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.publish.fleet_site import build_site_fleet

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("SLLMB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
ARTIFACTS = ROOT / "artifacts"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def mkdocs_build(
    out: Path,
    port: int,
    results: Path | None = None,
    models: Path | None = None,
    site_url: str | None = None,
) -> subprocess.CompletedProcess:
    # Material's instant navigation only follows links listed in sitemap.xml, whose host and port come from
    # site_url: build for the loopback address the test serves the site on (``site_url`` for a sub-path).
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", SITE_URL=site_url or f"http://127.0.0.1:{port}/")
    if results is not None:
        env["SLLMB_SITE_RESULTS"] = str(results)
    if models is not None:
        env["SLLMB_SITE_MODELS"] = str(models)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--quiet",
            "-f",
            str(ROOT / "mkdocs.yml"),
            "-d",
            str(out),
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="session")
def site_fleet(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fleet")
    build_site_fleet(root)
    return root


@pytest.fixture(scope="session")
def fleet_port() -> int:
    return free_port()


@pytest.fixture(scope="session")
def committed_port() -> int:
    return free_port()


@pytest.fixture(scope="session")
def fleet_site(site_fleet: Path, fleet_port: int, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("fleet-site") / "site"
    done = mkdocs_build(out, fleet_port, site_fleet / "results", site_fleet / "models.yaml")
    assert done.returncode == 0, done.stderr[-4000:]
    return out


@pytest.fixture(scope="session")
def committed_site(committed_port: int, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site exactly as CI deploys it: from the committed results and models.yaml."""
    out = tmp_path_factory.mktemp("committed-site") / "site"
    done = mkdocs_build(out, committed_port)
    assert done.returncode == 0, done.stderr[-4000:]
    return out


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


def serve(folder: Path, port: int = 0) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/"


@pytest.fixture(scope="session")
def fleet_url(fleet_site: Path, fleet_port: int) -> Iterator[str]:
    server, url = serve(fleet_site, fleet_port)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def committed_url(committed_site: Path, committed_port: int) -> Iterator[str]:
    server, url = serve(committed_site, committed_port)
    yield url
    server.shutdown()


# Module scope: Playwright's sync API keeps an event loop running in this thread while it is open, so it must
# close when a browser test module ends, before any later test (the PR check's honest run, say, in this same
# package) calls asyncio.run().
@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists() or shutil.which(CHROMIUM) is None:
        pytest.fail(
            f"Chromium not found at {CHROMIUM}: install Debian's chromium (.ci/install does) or set "
            "SLLMB_CHROMIUM"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Watch:
    """What a page did: console errors, uncaught exceptions, dialogs (an executed alert) and requests."""

    def __init__(self, page, allowed_prefixes: tuple[str, ...]):
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.requests: list[str] = []
        self.outside: list[str] = []
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        page.on("dialog", self._dialog)
        page.on("request", self._request)
        self.allowed = allowed_prefixes

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _request(self, request) -> None:
        self.requests.append(request.url)
        if not request.url.startswith(self.allowed):
            self.outside.append(request.url)


@pytest.fixture
def page_factory(browser):
    contexts = []

    def make(allowed: tuple[str, ...], scheme: str = "light"):
        context = browser.new_context(viewport={"width": 1280, "height": 900}, color_scheme=scheme)
        contexts.append(context)
        # Anything not on the site is refused, so a stray request fails loudly instead of hanging offline.
        context.route(
            "**/*",
            lambda route: route.continue_() if route.request.url.startswith(allowed) else route.abort(),
        )
        page = context.new_page()
        return page, Watch(page, allowed)

    yield make
    for c in contexts:
        c.close()


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
