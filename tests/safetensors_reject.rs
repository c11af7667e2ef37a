//! Every defect of a shard fails its own check, naming the shard and the
//! tensor, through the binary (`shards check`); and the reference reader
//! (Python `safetensors` 0.8.0, `safe_open`) refuses the same file, except
//! where proofpack is deliberately stricter (a NUL byte in a name, which
//! the reference's current source refuses and 0.8.0 does not).

use safetensors_support::common;

use std::fs;
use std::path::Path;

mod safetensors_support;
use safetensors_support::*;

/// A valid header: "a" F32[4] at [0, 16], "b" F16[2, 2] at [16, 24].
const AB: &str = r#"{"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
 "b": {"dtype": "F16", "shape": [2, 2], "data_offsets": [16, 24]}}"#;

struct Case {
    name: &'static str,
    /// Python writing the shard at sys.argv[1].
    make: &'static str,
    /// The one failed check that is a cause (besides those in `also`).
    rule: &'static str,
    /// Other causes the defect necessarily brings.
    also: &'static [&'static str],
    /// Text the failed check's detail must hold (the tensor, the numbers).
    detail: &'static str,
    /// Whether the reference reader opens the file.
    reference_opens: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "truncated",
        make: "raw(sys.argv[1], AB, 20)",
        rule: "truncated",
        also: &[],
        detail: "tensor \"b\" ends at 24",
        reference_opens: false,
    },
    Case {
        name: "header_length_larger_than_the_file",
        make: r#"open(sys.argv[1], "wb").write(struct.pack("<Q", 4096) + b"{}" + b" " * 6)"#,
        rule: "header_bounds",
        also: &[],
        detail: "says 4096 bytes, but the file has only 8",
        reference_opens: false,
    },
    Case {
        name: "header_length_above_the_limit_in_a_tiny_file",
        make: r#"open(sys.argv[1], "wb").write(struct.pack("<Q", 1 << 63) + b"{}" + b" " * 6)"#,
        rule: "header_limit",
        also: &["header_bounds"],
        detail: "9223372036854775808 bytes is above the reference reader's limit of 100000000",
        reference_opens: false,
    },
    Case {
        name: "invalid_json",
        make: r#"raw(sys.argv[1], AB.replace("}}", "},}"), 24)"#,
        rule: "header_json",
        also: &[],
        detail: "not a safetensors header",
        reference_opens: false,
    },
    Case {
        name: "not_utf8",
        make: r#"raw(sys.argv[1], AB.encode().replace(b'"a"', b'"\xff"'), 24)"#,
        rule: "header_utf8",
        also: &[],
        detail: "not UTF-8",
        reference_opens: false,
    },
    Case {
        name: "overlapping_offsets",
        make: r#"raw(sys.argv[1], {"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
  "b": {"dtype": "F32", "shape": [4], "data_offsets": [12, 28]},
  "c": {"dtype": "F32", "shape": [1], "data_offsets": [28, 32]}}, 32)"#,
        rule: "overlap",
        also: &[],
        detail: "tensor \"b\" [12, 28] overlaps tensor \"a\" (ends at 16)",
        reference_opens: false,
    },
    Case {
        name: "gap_between_tensors",
        make: r#"raw(sys.argv[1], {"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]},
  "b": {"dtype": "F32", "shape": [4], "data_offsets": [20, 36]}}, 36)"#,
        rule: "gap",
        also: &[],
        detail: "4 bytes between tensor \"a\" (ends at 16) and tensor \"b\" (begins at 20)",
        reference_opens: false,
    },
    Case {
        name: "trailing_bytes",
        make: "raw(sys.argv[1], AB, 29)",
        rule: "trailing",
        also: &[],
        detail: "5 bytes after the end of the last tensor (tensor \"b\" ends at 24)",
        reference_opens: false,
    },
    Case {
        name: "shape_not_matching_its_byte_range",
        make: r#"raw(sys.argv[1], {"a": {"dtype": "F32", "shape": [4], "data_offsets": [0, 12]},
  "b": {"dtype": "F16", "shape": [2, 2], "data_offsets": [12, 20]}}, 20)"#,
        rule: "shape",
        also: &[],
        detail: "tensor \"a\": 4 elements of F32 need 16 bytes, its data_offsets [0, 12] hold 12",
        reference_opens: false,
    },
    Case {
        name: "shape_overflowing_64_bits",
        make: r#"raw(sys.argv[1], {"a": {"dtype": "U8", "shape": [4294967296, 4294967296, 2], "data_offsets": [0, 0]}})"#,
        rule: "shape",
        also: &[],
        detail: "tensor \"a\": its 3-dimensional shape overflows 64 bits",
        reference_opens: false,
    },
    Case {
        name: "sub_byte_dtype_not_ending_on_a_byte",
        make: r#"raw(sys.argv[1], {"a": {"dtype": "F4", "shape": [3], "data_offsets": [0, 1]}}, 1)"#,
        rule: "shape",
        also: &[],
        detail: "12 bits, not a whole number of bytes",
        reference_opens: false,
    },
    Case {
        name: "unknown_dtype",
        make: r#"raw(sys.argv[1], AB.replace('"F32"', '"F31"'), 24)"#,
        rule: "dtype",
        also: &[],
        detail: "tensor \"a\" has dtype \"F31\"",
        reference_opens: false,
    },
    Case {
        name: "duplicate_tensor_name",
        make: r#"raw(sys.argv[1], '{"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]},'
  ' "a": {"dtype": "F32", "shape": [1], "data_offsets": [4, 8]}}', 8)"#,
        rule: "duplicate_names",
        also: &[],
        detail: "tensor \"a\" is written more than once",
        reference_opens: false,
    },
    Case {
        name: "end_before_begin",
        make: r#"raw(sys.argv[1], {"a": {"dtype": "F32", "shape": [0], "data_offsets": [4, 0]}}, 0)"#,
        rule: "offsets",
        also: &[],
        detail: "tensor \"a\" has data_offsets [4, 0], end before begin",
        reference_opens: false,
    },
    Case {
        name: "shorter_than_the_length_prefix",
        make: r#"open(sys.argv[1], "wb").write(b"\x08\0\0\0\0")"#,
        rule: "length_prefix",
        also: &[],
        detail: "the file has 5 bytes",
        reference_opens: false,
    },
    Case {
        name: "nul_byte_in_a_name",
        make: r#"raw(sys.argv[1], AB.replace('"a"', '"a\\u0000x"'), 24)"#,
        rule: "names",
        also: &[],
        detail: "tensor name \"a\\0x\" holds a NUL byte",
        reference_opens: true,
    },
];

