//! Keys and trust files: generation, key ids, foreign key types, bad trust files.

mod attest_support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use attest_support::*;
use proofpack::keys::{self, KeyError, Role, TrustStore};

fn stderr_of(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

fn openssl(args: &[&str], out: &Path) {
    let st = Command::new("openssl")
        .args(args)
        .arg("-out")
        .arg(out)
        .output()
        .expect("openssl");
    assert!(
        st.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&st.stderr)
    );
}

/// Foreign keys written by OpenSSL: (name, private PEM, public PEM).
fn foreign_keys(dir: &Path) -> Vec<(&'static str, PathBuf, PathBuf)> {
    let mut v = Vec::new();
    for (name, gen) in [
        (
            "RSA",
            vec![
                "genpkey",
                "-algorithm",
                "RSA",
                "-pkeyopt",
                "rsa_keygen_bits:1024",
            ],
        ),
        (
            "P-256",
            vec![
                "genpkey",
                "-algorithm",
                "EC",
                "-pkeyopt",
                "ec_paramgen_curve:P-256",
            ],
        ),
        ("Ed448", vec!["genpkey", "-algorithm", "ed448"]),
        ("X25519", vec!["genpkey", "-algorithm", "x25519"]),
    ] {
        let k = dir.join(format!("{name}.key"));
        let p = dir.join(format!("{name}.pub"));
        openssl(&gen, &k);
        openssl(&["pkey", "-pubout", "-in", k.to_str().unwrap()], &p);
        v.push((name, k, p));
    }
    v
}

#[test]
fn key_gen_writes_a_private_key_0600_and_never_overwrites() {
    let d = tempfile::tempdir().unwrap();
    let prefix = d.path().join("eng");
    let out = bin()
        .args(["key", "gen", "-o"])
        .arg(&prefix)
        .assert()
        .code(0);
    let id = String::from_utf8(out.get_output().stdout.clone())
        .unwrap()
        .trim()
        .to_string();
    assert_eq!(id.len(), 64);
    let key = d.path().join("eng.key");
    let pubk = d.path().join("eng.pub");
    assert_eq!(
        std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let key_text = std::fs::read_to_string(&key).unwrap();
    assert!(key_text.starts_with("-----BEGIN PRIVATE KEY-----\n"));
    assert!(std::fs::read_to_string(&pubk)
        .unwrap()
        .starts_with("-----BEGIN PUBLIC KEY-----\n"));
    let sk = keys::load_signing_key(&key).unwrap();
    assert_eq!(keys::key_id(&sk.verifying_key()), id);
    assert_eq!(keys::key_id(&keys::load_public_key(&pubk).unwrap()), id);

    // A second gen refuses and leaves both files as they were.
    let pub_text = std::fs::read_to_string(&pubk).unwrap();
    let e = stderr_of(
        &bin()
            .args(["key", "gen", "-o"])
            .arg(&prefix)
            .assert()
            .code(2),
    );
    assert!(e.contains("already exists") && e.contains("--force"), "{e}");
    assert_eq!(std::fs::read_to_string(&key).unwrap(), key_text);
    assert_eq!(std::fs::read_to_string(&pubk).unwrap(), pub_text);
    // Only the .pub existing also blocks (no orphan private key is written).
    std::fs::remove_file(&key).unwrap();
    bin()
        .args(["key", "gen", "-o"])
        .arg(&prefix)
        .assert()
        .code(2);
    assert!(!key.exists());
    // --force replaces both.
    let out = bin()
        .args(["key", "gen", "--force", "-o"])
        .arg(&prefix)
        .assert()
        .code(0);
    let id2 = String::from_utf8(out.get_output().stdout.clone())
        .unwrap()
        .trim()
        .to_string();
    assert_ne!(id2, id);
    assert_eq!(
        std::fs::metadata(&key).unwrap().permissions().mode() & 0o777,
        0o600
    );
    // No temporary files left behind.
    let mut names: Vec<String> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["eng.key", "eng.pub"]);
    // A prefix in a missing directory is an I/O error (exit 2).
    bin()
        .args(["key", "gen", "-o"])
        .arg(d.path().join("no/such/dir/k"))
        .assert()
        .code(2);
}

#[test]
fn keys_of_other_algorithms_are_refused_with_their_name() {
    let d = tempfile::tempdir().unwrap();
    for (name, private, public) in foreign_keys(d.path()) {
        let e = stderr_of(&bin().args(["key", "id"]).arg(&public).assert().code(2));
        assert!(
            e.contains(name) && e.contains("Ed25519 keys only"),
            "{name}: {e}"
        );
        let e = keys::load_signing_key(&private).unwrap_err();
        assert!(matches!(e, KeyError::WrongAlgorithm { .. }), "{name}: {e}");
        assert!(e.to_string().contains(name), "{e}");
    }
    // PKCS#1 / SEC1 labels.
    let rsa1 = d.path().join("rsa1.pem");
    openssl(
        &[
            "rsa",
            "-traditional",
            "-in",
            d.path().join("RSA.key").to_str().unwrap(),
        ],
        &rsa1,
    );
    assert!(matches!(
        keys::load_signing_key(&rsa1).unwrap_err(),
        KeyError::WrongAlgorithm { .. }
    ));
    let ec1 = d.path().join("ec1.pem");
    openssl(
        &["ec", "-in", d.path().join("P-256.key").to_str().unwrap()],
        &ec1,
    );
    let e = keys::load_signing_key(&ec1).unwrap_err();
    assert!(e.to_string().contains("EC"), "{e}");
}

