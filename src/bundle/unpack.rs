//! `unpack`: verification with a sink that writes into a temporary directory.
//!
//! Entries are written only after the reader has judged their paths safe
//! (under the root, no `..`, no links, no duplicates, no file/directory
//! conflicts), and only inside a fresh temporary directory created in the
//! destination. The tree is renamed to `DEST/<root>` only when every check
//! passed; on any failure, or any error, the temporary directory is removed,
//! so nothing is left behind.

use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::limits::Limits;
use super::read::{verify_path_with_sink, Sink};
use super::types::{io_err, BundleError, BundleVerification};
use crate::progress::Progress;

struct UnpackSink<'p> {
    tree: PathBuf,
    error: Option<BundleError>,
    progress: &'p dyn Progress,
    skip_manifest: bool,
}

impl UnpackSink<'_> {
    fn fail(&mut self, path: &Path, e: io::Error) -> io::Error {
        let msg = e.to_string();
        self.error = Some(BundleError::Io {
            path: path.to_path_buf(),
            source: e,
        });
        io::Error::other(msg)
    }
}

impl Sink for UnpackSink<'_> {
    fn wants(&mut self, rel: &str) -> bool {
        !(self.skip_manifest && rel == super::MANIFEST_NAME)
    }

    fn file(&mut self, rel: &str, content: &mut dyn Read) -> io::Result<()> {
        let dest = self.tree.join(rel);
        if let Some(parent) = dest.parent() {
            if let Err(e) = fs::create_dir_all(parent) {
                return Err(self.fail(parent, e));
            }
        }
        let mut f = match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&dest)
        {
            Ok(f) => f,
            Err(e) => return Err(self.fail(&dest, e)),
        };
        let mut buf = vec![0u8; 1 << 16];
        loop {
            // Errors from `content` are the bundle's (truncation, limits):
            // the reader reports them; they are returned unchanged.
            let n = content.read(&mut buf)?;
            if n == 0 {
                break;
            }
            if let Err(e) = f.write_all(&buf[..n]) {
                return Err(self.fail(&dest, e));
            }
            if self.progress.cancelled() {
                self.error = Some(BundleError::Interrupted);
                return Err(crate::progress::cancelled_error());
            }
        }
        Ok(())
    }

    fn dir(&mut self, rel: &str) -> io::Result<()> {
        let dest = self.tree.join(rel);
        fs::create_dir_all(&dest).map_err(|e| self.fail(&dest, e))
    }

    fn errors_are_fatal(&self) -> bool {
        true
    }
}

/// Verifies `path` while extracting it into a temporary directory inside
/// `dest_dir`; moves the tree to `dest_dir/<root>` only when the report
/// holds. Returns the verification either way; `Err` when the tool could not
/// run (unreadable bundle, destination not writable, `dest_dir/<root>`
/// already exists). Nothing is left in `dest_dir` unless the report holds.
pub fn unpack(
    path: &Path,
    dest_dir: &Path,
    limits: &Limits,
    progress: &dyn Progress,
) -> Result<BundleVerification, BundleError> {
    let layout = UnpackLayout {
        payload_dir: "",
        skip_manifest: false,
    };
    unpack_with(path, dest_dir, limits, progress, &layout, |_, _| {
        Ok::<(), BundleError>(())
    })
}

/// Where [`unpack_with`] puts the bundle's entries inside the unpacked
/// tree.
#[derive(Debug, Clone, Copy)]
pub struct UnpackLayout<'a> {
    /// The directory, relative to the tree, that receives the bundle's
    /// root content ("" for the tree itself; BagIt: "data").
    pub payload_dir: &'a str,
    /// Leave the bundle's MANIFEST out of the tree (it is still read and
    /// verified; BagIt writes its own manifest from it).
    pub skip_manifest: bool,
}

/// [`unpack`] with a layout and a last step: when the report holds,
/// `finish(tree, &mut verification)` runs on the complete temporary tree
/// (and may add files and checks) before the tree is moved to
/// `dest_dir/<root>`. The tree is moved only if the report still holds and
/// `finish` returned `Ok`; otherwise nothing is left in `dest_dir`.
pub fn unpack_with<E: From<BundleError>>(
    path: &Path,
    dest_dir: &Path,
    limits: &Limits,
    progress: &dyn Progress,
    layout: &UnpackLayout<'_>,
    finish: impl FnOnce(&Path, &mut BundleVerification) -> Result<(), E>,
) -> Result<BundleVerification, E> {
    let meta = fs::metadata(dest_dir).map_err(io_err(dest_dir))?;
    if !meta.is_dir() {
        return Err(BundleError::NotADirectory {
            path: dest_dir.to_path_buf(),
        }
        .into());
    }
    let tmp = tempfile::Builder::new()
        .prefix(".proofpack-unpack-")
        .tempdir_in(dest_dir)
        .map_err(io_err(dest_dir))?;
    let tree = tmp.path().join("tree");
    let payload = tree.join(layout.payload_dir);
    fs::create_dir_all(&payload).map_err(io_err(&payload))?;
    let mut sink = UnpackSink {
        tree: payload,
        error: None,
        progress,
        skip_manifest: layout.skip_manifest,
    };
    let mut v = match verify_path_with_sink(path, limits, &mut sink, progress) {
        Ok(v) => v,
        Err(e) => return Err(sink.error.take().unwrap_or(e).into()),
    };
    if let Some(e) = sink.error.take() {
        return Err(e.into());
    }
    if progress.cancelled() {
        return Err(BundleError::Interrupted.into());
    }
    if v.report.ok() {
        let root = v.root.clone().expect("a report that holds has a root");
        let target = dest_dir.join(&root);
        if fs::symlink_metadata(&target).is_ok() {
            return Err(BundleError::DestinationExists { path: target }.into());
        }
        finish(&tree, &mut v)?;
        if progress.cancelled() {
            return Err(BundleError::Interrupted.into());
        }
        if v.report.ok() {
            fs::rename(&tree, &target).map_err(io_err(&target))?;
        }
    }
    drop(tmp);
    Ok(v)
}