#[test]
fn each_defect_fails_its_own_check_naming_shard_and_tensor() {
    let d = tempfile::tempdir().unwrap();
    let mut rules_seen = Vec::new();
    for case in CASES {
        let dir = d.path().join(case.name);
        fs::create_dir(&dir).unwrap();
        let file = format!("{}.safetensors", case.name);
        let path = dir.join(&file);
        py(
            &format!("AB = '''{AB}'''\n{}", case.make),
            &[path.to_str().unwrap()],
        );
        let (code, v) = shards_check(&dir, &[]);
        assert_eq!(code, 1, "{}: {v}", case.name);
        let mut want: Vec<String> = std::iter::once(case.rule)
            .chain(case.also.iter().copied())
            .map(|r| format!("shard.{r}:{file}"))
            .collect();
        want.sort();
        let mut got: Vec<String> = causes(&v).into_iter().map(|(id, _)| id).collect();
        got.sort();
        assert_eq!(got, want, "{}: {:#?}", case.name, failed(&v));
        let detail = check(&v, &format!("shard.{}:{file}", case.rule))["detail"]
            .as_str()
            .unwrap()
            .to_string();
        assert!(detail.contains(case.detail), "{}: {detail}", case.name);
        let verdict = reference(&path);
        assert_eq!(
            verdict == "ok",
            case.reference_opens,
            "{}: the reference reader says {verdict}",
            case.name
        );
        rules_seen.push(case.rule);
    }
    // Every rule after `read` has a case.
    for rule in &proofpack::safetensors::RULES[1..] {
        assert!(rules_seen.contains(rule), "no case for shard.{rule}");
    }
}

