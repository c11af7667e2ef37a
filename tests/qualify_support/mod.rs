//! Shared by the qualification CLI tests: a fresh deterministic sample per
//! case, edits of its files, sealing, and running `proofpack verify --json`.
#![allow(dead_code, unused_imports)]

#[path = "../common/mod.rs"]
pub mod common;
#[path = "../../examples/make_sample/gen.rs"]
pub mod gen;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use base64::Engine as _;
use proofpack::digest::Sha256Digest;
use serde_json::Value;

pub struct Case {
    pub dir: tempfile::TempDir,
    pub sample: gen::Sample,
}

pub fn fresh() -> Case {
    fresh_with(&gen::Params::default())
}

pub fn fresh_with(p: &gen::Params) -> Case {
    let dir = tempfile::tempdir().unwrap();
    let sample = gen::generate(dir.path(), p);
    std::fs::write(
        dir.path().join("trust.json"),
        gen::trust_json(&[
            (&gen::engine_key(), &["engine"], "TEST-ONLY engine"),
            (&gen::release_key(), &["release"], "TEST-ONLY release"),
            (&gen::host_key(), &["host"], "TEST-ONLY host"),
        ]),
    )
    .unwrap();
    Case { dir, sample }
}

pub use common::{proofpack_measured, Outcome};

impl Case {
    pub fn run(&self) -> PathBuf {
        self.sample.run.clone()
    }
    pub fn path(&self, rel: &str) -> PathBuf {
        self.sample.run.join(rel)
    }
    pub fn trust(&self) -> PathBuf {
        self.dir.path().join("trust.json")
    }
    pub fn bundle_path(&self) -> PathBuf {
        self.dir.path().join(format!("{}.tgz", gen::NAME))
    }
    /// Seals the run directory as it is now.
    pub fn seal(&self) -> Sha256Digest {
        let s = gen::seal_sample(&self.sample.run, &self.bundle_path()).expect("seal");
        s.bundle_sha256
    }
    /// Writes pins (with the bundle's digest if given), edited by `edit`.
    pub fn pins(&self, bundle: Option<Sha256Digest>, edit: impl FnOnce(&mut Value)) -> PathBuf {
        let mut v: Value = serde_json::from_slice(&gen::pins_json(&self.sample, bundle)).unwrap();
        edit(&mut v);
        let p = self.dir.path().join("pins.json");
        std::fs::write(&p, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
        p
    }
    pub fn edit_json(&self, rel: &str, edit: impl FnOnce(&mut Value)) {
        let p = self.path(rel);
        let mut v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        edit(&mut v);
        std::fs::write(&p, serde_json::to_vec_pretty(&v).unwrap()).unwrap();
    }
    pub fn edit_lines(&self, rel: &str, edit: impl FnOnce(&mut Vec<String>)) {
        let p = self.path(rel);
        let mut lines: Vec<String> = std::fs::read_to_string(&p)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        edit(&mut lines);
        let mut text = lines.join("\n");
        text.push('\n');
        std::fs::write(&p, text).unwrap();
    }
    /// Seals, pins the new bundle and verifies it with trust.
    pub fn verify_sealed(&self) -> Outcome {
        let d = self.seal();
        let pins = self.pins(Some(d), |_| {});
        verify(&self.bundle_path(), Some(&pins), Some(&self.trust()))
    }
}

impl Case {
    /// `verify` of the bundle at `sealed` with pins of its digest and
    /// trust, against the committed sample's write-up.
    pub fn verify_published(&self, sealed: &Path) -> Outcome {
        let writeup = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample/PUBLICATION.md");
        let pins = self.pins(
            Some(Sha256Digest::of_bytes(&std::fs::read(sealed).unwrap())),
            |_| {},
        );
        let trust = self.trust();
        verify_with(
            sealed,
            &[
                "--pins".as_ref(),
                pins.as_os_str(),
                "--trust".as_ref(),
                trust.as_os_str(),
                "--publication".as_ref(),
                writeup.as_os_str(),
            ],
        )
    }

