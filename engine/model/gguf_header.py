"""The quantization a GGUF model file declares in its own header (``general.file_type``), read without the
``gguf`` package and without reading the weights.

The header is a list of key/value pairs before the tensors; the file type is among the ``general.*`` keys,
which come first in every file llama.cpp writes. The reader walks the pairs until it finds it, bounded in
bytes read, pairs walked and the size of each value: a file is data, and a damaged or hostile one ends the
walk with None (the quantization is then "not reported"), never with an exception or a large allocation.
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


class _Bad(Exception):
    """The header is not one this reader can walk within its bounds."""


class _Reader:
    def __init__(self, handle: BinaryIO):
        self.handle = handle
        self.read_bytes = 0

    def take(self, n: int) -> bytes:
        self.read_bytes += n
        if self.read_bytes > MAX_HEADER_BYTES:
            raise _Bad
        data = self.handle.read(n)
        if len(data) != n:
            raise _Bad  # the file ends inside its header
        return data

    def skip(self, n: int) -> None:
        self.read_bytes += n
        if self.read_bytes > MAX_HEADER_BYTES:
            raise _Bad
        self.handle.seek(n, 1)

    def u32(self) -> int:
        return struct.unpack("<I", self.take(4))[0]

    def u64(self) -> int:
        return struct.unpack("<Q", self.take(8))[0]

    def string(self) -> bytes:
        n = self.u64()
        if n > MAX_STRING_BYTES:
            raise _Bad
        return self.take(n)

    def skip_value(self, kind: int) -> None:
        if kind in _FIXED:
            self.skip(_FIXED[kind])
        elif kind == _STRING:
            self.skip_string()
        elif kind == _ARRAY:
            item, count = self.u32(), self.u64()
            if count > MAX_ARRAY_ITEMS or item == _ARRAY:
                raise _Bad
            if item in _FIXED:
                self.skip(_FIXED[item] * count)
            elif item == _STRING:
                for _ in range(count):
                    self.skip_string()
            else:
                raise _Bad
        else:
            raise _Bad

    def skip_string(self) -> None:
        n = self.u64()
        if n > MAX_STRING_BYTES:
            raise _Bad
        self.skip(n)


def file_type(path: Path) -> int | None:
    """``general.file_type`` of the GGUF file at ``path``; None when the file does not say or is not GGUF."""
    try:
        with path.open("rb") as handle:
            reader = _Reader(handle)
            if reader.take(4) != b"GGUF":
                return None
            version = reader.u32()
            if version not in (2, 3):  # version 1 (2023) used 32-bit counts; no current file is one
                return None
            reader.u64()  # tensor count
            pairs = reader.u64()
            for _ in range(min(pairs, MAX_PAIRS)):
                key, kind = reader.string(), reader.u32()
                if key == b"general.file_type" and kind in (_UINT32, 5):
                    return struct.unpack("<I" if kind == _UINT32 else "<i", reader.take(4))[0]
                reader.skip_value(kind)
    except (OSError, _Bad, struct.error):
        return None
    return None


def quantization(path: Path) -> str | None:
    """The quantization the file's header declares, in llama.cpp's words (``Q4_K_M``); None when unknown."""
    number = file_type(path)
    if number is None:
        return None
    return FILE_TYPES.get(number, f"file type {number}")