/// A header length above the limit is refused without reading or
/// allocating it: the file is a 100 MB hole, and the child's peak RSS (from
/// the test Python's getrusage) stays small; a header of 99,999,992 bytes,
/// within the limit, is read, and the same measurement sees it.
#[test]
fn header_above_the_limit_is_refused_fast_without_allocating() {
    let d = tempfile::tempdir().unwrap();
    let measure = r#"
import resource, subprocess, time
pp, path, n = sys.argv[2], sys.argv[1], int(sys.argv[3])
with open(path, "wb") as f:
    f.write(struct.pack("<Q", n))
    f.truncate(8 + max(n, 100_000_001) + 92)   # a hole: no bytes on disk
t = time.monotonic()
r = subprocess.run([pp, "--no-catalog", "shards", "check", path, "--json"], capture_output=True)
secs = time.monotonic() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss   # KiB on Linux
print(json.dumps({"code": r.returncode, "secs": secs, "rss_kib": rss,
                  "report": json.loads(r.stdout)}))
"#;
    let bin = common::bin();
    let run = |n: u64| -> serde_json::Value {
        let p = d.path().join(format!("n{n}.safetensors"));
        let out = py(
            measure,
            &[p.to_str().unwrap(), bin.to_str().unwrap(), &n.to_string()],
        );
        serde_json::from_str(out.trim()).unwrap()
    };
    let above = run(100_000_001);
    let file = "n100000001.safetensors";
    let ids: Vec<String> = causes(&above["report"])
        .into_iter()
        .map(|(i, _)| i)
        .collect();
    assert_eq!(ids, [format!("shard.header_limit:{file}")], "{above}");
    let rss_mib = above["rss_kib"].as_f64().unwrap() / 1024.0;
    let secs = above["secs"].as_f64().unwrap();
    eprintln!("header length 100,000,001 (limit 100,000,000): exit 1 in {secs:.3} s, peak RSS {rss_mib:.1} MiB");
    assert!(rss_mib < 48.0, "peak RSS {rss_mib} MiB");
    assert!(secs < 5.0, "{secs} s");
    // Control: a header at the limit is read (and is not JSON: NUL bytes).
    let within = run(99_999_992);
    let file = "n99999992.safetensors";
    let ids: Vec<String> = causes(&within["report"])
        .into_iter()
        .map(|(i, _)| i)
        .collect();
    assert_eq!(ids, [format!("shard.header_json:{file}")], "{within}");
    let rss_within = within["rss_kib"].as_f64().unwrap() / 1024.0;
    eprintln!(
        "header length 99,999,992 (read, then refused as JSON): peak RSS {rss_within:.1} MiB"
    );
    assert!(
        rss_within > 90.0,
        "the measurement should see a 100 MB header: {rss_within} MiB"
    );
}

/// Python writes a checkpoint; the index is then broken in each way.
fn checkpoint() -> (tempfile::TempDir, Vec<String>) {
    let d = tempfile::tempdir().unwrap();
    let shards = llama_like(d.path(), 4, 3000);
    assert!(shards.len() >= 3, "{shards:?}");
    (d, shards)
}

fn index_of(root: &Path) -> String {
    root.join("model.safetensors.index.json")
        .to_str()
        .unwrap()
        .to_string()
}

fn ids(v: &serde_json::Value) -> Vec<String> {
    let mut i: Vec<String> = causes(v).into_iter().map(|(id, _)| id).collect();
    i.sort();
    i
}

