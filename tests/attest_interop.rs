//! Interop, both ways, with independent implementations: Python's
//! `cryptography` (PAE written out by hand), securesystemslib's DSSE
//! implementation, and OpenSSL for key ids. Needs the Python peers that
//! scripts/test.sh installs; fails (never skips) without them.

mod attest_support;

use std::path::Path;
use std::process::Command;

use attest_support::*;
use serde_json::Value;

/// Python: generate an Ed25519 key with `cryptography`, write PKCS#8 and
/// SPKI PEM, build an in-toto Statement, sign PAE by hand, write the
/// envelope with the given base64 flavour.
const PY_SIGN: &str = r#"
import base64, hashlib, json, sys
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives import serialization as s
out, flavour = sys.argv[1], sys.argv[2]
sk = Ed25519PrivateKey.generate()
pk = sk.public_key()
open(out + "/py.key", "wb").write(sk.private_bytes(s.Encoding.PEM, s.PrivateFormat.PKCS8, s.NoEncryption()))
open(out + "/py.pub", "wb").write(pk.public_bytes(s.Encoding.PEM, s.PublicFormat.SubjectPublicKeyInfo))
der = pk.public_bytes(s.Encoding.DER, s.PublicFormat.SubjectPublicKeyInfo)
keyid = hashlib.sha256(der).hexdigest()
h = lambda b: hashlib.sha256(b).hexdigest()
stmt = {"_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": "weights.manifest", "digest": {"sha256": h(b"weights"), "sha512": "ab"}},
                    {"name": "config.json", "digest": {"sha256": h(b"config")}, "annotations": {"x": 1}},
                    {"name": "engine-image", "digest": {"sha256": h(b"image")}}],
        "predicateType": "urn:proofpack:predicate:engine:v1",
        "predicate": {"engine": {"id": "engine-0", "name": "vllm", "version": "0.11.0",
                                 "image": "sha256:" + h(b"image")},
                      "host": "node-a", "model": "moonshotai/Kimi-K3",
                      "accelerator": {"name": "MI355X", "count": 8},
                      "parallelism": {"tensor": 8},
                      "launched_at": "2026-09-23T10:00:00Z", "generation": 2}}
if flavour == "other-tool":
    # As other writers emit it: extra predicate fields, integral floats
    # (protobuf JSON), and a signature whose base64 has non-zero unused bits.
    p = stmt["predicate"]
    p["accelerator"]["count"] = 8.0
    p["parallelism"]["tensor"] = 8.0
    p["generation"] = 2.0
    p["engine"]["build"] = "rocm7"
    p["runtime"] = {"python": "3.11"}
payload = json.dumps(stmt, indent=1).encode()
ptype = "application/vnd.in-toto+json"
pae = b"DSSEv1 %d %s %d %s" % (len(ptype), ptype.encode(), len(payload), payload)
sig = sk.sign(pae)
if flavour == "std":
    enc = lambda b: base64.b64encode(b).decode()
elif flavour == "url-nopad":
    enc = lambda b: base64.urlsafe_b64encode(b).decode().rstrip("=")
elif flavour == "other-tool":
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    def enc(b):
        t = base64.b64encode(b).decode()
        if len(b) % 3 == 1:  # two characters, the second with 4 unused bits
            i = len(t) - 3
            t = t[:i] + alphabet[alphabet.index(t[i]) | 1] + t[i + 1:]
            assert base64.b64decode(t) == b
        return t
else:
    raise SystemExit("flavour")
env = {"payloadType": ptype, "payload": enc(payload),
       "signatures": [{"keyid": keyid, "sig": enc(sig)}], "extra": "ignored"}
open(out + "/py.dsse.json", "w").write(json.dumps(env))
print(keyid)
"#;

