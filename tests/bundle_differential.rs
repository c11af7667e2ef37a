//! Spec section 5, v1.1: whatever proofpack's reader accepts structurally,
//! Python's tarfile, GNU tar and the Rust tar crate read the same way.
//!
//! Inputs: every file of the bundle_reader and bundle_differential fuzz
//! corpora (seeds included, the harness's mode byte applied), the shipped
//! sample bundle, and bundles written here by GNU tar (every format), Python
//! (every format), the tar crate and proofpack, with long and non-ASCII
//! names, directories and empty files. For each input proofpack accepts
//! structurally (see fuzz/harness_differential.rs), the other readers must
//! list exactly the same regular files and directories, in the same order,
//! with the same sizes and SHA-256s, and extract (Python with
//! `filter='data'`, GNU tar with `-x`) to exactly that tree. Python runs
//! once for the whole batch.
//!
//! The second test replays the bundle_differential fuzz corpus through the
//! fuzz harness (proofpack against the tar crate) on stable.

#[path = "../fuzz/harness_differential.rs"]
mod harness;

mod bundle_support;
use bundle_support::common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use harness::{hash_reader, Entry};
use proofpack::bundle::Limits;
use serde_json::Value;

/// Bundles written by other tools for ordinary files: (name, bytes).
fn written_bundles(d: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    for format in bundle_support::GNU_TAR_FORMATS {
        let dir = d.join(format!("gnu-{format}"));
        // ustar cannot hold a 120-byte component.
        let order = bundle_support::run_tree(&dir, format != "ustar");
        let p = bundle_support::gnu_tar_bundle(&dir, format, &order);
        out.push((format!("GNU tar --format={format}"), fs::read(p).unwrap()));
    }
    for format in bundle_support::PYTHON_FORMATS {
        let dir = d.join(format!("py-{format}"));
        let order = bundle_support::run_tree(&dir, format != "ustar");
        let p = bundle_support::python_bundle(&common::python(), &dir, format, &order);
        out.push((format!("Python {format}"), fs::read(p).unwrap()));
    }
    // The tar crate's builder (GNU long names, ustar headers).
    let dir = d.join("tar-crate");
    let order = bundle_support::run_tree(&dir, true);
    let mut b = tar::Builder::new(Vec::new());
    for p in &order {
        b.append_path_with_name(dir.join(p), p).unwrap();
    }
    out.push((
        "tar crate Builder".into(),
        bundle_support::gz(&b.into_inner().unwrap()),
    ));
    // proofpack's own writer.
    let dir = d.join("proofpack");
    bundle_support::run_tree(&dir, true);
    let run = dir.join(bundle_support::ROOT);
    fs::remove_file(run.join("MANIFEST")).unwrap();
    let p = dir.join("pp.tgz");
    bundle_support::pp()
        .arg("seal")
        .arg(&run)
        .arg("-o")
        .arg(&p)
        .assert()
        .success();
    out.push(("proofpack seal".into(), fs::read(p).unwrap()));
    out
}