#[test]
fn signing_with_a_foreign_key_fails_with_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let keys = foreign_keys(d.path());
    let pred = d.path().join("p.json");
    std::fs::write(&pred, "{}").unwrap();
    for (name, private, _) in keys {
        let e = stderr_of(
            &bin()
                .args(["attest", "sign", "--predicate-type", "urn:x"])
                .arg("--subject")
                .arg(format!("a=sha256:{}", "0".repeat(64)))
                .arg("--key")
                .arg(&private)
                .arg("--predicate")
                .arg(&pred)
                .arg("-o")
                .arg(d.path().join("out.json"))
                .assert()
                .code(2),
        );
        assert!(e.contains(name), "{name}: {e}");
    }
    assert!(!d.path().join("out.json").exists());
}

#[test]
fn public_and_private_keys_swapped_or_garbage() {
    let d = tempfile::tempdir().unwrap();
    let (k, p) = write_key(d.path(), "a", &test_key(1));
    let e = stderr_of(&bin().args(["key", "id"]).arg(&k).assert().code(2));
    assert!(e.contains("private key"), "{e}");
    assert!(keys::load_signing_key(&p)
        .unwrap_err()
        .to_string()
        .contains("public key"));
    let g = d.path().join("garbage");
    std::fs::write(&g, "hello").unwrap();
    let e = stderr_of(&bin().args(["key", "id"]).arg(&g).assert().code(2));
    assert!(e.contains("not a PEM"), "{e}");
    std::fs::write(
        &g,
        "-----BEGIN PUBLIC KEY-----\n!!!!\n-----END PUBLIC KEY-----\n",
    )
    .unwrap();
    bin().args(["key", "id"]).arg(&g).assert().code(2);
    bin()
        .args(["key", "id"])
        .arg(d.path().join("missing.pub"))
        .assert()
        .code(2);
    bin().args(["key", "id"]).arg(d.path()).assert().code(2);
}

#[test]
fn pkcs8_v2_private_keys_are_read() {
    use ed25519_dalek::pkcs8::spki::der::pem::LineEnding;
    use ed25519_dalek::pkcs8::EncodePrivateKey;
    let d = tempfile::tempdir().unwrap();
    let sk = test_key(5);
    let p = d.path().join("v2.key");
    std::fs::write(&p, sk.to_pkcs8_pem(LineEnding::LF).unwrap().as_bytes()).unwrap();
    assert_eq!(
        keys::load_signing_key(&p).unwrap().to_bytes(),
        sk.to_bytes()
    );
}

fn spki_pem_of_raw(raw: [u8; 32]) -> String {
    use base64::Engine as _;
    let mut der = vec![
        0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
    ];
    der.extend_from_slice(&raw);
    format!(
        "-----BEGIN PUBLIC KEY-----\n{}\n-----END PUBLIC KEY-----\n",
        B64.encode(der)
    )
}

#[test]
fn small_order_and_non_canonical_public_keys_are_refused() {
    // The identity point (y = 1), and y = 1 + p (non-canonical encoding).
    let mut identity = [0u8; 32];
    identity[0] = 1;
    let e = keys::parse_public_key_pem(&spki_pem_of_raw(identity), "t").unwrap_err();
    assert!(e.to_string().contains("small-order"), "{e}");
    let mut noncanon = [0xffu8; 32];
    noncanon[0] = 0xee; // p + 1 = 2^255 - 18
    noncanon[31] = 0x7f;
    let e = keys::parse_public_key_pem(&spki_pem_of_raw(noncanon), "t").unwrap_err();
    assert!(
        e.to_string().contains("non-canonical") || e.to_string().contains("small-order"),
        "{e}"
    );
}

fn trust_json(entries: &[(&str, &[&str], &str)]) -> String {
    let keys: Vec<serde_json::Value> = entries
        .iter()
        .map(|(id, roles, pem)| serde_json::json!({"keyid": id, "roles": roles, "public_key": pem}))
        .collect();
    serde_json::json!({"schema": "proofpack/trust/v1", "keys": keys}).to_string()
}

