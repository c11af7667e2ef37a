//! Where a verb's `-o`/`--html` output goes: `-` is standard output (for
//! the verbs where one stream makes sense), anything else is written
//! through [`proofpack::atomic`] (a device, FIFO or socket directly, a
//! symlink followed, a regular file replaced atomically). The output is
//! checked before the work starts, so that a missing directory is refused
//! at once and not after a whole verification.

use std::io::Write;
use std::path::Path;

use anyhow::{bail, Result};

/// True when `out` means standard output.
pub fn is_stdout(out: &Path) -> bool {
    out.as_os_str() == "-"
}

/// Refuses, before any work, an output that cannot be written.
pub fn check(out: &Path) -> Result<()> {
    proofpack::atomic::check_output(out)?;
    Ok(())
}

/// Refuses `-` for a verb whose output is not one stream.
pub fn check_file(out: &Path, why: &str) -> Result<()> {
    if is_stdout(out) {
        bail!("-o -: {why}; give a file name");
    }
    check(out)
}

/// Writes `bytes` to `out` (`-`: standard output).
pub fn write(out: &Path, bytes: &[u8], mode: u32, overwrite: bool) -> Result<()> {
    if is_stdout(out) {
        let mut so = std::io::stdout().lock();
        so.write_all(bytes)?;
        so.flush()?;
        return Ok(());
    }
    proofpack::atomic::write_atomic(out, bytes, mode, overwrite)?;
    Ok(())
}

/// Writes `bytes` to `out`, or to standard output when there is no `-o`.
pub fn write_or_stdout(out: Option<&Path>, bytes: &[u8]) -> Result<()> {
    write(out.unwrap_or(Path::new("-")), bytes, 0o644, true)
}

/// Writes `head`, what `body` holds and `tail` to `out` (`-`, or none:
/// standard output), a file atomically: whole or not at all.
pub fn write_parts(
    out: Option<&Path>,
    head: &[u8],
    body: super::streamed::Spill,
    tail: &[u8],
) -> Result<()> {
    let out = out.unwrap_or(Path::new("-"));
    if is_stdout(out) {
        let mut so = std::io::stdout().lock();
        so.write_all(head)?;
        body.copy_to(&mut so)?;
        so.write_all(tail)?;
        so.flush()?;
        return Ok(());
    }
    let mut f = proofpack::atomic::AtomicFile::create(out, 0o644, true)?;
    let io = |source| proofpack::atomic::AtomicError::Io {
        path: out.to_path_buf(),
        source,
    };
    f.write_all(head).map_err(io)?;
    body.copy_to(&mut f).map_err(io)?;
    f.write_all(tail).map_err(io)?;
    f.commit()?;
    Ok(())
}
