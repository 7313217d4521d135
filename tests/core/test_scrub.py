"""The scrubber finds a known secret in its reshaped copies (reversed, spaced or dotted between its
characters, percent-encoded, in base64 at any alignment) in every stored or shown string, and leaves ordinary
text alone, fragments of the key included (issue #27, item 10)."""

from __future__ import annotations

import base64
import urllib.parse
from pathlib import Path

import pytest

from engine.cli import main
from engine.core import scrub
from engine.core.fileio import atomic_write_text

KEY = "sk-live-Zq8v3LmN41xPw7Rt"
ODD_KEY = "Zm9v+YmFy/c%XV4=q(x)"  # regex and URL specials in the key itself


@pytest.fixture(autouse=True)
def _known_keys():
    scrub.register(KEY)
    scrub.register(ODD_KEY)


def b64(data: str, prefix: str = "", suffix: str = "", alphabet=base64.b64encode) -> str:
    return alphabet((prefix + data + suffix).encode()).decode()


RESHAPED = {
    "plain": KEY,
    "reversed": KEY[::-1],
    "spaced": " ".join(KEY),
    "dotted": ".".join(KEY),
    "two_spaces_and_dots": " . ".join(KEY),
    "zero_width_joined": "\u200b".join(KEY),
    "newlines_as_json_escapes": "\\n".join(KEY),
    "reversed_spaced": " ".join(KEY[::-1]),
    "grouped": " ".join(KEY[i:i + 4] for i in range(0, len(KEY), 4)),
    "base64": b64(KEY),
    "base64_url_safe": b64(KEY, alphabet=base64.urlsafe_b64encode),
    "base64_inside_a_header_offset_1": b64(KEY, "A: "),
    "base64_inside_a_header_offset_2": b64(KEY, "AB: ", "!!"),
    "base64_inside_a_header_offset_0": b64(KEY, "Bearer ", " and more"),
    "percent_encoded": urllib.parse.quote(KEY, safe=""),
    "every_character_percent_encoded": "".join(f"%{b:02x}" for b in KEY.encode()),
    "odd_key_plain": ODD_KEY,
    "odd_key_percent_encoded": urllib.parse.quote(ODD_KEY, safe=""),
    "odd_key_spaced": " ".join(ODD_KEY),
    "odd_key_reversed": ODD_KEY[::-1],
    "odd_key_base64": b64(ODD_KEY, "x"),
}


@pytest.mark.parametrize("copy", list(RESHAPED.values()), ids=list(RESHAPED))
def test_a_reshaped_copy_of_a_known_key_is_scrubbed(copy):
    text = f"the judge said: {copy} -- end"
    out = scrub.scrub(text)
    assert copy not in out and scrub.REDACTED in out
    assert out.startswith("the judge said: ") and out.endswith(" -- end")


ORDINARY = {
    "the key's prefix": "configure it as sk-live-... in the settings",
    "half the key": f"a fragment {KEY[:12]} is not the key",
    "the key's characters out of order": " ".join(sorted(KEY)),
    "the key with one character changed, spaced": " ".join(KEY[:-1] + "x"),
    "prose": "Revenue grew in every region except the north, where a supplier dispute delayed two shipments.",
    "spaced letters": "s k - l i v e is how a child spells it out",
    "other base64": base64.b64encode(b"some other text entirely, with the words live and key").decode(),
    "a url": "https://example.org/search?q=sk%2Dlive%20key&page=2",
    "code": "def f(x):\n    return {'sk': 1, 'live': [x, x]}  # 8v3 LmN 41x",
}


@pytest.mark.parametrize("text", list(ORDINARY.values()), ids=list(ORDINARY))
def test_ordinary_text_is_left_alone(text):
    assert scrub.scrub(text) == text


def test_a_stored_file_holds_no_reshaped_copy(tmp_path: Path):
    path = tmp_path / "out.json"
    atomic_write_text(path, "\n".join(RESHAPED.values()) + "\n" + "\n".join(ORDINARY.values()))
    stored = path.read_text(encoding="utf-8")
    for copy in RESHAPED.values():
        assert copy not in stored
    for text in ORDINARY.values():
        assert text in stored


def test_a_shown_error_holds_no_reshaped_copy(tmp_path: Path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    missing = tmp_path / f"{' '.join(KEY)}_{KEY[::-1]}_raw_results.json"
    assert main(["score", "--results", str(missing)]) == 2
    err = capsys.readouterr().err
    assert scrub.REDACTED in err and " ".join(KEY) not in err and KEY[::-1] not in err


def test_scrubbing_a_long_reply_stays_fast():
    import time

    text = ("lorem ipsum s k l i v e 8v3 " * 20_000) + base64.b64encode(bytes(range(256)) * 800).decode()
    started = time.perf_counter()
    assert scrub.scrub(text) == text
    assert time.perf_counter() - started < 2.0