/// Python: verify a proofpack envelope independently: PAE by hand, key from
/// the SPKI PEM, `cryptography`'s Ed25519 verify; print the subjects.
const PY_VERIFY: &str = r#"
import base64, hashlib, json, sys
from cryptography.hazmat.primitives.serialization import load_pem_public_key, load_pem_private_key, Encoding, PublicFormat
env = json.load(open(sys.argv[1]))
pk = load_pem_public_key(open(sys.argv[2], "rb").read())
sk = load_pem_private_key(open(sys.argv[3], "rb").read(), password=None)
assert sk.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw) == pk.public_bytes(Encoding.Raw, PublicFormat.Raw)
keyid = hashlib.sha256(pk.public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)).hexdigest()
assert env["payloadType"] == "application/vnd.in-toto+json"
payload = base64.b64decode(env["payload"], validate=True)
ptype = env["payloadType"].encode()
pae = b"DSSEv1 " + str(len(ptype)).encode() + b" " + ptype + b" " + str(len(payload)).encode() + b" " + payload
[sig] = env["signatures"]
assert sig["keyid"] == keyid, (sig["keyid"], keyid)
pk.verify(base64.b64decode(sig["sig"], validate=True), pae)
try:
    pk.verify(base64.b64decode(sig["sig"]), pae + b" ")
    raise SystemExit("tampered PAE verified")
except Exception as e:
    if isinstance(e, SystemExit): raise
st = json.loads(payload)
assert st["_type"] == "https://in-toto.io/Statement/v1"
print(st["predicateType"])
for s in st["subject"]:
    print(s["name"], s["digest"]["sha256"])
"#;

/// securesystemslib: verify a proofpack envelope with its DSSE Envelope and
/// an SSlibKey made from the SPKI PEM (key id set to proofpack's, since
/// sslib matches signatures to keys by id).
const SSLIB_VERIFY: &str = r#"
import json, sys
from cryptography.hazmat.primitives.serialization import load_pem_public_key
from securesystemslib.dsse import Envelope
from securesystemslib.signer import SSlibKey
from securesystemslib.exceptions import VerificationError
env = Envelope.from_dict(json.load(open(sys.argv[1])))
key = SSlibKey.from_crypto(load_pem_public_key(open(sys.argv[2], "rb").read()), keyid=sys.argv[3])
assert key.keytype == "ed25519", key.keytype
accepted = env.verify([key], 1)
print(",".join(accepted))
env.payload = env.payload.replace(b"Kimi-K3", b"Kimi-K4")
try:
    env.verify([key], 1)
    raise SystemExit("tampered envelope verified by sslib")
except VerificationError:
    print("tamper-rejected")
"#;

/// securesystemslib: sign a Statement with its CryptoSigner (sslib's own
/// key id, not proofpack's) and write the envelope.
const SSLIB_SIGN: &str = r#"
import hashlib, json, sys
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives import serialization as s
from securesystemslib.dsse import Envelope
from securesystemslib.signer import CryptoSigner, SSlibKey
out = sys.argv[1]
sk = Ed25519PrivateKey.generate()
open(out + "/sslib.pub", "wb").write(sk.public_key().public_bytes(s.Encoding.PEM, s.PublicFormat.SubjectPublicKeyInfo))
signer = CryptoSigner(sk, SSlibKey.from_crypto(sk.public_key()))
h = lambda b: hashlib.sha256(b).hexdigest()
stmt = {"_type": "https://in-toto.io/Statement/v1",
        "subject": [{"name": "bundle.tgz", "digest": {"sha256": h(b"bundle")}},
                    {"name": "MANIFEST", "digest": {"sha256": h(b"manifest")}}],
        "predicateType": "urn:proofpack:predicate:seal:v1",
        "predicate": {"files": 3, "bytes": 1234, "sealed_at": "2026-09-23T10:00:00Z"}}
env = Envelope(json.dumps(stmt).encode(), "application/vnd.in-toto+json", {})
env.sign(signer)
open(out + "/sslib.dsse.json", "w").write(json.dumps(env.to_dict()))
print(signer.public_key.keyid)
"#;

fn stdout_of(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stdout.clone()).unwrap()
}

fn openssl_key_id(pub_pem: &Path) -> String {
    let out = Command::new("openssl")
        .args(["pkey", "-pubin", "-outform", "DER", "-in"])
        .arg(pub_pem)
        .output()
        .expect("openssl is needed for the key id interop test");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout.len(), 44, "Ed25519 SPKI DER is 44 bytes");
    proofpack::digest::Sha256Digest::of_bytes(&out.stdout).to_hex()
}

fn key_id_cli(pub_pem: &Path) -> String {
    stdout_of(&bin().arg("key").arg("id").arg(pub_pem).assert().code(0))
        .trim()
        .to_string()
}

