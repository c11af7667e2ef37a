//! The hash cache cannot be poisoned by swapping a parent directory: the
//! attack of the third hostile review, made deterministic with a FIFO and
//! the progress callback that runs between the scan and the first read
//! (no hook in the product).
//!
//! The tree holds `d/f` (content A). After the scan has stat'ed `d/f`, the
//! directory `d` is swapped for one whose `f` is a FIFO; the hasher opens
//! the FIFO; the directory is swapped back, and the FIFO delivers B (as long
//! as A). A stat by path after hashing then sees A again, unchanged, and a
//! cache that trusted it would store B's digest under A's identity: every
//! later `check` without `--full` would pass a manifest that says B while
//! the disk holds A. The descriptor's `fstat` sees the FIFO: nothing is
//! stored, the build refuses the file, and `check` fails on A.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use proofpack::catalog::{Catalog, RACY_MARGIN_NS};
use proofpack::digest::Sha256Digest;
use proofpack::manifest::{self, BuildOptions, HashCache, ManifestError};
use proofpack::progress::Progress;

const A: &[u8] = b"the weights the auditor holds\n";
const B: &[u8] = b"the weights the forger wants!\n";

/// Swaps `root/d` for `evil` when hashing starts (after the scan).
struct SwapOnStart {
    root: PathBuf,
    evil: PathBuf,
    hold: PathBuf,
}

impl Progress for SwapOnStart {
    fn start(&self, _bytes: u64, _items: u64) {
        fs::rename(self.root.join("d"), &self.hold).unwrap();
        fs::rename(&self.evil, self.root.join("d")).unwrap();
    }
}

fn mkfifo(p: &Path) {
    let st = Command::new("mkfifo").arg(p).status().unwrap();
    assert!(st.success());
}

#[test]
fn a_parent_directory_swapped_during_the_read_poisons_nothing() {
    assert_eq!(A.len(), B.len(), "the forged content keeps the size");
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("t");
    fs::create_dir_all(root.join("d")).unwrap();
    fs::write(root.join("d/f"), A).unwrap();
    let evil = d.path().join("evil");
    fs::create_dir(&evil).unwrap();
    mkfifo(&evil.join("f"));
    let hold = d.path().join("hold");
    let cat = d.path().join("catalog.db");
    // A must be old enough to be cacheable.
    std::thread::sleep(Duration::from_nanos(RACY_MARGIN_NS as u64) + Duration::from_millis(400));

    // The forger's side: once the hasher has the FIFO open, put the real
    // directory back, then deliver B.
    let writer = {
        let (root, evil, hold) = (root.clone(), evil.clone(), hold.clone());
        std::thread::spawn(move || {
            // Blocks until the hasher opens the FIFO for reading.
            let mut w = fs::OpenOptions::new()
                .write(true)
                .open(hold.parent().unwrap().join("evil/f"))
                .or_else(|_| fs::OpenOptions::new().write(true).open(root.join("d/f")))
                .unwrap();
            fs::rename(root.join("d"), &evil).unwrap();
            fs::rename(&hold, root.join("d")).unwrap();
            // A hasher that refuses the FIFO has closed it already (the
            // write then fails with a broken pipe); one that reads it gets B.
            let _ = w.write_all(B);
        })
    };
    let c = Catalog::open(&cat).unwrap();
    let session = c.hash_cache(&root, true).unwrap();
    let progress = SwapOnStart {
        root: root.clone(),
        evil: evil.clone(),
        hold: hold.clone(),
    };
    let opts = BuildOptions {
        excludes: Vec::new(),
        threads: 1,
        cache: Some(&session as &dyn HashCache),
    };
    let built = manifest::build(&root, &opts, &progress);
    writer.join().unwrap();
    let st = session.finish().unwrap();
    // The directory is back: the path names A again, with A's stat.
    assert_eq!(fs::read(root.join("d/f")).unwrap(), A);
    match built {
        Err(ManifestError::ReplacedWhileHashing { path }) => {
            assert!(path.ends_with("d/f"), "{}", path.display())
        }
        other => panic!("the build must refuse the swapped file, got {other:?}"),
    }
    assert_eq!(st.stored, 0, "nothing is cached: {st:?}");
    assert_eq!(c.cache_len().unwrap(), 0);
    drop(c);

    // The forger's manifest says B; the disk holds A. `check` (which uses
    // the cache) fails on d/f.
    let forged = format!("{}  d/f\n", Sha256Digest::of_bytes(B).to_hex());
    let mpath = d.path().join("forged.manifest");
    fs::write(&mpath, forged).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_proofpack"))
        .env("PROOFPACK_CATALOG", &cat)
        .env("NO_COLOR", "1")
        .args(["check", "--json", "--manifest"])
        .arg(&mpath)
        .arg(&root)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let failed: Vec<&str> = v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["ok"] == false)
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert!(
        failed.iter().any(|id| id.contains("d/f")),
        "d/f must fail: {failed:?}"
    );
}
