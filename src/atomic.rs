//! Atomic file output: write to a temporary file beside the target, then
//! rename. A reader (or a crash) sees either no file or the complete file,
//! never a partial write; this is how every file proofpack produces appears.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Errors from atomic writes.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AtomicError {
    /// The target exists and overwriting was not allowed.
    #[error("{} already exists; refusing to overwrite it (pass --force to replace it)", path.display())]
    Exists {
        /// The target.
        path: PathBuf,
    },
    /// The output's directory does not exist (or is not one).
    #[error("cannot write {}: its directory {} {why}", path.display(), dir.display())]
    NoDirectory {
        /// The target.
        path: PathBuf,
        /// Its directory.
        dir: PathBuf,
        /// "does not exist" or "is not a directory".
        why: &'static str,
    },
    /// The output is an existing directory.
    #[error("cannot write {}: it is a directory (give a file name)", path.display())]
    IsADirectory {
        /// The target.
        path: PathBuf,
    },
    /// An I/O operation failed.
    #[error("cannot write {}: {source}", path.display())]
    Io {
        /// The target.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
}

/// A file being written; it appears at its final path only on [`AtomicFile::commit`].
/// Dropped without commit, the temporary file is removed.
///
/// A target that exists and is not a regular file (a character or
/// block device, a FIFO, a socket) is written to directly and never renamed
/// over, so that `-o /dev/null` or `-o /dev/stdout` leaves the node in place;
/// a symbolic link is followed and the file it names is replaced atomically
/// in that file's own directory.
pub struct AtomicFile {
    target: PathBuf,
    inner: Inner,
    overwrite: bool,
}

enum Inner {
    /// A temporary file beside the (resolved) target, renamed on commit.
    Temp(tempfile::NamedTempFile),
    /// A device, FIFO or socket, written as it is.
    Direct(Box<dyn Write + Send>),
}

fn parent_of(path: &Path) -> &Path {
    match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

/// Most symbolic links followed from an output path (as the kernel's 40).
const MAX_LINKS: usize = 40;

/// The path an output finally names: `path` with its own symbolic links
/// followed (a dangling link gives the path it points to, which is then
/// created). Directories above it are left as they are.
pub fn resolve_output(path: &Path) -> Result<PathBuf, AtomicError> {
    let mut p = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        match fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = fs::read_link(&p).map_err(|source| AtomicError::Io {
                    path: p.clone(),
                    source,
                })?;
                p = if to.is_absolute() {
                    to
                } else {
                    parent_of(&p).join(to)
                };
            }
            _ => return Ok(p),
        }
    }
    Err(AtomicError::Io {
        path: path.to_path_buf(),
        source: io::Error::other(format!("more than {MAX_LINKS} symbolic links")),
    })
}

/// What an existing output path is.
enum Existing {
    Absent,
    Regular,
    Directory,
    Socket,
    /// A device or a FIFO: opened for writing.
    Node,
}

