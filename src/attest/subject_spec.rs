//! Subjects given on the command line: `NAME=PATH` (the file is hashed) or
//! `NAME=sha256:HEX` ([`subject_from_spec`]), and their errors.

use std::path::{Path, PathBuf};

use crate::digest::{DigestError, Sha256Digest};
use crate::progress::Progress;

use super::statement::Subject;

/// Errors from `NAME=PATH|NAME=sha256:HEX` subject arguments (exit 2).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum SubjectSpecError {
    /// The argument is not `NAME=VALUE`.
    #[error("--subject {spec:?}: {reason}")]
    BadSpec {
        /// The argument.
        spec: String,
        /// What was wrong.
        reason: String,
    },
    /// The path is a directory.
    #[error("--subject {name}={}: is a directory; a subject is one file. Build its manifest first (`proofpack manifest {} -o {name}.manifest`) and give `--subject {name}=<that file>`", path.display(), path.display())]
    Directory {
        /// The subject name.
        name: String,
        /// The directory.
        path: PathBuf,
    },
    /// Hashing the file failed.
    #[error("--subject {name}: {source}")]
    Digest {
        /// The subject name.
        name: String,
        /// The error.
        #[source]
        source: DigestError,
    },
}

/// Parses `NAME=sha256:HEX` (hex of either case) or `NAME=PATH` (the file is
/// hashed; a directory is an error). Write `NAME=./sha256:...` for a file
/// whose name starts with `sha256:`.
pub fn subject_from_spec(spec: &str, progress: &dyn Progress) -> Result<Subject, SubjectSpecError> {
    let bad = |reason: &str| SubjectSpecError::BadSpec {
        spec: spec.to_string(),
        reason: reason.to_string(),
    };
    let (name, value) = spec
        .split_once('=')
        .ok_or_else(|| bad("expected NAME=PATH or NAME=sha256:HEX"))?;
    if name.is_empty() {
        return Err(bad("empty subject name"));
    }
    if value.is_empty() {
        return Err(bad("empty value; expected a file path or sha256:<64 hex>"));
    }
    if let Some(hex) = value.strip_prefix("sha256:") {
        let digest = Sha256Digest::parse_hex(hex).map_err(|e| bad(&e.to_string()))?;
        return Ok(Subject {
            name: name.to_string(),
            digest,
        });
    }
    let path = Path::new(value);
    subject_from_file(name, path, progress)
}

/// A subject whose digest is the SHA-256 of a file's bytes.
pub fn subject_from_file(
    name: &str,
    path: &Path,
    progress: &dyn Progress,
) -> Result<Subject, SubjectSpecError> {
    if std::fs::metadata(path).map(|m| m.is_dir()).unwrap_or(false) {
        return Err(SubjectSpecError::Directory {
            name: name.to_string(),
            path: path.to_path_buf(),
        });
    }
    let (digest, _) =
        crate::digest::hash_file(path, progress).map_err(|source| SubjectSpecError::Digest {
            name: name.to_string(),
            source,
        })?;
    Ok(Subject {
        name: name.to_string(),
        digest,
    })
}
