"""Read an ONNX file's opset imports and producer without the onnx package (standard library).

ModelProto is a protobuf message; the fields needed sit at the top level: 2 producer_name,
3 producer_version, 8 opset_import (OperatorSetIdProto: 1 domain, 2 version). The graph (field 7,
most of the file) is skipped by its length, never parsed.
"""

from __future__ import annotations

from typing import Optional


def _varint(buf: bytes, i: int) -> tuple[int, int]:
    shift = result = 0
    while True:
        if i >= len(buf):
            raise ValueError("truncated varint")
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7
        if shift > 63:
            raise ValueError("varint too long")


def _fields(buf: bytes):
    """(field number, wire type, value) of each top-level field; bytes for length-delimited."""
    i = 0
    while i < len(buf):
        key, i = _varint(buf, i)
        num, wire = key >> 3, key & 7
        if wire == 0:
            val, i = _varint(buf, i)
        elif wire == 1:
            val, i = buf[i : i + 8], i + 8
        elif wire == 2:
            n, i = _varint(buf, i)
            val, i = buf[i : i + n], i + n
        elif wire == 5:
            val, i = buf[i : i + 4], i + 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield num, wire, val


def read_meta(path: str) -> Optional[dict]:
    """{opset: {domain: version}, producer, producer_version, ir_version}, None if unreadable."""
    try:
        with open(path, "rb") as fh:
            buf = fh.read()
        out: dict = {"opset": {}, "producer": None, "producer_version": None, "ir_version": None}
        for num, wire, val in _fields(buf):
            if num == 1 and wire == 0:
                out["ir_version"] = val
            elif num == 2 and wire == 2:
                out["producer"] = val.decode("utf-8", "replace")
            elif num == 3 and wire == 2:
                out["producer_version"] = val.decode("utf-8", "replace")
            elif num == 8 and wire == 2:
                domain, version = "", None
                for n2, w2, v2 in _fields(val):
                    if n2 == 1 and w2 == 2:
                        domain = v2.decode("utf-8", "replace")
                    elif n2 == 2 and w2 == 0:
                        version = v2
                out["opset"][domain or "ai.onnx"] = version
        return out
    except (OSError, ValueError):
        return None
