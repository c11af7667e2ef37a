//! `bundle.stable`: whether the evidence was collected from the very bytes
//! the structural checks verified, for either way of reading the bundle.

use std::path::Path;

use super::deferred::SecondReading;
use crate::bundle::BundleVerification;
use crate::digest::Sha256Digest;
use crate::report::Check;

/// Identity of the bundle, its sidecar and its seal (device, inode, size,
/// modification time), to notice any of them being replaced mid-way.
#[derive(Debug, PartialEq, Eq)]
struct FileSet(Vec<Option<FileId>>);

/// (device, inode, size, mtime seconds, mtime nanoseconds).
type FileId = (u64, u64, u64, i64, i64);

impl FileSet {
    fn of(bundle: &Path, seal: Option<&Path>) -> FileSet {
        use std::os::unix::fs::MetadataExt;
        let id = |p: &Path| {
            std::fs::metadata(p)
                .ok()
                .map(|m| (m.dev(), m.ino(), m.len(), m.mtime(), m.mtime_nsec()))
        };
        let mut side = bundle.as_os_str().to_owned();
        side.push(".sha256");
        let default_seal = crate::bundle::seal_path(bundle);
        FileSet(vec![
            id(bundle),
            id(Path::new(&side)),
            id(seal.unwrap_or(&default_seal)),
        ])
    }
}

/// The bundle, its sidecar and its seal as they were before the bundle
/// was read.
pub(super) struct Watch<'a> {
    bundle: &'a Path,
    seal: Option<&'a Path>,
    before: FileSet,
}

impl<'a> Watch<'a> {
    /// Notes the bundle at `bundle`, its sidecar and its seal (`seal`, or
    /// the one beside the bundle) as they are now.
    pub(super) fn start(bundle: &'a Path, seal: Option<&'a Path>) -> Self {
        Watch {
            bundle,
            seal,
            before: FileSet::of(bundle, seal),
        }
    }

    /// Whether none of them was replaced since [`Watch::start`].
    fn unchanged(&self) -> bool {
        FileSet::of(self.bundle, self.seal) == self.before
    }
}

/// What the way the bundle was read compares, besides the files and the
/// passes that read journals again.
pub(super) enum Compared<'a> {
    /// Read in one pass: the SHA-256 of the `qualification.json` read
    /// ahead, and of the entry the verifying pass read.
    OnePass {
        read_ahead: Sha256Digest,
        verified: Option<Sha256Digest>,
    },
    /// Read in two passes: the second pass, to compare with the first.
    TwoPass { pass2: &'a BundleVerification },
}

/// The check `bundle.stable` and whether it holds: `pass1` (the verifying
/// pass) read the bytes `compared` says were read, none of the files
/// `watch` noted was replaced, and every pass in `again` read the bytes
/// `pass1` verified.
pub(super) fn bundle_stable(
    compared: &Compared<'_>,
    pass1: &BundleVerification,
    watch: &Watch<'_>,
    again: &SecondReading,
) -> (Check, bool) {
    let (same, held, differs, (expected, actual)) = match compared {
        Compared::OnePass {
            read_ahead,
            verified,
        } => (
            pass1.bundle_sha256.is_some() && *verified == Some(*read_ahead),
            "read in one pass (qualification.json right after MANIFEST): the qualification.json read ahead is the entry this pass verified against MANIFEST, and the bundle, its .sha256 sidecar and its seal were not replaced while it was read",
            "the qualification.json read ahead is not the entry the verifying pass read; its content cannot be trusted",
            (
                read_ahead.to_hex(),
                verified.map(|d| d.to_hex()).unwrap_or_default(),
            ),
        ),
        Compared::TwoPass { pass2 } => (
            pass2.bundle_sha256.is_some()
                && pass2.bundle_sha256 == pass1.bundle_sha256
                && pass2.report == pass1.report,
            "read in two passes (v1 order: qualification.json is not the first entry after MANIFEST); the second pass read the same verified bytes (same SHA-256, same structural verdict)",
            "the bundle changed between the two passes; its content cannot be trusted, verify a copy that is not being written",
            (
                pass1.bundle_sha256.map(|d| d.to_hex()).unwrap_or_default(),
                pass2.bundle_sha256.map(|d| d.to_hex()).unwrap_or_default(),
            ),
        ),
    };
    let same_files = watch.unchanged();
    let stable = same && same_files && again.same_as(pass1);
    let detail = if stable {
        format!("{held}{}", read_again(again))
    } else if !same_files {
        "the bundle, its .sha256 sidecar or its seal was replaced while it was verified; the set read cannot be trusted, verify a copy that is not being written".to_string()
    } else if !again.same_as(pass1) {
        changed(again)
    } else {
        differs.to_string()
    };
    let check = Check::outcome("bundle.stable", stable, detail).with_values(expected, actual);
    (check, stable)
}

/// What `bundle.stable` adds when it holds: each pass that read journals
/// again.
fn read_again(again: &SecondReading) -> String {
    again
        .journals()
        .map(|journals| {
            format!("; read again in one more pass of the same verified bytes (same SHA-256, same structural verdict): {journals}")
        })
        .collect()
}

/// Why `bundle.stable` fails when a pass that read journals again read
/// other bytes.
fn changed(again: &SecondReading) -> String {
    let journals: Vec<&str> = again.journals().collect();
    format!(
        "the bundle changed before a journal was read again ({}); its content cannot be trusted, verify a copy that is not being written",
        journals.join("; ")
    )
}