#[test]
fn trust_files_are_checked_on_load() {
    let a = test_key(1);
    let b = test_key(2);
    let pem_a = keys::public_key_pem(&a.verifying_key());
    let id_a = keys::key_id(&a.verifying_key());
    let id_b = keys::key_id(&b.verifying_key());

    let ok = TrustStore::parse(
        trust_json(&[(&id_a.to_uppercase(), &["engine", "release"], &pem_a)]).as_bytes(),
        "t",
    )
    .unwrap();
    assert_eq!(
        ok.keys()[0].keyid,
        id_a,
        "upper-case key ids are normalised"
    );
    assert_eq!(ok.keys_for(Role::Release).count(), 1);
    // Round trip through to_json.
    assert_eq!(TrustStore::parse(ok.to_json().as_bytes(), "t").unwrap(), ok);

    let cases: Vec<(String, &str)> = vec![
        (trust_json(&[(&id_b, &["engine"], &pem_a)]), "says keyid"),
        (
            trust_json(&[(&id_a, &["engine"], &pem_a), (&id_a, &["release"], &pem_a)]),
            "listed twice",
        ),
        (trust_json(&[(&id_a, &["admin"], &pem_a)]), "unknown role"),
        (trust_json(&[(&id_a, &[], &pem_a)]), "no roles"),
        (
            trust_json(&[(&id_a, &["engine", "engine"], &pem_a)]),
            "listed twice",
        ),
        (trust_json(&[("xyz", &["engine"], &pem_a)]), "64 hex"),
        (trust_json(&[(&id_a, &["engine"], "not pem")]), "not a PEM"),
        (
            trust_json(&[(&id_a, &["engine"], keys::private_key_pem(&a).as_str())]),
            "private key",
        ),
        (
            r#"{"schema": "proofpack/trust/v1", "keys": [], "extra": 1}"#.to_string(),
            "unknown field",
        ),
        (
            r#"{"schema": "proofpack/trust/v2", "keys": []}"#.to_string(),
            "schema",
        ),
        (
            r#"{"schema": "proofpack/trust/v1", "schema": "proofpack/trust/v1", "keys": []}"#
                .to_string(),
            "duplicate",
        ),
        ("[1, 2".to_string(), "EOF"),
    ];
    let d = tempfile::tempdir().unwrap();
    let env = d.path().join("env.json");
    std::fs::write(
        &env,
        proofpack::attest::sign_statement(&engine_statement(), &[&a]),
    )
    .unwrap();
    for (i, (text, want)) in cases.iter().enumerate() {
        let e = TrustStore::parse(text.as_bytes(), "trust.json")
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "case {i}: {e}");
        let p = d.path().join(format!("trust{i}.json"));
        std::fs::write(&p, text).unwrap();
        let err = stderr_of(
            &bin()
                .args(["attest", "verify"])
                .arg(&env)
                .arg("--trust")
                .arg(&p)
                .assert()
                .code(2),
        );
        assert!(err.contains(want), "case {i} via CLI: {err}");
    }
    // RSA key inside a trust file.
    let rsa = foreign_keys(d.path()).remove(0).2;
    let rsa_pem = std::fs::read_to_string(rsa).unwrap();
    let e = TrustStore::parse(
        trust_json(&[(&id_a, &["engine"], &rsa_pem)]).as_bytes(),
        "t",
    )
    .unwrap_err();
    assert!(e.to_string().contains("RSA"), "{e}");
    // Missing trust file, and a trust file with no key for the role.
    bin()
        .args(["attest", "verify"])
        .arg(&env)
        .arg("--trust")
        .arg(d.path().join("nope.json"))
        .assert()
        .code(2);
    let only_release = write_trust(d.path(), "rel.json", &trust_of(&[(&a, &[Role::Release])]));
    let err = stderr_of(
        &bin()
            .args(["attest", "verify"])
            .arg(&env)
            .arg("--trust")
            .arg(&only_release)
            .assert()
            .code(2),
    );
    assert!(err.contains("no key is trusted for role engine"), "{err}");
}

#[test]
fn key_trust_builds_a_trust_file() {
    let d = tempfile::tempdir().unwrap();
    let (_, pa) = write_key(d.path(), "engine-0", &test_key(1));
    let (_, pb) = write_key(d.path(), "release", &test_key(2));
    let t = d.path().join("trust.json");
    bin()
        .args(["key", "trust", "--engine"])
        .arg(&pa)
        .arg("--release")
        .arg(&pb)
        .arg("--engine")
        .arg(&pb)
        .arg("-o")
        .arg(&t)
        .assert()
        .code(0);
    let store = TrustStore::load(&t).unwrap();
    assert_eq!(store.keys().len(), 2);
    assert_eq!(store.keys_for(Role::Engine).count(), 2);
    assert_eq!(store.keys_for(Role::Release).count(), 1);
    assert_eq!(store.keys()[0].label.as_deref(), Some("engine-0"));
    let t2 = d.path().join("trust2.json");
    let (_, pc) = write_key(d.path(), "engine-1", &test_key(3));
    bin()
        .args(["key", "trust", "--from"])
        .arg(&t)
        .arg("--engine")
        .arg(&pc)
        .arg("-o")
        .arg(&t2)
        .assert()
        .code(0);
    assert_eq!(TrustStore::load(&t2).unwrap().keys().len(), 3);
    bin().args(["key", "trust"]).assert().code(2);
}
