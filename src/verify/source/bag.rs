//! A BagIt bag as the container of a run: the bag's own checks (its
//! manifests, fixities and seal, read by [`crate::bagit`]) come first, then
//! its `data/` directory is verified as the run directory, one verdict over
//! both.

use std::fs;
use std::path::{Path, PathBuf};

use crate::bagit::{check_bag, is_bag, BagError, DATA_DIR};
use crate::keys::TrustStore;
use crate::verify::verification::{Outer, VerifyError};

/// The run inside `target` when it is a bag (a directory holding
/// `bagit.txt`): its `data/` directory and the bag's checks; `None` when it
/// is not a bag.
pub fn open(
    target: &Path,
    trust: Option<&TrustStore>,
) -> Result<Option<(PathBuf, Outer)>, VerifyError> {
    if !target.is_dir() || !is_bag(target) {
        return Ok(None);
    }
    let checks = check_bag(target, trust)?;
    let data = target.join(DATA_DIR);
    if !fs::symlink_metadata(&data).is_ok_and(|m| m.is_dir()) {
        return Err(BagError::NoPayload {
            path: target.to_path_buf(),
        }
        .into());
    }
    let outer = Outer {
        target: target.display().to_string(),
        checks,
    };
    Ok(Some((data, outer)))
}
