//! v1.1: `seal` deflates in independent 128 KiB blocks on every core
//! (contract section 5). The bytes must not depend on the number of
//! threads, every reader must read them (gzip, GNU tar, bsdtar, Python's
//! tarfile, proofpack), and a bundle sealed before v1.1 must still verify.

use std::fs;
use std::path::Path;
use std::process::Command;

mod common;
use common::python;

fn pp() -> assert_cmd::Command {
    let mut c = assert_cmd::Command::cargo_bin("proofpack").unwrap();
    c.env_remove("SOURCE_DATE_EPOCH");
    // Tests never touch ~/.local: no catalog (it has its own tests).
    c.arg("--no-catalog");
    c
}

/// Text-like content, different per seed.
fn lines(seed: u64, bytes: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    let mut v = Vec::with_capacity(bytes + 200);
    while v.len() < bytes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        v.extend_from_slice(
            format!(
                "{{\"request_id\": \"{:016x}\", \"status\": \"ok\", \"output_tokens\": {}}}\n",
                x,
                x % 4096
            )
            .as_bytes(),
        );
    }
    v.truncate(bytes);
    v
}

/// A run whose tar stream spans many deflate blocks, with a file of
/// exactly one block, an empty file, random bytes and a PAX path.
fn make_run(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut random = Vec::with_capacity(300_000);
    let mut x: u32 = 7;
    for _ in 0..300_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        random.push((x >> 16) as u8);
    }
    let files = vec![
        (
            "qualification.json".to_string(),
            br#"{"name": "parallel-run"}"#.to_vec(),
        ),
        (
            "benchmark/rate-1.0/client.jsonl".into(),
            lines(1, 2_500_000),
        ),
        ("benchmark/rate-2.0/client.jsonl".into(), lines(2, 900_001)),
        ("exactly-one-block.bin".into(), lines(3, 128 << 10)),
        ("random.bin".into(), random),
        ("empty".into(), Vec::new()),
        (
            format!("deep/{}/ü.json", "long-".repeat(30)),
            lines(4, 5000),
        ),
    ];
    for (rel, content) in &files {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, content).unwrap();
    }
    files
}

fn seal(run: &Path, out: &Path, threads: &str) -> Vec<u8> {
    pp().arg("seal")
        .arg(run)
        .arg("-o")
        .arg(out)
        .args(["--threads", threads])
        .env("SOURCE_DATE_EPOCH", "1790164800")
        .assert()
        .success();
    fs::read(out).unwrap()
}

/// Every regular file under `dir`, relative, with its bytes.
fn tree(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let rel = e.path().strip_prefix(dir).unwrap().to_str().unwrap();
            out.push((rel.to_string(), fs::read(e.path()).unwrap()));
        }
    }
    out.sort();
    out
}

fn run_ok(cmd: &mut Command) -> Vec<u8> {
    common::output_ok(cmd).stdout
}

const PY_READ: &str = r#"
import hashlib, json, sys, tarfile
with tarfile.open(sys.argv[1], "r:gz") as t:
    out = [[m.name, hashlib.sha256(t.extractfile(m).read()).hexdigest()] for m in t if m.isfile()]
print(json.dumps(out))
"#;

#[test]
fn the_thread_count_does_not_change_the_bytes_and_every_reader_reads_them() {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    let mut files = make_run(&run);
    files.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    let one = seal(&run, &d.path().join("t1.tgz"), "1");
    for threads in ["2", "8"] {
        let out = d.path().join(format!("t{threads}.tgz"));
        assert!(
            seal(&run, &out, threads) == one,
            "--threads {threads} gave other bytes than --threads 1"
        );
        assert_eq!(
            fs::read_to_string(d.path().join(format!("t{threads}.tgz.sha256")))
                .unwrap()
                .split_whitespace()
                .next(),
            fs::read_to_string(d.path().join("t1.tgz.sha256"))
                .unwrap()
                .split_whitespace()
                .next()
        );
    }
    // The default (one thread per core) too.
    assert!(seal(&run, &d.path().join("t0.tgz"), "0") == one);
    let bundle = d.path().join("t1.tgz");

    // gzip: the CRC-32 and ISIZE of the whole stream check out.
    run_ok(Command::new("gzip").arg("-t").arg(&bundle));
    let tar_stream = run_ok(Command::new("gzip").arg("-dc").arg(&bundle));
    let isize = u32::from_le_bytes(one[one.len() - 4..].try_into().unwrap());
    assert_eq!(isize as usize, tar_stream.len());
    assert!(tar_stream.len() > 20 * (128 << 10), "many deflate blocks");

    // v1.1: qualification.json right after MANIFEST, then manifest order.
    let mut names = vec!["parallel-run/MANIFEST".to_string()];
    let first = "qualification.json";
    names.extend(
        files
            .iter()
            .filter(|(p, _)| p == first)
            .chain(files.iter().filter(|(p, _)| p != first))
            .map(|(p, _)| format!("parallel-run/{p}")),
    );
    for tar in ["tar", "bsdtar"] {
        let listed = run_ok(Command::new(tar).arg("-tzf").arg(&bundle));
        let listed: Vec<String> = String::from_utf8(listed)
            .unwrap()
            .lines()
            .map(str::to_string)
            .collect();
        assert_eq!(listed, names, "{tar} -t");
        let x = d.path().join(format!("x-{tar}"));
        fs::create_dir(&x).unwrap();
        run_ok(Command::new(tar).arg("-xzf").arg(&bundle).arg("-C").arg(&x));
        let mut got = tree(&x.join("parallel-run"));
        got.retain(|(p, _)| p != "MANIFEST");
        let mut want = files.clone();
        want.sort();
        assert!(got == want, "{tar} extracted other contents");
    }

    let o = run_ok(Command::new(python()).arg("-c").arg(PY_READ).arg(&bundle));
    let members: Vec<(String, String)> = serde_json::from_slice(&o).unwrap();
    let first = "qualification.json";
    let mut want: Vec<(String, String)> = files
        .iter()
        .filter(|(p, _)| p == first)
        .chain(files.iter().filter(|(p, _)| p != first))
        .map(|(p, c)| {
            (
                format!("parallel-run/{p}"),
                proofpack::digest::Sha256Digest::of_bytes(c).to_hex(),
            )
        })
        .collect();
    let manifest = pp().arg("manifest").arg(&run).output().unwrap().stdout;
    let manifest = proofpack::digest::Sha256Digest::of_bytes(&manifest).to_hex();
    want.insert(0, (names[0].clone(), manifest));
    assert_eq!(members, want, "Python tarfile");

    pp().args(["verify", "--structure-only"])
        .arg(&bundle)
        .assert()
        .code(0);
}