#[test]
fn python_cryptography_envelope_verifies_in_proofpack() {
    for flavour in ["std", "url-nopad", "other-tool"] {
        let d = tempfile::tempdir().unwrap();
        let py_keyid = run_python(PY_SIGN, &[d.path(), Path::new(flavour)])
            .trim()
            .to_string();
        let py_pub = d.path().join("py.pub");
        assert_eq!(key_id_cli(&py_pub), py_keyid);
        assert_eq!(openssl_key_id(&py_pub), py_keyid);
        let trust = d.path().join("trust.json");
        bin()
            .args(["key", "trust", "--engine"])
            .arg(&py_pub)
            .arg("-o")
            .arg(&trust)
            .assert()
            .code(0);
        let out = bin()
            .args(["attest", "verify"])
            .arg(d.path().join("py.dsse.json"))
            .arg("--trust")
            .arg(&trust)
            .assert()
            .code(0);
        let text = stdout_of(&out);
        assert!(
            text.contains("predicateType: urn:proofpack:predicate:engine:v1"),
            "{text}"
        );
        let w = digest("weights").to_hex();
        assert!(
            text.contains(&format!("subject: weights.manifest sha256:{w}")),
            "{text}"
        );
        assert!(text.contains(&format!("signer: {py_keyid} (py)")), "{text}");
        // The predicate is one proofpack accepts as an engine predicate.
        let bytes = std::fs::read(d.path().join("py.dsse.json")).unwrap();
        let t = proofpack::keys::TrustStore::load(&trust).unwrap();
        let v = proofpack::attest::verify_envelope(&bytes, &t, proofpack::keys::Role::Engine, 1)
            .unwrap();
        let p = proofpack::attest::EnginePredicate::from_statement(&v).unwrap();
        assert_eq!(p.generation, 2);
        // proofpack can sign with the key Python wrote (PKCS#8 PEM).
        let sk = proofpack::keys::load_signing_key(&d.path().join("py.key")).unwrap();
        assert_eq!(proofpack::keys::key_id(&sk.verifying_key()), py_keyid);
    }
}

#[test]
fn proofpack_envelope_verifies_in_python_and_securesystemslib() {
    let d = tempfile::tempdir().unwrap();
    let prefix = d.path().join("engine-0");
    let id = stdout_of(
        &bin()
            .args(["key", "gen", "-o"])
            .arg(&prefix)
            .assert()
            .code(0),
    )
    .trim()
    .to_string();
    let pubkey = d.path().join("engine-0.pub");
    let key = d.path().join("engine-0.key");
    assert_eq!(openssl_key_id(&pubkey), id);
    assert_eq!(key_id_cli(&pubkey), id);
    // OpenSSL reads the private key and derives the same public key.
    let out = Command::new("openssl")
        .args(["pkey", "-pubout", "-in"])
        .arg(&key)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        std::fs::read_to_string(&pubkey).unwrap()
    );

    let cfg = d.path().join("config.json");
    std::fs::write(&cfg, b"{\"hidden_size\": 7168}\n").unwrap();
    let wm = d.path().join("weights.manifest");
    std::fs::write(
        &wm,
        format!("model-00001.safetensors:{}\n", digest("shard").to_hex()),
    )
    .unwrap();
    let env = d.path().join("engine-0.dsse.json");
    bin()
        .args(["attest", "engine", "--key"])
        .arg(&key)
        .args([
            "--engine-id",
            "engine-0",
            "--engine-name",
            "vllm",
            "--engine-version",
            "0.11.0",
        ])
        .arg("--image")
        .arg(digest("image").prefixed())
        .args(["--host", "node-a", "--model", "moonshotai/Kimi-K3"])
        .args([
            "--accelerator",
            "MI355X",
            "--accelerator-count",
            "8",
            "--parallelism",
            "tensor=8",
        ])
        .args(["--launched-at", "2026-09-23T10:00:00Z", "--generation", "1"])
        .arg("--weights-manifest")
        .arg(&wm)
        .arg("--config")
        .arg(&cfg)
        .arg("-o")
        .arg(&env)
        .assert()
        .code(0);

    let py = run_python(PY_VERIFY, &[&env, &pubkey, &key]);
    let mut lines = py.lines();
    assert_eq!(lines.next(), Some("urn:proofpack:predicate:engine:v1"));
    let subjects: Vec<&str> = lines.collect();
    let wm_digest =
        proofpack::digest::Sha256Digest::of_bytes(&std::fs::read(&wm).unwrap()).to_hex();
    let cfg_digest =
        proofpack::digest::Sha256Digest::of_bytes(&std::fs::read(&cfg).unwrap()).to_hex();
    assert_eq!(
        subjects,
        vec![
            format!("weights.manifest {wm_digest}"),
            format!("config.json {cfg_digest}"),
            format!("engine-image {}", digest("image").to_hex()),
        ]
    );

    let sslib = run_python(SSLIB_VERIFY, &[&env, &pubkey, Path::new(&id)]);
    assert_eq!(
        sslib.lines().collect::<Vec<_>>(),
        vec![id.as_str(), "tamper-rejected"]
    );
}

