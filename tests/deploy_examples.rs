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

// ------------------------------------------------------------ v1.1 examples

fn deploy(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("deploy")
        .join(rel)
}

/// `deploy/kubernetes/render.sh RUN NODES...` with `env`; its YAML.
fn render(env: &[(&str, &str)], run: &str, nodes: &[&str]) -> String {
    let out = common::output_ok(
        Command::new("bash")
            .arg(deploy("kubernetes/render.sh"))
            .arg(run)
            .args(nodes)
            .envs(env.iter().copied()),
    );
    String::from_utf8(out.stdout).unwrap()
}

/// YAML documents as JSON values (read by PyYAML, as kubectl's YAML reader
/// reads these plain documents).
fn yaml_docs(yaml: &str) -> Vec<serde_json::Value> {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("in.yaml");
    std::fs::write(&f, yaml).unwrap();
    let out = common::output_ok(Command::new(common::python()).arg("-c").arg(
        "import json, sys, yaml; print(json.dumps([x for x in yaml.safe_load_all(open(sys.argv[1])) if x is not None]))",
    ).arg(&f));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn kubernetes_objects_pass_the_kubernetes_schemas() {
    // kubeconform is a Go binary that none of the registries this project
    // installs from ship; kubernetes-validate (PyPI, pinned) validates
    // against the Kubernetes JSON schemas it ships, strictly (an unknown
    // field fails).
    let bin = common::python()
        .parent()
        .unwrap()
        .join("kubernetes-validate");
    assert!(
        bin.exists(),
        "{}: scripts/test.sh installs it",
        bin.display()
    );
    let d = tempfile::tempdir().unwrap();
    let rendered = d.path().join("run.yaml");
    std::fs::write(
        &rendered,
        render(
            &[],
            "20260923-1200",
            &["gpu-node-01", "gpu-node-02.example"],
        ),
    )
    .unwrap();
    let mut files = files("kubernetes", &["yaml", "yml"]);
    files.push(rendered.clone());
    let out = Command::new(&bin)
        .args(["--strict", "-k", "1.35.0"])
        .args(&files)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(!text.contains("ERROR"), "{text}");
    // The check can fail: an unknown field is refused.
    let bad = d.path().join("bad.yaml");
    std::fs::write(
        &bad,
        std::fs::read_to_string(&rendered).unwrap().replacen(
            "backoffLimit: 0",
            "backoffLimit: 0\n  backofLimit: 1",
            1,
        ),
    )
    .unwrap();
    let out = Command::new(&bin)
        .args(["--strict", "-k", "1.35.0"])
        .arg(&bad)
        .output()
        .unwrap();
    assert!(
        !out.status.success(),
        "a misspelled field passed the schema check"
    );
}

#[test]
fn kubernetes_each_node_mounts_only_its_own_key_and_the_verdict_waits_for_every_report() {
    let nodes = ["gpu-node-01", "gpu-node-02", "gpu-node-03.example"];
    let docs = yaml_docs(&render(&[], "r1", &nodes));
    let dockerfile = std::fs::read_to_string(deploy("kubernetes/Dockerfile")).unwrap();
    assert!(
        dockerfile.contains("cargo install --locked --path .")
            && dockerfile.contains("docker build -t proofpack:0.1.0")
    );
    let mut host_jobs = 0;
    for d in &docs {
        assert_eq!(
            d["kind"], "Job",
            "render.sh prints Jobs only, never a ConfigMap or Secret: {d}"
        );
        let spec = &d["spec"]["template"]["spec"];
        let containers: Vec<&serde_json::Value> = spec["containers"]
            .as_array()
            .unwrap()
            .iter()
            .chain(spec["initContainers"].as_array().into_iter().flatten())
            .collect();
        for c in &containers {
            assert_eq!(
                c["image"], "proofpack:0.1.0",
                "the image the Dockerfile builds"
            );
        }
        let secrets: Vec<&str> = spec["volumes"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|v| v["secret"]["secretName"].as_str())
            .collect();
        match d["metadata"]["labels"]["proofpack/step"].as_str().unwrap() {
            "host-check" => {
                host_jobs += 1;
                let node = spec["nodeName"].as_str().unwrap();
                assert!(nodes.contains(&node));
                assert_eq!(
                    secrets,
                    [format!("proofpack-host-key-{node}")],
                    "only the node's own key"
                );
                let args = containers[0]["args"][0].as_str().unwrap();
                assert!(
                    args.contains("--host \"$NODE\"")
                        && args.contains("/reports/$RUN/$NODE.dsse.json"),
                    "{args}"
                );
            }
            "fleet-verify" => {
                assert!(secrets.is_empty(), "the verifier holds no key");
                assert_eq!(spec["initContainers"][0]["name"], "wait-for-reports");
                let env = spec["initContainers"][0]["env"].as_array().unwrap();
                assert!(env
                    .iter()
                    .any(|e| e["name"] == "NODES" && e["value"] == nodes.join(" ")));
            }
            other => panic!("unexpected step {other}"),
        }
    }
    assert_eq!(host_jobs, nodes.len());
    // Bad input to the script is refused, naming it.
    let out = Command::new("bash")
        .arg(deploy("kubernetes/render.sh"))
        .args(["Bad_Run", "n1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new("bash")
        .arg(deploy("kubernetes/render.sh"))
        .args(["r1", "node;rm"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

/// The image's build context leaves out the build directory and keeps what
/// `cargo install --path .` compiles (the sources, the lock file and the
/// contract the binary embeds).
#[test]
fn the_image_build_context_leaves_out_target_and_keeps_what_the_build_needs() {
    let ignore = std::fs::read_to_string(deploy("kubernetes/Dockerfile.dockerignore")).unwrap();
    let patterns: Vec<&str> = ignore
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    let excluded = |path: &str| {
        patterns
            .iter()
            .any(|p| path == *p || path.starts_with(&format!("{p}/")))
    };
    assert!(excluded("target"), "{patterns:?}");
    assert!(excluded(".git"), "{patterns:?}");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut needed = vec![
        "Cargo.toml".to_string(),
        "Cargo.lock".to_string(),
        "src/main.rs".to_string(),
    ];
    // Every file the sources embed.
    for e in walkdir::WalkDir::new(root.join("src")) {
        let f = e.unwrap().into_path();
        if f.extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, _) in text.match_indices("include_str!(\"") {
            let rel = &text[i + 14..];
            let rel = &rel[..rel.find('"').unwrap()];
            let p = f.parent().unwrap().join(rel).canonicalize().unwrap();
            needed.push(
                p.strip_prefix(root.canonicalize().unwrap())
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
        }
    }
    assert!(
        needed.iter().any(|n| n == "docs/spec/FORMATS.md"),
        "{needed:?}"
    );
    for n in &needed {
        assert!(!excluded(n), "{n} is needed by the build but left out");
        assert!(root.join(n).is_file(), "{n}");
    }
}