/// Corners of the format that every reader reads the same way (each is
/// accepted; the test asserts it), built byte by byte.
fn edge_bundles() -> Vec<(String, Vec<u8>)> {
    use bundle_support::{fix_checksum, gnu_header, gz, header, Tar, A, B, ROOT};
    let a_path = format!("{ROOT}/{}", A.0);
    let files = [A, B];
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    let mut add = |name: &str, build: &dyn Fn(&mut Tar)| {
        let mut t = Tar::default();
        t.manifest(&files);
        build(&mut t);
        t.file(B.0, B.1);
        out.push((format!("edge: {name}"), gz(&t.end())));
    };
    add("plain", &|t| {
        t.file(A.0, A.1);
    });
    add("typeflag NUL", &|t| {
        t.raw(&a_path, 0, A.1);
    });
    add("root and parent directories, with and without '/'", &|t| {
        t.raw(&format!("{ROOT}/"), b'5', b"")
            .raw(&format!("{ROOT}/dir"), b'5', b"")
            .raw(&format!("{ROOT}/empty-dir/"), b'5', b"")
            .file(A.0, A.1);
    });
    add(
        "ustar prefix split, empty name (as Python writes a directory)",
        &|t| {
            let mut h = header(b"", 0, b'5');
            h[345..352].copy_from_slice(b"run/dir");
            fix_checksum(&mut h);
            t.block(&h, b"").file(A.0, A.1);
        },
    );
    add(
        "ustar prefix of 155 bytes and name of 100 bytes, no NULs",
        &|t| {
            let prefix = format!("{ROOT}/{}", "p".repeat(151));
            let name = "n".repeat(100);
            let mut h = header(name.as_bytes(), 1, b'0');
            h[345..500].copy_from_slice(prefix.as_bytes());
            fix_checksum(&mut h);
            t.block(&h, b"x").file(A.0, A.1);
        },
    );
    add("GNU long names for a directory and a file", &|t| {
        let dir = format!("{ROOT}/{}/", "d".repeat(130));
        t.long_name(&dir)
            .block(&gnu_header(b"stand-in/", 0, b'5'), b"")
            .long_name(&format!("{dir}{}", "f".repeat(130)))
            .block(&gnu_header(b"stand-in", 2, b'0'), b"f\n")
            .file(A.0, A.1);
    });
    add(
        "PAX path, size with header size 0, times, ids, names, xattrs",
        &|t| {
            t.pax(&[
                ("path", a_path.as_bytes()),
                ("size", b"6"),
                ("mtime", b"1796116143.039807972"),
                ("atime", b"-1.5"),
                ("ctime", b"0"),
                ("uid", b"4294967295"),
                ("gid", b"20"),
                ("uname", "ålice".as_bytes()),
                ("gname", b"staff"),
                ("SCHILY.xattr.user.k", b"v\0w"),
                ("LIBARCHIVE.xattr.user.k", b"dmFsdWU="),
            ])
            .block(&header(b"stand-in", 0, b'0'), A.1);
        },
    );
    add("PAX record length with a leading zero", &|t| {
        let body = format!(" path={a_path}\n");
        let rec = format!("0{}{body}", body.len() + 3);
        assert_eq!(rec[..3].parse::<usize>().unwrap(), rec.len());
        t.raw("././@PaxHeader", b'x', rec.as_bytes())
            .raw("x", b'0', A.1);
    });
    add("non-ASCII name in the ustar name field", &|t| {
        t.raw(&format!("{ROOT}/ü-ファ.txt"), b'0', b"u")
            .file(A.0, A.1);
    });
    add("GNU header with base-256 size and uid", &|t| {
        let mut h = gnu_header(a_path.as_bytes(), 0, b'0');
        h[124..136].fill(0);
        h[124] = 0x80;
        h[135] = A.1.len() as u8;
        h[108..116].fill(0);
        h[108] = 0x80;
        h[114] = 1;
        fix_checksum(&mut h);
        t.block(&h, A.1);
    });
    add(
        "numeric fields with space terminators, 7-digit checksum",
        &|t| {
            let mut h = header(a_path.as_bytes(), A.1.len() as u64, b'0');
            h[100..108].copy_from_slice(b"000644 \0");
            h[108..116].copy_from_slice(b"000000 \0");
            h[136..148].copy_from_slice(b"1234567012 \0");
            h[329..337].copy_from_slice(b"0000000\0");
            h[148..156].fill(b' ');
            let sum: u32 = h.iter().map(|b| *b as u32).sum();
            h[148..156].copy_from_slice(format!("{sum:07o}\0").as_bytes());
            t.block(&h, A.1);
        },
    );
    add("files of 0, 511, 512 and 513 bytes", &|t| {
        t.file("e0", b"")
            .file("e511", &[7u8; 511])
            .file("e512", &[8u8; 512])
            .file("e513", &[9u8; 513])
            .file(A.0, A.1);
    });
    // Colons and backslashes are not portable names (section 5.1, v1.1):
    // tests/bundle_portable.rs has them refused.
    add("names with spaces and quotes", &|t| {
        t.file("with space/c d\"f'g.txt", b"q").file(A.0, A.1);
    });
    out.push((
        "edge: zeros after the end blocks (a 10 KiB record)".into(),
        {
            let mut t = Tar::default();
            t.manifest(&files).file(A.0, A.1).file(B.0, B.1);
            let mut tar = t.end();
            tar.resize(10240, 0);
            gz(&tar)
        },
    ));
    out.push((
        "edge: gzip header with name, comment, extra and time".into(),
        {
            let mut t = Tar::default();
            t.manifest(&files).file(A.0, A.1).file(B.0, B.1);
            let mut e = flate2::GzBuilder::new()
                .filename("run.tar")
                .comment("a comment")
                .extra(vec![1, 2, 3, 4])
                .mtime(1_700_000_000)
                .write(Vec::new(), flate2::Compression::best());
            std::io::Write::write_all(&mut e, &t.end()).unwrap();
            e.finish().unwrap()
        },
    ));
    out
}

