//! A run directory that changes between the manifest pass and the archive
//! pass must fail the seal and leave no output. The change is made from a
//! progress callback, which `seal` calls after each file it archives, so the
//! race is deterministic.

use std::fs;
use std::path::PathBuf;
use std::sync::Mutex;

use proofpack::bundle::{seal, BundleError, SealOptions};
use proofpack::progress::Progress;

/// On the first archived file, rewrites `target` with `content`.
struct Tamper {
    target: PathBuf,
    content: Vec<u8>,
    done: Mutex<bool>,
}

impl Progress for Tamper {
    fn item_done(&self) {
        let mut done = self.done.lock().unwrap();
        if !*done {
            fs::write(&self.target, &self.content).unwrap();
            *done = true;
        }
    }
}

fn run_with(
    content: &[u8],
) -> (
    Result<proofpack::bundle::Sealed, BundleError>,
    tempfile::TempDir,
) {
    let d = tempfile::tempdir().unwrap();
    let run = d.path().join("run");
    fs::create_dir_all(&run).unwrap();
    fs::write(run.join("a.txt"), b"first").unwrap();
    fs::write(run.join("z.txt"), b"later").unwrap();
    let tamper = Tamper {
        target: run.join("z.txt"),
        content: content.to_vec(),
        done: Mutex::new(false),
    };
    let r = seal(
        &run,
        &d.path().join("out.tgz"),
        &SealOptions::default(),
        &tamper,
    );
    assert!(
        *tamper.done.lock().unwrap(),
        "the archive pass reported progress"
    );
    (r, d)
}

#[test]
fn content_changed_after_hashing_fails_the_seal() {
    for (content, needle) in [
        (&b"LATER"[..], "content hashed to"),
        (b"later, longer", "longer"),
        (b"lat", "shorter"),
    ] {
        let (r, d) = run_with(content);
        match r {
            Err(BundleError::ChangedWhileSealing { path, reason }) => {
                assert!(path.ends_with("z.txt"));
                assert!(reason.contains(needle), "{reason}");
            }
            other => panic!("expected ChangedWhileSealing, got {other:?}"),
        }
        let left: Vec<_> = fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            left,
            vec![std::ffi::OsString::from("run")],
            "no output or temporary file may remain"
        );
    }
}

#[test]
fn unchanged_content_seals() {
    let (r, d) = run_with(b"later");
    assert!(r.is_ok(), "{r:?}");
    assert!(d.path().join("out.tgz").is_file() && d.path().join("out.tgz.sha256").is_file());
}