#[test]
fn index_naming_a_missing_shard() {
    let (d, shards) = checkpoint();
    let last = shards.last().unwrap();
    fs::remove_file(d.path().join(last)).unwrap();
    let (code, v) = shards_check(d.path(), &["--index", &index_of(d.path())]);
    assert_eq!(code, 1);
    assert_eq!(ids(&v), [format!("index.shard_present:{last}")]);
    let detail = check(&v, &format!("index.shard_present:{last}"))["detail"].to_string();
    assert!(detail.contains("no such shard is under ROOT"), "{detail}");
    assert!(check(&v, "index.total_size")["detail"]
        .as_str()
        .unwrap()
        .starts_with("not checkable"));
}

#[test]
fn shard_missing_from_the_index() {
    let (d, _) = checkpoint();
    let extra = d.path().join("model-extra.safetensors");
    py(
        r#"save_file({"extra.weight": np.ones((2,), dtype=np.float32)}, sys.argv[1])"#,
        &[extra.to_str().unwrap()],
    );
    let (code, v) = shards_check(d.path(), &["--index", &index_of(d.path())]);
    assert_eq!(code, 1);
    assert_eq!(
        ids(&v),
        [
            "index.shard_indexed:model-extra.safetensors",
            "index.unmapped:model-extra.safetensors"
        ]
    );
    assert!(
        check(&v, "index.unmapped:model-extra.safetensors")["detail"]
            .as_str()
            .unwrap()
            .contains("\"extra.weight\"")
    );
}

#[test]
fn tensor_in_the_wrong_shard() {
    let (d, shards) = checkpoint();
    let idx = index_of(d.path());
    let mut index: serde_json::Value = serde_json::from_slice(&fs::read(&idx).unwrap()).unwrap();
    let moved = "model.embed_tokens.weight";
    assert_eq!(index["weight_map"][moved], shards[0].as_str());
    index["weight_map"][moved] = shards[1].clone().into();
    fs::write(&idx, serde_json::to_string_pretty(&index).unwrap()).unwrap();
    let (code, v) = shards_check(d.path(), &["--index", &idx]);
    assert_eq!(code, 1);
    assert_eq!(
        ids(&v),
        [
            format!("index.misplaced:{}", shards[0]),
            format!("index.tensors:{}", shards[1]),
        ]
    );
    let d0 = check(&v, &format!("index.misplaced:{}", shards[0]))["detail"].to_string();
    assert!(d0.contains(moved) && d0.contains(&shards[1]), "{d0}");
    let d1 = check(&v, &format!("index.tensors:{}", shards[1]))["detail"].to_string();
    assert!(d1.contains(&format!("it is in {}", shards[0])), "{d1}");
}

