//! The shell of the deploy/ examples run for real on this machine, with
//! the real binary and real signed reports (no cluster and no Slurm here):
//! the Kubernetes Jobs' scripts as render.sh writes them (host check per
//! node, the wait for every report of the run, the fleet verdict and the
//! clean-up of earlier runs), and the Slurm launch check with `srun` and
//! `scontrol` stand-ins that run one task per node with `SLURMD_NODENAME`
//! set, as srun does. The sample Ansible inventory parses with the fleet
//! group and every variable the play needs.

mod fleet_support;

use std::path::{Path, PathBuf};
use std::process::Command;

use fleet_support::qualify_support::common::{output_ok, python};
use fleet_support::*;
use serde_json::Value;

fn deploy(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("deploy")
        .join(rel)
}

fn yaml_docs(yaml: &str) -> Vec<Value> {
    let d = tempfile::tempdir().unwrap();
    let f = d.path().join("in.yaml");
    std::fs::write(&f, yaml).unwrap();
    let out = output_ok(
        Command::new(python())
            .arg("-c")
            .arg("import json, sys, yaml; print(json.dumps([x for x in yaml.safe_load_all(open(sys.argv[1])) if x is not None]))")
            .arg(&f),
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A directory holding `proofpack` (a link to the binary under test), for PATH.
fn bin_dir(dir: &Path) -> PathBuf {
    let b = dir.join("bin");
    std::fs::create_dir_all(&b).unwrap();
    std::os::unix::fs::symlink(
        fleet_support::qualify_support::common::bin(),
        b.join("proofpack"),
    )
    .unwrap();
    b
}

fn path_with(b: &Path) -> String {
    format!(
        "{}:{}",
        b.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

fn sh(script: &str, env: &[(String, String)], path: &str) -> (i32, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(script)
        .env("PATH", path)
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

fn env_of(container: &Value) -> Vec<(String, String)> {
    container["env"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| {
            Some((
                e["name"].as_str()?.to_string(),
                e["value"].as_str()?.to_string(),
            ))
        })
        .collect()
}

#[test]
fn kubernetes_job_scripts_check_every_node_wait_for_every_report_and_give_the_verdict() {
    let f = fleet();
    let nodes = ["node-0", "node-1"];
    let run = "r20260923";
    let yaml = String::from_utf8(
        output_ok(
            Command::new("bash")
                .arg(deploy("kubernetes/render.sh"))
                .arg(run)
                .args(nodes)
                .env("MODE", "sizes-only")
                .env("CONFIG_FILE", &f.config),
        )
        .stdout,
    )
    .unwrap();
    let docs = yaml_docs(&yaml);
    let work = tempfile::tempdir().unwrap();
    let path = path_with(&bin_dir(work.path()));
    let reports = work.path().join("reports");
    // A report of an earlier run: never read, removed after the verdict.
    let old = reports.join("r20260101");
    std::fs::create_dir_all(&old).unwrap();
    std::fs::write(old.join("node-9.dsse.json"), "{}").unwrap();
    let reports_s = reports.display().to_string();
    for d in docs
        .iter()
        .filter(|d| d["metadata"]["labels"]["proofpack/step"] == "host-check")
    {
        let spec = &d["spec"]["template"]["spec"];
        let node = spec["nodeName"].as_str().unwrap();
        let c = &spec["containers"][0];
        // Each Job's own scratch directory (an emptyDir).
        let node_work = work.path().join(format!("work-{node}"));
        std::fs::create_dir_all(&node_work).unwrap();
        let script = c["args"][0]
            .as_str()
            .unwrap()
            .replace(
                "/manifest/weights.manifest.json",
                &f.manifest.display().to_string(),
            )
            .replace(
                "host check /weights",
                &format!("host check {}", f.root(node).display()),
            )
            .replace("/key/host.key", &f.key(node).display().to_string())
            .replace("/reports", &reports_s)
            .replace("/work/", &format!("{}/", node_work.display()));
        let (code, out) = sh(&script, &env_of(c), &path);
        assert_eq!(code, 0, "{node}: {out}");
        assert!(
            reports.join(run).join(format!("{node}.dsse.json")).exists(),
            "{out}"
        );
    }
    let verify = docs
        .iter()
        .find(|d| d["metadata"]["labels"]["proofpack/step"] == "fleet-verify")
        .unwrap();
    let spec = &verify["spec"]["template"]["spec"];
    let wait = &spec["initContainers"][0];
    let env = env_of(wait);
    let wait_script = wait["args"][0]
        .as_str()
        .unwrap()
        .replace("/reports", &reports_s);
    let (code, out) = sh(&wait_script, &env, &path);
    assert_eq!(code, 0, "every report exists: {out}");
    let c = &spec["containers"][0];
    let mut env = env_of(c);
    env.push(("WEIGHTS_MANIFEST".into(), format!("sha256:{}", f.digest)));
    // The README's config pin: every node hashed the config, so it holds.
    let config = proofpack::digest::Sha256Digest::of_bytes(&std::fs::read(&f.config).unwrap());
    env.push(("CONFIG".into(), config.prefixed()));
    let fleet_work = work.path().join("work");
    std::fs::create_dir_all(&fleet_work).unwrap();
    let verdict = c["args"][0]
        .as_str()
        .unwrap()
        .replace("/reports", &reports_s)
        .replace("/work/", &format!("{}/", fleet_work.display()))
        .replace(
            "/manifest/weights.manifest.json",
            &f.manifest.display().to_string(),
        )
        .replace("/config/trust.json", &f.trust().display().to_string());
    let (code, out) = sh(&verdict, &env, &path);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("VERIFIED, all 2 hosts checked sizes-only"),
        "{out}"
    );
    assert!(!old.exists(), "the earlier run's reports are removed");
    assert!(reports.join(run).exists(), "this run's reports are kept");
    // A node whose report is missing: the wait gives up (WAIT=0), exit 2.
    std::fs::remove_file(reports.join(run).join("node-1.dsse.json")).unwrap();
    let yaml0 = String::from_utf8(
        output_ok(
            Command::new("bash")
                .arg(deploy("kubernetes/render.sh"))
                .arg(run)
                .args(nodes)
                .env("WAIT", "0"),
        )
        .stdout,
    )
    .unwrap();
    let docs0 = yaml_docs(&yaml0);
    let wait0 = &docs0.last().unwrap()["spec"]["template"]["spec"]["initContainers"][0];
    let (code, out) = sh(
        &wait0["args"][0]
            .as_str()
            .unwrap()
            .replace("/reports", &reports_s),
        &env,
        &path,
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("from node node-1"), "{out}");
}

#[test]
fn slurm_launch_check_names_hosts_by_slurmd_nodename_in_a_directory_per_job() {
    let f = fleet();
    let work = tempfile::tempdir().unwrap();
    let b = bin_dir(work.path());
    // srun: one task per node of FAKE_NODES, each with SLURMD_NODENAME set
    // (options before the command are dropped); scontrol show hostnames.
    std::fs::write(
        b.join("srun"),
        "#!/bin/sh\nwhile [ \"${1#--}\" != \"$1\" ]; do shift; done\nfor n in $FAKE_NODES; do SLURMD_NODENAME=$n \"$@\" || exit $?; done\n",
    )
    .unwrap();
    std::fs::write(
        b.join("scontrol"),
        "#!/bin/sh\nfor n in $FAKE_NODES; do echo $n; done\n",
    )
    .unwrap();
    for s in ["srun", "scontrol"] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(b.join(s), std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let reports = work.path().join("reports");
    std::fs::create_dir_all(&reports).unwrap();
    // A stale report in the shared directory (the old layout): not read.
    std::fs::write(reports.join("node-7.dsse.json"), "{}").unwrap();
    // The trust file lists node-0's key for host; both fake nodes use the
    // key at the same path, as every node of an allocation does.
    let launch = |job: &str| {
        Command::new("bash")
            .arg(deploy("slurm/launch-check.sh"))
            .arg(f.root("node-0"))
            .arg(&f.manifest)
            .arg(&reports)
            .arg(f.key("node-0"))
            .arg(format!("sha256:{}", f.digest))
            .arg(f.trust())
            .env("PATH", path_with(&b))
            .env("FAKE_NODES", "node-0 node-1")
            .env("SLURM_JOB_NODELIST", "node-[0-1]")
            .env("SLURM_JOB_ID", job)
            .env("MODE", "sizes-only")
            .env("CONFIG_FILE", &f.config)
            .output()
            .unwrap()
    };
    let out = launch("42");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("VERIFIED, all 2 hosts"), "{text}");
    for n in ["node-0", "node-1"] {
        let r = reports.join("job-42").join(format!("{n}.dsse.json"));
        let env: Value = serde_json::from_slice(&std::fs::read(&r).unwrap()).unwrap();
        let payload = base64_decode(env["payload"].as_str().unwrap());
        let st: Value = serde_json::from_slice(&payload).unwrap();
        assert_eq!(st["predicate"]["host"], n, "the host is SLURMD_NODENAME");
        // The config was hashed on the node: a qualification's
        // host:<node>.config can hold.
        let config = proofpack::digest::Sha256Digest::of_bytes(&std::fs::read(&f.config).unwrap());
        let source = st["predicate"]["config_source"].as_str().unwrap_or("");
        assert!(source.starts_with("file "), "{source}");
        assert_eq!(st["predicate"]["config"], config.prefixed());
    }
    // The same job id again: its directory exists, nothing is mixed in.
    let out = launch("42");
    assert_eq!(
        out.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn base64_decode(s: &str) -> Vec<u8> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.decode(s).unwrap()
}

#[test]
fn the_sample_ansible_inventory_has_the_fleet_and_every_variable_the_play_needs() {
    let bin = python().parent().unwrap().join("ansible-inventory");
    let d = tempfile::tempdir().unwrap();
    let out = output_ok(
        Command::new(&bin)
            .arg("-i")
            .arg(deploy("ansible/inventory.example.ini"))
            .arg("--list")
            .env("ANSIBLE_HOME", d.path())
            .env("ANSIBLE_LOCAL_TEMP", d.path().join("tmp")),
    );
    let inv: Value = serde_json::from_slice(&out.stdout).unwrap();
    let hosts = inv["fleet"]["hosts"].as_array().unwrap();
    assert!(hosts.len() >= 2, "{inv}");
    let play = std::fs::read_to_string(deploy("ansible/launch-check.yml")).unwrap();
    for h in hosts {
        let vars = &inv["_meta"]["hostvars"][h.as_str().unwrap()];
        for v in [
            "weights_root",
            "host_key",
            "proofpack",
            "weights_manifest",
            "weights_pin",
            "trust_file",
            "reports_dir",
        ] {
            assert!(vars[v].is_string(), "{h}: no {v}: {vars}");
            assert!(play.contains(v), "the play does not use {v}");
        }
    }
    let check = output_ok(
        Command::new(python().parent().unwrap().join("ansible-playbook"))
            .arg("--syntax-check")
            .arg("-i")
            .arg(deploy("ansible/inventory.example.ini"))
            .arg(deploy("ansible/launch-check.yml"))
            .env("ANSIBLE_HOME", d.path())
            .env("ANSIBLE_LOCAL_TEMP", d.path().join("tmp")),
    );
    assert!(check.status.success());
}
