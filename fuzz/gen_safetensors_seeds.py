#!/usr/bin/env python3
"""Writes the named seeds of the safetensors_header fuzz target into
fuzz/corpus/safetensors_header/ (rerun after `cargo fuzz cmin`, which
renames inputs). Needs the pinned peers: target/pyenv/bin/python
fuzz/gen_safetensors_seeds.py

Each seed is one mode byte and the input: 0x00 then a whole file (written by
Python's safetensors, or a defective one built byte by byte), or 0x01 then
header text, which the harness frames itself."""
import json, os, struct, sys, tempfile
import numpy as np
from safetensors.numpy import save, save_file

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "safetensors_header")
os.makedirs(out, exist_ok=True)

def put(name, mode, data):
    with open(os.path.join(out, f"seed-{name}"), "wb") as f:
        f.write(bytes([mode]) + data)

def raw(header, data_len=0, n=None):
    h = header if isinstance(header, bytes) else json.dumps(header).encode()
    h += b" " * (-len(h) % 8)
    return struct.pack("<Q", len(h) if n is None else n) + h + b"\0" * data_len

t = lambda d, s, b, e: {"dtype": d, "shape": s, "data_offsets": [b, e]}
# Files written by the reference writer.
put("python-small", 0, save({"w": np.arange(6, dtype=np.float32).reshape(2, 3),
                             "b": np.zeros((0, 4), dtype=np.uint8),
                             "s": np.array(1.5, dtype=np.float64)}, metadata={"format": "pt"}))
put("python-dtypes", 0, save({f"t{i}": np.ones((2, 2), dtype=d) for i, d in enumerate(
    [np.bool_, np.int8, np.uint8, np.int16, np.float16, np.int32, np.float32, np.int64, np.float64])}))
put("python-empty", 0, save({}))
put("python-layers", 0, save({f"model.layers.{l}.mlp.experts.{e}.down_proj.weight": np.ones((4, 2), dtype=np.float16)
                              for l in range(3) for e in range(4)}, metadata={"format": "pt"}))
# Defects, one per rule.
ab = {"a": t("F32", [4], 0, 16), "b": t("F16", [2, 2], 16, 24)}
put("truncated", 0, raw(ab, 20))
put("trailing", 0, raw(ab, 29))
put("header-bounds", 0, struct.pack("<Q", 4096) + b"{}      ")
put("header-limit", 0, struct.pack("<Q", 1 << 63) + b"{}      ")
put("prefix-short", 0, b"\x08\0\0\0\0")
put("not-utf8", 0, raw(json.dumps(ab).encode().replace(b'"a"', b'"\xff"'), 24))
put("overlap", 0, raw({"a": t("F32", [4], 0, 16), "b": t("F32", [4], 12, 28), "c": t("F32", [1], 28, 32)}, 32))
put("gap", 0, raw({"a": t("F32", [4], 0, 16), "b": t("F32", [4], 20, 36)}, 36))
put("shape", 0, raw({"a": t("F32", [4], 0, 12)}, 12))
put("overflow", 0, raw({"a": t("U8", [1 << 32, 1 << 32, 2], 0, 0)}))
put("f4-misaligned", 0, raw({"a": t("F4", [3], 0, 1)}, 1))
put("f4-ok", 0, raw({"a": t("F4", [4], 0, 2), "b": t("F6_E2M3", [4], 2, 5)}, 5))
put("dtype", 0, raw({"a": t("F31", [4], 0, 16)}, 16))
put("duplicate", 0, raw(b'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}', 8))
put("reversed", 0, raw({"a": t("F32", [0], 4, 0)}))
put("nul-name", 0, raw({"a\0x": t("F32", [1], 0, 4)}, 4))
put("zero-size-shared", 0, raw({"a": t("F32", [0], 0, 0), "b": t("F32", [0], 0, 0), "c": t("U8", [1], 0, 1)}, 1))
# Header mode: the harness frames the text.
put("h-good", 1, json.dumps({"__metadata__": {"format": "pt"}, "x": t("BF16", [3, 5], 0, 30), "y": t("I64", [], 30, 38)}).encode())
put("h-array-entry", 1, b'{"a":["F32",[1],[0,4]]}')
put("h-dtype-object", 1, b'{"a":{"dtype":{"F32":null},"shape":[1],"data_offsets":[0,4]}}')
put("h-extra-fields", 1, b'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":[1,{"y":[[]]}]}}')
put("h-metadata-null", 1, b'{"__metadata__":null}')
put("h-metadata-twice", 1, b'{"__metadata__":{},"__metadata__":{"k":"v","k":"w"}}')
put("h-deep", 1, b'{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"x":' + b"[" * 200 + b"]" * 200 + b"}}")
put("h-float-shape", 1, b'{"a":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}}')
put("h-big-offset", 1, b'{"a":{"dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,18446744073709551615]}}')
print(len([f for f in os.listdir(out) if f.startswith("seed-")]), "seeds in", out)