/// Every directory and regular file under `root` (paths relative to it);
/// anything else is listed as an error.
fn tree(root: &Path) -> BTreeSet<Entry> {
    let mut out = BTreeSet::new();
    for e in walkdir::WalkDir::new(root).min_depth(1) {
        let e = e.unwrap();
        let rel = e
            .path()
            .strip_prefix(root)
            .unwrap()
            .to_str()
            .expect("UTF-8 names")
            .to_string();
        let ft = e.file_type();
        let entry = if ft.is_dir() {
            Entry {
                path: rel,
                dir: true,
                size: 0,
                sha256: String::new(),
            }
        } else if ft.is_file() {
            let (size, sha256) = hash_reader(&mut fs::File::open(e.path()).unwrap()).unwrap();
            Entry {
                path: rel,
                dir: false,
                size,
                sha256,
            }
        } else {
            Entry {
                path: format!("{rel} (not a file or directory)"),
                dir: false,
                size: 0,
                sha256: String::new(),
            }
        };
        out.insert(entry);
    }
    out
}

/// The tree an extraction of `listing` must give: its entries plus every
/// parent directory.
fn expected_tree(listing: &[Entry]) -> BTreeSet<Entry> {
    let mut out: BTreeSet<Entry> = listing.iter().cloned().collect();
    for e in listing {
        let mut p = e.path.as_str();
        while let Some((parent, _)) = p.rsplit_once('/') {
            out.insert(Entry {
                path: parent.to_string(),
                dir: true,
                size: 0,
                sha256: String::new(),
            });
            p = parent;
        }
    }
    out
}

const PY_READ_ALL: &str = r#"
import hashlib, json, sys, tarfile
jobs = json.load(open(sys.argv[1]))
out = []
for path, dest in jobs:
    r = {}
    try:
        with tarfile.open(path, "r:gz") as t:
            members = []
            for m in t.getmembers():
                e = {"path": m.name, "dir": m.isdir(), "size": m.size if m.isreg() else 0, "sha256": ""}
                if m.isreg():
                    e["sha256"] = hashlib.sha256(t.extractfile(m).read()).hexdigest()
                elif not m.isdir():
                    e["path"] += " (type %r)" % m.type
                members.append(e)
            r["members"] = members
            t.extractall(dest, filter="data")
    except Exception as e:
        r["error"] = "%s: %s" % (type(e).__name__, e)
    out.append(r)
json.dump(out, sys.stdout)
"#;

fn entries_of(v: &Value) -> Vec<Entry> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|m| Entry {
            path: m["path"].as_str().unwrap().to_string(),
            dir: m["dir"].as_bool().unwrap(),
            size: m["size"].as_u64().unwrap(),
            sha256: m["sha256"].as_str().unwrap().to_string(),
        })
        .collect()
}

fn gnu_tar(args: &[&std::ffi::OsStr]) -> Result<String, String> {
    let o = Command::new("tar").args(args).output().unwrap();
    if o.status.success() {
        Ok(String::from_utf8_lossy(&o.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&o.stderr).into_owned())
    }
}

