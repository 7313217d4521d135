"""sync-aa against a loopback server answering in both known shapes, an unknown one, 429 and a bad key."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from engine.index.aa import EVALUATOR, sync_aa
from engine.index.data import chosen_scores, entry_to_yaml, load_entries
from engine.index.sync import SyncError

from .helpers import entry, score
from .loopback import Reply, Request, loopback

TODAY = dt.date(2026, 12, 5)
KEY = "aa-test-key-1234"
PATH = "/api/v2/data/llms/models"


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    for e in (
        entry("alpha-8b", [score("GPQA Diamond", 40, "lab"), score("MMLU-Pro", 50, "lab")]),
        entry("beta", [score("MMLU-Pro", 60, "lab")], aa_slug="beta-4b-instruct"),
        entry("gamma", [score("MMLU-Pro", 70, "lab")]),
    ):
        (tmp_path / f"{e.id}.yaml").write_text(entry_to_yaml(e), encoding="utf-8")
    return tmp_path


def _snapshot(folder: Path) -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.iterdir())}


def _model(slug: str, **evaluations: float | None) -> dict:
    return {
        "id": f"uuid-{slug}",
        "name": slug.title(),
        "slug": slug,
        "model_creator": {"id": "c1", "name": "Lab", "slug": "lab"},
        "evaluations": {"artificial_analysis_intelligence_index": 31.5, **evaluations},
        "pricing": {"price_1m_blended_3_to_1": 0.1},
        "median_output_tokens_per_second": 142.7,
        "median_time_to_first_token_seconds": 0.41,
        "a_field_added_later": {"ignored": True},
    }


def _legacy() -> dict:
    return {
        "status": 200,
        "data": [
            _model("alpha-8b", gpqa=0.455, mmlu_pro=0.61, aime_25=0.3, hle=None, some_new_eval=0.5),
            _model("beta-4b-instruct", mmlu_pro=0.52, lcr=0.2),
            _model("not-ours", mmlu_pro=0.9),
        ],
    }


def _keyed(body_of):
    def handler(request: Request) -> Reply:
        if request.headers.get("x-api-key") != KEY:
            return Reply.json({"error": "Invalid API key"}, 401)
        return body_of(request)

    return handler


def test_legacy_shape_imports_independent_scores_and_speed(data_dir):
    with loopback() as srv:
        srv.routes[PATH] = _keyed(lambda r: Reply.json(_legacy()))
        report = sync_aa(data_dir, srv.base + "/api/v2", KEY, TODAY)
    assert sorted(report.updated) == ["alpha-8b", "beta"] and report.missing == ["gamma"]
    got = {e.id: e for e in load_entries(data_dir)}
    alpha = got["alpha-8b"]
    imported = {s.benchmark: s for s in alpha.scores if s.evaluator == EVALUATOR}
    assert set(imported) == {"GPQA Diamond", "MMLU-Pro", "AIME"}  # hle is null, some_new_eval is not ours
    assert imported["GPQA Diamond"].value == 45.5 and imported["AIME"].variant.startswith("AIME 2025")
    assert imported["MMLU-Pro"].measured_by == "independent"
    assert imported["MMLU-Pro"].source_url == "https://artificialanalysis.ai/models/alpha-8b"
    assert imported["MMLU-Pro"].checked == TODAY
    # Independent replaces the lab's figure in the fit; the lab's stays in the file.
    assert chosen_scores(alpha)["GPQA Diamond"].value == 45.5
    assert any(s.measured_by == "lab" and s.value == 40 for s in alpha.scores)
    assert alpha.aa_speed.output_tokens_per_s == 142.7 and alpha.aa_speed.ttft_s == 0.41
    assert alpha.aa_speed.synced == TODAY
    assert got["beta"].aa_speed is not None  # matched through aa_slug
    assert {s.benchmark for s in got["beta"].scores if s.evaluator == EVALUATOR} == {"MMLU-Pro", "AA-LCR"}
    assert got["gamma"].aa_speed is None
    assert all(KEY not in text for text in _snapshot(data_dir).values())


def test_rerun_replaces_the_previous_import_instead_of_adding(data_dir):
    with loopback() as srv:
        srv.routes[PATH] = _keyed(lambda r: Reply.json(_legacy()))
        sync_aa(data_dir, srv.base + "/api/v2", KEY, TODAY)
        sync_aa(data_dir, srv.base + "/api/v2", KEY, TODAY + dt.timedelta(days=7))
    alpha = {e.id: e for e in load_entries(data_dir)}["alpha-8b"]
    imported = [s for s in alpha.scores if s.evaluator == EVALUATOR]
    assert len(imported) == 3 and {s.checked for s in imported} == {TODAY + dt.timedelta(days=7)}


def test_paged_shape_reads_every_page(data_dir):
    pages = {
        "1": {
            "data": [_model("alpha-8b", gpqa_diamond=0.5)],
            "page": 1,
            "page_size": 1,
            "total_pages": 2,
            "has_more": True,
            "intelligence_index_version": "4.1",
        },
        "2": {
            "data": [_model("beta-4b-instruct", tau2_telecom=0.25)],
            "page": 2,
            "page_size": 1,
            "total_pages": 2,
            "has_more": False,
        },
    }

    def body(request: Request) -> Reply:
        page = request.path.partition("page=")[2] or "1"
        return Reply.json(pages[page])

    with loopback() as srv:
        srv.routes["/api/v2/language/models/free"] = _keyed(body)
        report = sync_aa(data_dir, srv.base + "/api/v2", KEY, TODAY, path="/language/models/free")
        assert [r.path for r in srv.requests] == [
            "/api/v2/language/models/free",
            "/api/v2/language/models/free?page=2",
        ]
    assert sorted(report.updated) == ["alpha-8b", "beta"]
    got = {e.id: e for e in load_entries(data_dir)}
    assert [s.value for s in got["alpha-8b"].scores if s.evaluator == EVALUATOR] == [50.0]
    assert [s.benchmark for s in got["beta"].scores if s.evaluator == EVALUATOR] == ["tau2-Bench"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"models": [_model("alpha-8b")]}, "unknown response shape"),
        ([_model("alpha-8b")], "unknown response shape"),
        ({"status": 200, "data": [{"slug": "alpha-8b"}]}, "legacy response shape, but field 'data.0.id'"),
        ({"status": 200, "data": [_model("alpha-8b", mmlu_pro=61.0)]}, "expected a fraction between"),
    ],
)
def test_unknown_or_bad_shape_fails_clearly_and_writes_nothing(data_dir, body, message):
    before = _snapshot(data_dir)
    with loopback() as srv:
        srv.routes[PATH] = _keyed(lambda r: Reply.json(body))
        with pytest.raises(SyncError, match=message) as info:
            sync_aa(data_dir, srv.base + "/api/v2", KEY, TODAY)
    assert "nothing was written" in str(info.value).lower()
    assert _snapshot(data_dir) == before


def test_rate_limit_names_the_wait_and_writes_nothing(data_dir):
    before = _snapshot(data_dir)
    with loopback() as srv:
        srv.routes[PATH] = _keyed(lambda r: Reply.json({"error": "slow down"}, 429, **{"Retry-After": "60"}))
        with pytest.raises(SyncError, match=r"rate limited \(429\) \(retry after 60 s\)") as info:
            sync_aa(data_dir, srv.base + "/api/v2", KEY, TODAY)
    assert info.value.retry_after == 60
    assert _snapshot(data_dir) == before


def test_bad_key_is_refused_without_echoing_it(data_dir):
    before = _snapshot(data_dir)
    with loopback() as srv:
        srv.routes[PATH] = _keyed(lambda r: Reply.json(_legacy()))
        with pytest.raises(SyncError, match="AA_API_KEY was refused") as info:
            sync_aa(data_dir, srv.base + "/api/v2", "wrong-secret-key", TODAY)
        assert srv.requests[0].headers["x-api-key"] == "wrong-secret-key"
    assert "wrong-secret-key" not in str(info.value)
    assert _snapshot(data_dir) == before
