//! The Ansible playbook of deploy/ansible/ run for real with ansible-core
//! (pinned in scripts/requirements-test.txt, installed by scripts/test.sh)
//! against an inventory of four hosts on Ansible's local connection, each
//! with its own weights root: the fleet passes; with one truncated shard on
//! one host, the playbook fails and its verdict names that host; the mode
//! set once in the inventory is the one both the host checks and the fleet
//! verdict use.

use fleet_support::qualify_support::common;

mod fleet_support;

use std::path::{Path, PathBuf};

use common::python;
use fleet_support::*;

fn ansible_playbook() -> PathBuf {
    let bin = python().parent().unwrap().join("ansible-playbook");
    assert!(
        bin.exists(),
        "{} is missing: scripts/test.sh installs ansible-core into target/pyenv",
        bin.display()
    );
    bin
}

fn inventory(f: &Fleet, vars: &str) -> PathBuf {
    let mut ini = String::from("[fleet]\n");
    for h in HOSTS {
        ini.push_str(&format!(
            "{h} ansible_connection=local weights_root={} host_key={} model_config={}\n",
            f.root(h).display(),
            f.key(h).display(),
            f.config.display()
        ));
    }
    ini.push_str("\n[all:vars]\nansible_python_interpreter=");
    ini.push_str(&python().display().to_string());
    ini.push('\n');
    ini.push_str(vars);
    let p = f.dir.path().join("inventory.ini");
    std::fs::write(&p, ini).unwrap();
    p
}

fn run_playbook(f: &Fleet) -> (i32, String) {
    run_playbook_with(f, "")
}

/// The playbook with more inventory variables (`[all:vars]` lines).
fn run_playbook_with(f: &Fleet, vars: &str) -> (i32, String) {
    let reports = f.dir.path().join("collected");
    std::fs::create_dir_all(&reports).unwrap();
    let config =
        proofpack::digest::Sha256Digest::of_bytes(&std::fs::read(&f.config).unwrap()).to_hex();
    let playbook = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/ansible/launch-check.yml");
    let out = std::process::Command::new(ansible_playbook())
        .arg("-i")
        .arg(inventory(f, vars))
        .arg(&playbook)
        .arg("-e")
        .arg(format!(
            "proofpack={} weights_manifest={} weights_pin={} config_pin={config} trust_file={} reports_dir={} remote_base={}",
            common::bin().display(),
            f.manifest.display(),
            f.digest,
            f.trust().display(),
            reports.display(),
            f.dir.path().display()
        ))
        .env("ANSIBLE_HOME", f.dir.path().join("ansible-home"))
        .env("ANSIBLE_LOCAL_TEMP", f.dir.path().join("ansible-tmp"))
        .env("ANSIBLE_NOCOLOR", "1")
        .env("ANSIBLE_HOST_KEY_CHECKING", "False")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[test]
fn ansible_launch_check_of_four_hosts() {
    let f = fleet();
    let (code, out) = run_playbook(&f);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("fleet verify: VERIFIED, all 4 hosts"), "{out}");
    // Nothing but the manifest was copied, and nothing is left on the hosts.
    for h in HOSTS {
        assert!(!f
            .dir
            .path()
            .join(format!("proofpack-launch-check-{h}"))
            .exists());
    }
}

#[test]
fn ansible_verdict_names_the_host_with_a_truncated_shard() {
    let f = fleet();
    let shard = f.root("node-2").join("model-00042-of-00096.safetensors");
    let len = std::fs::metadata(&shard).unwrap().len();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&shard)
        .unwrap()
        .set_len(len - 3)
        .unwrap();
    let (code, out) = run_playbook(&f);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("fleet verify: FAILED on node-2"), "{out}");
}

/// The play's default mode is `host check`'s own (full): a shard with
/// one flipped byte, its size unchanged, fails its host.
#[test]
fn ansible_default_mode_finds_a_flipped_byte() {
    let f = fleet();
    let shard = f.root("node-1").join("model-00007-of-00096.safetensors");
    let mut bytes = std::fs::read(&shard).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    std::fs::write(&shard, bytes).unwrap();
    let (code, out) = run_playbook(&f);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("fleet verify: FAILED on node-1"), "{out}");
}

#[test]
fn the_mode_set_in_the_inventory_is_the_hosts_and_the_fleets() {
    let f = fleet();
    let (code, out) = run_playbook_with(&f, "proofpack_mode=full\n");
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("fleet verify: VERIFIED, all 4 hosts"), "{out}");
    assert!(!out.contains("reserved name"), "{out}");
    // Every report the hosts signed is a full check (fleet verify --mode
    // full would have failed a sizes-only one, as it did when the play set
    // its own mode over the inventory's).
    for h in HOSTS {
        let report = f
            .dir
            .path()
            .join("collected")
            .join(format!("{h}.dsse.json"));
        let env: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&report).unwrap()).unwrap();
        use base64::Engine as _;
        let payload = base64::engine::general_purpose::STANDARD
            .decode(env["payload"].as_str().unwrap())
            .unwrap();
        let st: serde_json::Value = serde_json::from_slice(&payload).unwrap();
        assert_eq!(st["predicate"]["mode"], "full", "{h}: {st}");
    }
}
