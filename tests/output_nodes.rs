//! Outputs never damage the machine: every writing verb aimed with `-o`
//! (or `--html`) at a character device made with `mknod` leaves the device
//! node in place, and aimed at a FIFO with a reader delivers its bytes to
//! the reader and leaves the FIFO in place (both used to be replaced by a
//! regular file renamed over them: as root, `-o /dev/null` destroyed
//! /dev/null). A symlink is followed and the file it names is replaced in
//! its own directory; `-o -` writes to standard output; a missing output
//! directory is refused before any work. The tests run as root (as CI).

mod common;

use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const SAMPLE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/testdata/sample");

fn pp(cat: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_proofpack"));
    c.env("PROOFPACK_CATALOG", cat)
        .env("NO_COLOR", "1")
        .env("SOURCE_DATE_EPOCH", "0");
    c
}

fn ok(cmd: &mut Command) -> Output {
    common::output_ok(cmd)
}

/// Inputs for every writing verb, in one temporary directory.
struct World {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    cat: PathBuf,
    tree: PathBuf,
    run: PathBuf,
    part: PathBuf,
    record: PathBuf,
    report: PathBuf,
}

fn world() -> World {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let cat = dir.join("catalog.db");
    let tree = dir.join("tree");
    fs::create_dir_all(tree.join("sub")).unwrap();
    fs::write(tree.join("a.txt"), b"alpha\n").unwrap();
    fs::write(tree.join("sub/b.txt"), b"beta\n").unwrap();
    let run = dir.join("run");
    fs::create_dir_all(&run).unwrap();
    fs::write(run.join("notes.txt"), b"a run\n").unwrap();
    let part = dir.join("part.json");
    ok(pp(&cat)
        .arg("manifest")
        .arg(&tree)
        .args(["--partition", "1/1", "-o"])
        .arg(&part));
    let record = dir.join("record.json");
    ok(pp(&cat)
        .arg("manifest")
        .arg(&tree)
        .args(["--format", "json", "--record", "t", "-o"])
        .arg(&record));
    fs::write(dir.join("predicate.json"), b"{\"k\": 1}").unwrap();
    fs::write(dir.join("fleet.json"), b"{\"hosts\": [{\"name\": \"h1\"}]}").unwrap();
    // A saved report for `report`: verify of the sample (it verifies).
    let report = dir.join("report.json");
    let out = pp(&cat)
        .args(["verify", "--json"])
        .arg(Path::new(SAMPLE).join("kimi-k3-mi355x-20260923-sample.tgz"))
        .arg("--trust")
        .arg(Path::new(SAMPLE).join("trust.json"))
        .output()
        .unwrap();
    fs::write(&report, &out.stdout).unwrap();
    World {
        _tmp: tmp,
        dir,
        cat,
        tree,
        run,
        part,
        record,
        report,
    }
}

/// (verb, its arguments before `-o OUT`, whether its bytes are
/// deterministic). The output flag is appended by the caller.
fn verbs(w: &World) -> Vec<(&'static str, Vec<OsString>, bool)> {
    let s = |x: &str| OsString::from(x);
    let p = |x: &Path| x.as_os_str().to_owned();
    let key = |n: &str| p(&Path::new(SAMPLE).join("keys").join(n));
    vec![
        ("manifest", vec![s("manifest"), p(&w.tree)], true),
        (
            "manifest --partition",
            vec![s("manifest"), p(&w.tree), s("--partition"), s("1/1")],
            true,
        ),
        (
            "manifest merge",
            vec![s("manifest"), s("merge"), p(&w.part)],
            true,
        ),
        (
            "attest sign",
            vec![
                s("attest"),
                s("sign"),
                s("--key"),
                key("TEST-ONLY-engine.key"),
                s("--predicate-type"),
                s("urn:example:test"),
                s("--predicate"),
                p(&w.dir.join("predicate.json")),
                s("--subject"),
                s(&format!("a={}", w.tree.join("a.txt").display())),
            ],
            true,
        ),
        (
            "host check",
            vec![
                s("host"),
                s("check"),
                p(&w.tree),
                s("--weights"),
                p(&w.record),
                s("--host"),
                s("h1"),
                s("--run"),
                s("output-nodes"),
                s("--fleet"),
                p(&w.dir.join("fleet.json")),
                s("--key"),
                key("TEST-ONLY-host.key"),
            ],
            false,
        ),
        (
            "key trust",
            vec![
                s("key"),
                s("trust"),
                s("--engine"),
                key("TEST-ONLY-engine.pub"),
            ],
            true,
        ),
        (
            "pins from-publication",
            vec![
                s("pins"),
                s("from-publication"),
                p(&Path::new(SAMPLE).join("PUBLICATION.md")),
            ],
            true,
        ),
        (
            "catalog export",
            vec![s("catalog"), s("export"), s("t")],
            true,
        ),
        ("report", vec![s("report"), p(&w.report)], true),
        ("seal", vec![s("seal"), p(&w.run)], true),
    ]
}