fn existing(path: &Path) -> Result<Existing, AtomicError> {
    use std::os::unix::fs::FileTypeExt;
    match fs::metadata(path) {
        Ok(m) if m.is_file() => Ok(Existing::Regular),
        Ok(m) if m.is_dir() => Ok(Existing::Directory),
        Ok(m) if m.file_type().is_socket() => Ok(Existing::Socket),
        Ok(_) => Ok(Existing::Node),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Existing::Absent),
        Err(source) => Err(AtomicError::Io {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// Checks, before any work, that `target` can be written: its directory
/// exists (after following a symlink at the target) and it is not a
/// directory. `-` (standard output) is always writable.
pub fn check_output(target: &Path) -> Result<(), AtomicError> {
    if target.as_os_str() == "-" {
        return Ok(());
    }
    let resolved = resolve_output(target)?;
    match existing(&resolved)? {
        Existing::Directory => Err(AtomicError::IsADirectory {
            path: target.to_path_buf(),
        }),
        Existing::Absent | Existing::Regular => {
            let dir = parent_of(&resolved);
            match fs::metadata(dir) {
                Ok(m) if m.is_dir() => Ok(()),
                Ok(_) => Err(AtomicError::NoDirectory {
                    path: target.to_path_buf(),
                    dir: dir.to_path_buf(),
                    why: "is not a directory",
                }),
                Err(_) => Err(AtomicError::NoDirectory {
                    path: target.to_path_buf(),
                    dir: dir.to_path_buf(),
                    why: "does not exist",
                }),
            }
        }
        Existing::Socket | Existing::Node => Ok(()),
    }
}

impl AtomicFile {
    /// Starts writing `target` with permission bits `mode` (e.g. 0o644, 0o600).
    pub fn create(target: &Path, mode: u32, overwrite: bool) -> Result<Self, AtomicError> {
        use std::os::unix::fs::PermissionsExt;
        let io_err = |source| AtomicError::Io {
            path: target.to_path_buf(),
            source,
        };
        check_output(target)?;
        let resolved = resolve_output(target)?;
        // A device, FIFO or socket is written to, not overwritten: the
        // no-clobber rule protects files.
        let node = matches!(existing(&resolved)?, Existing::Node | Existing::Socket);
        if !overwrite && !node && fs::symlink_metadata(target).is_ok() {
            return Err(AtomicError::Exists {
                path: target.to_path_buf(),
            });
        }
        let direct = |w: Box<dyn Write + Send>| AtomicFile {
            target: resolved.clone(),
            inner: Inner::Direct(w),
            overwrite,
        };
        match existing(&resolved)? {
            Existing::Node => {
                // Opened without truncation or creation: the node stays.
                let f = fs::OpenOptions::new()
                    .write(true)
                    .open(&resolved)
                    .map_err(io_err)?;
                return Ok(direct(Box::new(f)));
            }
            Existing::Socket => {
                let s = std::os::unix::net::UnixStream::connect(&resolved).map_err(io_err)?;
                return Ok(direct(Box::new(s)));
            }
            Existing::Absent | Existing::Regular | Existing::Directory => {}
        }
        let tmp = tempfile::Builder::new()
            .prefix(".proofpack-tmp-")
            .permissions(fs::Permissions::from_mode(mode))
            .tempfile_in(parent_of(&resolved))
            .map_err(io_err)?;
        // The umask may have narrowed the mode; set it exactly.
        fs::set_permissions(tmp.path(), fs::Permissions::from_mode(mode)).map_err(io_err)?;
        Ok(AtomicFile {
            target: resolved,
            inner: Inner::Temp(tmp),
            overwrite,
        })
    }

    /// The final path (a symlink at the target followed).
    pub fn target(&self) -> &Path {
        &self.target
    }

    /// Flushes, syncs and renames into place (a device, FIFO or socket is
    /// only flushed).
    pub fn commit(self) -> Result<(), AtomicError> {
        let target = self.target.clone();
        let io_err = |source| AtomicError::Io {
            path: target.clone(),
            source,
        };
        let mut tmp = match self.inner {
            Inner::Direct(mut w) => return w.flush().map_err(io_err),
            Inner::Temp(t) => t,
        };
        tmp.as_file_mut().flush().map_err(io_err)?;
        tmp.as_file().sync_all().map_err(io_err)?;
        if self.overwrite {
            tmp.persist(&target).map_err(|e| io_err(e.error))?;
        } else {
            tmp.persist_noclobber(&target).map_err(|e| {
                if e.error.kind() == io::ErrorKind::AlreadyExists {
                    AtomicError::Exists {
                        path: target.clone(),
                    }
                } else {
                    io_err(e.error)
                }
            })?;
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.inner {
            Inner::Temp(t) => t.write(buf),
            Inner::Direct(w) => w.write(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match &mut self.inner {
            Inner::Temp(t) => t.flush(),
            Inner::Direct(w) => w.flush(),
        }
    }
}

/// An exclusive advisory lock (`flock`) that serialises the writers of one
/// output: `<output>.lock` beside it, created for the lock and removed when
/// the lock is released, so that nothing is left behind.
///
/// Removing a lock file races with a writer that opened it meanwhile, so
/// acquiring follows the usual protocol: open (creating), lock, then check
/// that the path still names the inode that was locked; if it does not (the
/// holder removed it on release), start over.
pub struct OutputLock {
    path: PathBuf,
    file: fs::File,
}

/// `<output>.lock`.
pub fn lock_path(output: &Path) -> PathBuf {
    let mut p = output.as_os_str().to_owned();
    p.push(".lock");
    PathBuf::from(p)
}

fn same_file(a: &fs::Metadata, b: &fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

impl OutputLock {
    /// Waits for and takes the exclusive lock of `output`.
    pub fn exclusive(output: &Path) -> Result<Self, AtomicError> {
        let path = lock_path(output);
        let io_err = |source| AtomicError::Io {
            path: path.clone(),
            source,
        };
        loop {
            let file = fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .map_err(io_err)?;
            file.lock().map_err(io_err)?;
            let held = file.metadata().map_err(io_err)?;
            match fs::metadata(&path) {
                Ok(now) if same_file(&held, &now) => return Ok(OutputLock { path, file }),
                Ok(_) => continue,
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(io_err(e)),
            }
        }
    }

    /// For a reader: if a writer of `output` holds its lock, waits until it
    /// is done (so that the reader starts on a complete set of files). Never
    /// creates anything.
    pub fn wait_for_writer(output: &Path) {
        if let Ok(f) = fs::File::open(lock_path(output)) {
            let _ = f.lock_shared();
        }
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        // Remove the file while still holding the lock, and only if it is
        // still ours; the lock goes with the descriptor.
        if let (Ok(held), Ok(now)) = (self.file.metadata(), fs::metadata(&self.path)) {
            if same_file(&held, &now) {
                let _ = fs::remove_file(&self.path);
            }
        }
        let _ = self.file.unlock();
    }
}

/// Writes `bytes` to `target` atomically with mode `mode`.
pub fn write_atomic(
    target: &Path,
    bytes: &[u8],
    mode: u32,
    overwrite: bool,
) -> Result<(), AtomicError> {
    let mut f = AtomicFile::create(target, mode, overwrite)?;
    f.write_all(bytes).map_err(|source| AtomicError::Io {
        path: target.to_path_buf(),
        source,
    })?;
    f.commit()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn writes_whole_or_nothing() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("out");
        write_atomic(&p, b"hello", 0o600, false).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"hello");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert!(matches!(
            write_atomic(&p, b"x", 0o600, false),
            Err(AtomicError::Exists { .. })
        ));
        write_atomic(&p, b"bye", 0o644, true).unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"bye");
        {
            let mut f = AtomicFile::create(&d.path().join("never"), 0o644, false).unwrap();
            f.write_all(b"partial").unwrap();
        }
        let names: Vec<_> = fs::read_dir(d.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, vec![std::ffi::OsString::from("out")]);
    }

    #[test]
    fn output_lock_serialises_and_leaves_nothing() {
        let d = tempfile::tempdir().unwrap();
        let out = d.path().join("b.tgz");
        let counter = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let (out, counter) = (out.clone(), counter.clone());
                std::thread::spawn(move || {
                    for _ in 0..20 {
                        let _l = OutputLock::exclusive(&out).unwrap();
                        let before = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        assert_eq!(before, 0, "two holders at once");
                        std::thread::yield_now();
                        counter.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(fs::read_dir(d.path()).unwrap().count(), 0);
    }
}
