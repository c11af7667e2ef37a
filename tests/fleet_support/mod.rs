//! Shared by the fleet tests: four host roots holding the sample's shards,
//! their host keys, a trust file and a fleet file.
#![allow(dead_code)]

#[path = "../qualify_support/mod.rs"]
pub mod qualify_support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use qualify_support::*;
use serde_json::{json, Value};

pub fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

pub const HOSTS: [&str; 4] = ["node-0", "node-1", "node-2", "node-3"];

pub struct Fleet {
    pub dir: tempfile::TempDir,
    pub manifest: PathBuf,
    pub digest: String,
    /// The `--weights-pin` of `fleet verify`.
    pub pin: String,
    /// Its `--weights-record` (so that sizes-only reports can be held to
    /// its shard headers), if any.
    pub record: Option<PathBuf>,
    pub config: PathBuf,
}

/// The run the fleet tests' host checks are made for.
pub const RUN: &str = "fleet-test-run";

impl Fleet {
    pub fn root(&self, h: &str) -> PathBuf {
        self.dir.path().join("hosts").join(h).join("weights")
    }
    pub fn key(&self, h: &str) -> PathBuf {
        self.dir.path().join("keys").join(format!("{h}.key"))
    }
    pub fn report(&self, h: &str) -> PathBuf {
        self.dir
            .path()
            .join("reports")
            .join(format!("{h}.dsse.json"))
    }
    pub fn trust(&self) -> PathBuf {
        self.dir.path().join("trust.json")
    }
    pub fn fleet_file(&self) -> PathBuf {
        self.dir.path().join("fleet.json")
    }
    /// `host check` of host `h` (in `mode`) with its own key; exit code.
    pub fn check(&self, h: &str, mode: &str) -> i32 {
        self.check_as(h, h, mode)
    }
    pub fn check_as(&self, h: &str, key_of: &str, mode: &str) -> i32 {
        let (root, key, out) = (self.root(h), self.key(key_of), self.report(h));
        let fleet = self.fleet_file();
        let (code, _, stderr) = proofpack(&[
            os("host"),
            os("check"),
            root.as_os_str(),
            os("--weights"),
            self.manifest.as_os_str(),
            os("--config"),
            self.config.as_os_str(),
            os(mode),
            os("--host"),
            os(h),
            os("--run"),
            os(RUN),
            os("--fleet"),
            fleet.as_os_str(),
            os("--key"),
            key.as_os_str(),
            os("-o"),
            out.as_os_str(),
        ]);
        assert!(code == 0 || code == 1, "host check {h}: {stderr}");
        assert!(
            out.exists(),
            "a report is written whatever the outcome: {stderr}"
        );
        code
    }
    pub fn verify(&self, reports: &[PathBuf], mode: &str) -> Outcome {
        self.verify_with(reports, mode, &[])
    }
    /// [`Fleet::verify`] with `extra` arguments after the others.
    pub fn verify_with(&self, reports: &[PathBuf], mode: &str, extra: &[&OsStr]) -> Outcome {
        let (fleet, trust) = (self.fleet_file(), self.trust());
        let config =
            proofpack::digest::Sha256Digest::of_bytes(&std::fs::read(&self.config).unwrap())
                .to_hex();
        let mut args: Vec<&OsStr> = vec![os("fleet"), os("verify")];
        args.extend(reports.iter().map(|r| r.as_os_str()));
        args.extend([
            os("--fleet"),
            fleet.as_os_str(),
            os("--trust"),
            trust.as_os_str(),
            os("--weights-pin"),
            os(&self.pin),
            os("--config-pin"),
            os(&config),
            os("--mode"),
            os(mode),
            os("--json"),
        ]);
        if let Some(r) = &self.record {
            args.extend([os("--weights-record"), r.as_os_str()]);
        }
        args.extend(extra);
        let (code, stdout, stderr) = proofpack(&args);
        Outcome {
            code,
            report: serde_json::from_str(&stdout).unwrap_or(Value::Null),
            stdout: format!("{stdout}\n{stderr}"),
        }
    }
    pub fn all_reports(&self) -> Vec<PathBuf> {
        HOSTS.iter().map(|h| self.report(h)).collect()
    }
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// Four hosts holding the sample's 96 shards, their keys, trust and fleet.
pub fn fleet() -> Fleet {
    let c = fresh();
    let dir = tempfile::tempdir().unwrap();
    let mut trust = vec![os("key"), os("trust")];
    let keys = dir.path().join("keys");
    let pubs: Vec<PathBuf> = HOSTS
        .iter()
        .map(|h| {
            gen::write_keys(&keys, h, &gen::test_key(&format!("host {h}")));
            keys.join(format!("{h}.pub"))
        })
        .collect();
    for p in &pubs {
        trust.push(os("--host"));
        trust.push(p.as_os_str());
    }
    gen::write_keys(&keys, "engine", &gen::engine_key());
    let engine_pub = keys.join("engine.pub");
    trust.extend([os("--engine"), engine_pub.as_os_str()]);
    let trust_file = dir.path().join("trust.json");
    trust.extend([os("-o"), trust_file.as_os_str()]);
    assert_eq!(proofpack(&trust).0, 0);
    for h in HOSTS {
        copy_dir(
            &c.sample.weights,
            &dir.path().join("hosts").join(h).join("weights"),
        );
    }
    let manifest = dir.path().join("weights.manifest.json");
    let (code, _, stderr) = proofpack(&[
        os("manifest"),
        c.sample.weights.as_os_str(),
        os("--format"),
        os("json"),
        os("-o"),
        manifest.as_os_str(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let config = dir.path().join("config.json");
    std::fs::copy(c.path("inputs/config.json"), &config).unwrap();
    std::fs::write(
        dir.path().join("fleet.json"),
        serde_json::to_vec(
            &json!({"hosts": HOSTS.iter().map(|h| json!({"name": h})).collect::<Vec<_>>()}),
        )
        .unwrap(),
    )
    .unwrap();
    std::fs::create_dir_all(dir.path().join("reports")).unwrap();
    Fleet {
        dir,
        record: Some(manifest.clone()),
        manifest,
        digest: c.sample.weights_manifest.to_hex(),
        pin: c.sample.weights_manifest.to_hex(),
        config,
    }
}