#[test]
fn python_gnu_tar_and_the_tar_crate_read_what_proofpack_accepts_the_same_way() {
    let started = Instant::now();
    let d = tempfile::tempdir().unwrap();
    let mut inputs: Vec<(String, Vec<u8>)> = Vec::new();
    for name in ["bundle_reader", "bundle_differential"] {
        for (file, data) in common::corpus::inputs(name) {
            if let Some(b) = harness::input_bundle(&data) {
                inputs.push((format!("{name}/{file}"), b));
            }
        }
    }
    let sample = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample");
    for e in fs::read_dir(&sample).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "tgz") {
            inputs.push((p.display().to_string(), fs::read(&p).unwrap()));
        }
    }
    let mut written = written_bundles(&d.path().join("written"));
    written.extend(edge_bundles());
    let written_names: Vec<String> = written.iter().map(|w| w.0.clone()).collect();
    inputs.extend(written);

    // proofpack's listings (and the tar crate's, in process).
    let mut accepted: Vec<(usize, Vec<Entry>)> = Vec::new();
    let mut failures: Vec<String> = Vec::new();
    for (i, (name, bytes)) in inputs.iter().enumerate() {
        let Some(ours) = harness::proofpack_listing(bytes, &Limits::default()) else {
            if written_names.contains(name) {
                failures.push(format!(
                    "{name}: written for ordinary files but not accepted"
                ));
            }
            continue;
        };
        match harness::tar_crate_listing(bytes) {
            Ok(l) if l == ours => {}
            other => failures.push(format!("{name}: tar crate {other:?}\n  proofpack {ours:?}")),
        }
        fs::write(d.path().join(format!("{i}.tgz")), bytes).unwrap();
        accepted.push((i, ours));
    }

    // Python, once for the batch.
    let jobs: Vec<(String, String)> = accepted
        .iter()
        .map(|(i, _)| {
            let p = d.path().join(format!("{i}.tgz"));
            let x = d.path().join(format!("py-{i}"));
            (p.display().to_string(), x.display().to_string())
        })
        .collect();
    let jobs_file = d.path().join("jobs.json");
    fs::write(&jobs_file, serde_json::to_vec(&jobs).unwrap()).unwrap();
    let o = Command::new(common::python())
        .arg("-c")
        .arg(PY_READ_ALL)
        .arg(&jobs_file)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let py: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(py.len(), accepted.len());

    for ((i, ours), py) in accepted.iter().zip(&py) {
        let name = &inputs[*i].0;
        let want_tree = expected_tree(ours);
        // Python: listing and extraction.
        if let Some(e) = py.get("error") {
            failures.push(format!("{name}: Python fails: {e}"));
        } else {
            let listed = entries_of(&py["members"]);
            if &listed != ours {
                failures.push(format!(
                    "{name}: Python lists {listed:?}\n  proofpack {ours:?}"
                ));
            }
            let got = tree(&d.path().join(format!("py-{i}")));
            if got != want_tree {
                failures.push(format!(
                    "{name}: Python extracts {got:?}\n  expected {want_tree:?}"
                ));
            }
        }
        // GNU tar: listing and extraction.
        let file = d.path().join(format!("{i}.tgz"));
        match gnu_tar(&[
            "--quoting-style=literal".as_ref(),
            "-tzf".as_ref(),
            file.as_os_str(),
        ]) {
            Err(e) => failures.push(format!("{name}: GNU tar -t fails: {e}")),
            Ok(out) => {
                let listed: Vec<&str> = out
                    .lines()
                    .map(|l| l.strip_suffix('/').unwrap_or(l))
                    .collect();
                let want: Vec<&str> = ours.iter().map(|e| e.path.as_str()).collect();
                if listed != want {
                    failures.push(format!(
                        "{name}: GNU tar lists {listed:?}\n  proofpack {want:?}"
                    ));
                }
            }
        }
        let x = d.path().join(format!("gnu-{i}"));
        fs::create_dir(&x).unwrap();
        match gnu_tar(&[
            "--no-same-owner".as_ref(),
            "--no-same-permissions".as_ref(),
            "--warning=no-timestamp".as_ref(),
            "-xzf".as_ref(),
            file.as_os_str(),
            "-C".as_ref(),
            x.as_os_str(),
        ]) {
            Err(e) => failures.push(format!("{name}: GNU tar -x fails: {e}")),
            Ok(_) => {
                let got = tree(&x);
                if got != want_tree {
                    failures.push(format!(
                        "{name}: GNU tar extracts {got:?}\n  expected {want_tree:?}"
                    ));
                }
            }
        }
    }
    let by_kind: BTreeMap<bool, usize> = accepted.iter().fold(BTreeMap::new(), |mut m, (i, _)| {
        *m.entry(written_names.contains(&inputs[*i].0)).or_default() += 1;
        m
    });
    println!(
        "{} of {} inputs accepted structurally and compared with Python, GNU tar and the tar crate \
         ({} written by the tools, {} from the corpora and the sample), {:.1} s",
        accepted.len(),
        inputs.len(),
        by_kind.get(&true).copied().unwrap_or(0),
        by_kind.get(&false).copied().unwrap_or(0),
        started.elapsed().as_secs_f64()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(by_kind.get(&true).copied(), Some(written_names.len()));
    assert!(
        accepted.len() >= 60,
        "only {} inputs accepted: the comparison says little",
        accepted.len()
    );
}

#[test]
fn differential_fuzz_corpus_replays() {
    let n = common::replay_corpus("bundle_differential", harness::run);
    assert!(n >= 10, "expected the committed corpus, found {n}");
}