    /// `verify --require-all` of the bundle as last sealed, against the
    /// committed sample's write-up (`--require-all` needs one; the checks
    /// of the write-up itself are not what such a test looks at).
    pub fn verify_require_all(&self) -> Outcome {
        let writeup = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample/PUBLICATION.md");
        verify_with(
            &self.bundle_path(),
            &[
                "--trust".as_ref(),
                self.trust().as_os_str(),
                "--publication".as_ref(),
                writeup.as_os_str(),
                "--require-all".as_ref(),
            ],
        )
    }
}

pub fn verify(target: &Path, pins: Option<&Path>, trust: Option<&Path>) -> Outcome {
    let mut args: Vec<&std::ffi::OsStr> =
        vec!["verify".as_ref(), target.as_os_str(), "--json".as_ref()];
    if let Some(p) = pins {
        args.extend(["--pins".as_ref(), p.as_os_str()]);
    }
    if let Some(t) = trust {
        args.extend(["--trust".as_ref(), t.as_os_str()]);
    }
    Outcome::of(&args)
}

/// Rewrites a sealed bundle's entries (after sealing, MANIFEST unchanged).
pub fn rewrite_bundle(tgz: &Path, edit: impl FnOnce(&mut Vec<(String, Vec<u8>)>)) {
    let mut raw = Vec::new();
    flate2::read::GzDecoder::new(std::fs::File::open(tgz).unwrap())
        .read_to_end(&mut raw)
        .unwrap();
    let mut entries = Vec::new();
    let mut ar = tar::Archive::new(&raw[..]);
    for e in ar.entries().unwrap() {
        let mut e = e.unwrap();
        let path = e.path().unwrap().to_string_lossy().into_owned();
        let mut data = Vec::new();
        e.read_to_end(&mut data).unwrap();
        entries.push((path, data));
    }
    edit(&mut entries);
    let typed: Vec<(String, tar::EntryType, Vec<u8>)> = entries
        .into_iter()
        .map(|(p, d)| (p, tar::EntryType::Regular, d))
        .collect();
    write_tgz(tgz, &typed);
}

/// Writes `entries` (path, type, data) as a gzipped ustar archive.
pub fn write_tgz(tgz: &Path, entries: &[(String, tar::EntryType, Vec<u8>)]) {
    let mut b = tar::Builder::new(Vec::new());
    for (path, kind, data) in entries {
        let mut h = tar::Header::new_ustar();
        h.set_path(path).unwrap();
        h.set_entry_type(*kind);
        h.set_size(data.len() as u64);
        h.set_mode(0o644);
        h.set_uid(0);
        h.set_gid(0);
        h.set_mtime(0);
        h.set_cksum();
        b.append(&h, &data[..]).unwrap();
    }
    let tar_bytes = b.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(&tar_bytes).unwrap();
    std::fs::write(tgz, gz.finish().unwrap()).unwrap();
}

pub fn root_rel(rel: &str) -> String {
    format!("{}/{rel}", gen::NAME)
}

pub fn resign(
    case: &Case,
    engine: usize,
    key: &ed25519_dalek::SigningKey,
    edit: impl FnOnce(&mut Value),
) {
    let mut st = gen::engine_statement(
        engine,
        &[
            ("weights.manifest", case.sample.weights_manifest),
            ("config.json", case.sample.config),
            ("engine-image", case.sample.image),
        ],
        &case.sample.image,
        gen::MODEL,
    );
    edit(&mut st);
    std::fs::write(
        case.path(&format!("attestations/engine-{engine}.dsse.json")),
        gen::sign_envelope(&st, &[key]),
    )
    .unwrap();
}

/// The Statement of a DSSE envelope file.
pub fn statement_of(path: &Path) -> Value {
    let b64 = base64::engine::general_purpose::STANDARD;
    let env: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    serde_json::from_slice(&b64.decode(env["payload"].as_str().unwrap()).unwrap()).unwrap()
}

impl Case {
    /// Re-signs host `i`'s launch-check report with the host key after
    /// `edit` (the publisher controls what the hosts sign).
    pub fn resign_host(&self, i: usize, edit: impl FnOnce(&mut Value)) {
        let path = self.path(&format!("hosts/{}.dsse.json", gen::host_name(i)));
        let mut st = statement_of(&path);
        edit(&mut st);
        std::fs::write(&path, gen::sign_envelope(&st, &[&gen::host_key()])).unwrap();
    }

