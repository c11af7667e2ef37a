//! The sample sealed with its write-up beside it, shared by the publication
//! CLI tests.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::path::PathBuf;

pub use crate::qualify_support::*;

pub fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// A fresh sample, sealed, with its write-up beside it.
pub struct Pub {
    pub c: Case,
    pub path: PathBuf,
    pub bundle: proofpack::digest::Sha256Digest,
}

pub fn published() -> Pub {
    let c = fresh();
    let bundle = c.seal();
    let path = c.dir.path().join("PUBLICATION.md");
    std::fs::write(&path, gen::publication(&c.sample, &bundle)).unwrap();
    Pub { c, path, bundle }
}

impl Pub {
    pub fn text(&self) -> String {
        std::fs::read_to_string(&self.path).unwrap()
    }
    /// Replaces `from` (which must occur) in the write-up.
    pub fn edit(&self, from: &str, to: &str) {
        let t = self.text();
        assert!(t.contains(from), "{from:?} not in the write-up");
        std::fs::write(&self.path, t.replacen(from, to, 1)).unwrap();
    }
    /// Reseals after an edit of the run, keeping the write-up's numbers but
    /// stating the new bundle's digest (as a publisher would).
    pub fn reseal(&mut self) {
        let d = self.c.seal();
        self.edit(&self.bundle.to_hex(), &d.to_hex());
        self.bundle = d;
    }
    pub fn verify(&self, extra: &[&OsStr]) -> Outcome {
        let trust = self.c.trust();
        let mut args = vec![
            os("--publication"),
            self.path.as_os_str(),
            os("--trust"),
            trust.as_os_str(),
        ];
        args.extend_from_slice(extra);
        verify_with(&self.c.bundle_path(), &args)
    }

    /// Runs verify on an edited write-up that must be refused (exit 2);
    /// its stderr.
    pub fn refused(&self) -> String {
        let (bundle, trust) = (self.c.bundle_path(), self.c.trust());
        let (code, _, stderr) = proofpack(&[
            os("verify"),
            bundle.as_os_str(),
            os("--publication"),
            self.path.as_os_str(),
            os("--trust"),
            trust.as_os_str(),
        ]);
        assert_eq!(code, 2, "not refused: {stderr}");
        stderr
    }
}