fn run_to(w: &World, args: &[OsString], flag: &str, out: &Path) -> Output {
    pp(&w.cat).args(args).arg(flag).arg(out).output().unwrap()
}

fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".proofpack-tmp") || n.ends_with(".lock"))
        .collect()
}

fn mkfifo(p: &Path) {
    assert!(Command::new("mkfifo").arg(p).status().unwrap().success());
}

/// Runs `args -o FIFO` with a reader on the FIFO; the bytes it read.
fn through_fifo(w: &World, args: &[OsString], flag: &str, fifo: &Path) -> (Output, Vec<u8>) {
    let reader = {
        let fifo = fifo.to_path_buf();
        std::thread::spawn(move || {
            let mut v = Vec::new();
            fs::File::open(&fifo).unwrap().read_to_end(&mut v).unwrap();
            v
        })
    };
    let out = run_to(w, args, flag, fifo);
    // If the verb never opened the FIFO, release the reader (it reads EOF).
    {
        use std::os::unix::fs::OpenOptionsExt;
        let _ = fs::OpenOptions::new()
            .write(true)
            .custom_flags(0o4000) // O_NONBLOCK: fails at once once the reader is gone
            .open(fifo);
    }
    (out, reader.join().unwrap())
}

#[test]
fn every_writing_verb_writes_into_a_device_and_a_fifo_and_leaves_them_in_place() {
    let w = world();
    let nodes = w.dir.join("nodes");
    fs::create_dir(&nodes).unwrap();
    for (name, args, deterministic) in verbs(&w) {
        let slug = name.replace([' ', '-'], "_");
        // The same verb into a regular file, for the bytes to expect.
        let plain = nodes.join(format!("{slug}.plain"));
        let o = run_to(&w, &args, "-o", &plain);
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let expected = fs::read(&plain).unwrap();
        assert!(!expected.is_empty(), "{name}");

        // A character device (the numbers of /dev/null).
        let dev = nodes.join(format!("{slug}.null"));
        let st = Command::new("mknod")
            .arg(&dev)
            .args(["c", "1", "3"])
            .status()
            .unwrap();
        assert!(st.success(), "mknod (the tests run as root)");
        let o = run_to(&w, &args, "-o", &dev);
        assert!(
            o.status.success(),
            "{name} -o device: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let ft = fs::symlink_metadata(&dev).unwrap().file_type();
        assert!(ft.is_char_device(), "{name}: the device node was replaced");

        // A FIFO with a reader.
        let fifo = nodes.join(format!("{slug}.fifo"));
        mkfifo(&fifo);
        let (o, got) = through_fifo(&w, &args, "-o", &fifo);
        assert!(
            o.status.success(),
            "{name} -o fifo: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert!(
            fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(),
            "{name}: the FIFO was replaced"
        );
        if deterministic {
            assert_eq!(got, expected, "{name}: the reader got other bytes");
        } else {
            assert!(!got.is_empty(), "{name}: the reader got nothing");
        }
    }
    assert_eq!(leftovers(&nodes), Vec::<String>::new());
}

#[test]
fn verify_html_into_a_device_and_a_fifo() {
    let w = world();
    let bundle = Path::new(SAMPLE).join("kimi-k3-mi355x-20260923-sample.tgz");
    let args: Vec<OsString> = vec![
        "verify".into(),
        bundle.into_os_string(),
        "--trust".into(),
        Path::new(SAMPLE).join("trust.json").into_os_string(),
    ];
    let dev = w.dir.join("null");
    assert!(Command::new("mknod")
        .arg(&dev)
        .args(["c", "1", "3"])
        .status()
        .unwrap()
        .success());
    let o = run_to(&w, &args, "--html", &dev);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(fs::symlink_metadata(&dev)
        .unwrap()
        .file_type()
        .is_char_device());
    let fifo = w.dir.join("page.fifo");
    mkfifo(&fifo);
    let (o, got) = through_fifo(&w, &args, "--html", &fifo);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    let page = String::from_utf8(got).unwrap();
    assert!(
        page.contains("<html") && page.contains("VERIFIED"),
        "{}",
        &page[..page.len().min(300)]
    );
    assert_eq!(leftovers(&w.dir), Vec::<String>::new());
}

#[test]
fn a_symlink_is_followed_and_its_file_replaced_in_its_own_directory() {
    let w = world();
    let real_dir = w.dir.join("real");
    let link_dir = w.dir.join("links");
    fs::create_dir(&real_dir).unwrap();
    fs::create_dir(&link_dir).unwrap();
    let target = real_dir.join("m.txt");
    fs::write(&target, b"old").unwrap();
    let link = link_dir.join("m.txt");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    ok(pp(&w.cat).arg("manifest").arg(&w.tree).arg("-o").arg(&link));
    assert!(fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    let text = fs::read_to_string(&target).unwrap();
    assert!(
        text.contains("a.txt") && text.contains("sub/b.txt"),
        "{text}"
    );
    // A dangling link: the file it names is created.
    let fresh = real_dir.join("new.txt");
    let dangling = link_dir.join("new.txt");
    std::os::unix::fs::symlink(&fresh, &dangling).unwrap();
    ok(pp(&w.cat)
        .arg("manifest")
        .arg(&w.tree)
        .arg("-o")
        .arg(&dangling));
    assert!(fs::symlink_metadata(&dangling)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(fs::read_to_string(&fresh).unwrap(), text);
    assert!(leftovers(&real_dir).is_empty() && leftovers(&link_dir).is_empty());
}

#[test]
fn dash_is_standard_output_where_one_stream_makes_sense() {
    let w = world();
    for args in [
        vec![OsString::from("manifest"), w.tree.clone().into_os_string()],
        vec!["report".into(), w.report.clone().into_os_string()],
        vec![
            "manifest".into(),
            "merge".into(),
            w.part.clone().into_os_string(),
        ],
    ] {
        let file = w.dir.join("plain.out");
        ok(pp(&w.cat).args(&args).arg("-o").arg(&file));
        let out = ok(pp(&w.cat).args(&args).args(["-o", "-"]));
        assert_eq!(out.stdout, fs::read(&file).unwrap(), "{args:?}");
        assert!(!w.dir.join("-").exists());
    }
    // Where the verb prints something else on stdout, `-` is refused.
    for args in [
        vec![
            OsString::from("seal"),
            w.run.clone().into_os_string(),
            "-o".into(),
            "-".into(),
        ],
        vec![
            "verify".into(),
            Path::new(SAMPLE)
                .join("kimi-k3-mi355x-20260923-sample.tgz")
                .into_os_string(),
            "--html".into(),
            "-".into(),
        ],
    ] {
        let o = pp(&w.cat).args(&args).output().unwrap();
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("give a file name"));
    }
}

#[test]
fn a_missing_output_directory_is_refused_before_the_work() {
    let w = world();
    let bundle = Path::new(SAMPLE).join("kimi-k3-mi355x-20260923-sample.tgz");
    for args in [
        vec![
            OsString::from("verify"),
            bundle.into_os_string(),
            "--html".into(),
            "/missing/dir/r.html".into(),
        ],
        vec![
            "manifest".into(),
            w.tree.clone().into_os_string(),
            "-o".into(),
            "/missing/dir/m".into(),
        ],
        vec![
            "seal".into(),
            w.run.clone().into_os_string(),
            "-o".into(),
            "/missing/dir/b.tgz".into(),
        ],
    ] {
        let t = std::time::Instant::now();
        let o = pp(&w.cat).args(&args).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("/missing/dir does not exist"), "{err}");
        assert!(!err.contains(".proofpack-tmp"), "{err}");
        // Nothing was verified or hashed first: no report on stdout.
        assert!(o.stdout.is_empty(), "{args:?}");
        let _ = t;
    }
}