    /// After an edit of the qualified fleet file: every host report made
    /// again for the fleet as it now is (v1.1, reports name its digest).
    pub fn rebind_hosts_to_fleet(&self) {
        let fleet = Sha256Digest::of_bytes(
            &std::fs::read(self.path("inputs/fleet-qualified.json")).unwrap(),
        );
        for i in 0..gen::ENGINES {
            self.resign_host(i, |st| {
                st["predicate"]["fleet"] = Value::String(fleet.prefixed())
            });
        }
    }
}

pub const J: &str = "router-journal.jsonl";
pub const C05: &str = "benchmark/rate-0.5/client.jsonl";

impl Case {
    /// Recomputes every claim of every point from its client records, as a
    /// publisher who edited the records would (same rounding as the sample).
    pub fn republish_claims(&self) {
        let q: Value =
            serde_json::from_slice(&std::fs::read(self.path("qualification.json")).unwrap())
                .unwrap();
        let mut claims = Vec::new();
        for p in q["points"].as_array().unwrap() {
            let file = p["client_records"].as_str().unwrap();
            let bytes = std::fs::read(self.path(file)).unwrap();
            let s = proofpack::run::records::read_client_records(
                &mut &bytes[..],
                file,
                p["name"].as_str().unwrap(),
                gen::SLO_TTFT_S,
                gen::SLO_TPOT_S,
            )
            .unwrap();
            let m = s.metrics;
            let f3 = |v: Option<f64>| format!("{:.3}", v.unwrap());
            let f1 = |v: Option<f64>| format!("{:.1}", v.unwrap());
            claims.push(serde_json::json!({
                "completed_rate": f3(m.completed_rate),
                "output_throughput": f1(m.output_throughput),
                "ttft_s": {"p50": f3(m.ttft_s[0]), "p95": f3(m.ttft_s[1]), "p99": f3(m.ttft_s[2])},
                "tpot_ms": {"p50": f1(m.tpot_ms[0]), "p95": f1(m.tpot_ms[1]), "p99": f1(m.tpot_ms[2])},
                "within_limits": m.within_limits
            }));
        }
        self.edit_json("qualification.json", |q| {
            for (p, c) in q["points"].as_array_mut().unwrap().iter_mut().zip(claims) {
                p["claims"] = c;
            }
        });
    }

    /// Edits every line of a JSON Lines file as a JSON value.
    pub fn edit_records(&self, rel: &str, mut edit: impl FnMut(&mut Value)) {
        self.edit_lines(rel, |lines| {
            for l in lines.iter_mut() {
                let mut v: Value = serde_json::from_str(l).unwrap();
                edit(&mut v);
                *l = serde_json::to_string(&v).unwrap();
            }
        });
    }
}

impl Outcome {
    /// The failed check ids.
    pub fn failed_ids(&self) -> Vec<String> {
        self.failed()
    }
    /// Exit 1 and exactly these checks failed (each named by id prefix).
    pub fn assert_only_failures(&self, ids: &[&str]) {
        let failed = self.failed();
        assert_eq!(self.code, 1, "expected exit 1; failed {failed:?}");
        for f in &failed {
            assert!(
                ids.iter().any(|i| f == i),
                "unexpected failure {f}; expected only {ids:?}\n{}",
                self.stdout
            );
        }
        for i in ids {
            assert!(
                failed.iter().any(|f| f == i),
                "{i} did not fail; failed {failed:?}"
            );
        }
    }
}

/// Runs `proofpack --no-catalog ARGS...`; (exit code, stdout, stderr).
pub fn proofpack(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    common::run_nocat(args)
}

/// `proofpack verify TARGET --json ARGS...` as an [`Outcome`].
pub fn verify_with(target: &Path, args: &[&std::ffi::OsStr]) -> Outcome {
    let mut all: Vec<&std::ffi::OsStr> =
        vec!["verify".as_ref(), target.as_os_str(), "--json".as_ref()];
    all.extend_from_slice(args);
    Outcome::of(&all)
}

/// A trust file in `dir` of the sample's TEST-ONLY public keys: each
/// (role, key name) pair is `--<role> keys/TEST-ONLY-<name>.pub`.
pub fn trust_of(dir: &Path, keys: &[(&str, &str)]) -> PathBuf {
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample");
    let out = dir.join("trust.json");
    let mut args: Vec<std::ffi::OsString> = vec!["key".into(), "trust".into()];
    for (role, key) in keys {
        args.push(format!("--{role}").into());
        args.push(sample.join(format!("keys/TEST-ONLY-{key}.pub")).into());
    }
    args.extend(["-o".into(), out.clone().into()]);
    let refs: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let (code, _, stderr) = proofpack(&refs);
    assert_eq!(code, 0, "{stderr}");
    out
}
