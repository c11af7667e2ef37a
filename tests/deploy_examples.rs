//! The orchestration examples under deploy/ are checked as far as this
//! machine can: every shell script and Slurm batch file parses (`bash -n`),
//! every Kubernetes manifest is YAML whose documents have an apiVersion and a
//! kind, and the Ansible playbook passes `ansible-playbook --syntax-check`
//! (it is also run end to end by tests/fleet_ansible.rs). Slurm and
//! Kubernetes are not run here (docs/fleet.md says so).

#[path = "common/mod.rs"]
mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn files(dir: &str, exts: &[&str]) -> Vec<PathBuf> {
    let d = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("deploy")
        .join(dir);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&d)
        .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| exts.iter().any(|e| x == *e)))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no {exts:?} files in {}", d.display());
    v
}

#[test]
fn slurm_scripts_parse() {
    for f in files("slurm", &["sh", "sbatch"]) {
        let out = Command::new("bash").arg("-n").arg(&f).output().unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            f.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn kubernetes_manifests_are_yaml_objects() {
    let script = r#"
import sys, yaml
for f in sys.argv[1:]:
    docs = [d for d in yaml.safe_load_all(open(f)) if d is not None]
    assert docs, f + ": no document"
    for d in docs:
        assert isinstance(d, dict) and d.get("apiVersion") and d.get("kind"), f + ": a document without apiVersion/kind"
print("ok")
"#;
    let out = Command::new(common::python())
        .arg("-c")
        .arg(script)
        .args(files("kubernetes", &["yaml", "yml"]))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn ansible_playbook_syntax() {
    let bin = common::python().parent().unwrap().join("ansible-playbook");
    for f in files("ansible", &["yml", "yaml"]) {
        let d = tempfile::tempdir().unwrap();
        let out = Command::new(&bin)
            .arg("--syntax-check")
            .arg("-i")
            .arg("localhost,")
            .arg(&f)
            .env("ANSIBLE_HOME", d.path())
            .env("ANSIBLE_LOCAL_TEMP", d.path().join("tmp"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}{}",
            f.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
