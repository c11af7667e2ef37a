#!/usr/bin/env python3
"""Writes the named seed inputs of the manifest_parse and envelope_verify fuzz
targets (fuzz/corpus/<target>/seed-*). Needs Python's `cryptography` (the
test venv: target/pyenv/bin/python fuzz/gen_parser_seeds.py). Rerun after
`cargo fuzz cmin`, which renames inputs by content hash."""
import base64, hashlib, json, os

here = os.path.dirname(os.path.abspath(__file__))
m = os.path.join(here, "corpus", "manifest_parse")
e = os.path.join(here, "corpus", "envelope_verify")
os.makedirs(m, exist_ok=True)
os.makedirs(e, exist_ok=True)
h = lambda b: hashlib.sha256(b).hexdigest()

canonical = f"a:{h(b'a')}\nb c/d:{h(b'b')}\nx:y:{h(b'c')}\n"
open(os.path.join(m, "seed-canonical"), "w").write(canonical)
open(os.path.join(m, "seed-sha256sum"), "w").write(f"{h(b'a')}  a\n\\{h(b'b')}  back\\\\slash\n{h(b'c')} *star\n")
entries = [{"path": "a", "size": 1, "sha256": h(b"a")}, {"path": "b c/d", "size": 1, "sha256": h(b"b")}, {"path": "x:y", "size": 1, "sha256": h(b"c")}]
rec = {"schema": "proofpack/manifest/v1", "digest": "sha256:" + h(canonical.encode()), "files": 3, "bytes": 3, "entries": entries}
open(os.path.join(m, "seed-json"), "w").write(json.dumps(rec))

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
key = Ed25519PrivateKey.from_private_bytes(bytes([7] * 32))  # the harness's fuzz key
st = {"_type": "https://in-toto.io/Statement/v1",
      "subject": [{"name": "weights.manifest", "digest": {"sha256": h(b"w")}}],
      "predicateType": "urn:proofpack:predicate:engine:v1",
      "predicate": {"engine": {"id": "engine-0", "name": "vllm", "version": "0.1", "image": "sha256:" + h(b"i")},
                    "host": "h", "model": "m", "accelerator": {"name": "a", "count": 8},
                    "parallelism": {"tensor": 8}, "launched_at": "2026-01-01T00:00:00Z", "generation": 0}}
payload = json.dumps(st).encode()
pt = "application/vnd.in-toto+json"
pae = b"DSSEv1 %d %s %d %s" % (len(pt), pt.encode(), len(payload), payload)
sig = key.sign(pae)
env = {"payloadType": pt, "payload": base64.b64encode(payload).decode(),
       "signatures": [{"keyid": "x", "sig": base64.b64encode(sig).decode()}]}
open(os.path.join(e, "seed-valid"), "w").write(json.dumps(env))
open(os.path.join(e, "seed-statement"), "w").write(json.dumps(st))
env["signatures"].append({"keyid": "y", "sig": base64.urlsafe_b64encode(sig).decode().rstrip("=")})
open(os.path.join(e, "seed-two-sigs"), "w").write(json.dumps(env))