#[test]
fn securesystemslib_envelope_verifies_in_proofpack() {
    let d = tempfile::tempdir().unwrap();
    let sslib_keyid = run_python(SSLIB_SIGN, &[d.path()]).trim().to_string();
    let pubkey = d.path().join("sslib.pub");
    let our_id = key_id_cli(&pubkey);
    assert_ne!(
        sslib_keyid, our_id,
        "sslib uses its own key id scheme; the id is only a hint"
    );
    let trust = d.path().join("trust.json");
    bin()
        .args(["key", "trust", "--release"])
        .arg(&pubkey)
        .arg("-o")
        .arg(&trust)
        .assert()
        .code(0);
    let env = d.path().join("sslib.dsse.json");
    let out = bin()
        .args(["attest", "verify", "--role", "release", "--json"])
        .arg(&env)
        .arg("--trust")
        .arg(&trust)
        .assert()
        .code(0);
    let r: Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(r["ok"], true);
    let st = r["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "statement")
        .unwrap();
    assert_eq!(
        st["actual"]["predicateType"],
        "urn:proofpack:predicate:seal:v1"
    );
    assert_eq!(
        st["actual"]["subjects"]["MANIFEST"],
        digest("manifest").prefixed()
    );
    assert_eq!(st["actual"]["signers"][0], our_id.as_str());
    // Not trusted for engine: the same envelope fails for that role.
    bin()
        .args(["attest", "verify"])
        .arg(&env)
        .arg("--trust")
        .arg(&trust)
        .assert()
        .code(2);
}

/// Every key shipped in testdata/ loads in OpenSSL and in Python's
/// `cryptography`, and both compute proofpack's key id for it.
#[test]
fn every_shipped_key_loads_in_openssl_and_cryptography() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let mut keys = Vec::new();
    for e in walkdir::WalkDir::new(&root) {
        let p = e.unwrap().into_path();
        if matches!(p.extension().and_then(|x| x.to_str()), Some("key" | "pub")) {
            keys.push(p);
        }
    }
    keys.sort();
    assert!(
        keys.len() >= 4,
        "expected the sample's keys, found {keys:?}"
    );
    for k in &keys {
        let private = k.extension().unwrap() == "key";
        let mut cmd = Command::new("openssl");
        cmd.arg("pkey");
        if !private {
            cmd.arg("-pubin");
        }
        let out = cmd.arg("-in").arg(k).arg("-noout").output().unwrap();
        assert!(
            out.status.success(),
            "openssl cannot read {}: {}",
            k.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let py = run_python(
            r#"
import sys, hashlib
from cryptography.hazmat.primitives import serialization as s
data = open(sys.argv[1], "rb").read()
if sys.argv[2] == "key":
    k = s.load_pem_private_key(data, None).public_key()
else:
    k = s.load_pem_public_key(data)
print(hashlib.sha256(k.public_bytes(s.Encoding.DER, s.PublicFormat.SubjectPublicKeyInfo)).hexdigest())
"#,
            &[k.as_path(), Path::new(if private { "key" } else { "pub" })],
        );
        if !private {
            assert_eq!(py.trim(), key_id_cli(k), "{}", k.display());
            assert_eq!(py.trim(), openssl_key_id(k), "{}", k.display());
        }
    }
}
