"""The quantization a GGUF model file declares in its own header (``general.file_type``), read without the
``gguf`` package and without reading the weights.

The header is a list of key/value pairs before the tensors; the file type is among the ``general.*`` keys,
which come first in every file llama.cpp writes. The reader walks the pairs until it finds it, bounded in
bytes read, pairs walked and the size of each value: a file is data, and a damaged or hostile one ends the
walk with None (the quantization is then "not reported"), never with an exception or a large allocation.
``check`` walks the same way and says why a file is not one the reader can read (a GGUF file a user hands
the embedded server is checked with it before the server is started).
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import BinaryIO

# Never read more than this much header (a vocabulary of 256k tokens is a few MiB of strings).
MAX_HEADER_BYTES = 64 * 1024 * 1024
MAX_PAIRS = 100_000
MAX_STRING_BYTES = 1024 * 1024
MAX_ARRAY_ITEMS = 10_000_000

# llama.cpp's llama_ftype: what general.file_type's number means ("MOSTLY_" dropped, as llama.cpp prints it).
FILE_TYPES = {
    0: "F32", 1: "F16", 2: "Q4_0", 3: "Q4_1", 7: "Q8_0", 8: "Q5_0", 9: "Q5_1", 10: "Q2_K", 11: "Q3_K_S",
    12: "Q3_K_M", 13: "Q3_K_L", 14: "Q4_K_S", 15: "Q4_K_M", 16: "Q5_K_S", 17: "Q5_K_M", 18: "Q6_K",
    19: "IQ2_XXS", 20: "IQ2_XS", 21: "Q2_K_S", 22: "IQ3_XS", 23: "IQ3_XXS", 24: "IQ1_S", 25: "IQ4_NL",
    26: "IQ3_S", 27: "IQ3_M", 28: "IQ2_S", 29: "IQ2_M", 30: "IQ4_XS", 31: "IQ1_M", 32: "BF16", 36: "TQ1_0",
    37: "TQ2_0", 38: "MXFP4_MOE",
}

# GGUF value types: the fixed sizes, and the two variable ones.
_FIXED = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_STRING, _ARRAY = 8, 9
_UINT32 = 4


class NotGguf(Exception):
    """The file is not a GGUF file this reader can walk within its bounds; the message says why."""


_TOO_LARGE = f"its header runs past {MAX_HEADER_BYTES // (1024 * 1024)} MiB, more than any model's"
_TOO_LONG = f"its header holds a string over {MAX_STRING_BYTES} bytes"


class _Reader:
    def __init__(self, handle: BinaryIO):
        self.handle = handle
        self.read_bytes = 0

    def take(self, n: int) -> bytes:
        self.read_bytes += n
        if self.read_bytes > MAX_HEADER_BYTES:
            raise NotGguf(_TOO_LARGE)
        data = self.handle.read(n)
        if len(data) != n:
            raise NotGguf("the file ends inside its header (a partial download?)")
        return data

    def skip(self, n: int) -> None:
        self.read_bytes += n
        if self.read_bytes > MAX_HEADER_BYTES:
            raise NotGguf(_TOO_LARGE)
        self.handle.seek(n, 1)

    def u32(self) -> int:
        return struct.unpack("<I", self.take(4))[0]

    def u64(self) -> int:
        return struct.unpack("<Q", self.take(8))[0]

    def string(self) -> bytes:
        n = self.u64()
        if n > MAX_STRING_BYTES:
            raise NotGguf(_TOO_LONG)
        return self.take(n)

    def skip_value(self, kind: int) -> None:
        if kind in _FIXED:
            self.skip(_FIXED[kind])
        elif kind == _STRING:
            self.skip_string()
        elif kind == _ARRAY:
            item, count = self.u32(), self.u64()
            if count > MAX_ARRAY_ITEMS or item == _ARRAY:
                raise NotGguf(f"its header holds an array of {count} items of type {item}, beyond what the "
                              "reader takes")
            if item in _FIXED:
                self.skip(_FIXED[item] * count)
            elif item == _STRING:
                for _ in range(count):
                    self.skip_string()
            else:
                raise NotGguf(f"its header holds an array of unknown value type {item}")
        else:
            raise NotGguf(f"its header holds a value of unknown type {kind}")

    def skip_string(self) -> None:
        n = self.u64()
        if n > MAX_STRING_BYTES:
            raise NotGguf(_TOO_LONG)
        self.skip(n)


def _walk(path: Path, *, whole: bool = False) -> int | None:
    """``general.file_type`` of the GGUF file at ``path``, None when its header does not say; ``NotGguf`` (or
    ``OSError``) when it cannot be read as GGUF within the bounds. ``whole``: every key/value pair is walked,
    not only those up to the file type (a check of the header, which a cut download fails)."""
    try:
        with path.open("rb") as handle:
            reader = _Reader(handle)
            if handle.read(4) != b"GGUF":
                raise NotGguf("it does not start with the GGUF magic bytes")
            reader.read_bytes = 4
            version = reader.u32()
            if version not in (2, 3):  # version 1 (2023) used 32-bit counts; no current file is one
                raise NotGguf(f"it is GGUF version {version}; the reader takes versions 2 and 3")
            reader.u64()  # tensor count
            pairs = reader.u64()
            if pairs > MAX_PAIRS:
                raise NotGguf(f"its header claims {pairs} key/value pairs, more than any model's")
            found = None
            for _ in range(pairs):
                key, kind = reader.string(), reader.u32()
                if key == b"general.file_type" and kind in (_UINT32, 5):
                    found = struct.unpack("<I" if kind == _UINT32 else "<i", reader.take(4))[0]
                    if not whole:
                        return found
                else:
                    reader.skip_value(kind)
            return found
    except struct.error as exc:
        raise NotGguf(f"its header is malformed ({exc})") from None


def check(path: Path) -> str | None:
    """Why ``path`` is not a GGUF file whose header this reader can walk within its bounds; None when it is.
    Only the header is read (never the weights); an unreadable file says why as well."""
    try:
        _walk(path, whole=True)
    except NotGguf as exc:
        return str(exc)
    except OSError as exc:
        return f"it cannot be read ({exc.strerror or exc})"
    return None


def file_type(path: Path) -> int | None:
    """``general.file_type`` of the GGUF file at ``path``; None when the file does not say or is not GGUF."""
    try:
        return _walk(path)
    except (OSError, NotGguf):
        return None


def quantization(path: Path) -> str | None:
    """The quantization the file's header declares, in llama.cpp's words (``Q4_K_M``); None when unknown."""
    number = file_type(path)
    if number is None:
        return None
    return FILE_TYPES.get(number, f"file type {number}")
