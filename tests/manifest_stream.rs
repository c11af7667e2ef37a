//! v1.1: `check`, `diff` and `catalog import` read manifest files entry by
//! entry (two sorted sequences merge without a table of entries), in
//! bounded memory, measured here (peak RSS of the process, GNU time); and
//! a manifest that is not as the canonical writer writes it (unsorted,
//! malformed, a duplicate, a record whose totals lie) is read whole and
//! accepted or refused exactly as before, with nothing printed first.

use std::fs;
use std::path::Path;
use std::process::Command;

use proofpack::digest::Sha256Digest;
use proofpack::manifest::{Entry, Format, Manifest};

mod bundle_support;
use bundle_support::pp_bounded;

/// Peak RSS bound of the streaming verbs on these inputs (issue 23).
const BOUND_MIB: u64 = 32;

/// `n` entries `d-XXX/file-NNNNNNN.json` with sizes; `f` may change, drop
/// or add entries by index.
fn entries(n: usize, f: impl Fn(usize) -> Vec<(String, u64)>) -> Manifest {
    let mut v = Vec::new();
    for i in 0..n {
        for (path, salt) in f(i) {
            v.push(Entry {
                path,
                size: Some(1000 + (i as u64 % 7)),
                sha256: Sha256Digest::of_bytes(format!("{i}:{salt}").as_bytes()),
            });
        }
    }
    Manifest::from_entries(v, "generated").unwrap()
}

fn path(i: usize) -> String {
    format!("d-{:03}/file-{i:07}.json", i / 1000)
}

fn old_set(n: usize) -> Manifest {
    entries(n, |i| vec![(path(i), 0)])
}

/// 1% changed, 0.1% removed, 0.1% added.
fn new_set(n: usize) -> Manifest {
    entries(n, |i| {
        let mut v = Vec::new();
        if i % 1000 != 7 {
            v.push((path(i), u64::from(i % 100 == 3)));
        }
        if i % 1000 == 0 {
            v.push((format!("d-{:03}/zz-{i}.json", i / 1000), 9));
        }
        v
    })
}

fn os(s: &Path) -> &std::ffi::OsStr {
    s.as_os_str()
}

#[test]
fn diff_of_two_200k_entry_manifests_streams_in_bounded_memory() {
    let d = tempfile::tempdir().unwrap();
    let n = 200_000;
    let (old, new) = (old_set(n), new_set(n));
    let (po, pn) = (d.path().join("old.json"), d.path().join("new.manifest"));
    // One side a JSON record, the other canonical text.
    fs::write(&po, old.render(Format::Json).unwrap()).unwrap();
    fs::write(&pn, new.render(Format::Canonical).unwrap()).unwrap();
    let m = pp_bounded(
        &["diff".as_ref(), "--json".as_ref(), os(&po), os(&pn)],
        1024,
    );
    assert_eq!(m.code, Some(1), "{}", m.stderr);
    m.assert_bounded(BOUND_MIB, 120.0);
    // The same report, byte for byte, as the diff of the manifests in memory.
    let target = format!("{} -> {}", po.display(), pn.display());
    let want = proofpack::manifest::diff(&old, &new).to_report(&target, &old, &new);
    assert_eq!(want.summary().failed, 1 + 2_000 + 200 + 200);
    let o = Command::new(assert_cmd::cargo::cargo_bin("proofpack"))
        .args(["--no-catalog", "diff", "--json"])
        .args([&po, &pn])
        .output()
        .unwrap();
    assert!(
        String::from_utf8(o.stdout).unwrap() == format!("{}\n", want.to_json()),
        "the streamed report differs from the report in memory"
    );
    assert_eq!(
        m.check("manifest.digest")["detail"],
        "197800 unchanged, 200 added, 200 removed, 2000 changed"
    );

    // Every path drifted: 200,000 rows leave through the spill, not memory.
    let all = entries(n, |i| vec![(path(i), 5)]);
    let pa = d.path().join("all.manifest");
    fs::write(&pa, all.render(Format::Sha256sum).unwrap()).unwrap();
    for json in [true, false] {
        let mut args = vec!["diff".as_ref(), os(&po), os(&pa)];
        if json {
            args.insert(1, "--json".as_ref());
        }
        let m = pp_bounded(&args, 1024);
        assert_eq!(m.code, Some(1), "{}", m.stderr);
        m.assert_bounded(BOUND_MIB, 120.0);
        if json {
            assert_eq!(m.report["checks"].as_array().unwrap().len(), n + 1);
        }
        assert!(m.stderr.contains("200000 changed"), "{}", m.stderr);
    }
}