#[test]
fn truncated_shard_fails_the_sizes_only_launch_check() {
    let (d, shards) = checkpoint();
    let out = tempfile::tempdir().unwrap();
    let m = out.path().join("weights.json");
    json_manifest(d.path(), &m);
    let victim = d.path().join(&shards[1]);
    let len = fs::metadata(&victim).unwrap().len();
    fs::OpenOptions::new()
        .write(true)
        .open(&victim)
        .unwrap()
        .set_len(len - 2)
        .unwrap();
    let args = |extra: &[&'static str]| {
        let mut a = vec![
            "check".to_string(),
            d.path().to_str().unwrap().to_string(),
            "--manifest".into(),
            m.to_str().unwrap().into(),
            "--sizes-only".into(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let a = args(&[]);
    let (code, v) = run_json(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 1);
    assert_eq!(
        ids(&v),
        [
            format!("file:{}", shards[1]),
            format!("shard.truncated:{}", shards[1])
        ]
    );
    let a = args(&["--no-structure"]);
    let (code, v) = run_json(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(code, 1);
    assert_eq!(ids(&v), [format!("file:{}", shards[1])]);
}

/// Two shards of the same size swapped under each other's names pass a
/// sizes-only check without header digests; with them, both fail
/// `shard.header_sha256`, and no data is read.
#[test]
fn two_shards_swapped_by_name_fail_the_sizes_only_check() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("model");
    fs::create_dir(&root).unwrap();
    py(
        r#"
d = sys.argv[1]
for k in (1, 2):
    save_file({f"model.layers.{k}.mlp.up_proj.weight": np.full((64, 64), k, dtype=np.float16)},
              os.path.join(d, f"model-0000{k}-of-00002.safetensors"), metadata={"format": "pt"})
"#,
        &[root.to_str().unwrap()],
    );
    let (a, b) = (
        "model-00001-of-00002.safetensors",
        "model-00002-of-00002.safetensors",
    );
    assert_eq!(
        fs::metadata(root.join(a)).unwrap().len(),
        fs::metadata(root.join(b)).unwrap().len()
    );
    let m = d.path().join("weights.json");
    json_manifest(&root, &m);
    let without = d.path().join("no-header-digests.json");
    let mut rec: serde_json::Value = serde_json::from_slice(&fs::read(&m).unwrap()).unwrap();
    for e in rec["entries"].as_array_mut().unwrap() {
        e.as_object_mut().unwrap().remove("header_sha256");
    }
    fs::write(&without, rec.to_string()).unwrap();
    fs::rename(root.join(a), root.join("tmp")).unwrap();
    fs::rename(root.join(b), root.join(a)).unwrap();
    fs::rename(root.join("tmp"), root.join(b)).unwrap();
    let check_with = |manifest: &Path| {
        run_json(&[
            "check",
            root.to_str().unwrap(),
            "--manifest",
            manifest.to_str().unwrap(),
            "--sizes-only",
        ])
    };
    // Sizes and structure alone cannot see a swap: v1.1 refuses a
    // sizes-only check against a record without header digests (exit 2),
    // where v1 passed it.
    let out = pp()
        .args(["check", root.to_str().unwrap(), "--manifest"])
        .arg(&without)
        .arg("--sizes-only")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("this record has no header digests; sizes-only cannot detect swapped shards"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (code, v) = check_with(&m);
    assert_eq!(code, 1);
    assert_eq!(
        ids(&v),
        [
            format!("shard.header_sha256:{a}"),
            format!("shard.header_sha256:{b}")
        ]
    );
    let c = check(&v, &format!("shard.header_sha256:{a}"));
    assert_ne!(c["expected"], c["actual"]);
    // shards check --manifest sees it too.
    let (code, v) = shards_check(&root, &["--manifest", m.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(ids(&v).len(), 2);
}

#[test]
fn a_bad_index_is_an_unusable_argument() {
    let (d, _) = checkpoint();
    for (name, text) in [
        ("not-json.json", "{"),
        ("no-weight-map.json", r#"{"metadata": {}}"#),
        (
            "repeated.json",
            r#"{"weight_map": {"a": "x.safetensors", "a": "y.safetensors"}}"#,
        ),
        ("not-a-name.json", r#"{"weight_map": {"a": 1}}"#),
    ] {
        let p = d.path().join(name);
        fs::write(&p, text).unwrap();
        pp().args(["shards", "check"])
            .arg(d.path())
            .arg("--index")
            .arg(&p)
            .assert()
            .code(2)
            .stderr(predicates::str::contains(name));
    }
    pp().args(["shards", "check"])
        .arg(d.path().join("nowhere"))
        .assert()
        .code(2);
}

/// A shard the manifest lists that is a FIFO on disk fails `shard.read`;
/// proofpack does not open it (which would wait for a writer).
#[test]
fn a_listed_shard_that_is_a_fifo_fails_read_without_blocking() {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("model");
    fs::create_dir(&root).unwrap();
    py(
        r#"save_file({"w": np.ones((2,), dtype=np.float32)}, sys.argv[1])"#,
        &[root.join("model.safetensors").to_str().unwrap()],
    );
    let m = d.path().join("weights.json");
    json_manifest(&root, &m);
    fs::remove_file(root.join("model.safetensors")).unwrap();
    let st = std::process::Command::new("mkfifo")
        .arg(root.join("model.safetensors"))
        .status()
        .unwrap();
    assert!(st.success());
    let (code, v) = shards_check(&root, &["--manifest", m.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(ids(&v), ["shard.read:model.safetensors"]);
    assert!(check(&v, "shard.read:model.safetensors")["detail"]
        .as_str()
        .unwrap()
        .contains("not a regular file"));
}