/// A bundle sealed by proofpack before v1.1 (one deflate stream; the
/// sample as committed at 8a5b5331) verifies as a qualification, seal
/// included; sealing its run again gives other gzip bytes around the same
/// tar stream.
#[test]
fn a_bundle_sealed_before_v1_1_still_verifies() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata");
    let old_dir = root.join("compat/v1.0-bundle");
    let old = old_dir.join("kimi-k3-mi355x-20260923-sample.tgz");
    let o = pp()
        .arg("verify")
        .arg(&old)
        .arg("--pins")
        .arg(old_dir.join("pins.json"))
        .arg("--trust")
        .arg(root.join("sample/trust.json"))
        .arg("--require-seal")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("VERIFIED"), "{text}");
    assert!(text.contains("PASS seal"), "{text}");
    // Its host reports are of the v1 predicate and its plan names no
    // lengths: those v1.1 bindings are not checked, and the verdict says so.
    assert!(
        text.contains("VERIFIED (host launch checks not bound to this run's fleet and weights record, token counts not bounded by the plan): "),
        "{text}"
    );
    // Sealed in the v1 order, it is read in two passes, and says so.
    assert!(text.contains("read in two passes (v1 order"), "{text}");

    // The old bundle's own tree, sealed again by this build: the same tar
    // stream, deflated in blocks.
    let d = tempfile::tempdir().unwrap();
    let tree = d.path().join("tree");
    pp().arg("unpack")
        .arg(&old)
        .arg("-C")
        .arg(&tree)
        .assert()
        .success();
    let run = tree.join("kimi-k3-mi355x-20260923-sample");
    let _ = fs::remove_file(run.join("MANIFEST"));
    let new = d.path().join("kimi-k3-mi355x-20260923-sample.tgz");
    pp().arg("seal")
        .arg(&run)
        .arg("-o")
        .arg(&new)
        .args(["--threads", "1"])
        .env("SOURCE_DATE_EPOCH", "1790164800")
        .assert()
        .success();
    let (old_bytes, new_bytes) = (fs::read(&old).unwrap(), fs::read(&new).unwrap());
    assert_ne!(old_bytes, new_bytes, "v1.1 deflates in blocks");
    assert_eq!(old_bytes[..10], new_bytes[..10], "the same gzip header");
    // The same entries with the same bytes; v1.1 writes qualification.json
    // right after MANIFEST (the v1.0 bundle has it in path order).
    let entries = |p: &Path| -> Vec<(String, Vec<u8>)> {
        let mut a = tar::Archive::new(flate2::read::GzDecoder::new(fs::File::open(p).unwrap()));
        a.entries()
            .unwrap()
            .map(|e| {
                let mut e = e.unwrap();
                let name = e.path().unwrap().to_string_lossy().into_owned();
                let mut b = Vec::new();
                std::io::Read::read_to_end(&mut e, &mut b).unwrap();
                (name, b)
            })
            .collect()
    };
    let (mut o, n) = (entries(&old), entries(&new));
    assert_eq!(n[1].0, "kimi-k3-mi355x-20260923-sample/qualification.json");
    let mut n_sorted = n.clone();
    o.sort();
    n_sorted.sort();
    assert!(o == n_sorted, "the same entries with the same bytes");
    let o = pp()
        .arg("verify")
        .arg(&new)
        .arg("--trust")
        .arg(root.join("sample/trust.json"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("read in one pass (qualification.json right after MANIFEST)"),
        "{text}"
    );
}