#[test]
fn check_of_a_200k_entry_manifest_streams_in_bounded_memory() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("m.json");
    fs::write(&p, old_set(200_000).render(Format::Json).unwrap()).unwrap();
    let empty = d.path().join("empty");
    fs::create_dir(&empty).unwrap();
    for extra in [&["--json"][..], &[], &["--sizes-only", "--json"]] {
        let mut args: Vec<&std::ffi::OsStr> =
            vec!["check".as_ref(), os(&empty), "--manifest".as_ref(), os(&p)];
        args.extend(extra.iter().map(|a| std::ffi::OsStr::new(*a)));
        let m = pp_bounded(&args, 1024);
        assert_eq!(m.code, Some(1), "{}", m.stderr);
        m.assert_bounded(BOUND_MIB, 120.0);
        assert!(
            m.stderr.contains("200000 of 200000 paths differ"),
            "{}",
            m.stderr
        );
        if extra.contains(&"--json") {
            let checks = m.report["checks"].as_array().unwrap();
            assert_eq!(checks.len(), 200_000);
            assert_eq!(
                checks[0]["detail"],
                "missing: listed in the manifest but not on disk"
            );
        }
    }
}

/// A small tree and its manifest lines, sorted.
fn tree(d: &Path) -> (std::path::PathBuf, Vec<String>) {
    let root = d.join("tree");
    for (rel, c) in [
        ("a.txt", "1"),
        ("b/c.txt", "2"),
        ("b-c.txt", "3"),
        ("ü.txt", "4"),
    ] {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, c).unwrap();
    }
    let out = Command::new(assert_cmd::cargo::cargo_bin("proofpack"))
        .args(["--no-catalog", "manifest", "--format", "sha256sum"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(out.status.success());
    let lines = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    (root, lines)
}

fn pp(args: &[&std::ffi::OsStr]) -> (i32, String, String) {
    let o = Command::new(assert_cmd::cargo::cargo_bin("proofpack"))
        .arg("--no-catalog")
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap(),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn manifests_not_in_canonical_order_are_read_as_before() {
    let d = tempfile::tempdir().unwrap();
    let (root, lines) = tree(d.path());
    // sha256sum lines of an unsorted find: still accepted, in memory.
    let unsorted = d.path().join("unsorted.sha256");
    let mut rev = lines.clone();
    rev.reverse();
    fs::write(&unsorted, rev.join("\n") + "\n").unwrap();
    let (code, _, err) = pp(&[
        "check".as_ref(),
        os(&root),
        "--manifest".as_ref(),
        os(&unsorted),
    ]);
    assert_eq!(code, 0, "{err}");
    let sorted = d.path().join("sorted.sha256");
    fs::write(&sorted, lines.join("\n") + "\n").unwrap();
    let (code, out, err) = pp(&["diff".as_ref(), os(&unsorted), os(&sorted)]);
    assert_eq!((code, out.as_str()), (0, ""), "{err}");
}

/// What a hostile manifest tries against a reader that merges in order:
/// a path listed twice, far apart, with two digests (a merge that matched
/// the first would never look at the second); a record whose totals
/// describe another set; a bad line at the very end, after every check
/// streamed. Each is refused with the parser's own error (exit 2), and
/// nothing is printed before it.
#[test]
fn forged_manifests_are_refused_with_the_parsers_error_and_nothing_printed() {
    let d = tempfile::tempdir().unwrap();
    let (root, lines) = tree(d.path());
    let mut dup = lines.clone();
    // The first path again, last, with another digest.
    let first_path = &lines[0][66..];
    dup.push(format!("{}  {first_path}", "0".repeat(64)));
    let m = Manifest::parse((lines.join("\n") + "\n").as_bytes(), None, "t")
        .unwrap()
        .0;
    let record = m.to_json_record();
    assert!(record.is_err(), "sha256sum lines carry no sizes");
    let sized = Manifest::from_entries(
        m.entries()
            .iter()
            .map(|e| Entry {
                size: Some(1),
                ..e.clone()
            })
            .collect(),
        "t",
    )
    .unwrap();
    let json = sized.to_json_record().unwrap();
    let cases = [
        ("duplicate.sha256", dup.join("\n") + "\n", "duplicate path"),
        (
            "lying.json",
            json.replace("\"files\": 4", "\"files\": 5"),
            "files says 5, but there are 4 entries",
        ),
        (
            "other-digest.json",
            json.replace(
                &sized.digest().prefixed(),
                &Sha256Digest::of_bytes(b"x").prefixed(),
            ),
            "digest says",
        ),
        (
            "bad-last-line.sha256",
            lines.join("\n") + "\nnot a line\n",
            "line 5: expected '<64 hex>  <path>'",
        ),
    ];
    for (name, text, needle) in cases {
        let p = d.path().join(name);
        fs::write(&p, &text).unwrap();
        let want = Manifest::read_file(&p, None).unwrap_err().to_string();
        assert!(want.contains(needle), "{want}");
        for args in [
            vec!["check".as_ref(), os(&root), "--manifest".as_ref(), os(&p)],
            vec![
                "check".as_ref(),
                os(&root),
                "--manifest".as_ref(),
                os(&p),
                "--json".as_ref(),
            ],
            vec!["diff".as_ref(), os(&p), os(&root)],
            vec!["diff".as_ref(), "--json".as_ref(), os(&root), os(&p)],
        ] {
            let (code, out, err) = pp(&args);
            assert_eq!(code, 2, "{name} {args:?}: {out}{err}");
            assert!(out.is_empty(), "{name} {args:?} printed: {out}");
            assert!(err.contains(&want), "{name} {args:?}: {err}\nwant {want}");
        }
    }
}

/// `catalog import` of a 200,000-entry record: read in order twice, never
/// parsed into a table of entries, written into the row's blob; the same
/// baseline as recorded from memory (exported byte for byte). Its memory
/// follows the stored body, not the entries: SQLite builds a row whose blob
/// is not its last column whole (about 2.5 times the body here, where the
/// manifest in memory took twice that).
#[test]
fn catalog_import_streams_a_200k_entry_record() {
    let d = tempfile::tempdir().unwrap();
    let m = old_set(200_000);
    let p = d.path().join("m.json");
    let json = m.render(Format::Json).unwrap();
    fs::write(&p, &json).unwrap();
    let cat = d.path().join("cat.sqlite");
    let timing = d.path().join("time");
    let o = Command::new("/usr/bin/time")
        .args(["-f", "%M", "-o"])
        .arg(&timing)
        .arg(assert_cmd::cargo::cargo_bin("proofpack"))
        .arg("--catalog")
        .arg(&cat)
        .args(["catalog", "import", "big"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let kib: u64 = fs::read_to_string(&timing)
        .unwrap()
        .lines()
        .last()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let body_kib = json.len() as u64 >> 10;
    println!("catalog import peak RSS {kib} KiB, body {body_kib} KiB");
    assert!(kib < 3 * body_kib + (16 << 10), "peak RSS {kib} KiB");
    assert!(String::from_utf8_lossy(&o.stderr).contains(&m.digest().prefixed()));
    let e = Command::new(assert_cmd::cargo::cargo_bin("proofpack"))
        .arg("--catalog")
        .arg(&cat)
        .args(["catalog", "export", "big", "--format", "json"])
        .output()
        .unwrap();
    assert!(e.status.success(), "{}", String::from_utf8_lossy(&e.stderr));
    assert!(
        e.stdout == json.as_bytes(),
        "export differs from the imported record"
    );
    // And the baseline is the file's set.
    let o = Command::new(assert_cmd::cargo::cargo_bin("proofpack"))
        .arg("--catalog")
        .arg(&cat)
        .args(["diff", "catalog:big"])
        .arg(&p)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.stdout.is_empty());
}
