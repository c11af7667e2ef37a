//! A run directory's `qualification.json` as the adoption verbs edit it:
//! read as JSON (so that fields this layer does not know survive an
//! edit), validated by the run's schema (`run::qualification`) before it is written,
//! and written whole or not at all.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::AdoptError;
use crate::run::qualification::QUALIFICATION_FILE;
use crate::run::qualification::{Qualification, MAX_SMALL_FILE};

/// `qualification.json` of a run directory, being edited.
pub struct RunFile {
    /// The run directory.
    pub root: PathBuf,
    /// The document.
    pub doc: Value,
}

impl RunFile {
    /// Reads and validates `qualification.json` of `root`.
    pub fn load(root: &Path) -> Result<RunFile, AdoptError> {
        let path = root.join(QUALIFICATION_FILE);
        let bytes = crate::capped::read_capped(&path, MAX_SMALL_FILE).map_err(|e| {
            AdoptError::Run(format!(
                "{}: {e} (is {} a run directory made by `proofpack run new`?)",
                path.display(),
                root.display()
            ))
        })?;
        Qualification::parse(&bytes)
            .map_err(|e| AdoptError::Run(format!("{}: {e}", path.display())))?;
        let doc = serde_json::from_slice(&bytes)
            .map_err(|e| AdoptError::Run(format!("{}: {e}", path.display())))?;
        Ok(RunFile {
            root: root.to_path_buf(),
            doc,
        })
    }

    /// The document as the verifier reads it.
    pub fn qualification(&self) -> Result<Qualification, AdoptError> {
        let bytes = serde_json::to_vec(&self.doc).expect("JSON values serialise");
        Qualification::parse(&bytes).map_err(AdoptError::Run)
    }

    /// The point object named `name`.
    pub fn point_mut(&mut self, name: &str) -> Result<&mut Map<String, Value>, AdoptError> {
        let names: Vec<String> = self.point_names();
        self.doc["points"]
            .as_array_mut()
            .and_then(|ps| {
                ps.iter_mut()
                    .filter_map(Value::as_object_mut)
                    .find(|p| p.get("name").and_then(Value::as_str) == Some(name))
            })
            .ok_or_else(|| {
                AdoptError::Usage(format!(
                    "qualification.json declares no point {name:?} (its points: {})",
                    names.join(", ")
                ))
            })
    }

    /// The names of the declared points.
    pub fn point_names(&self) -> Vec<String> {
        self.doc["points"]
            .as_array()
            .map(|ps| {
                ps.iter()
                    .filter_map(|p| p.get("name").and_then(Value::as_str).map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Adds a fact unless one of that name exists.
    pub fn add_fact(&mut self, name: &str, file: &str) {
        let obj = self
            .doc
            .as_object_mut()
            .expect("qualification.json is an object");
        let facts = obj
            .entry("facts")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Some(list) = facts.as_array_mut() {
            if !list
                .iter()
                .any(|f| f.get("name").and_then(Value::as_str) == Some(name))
            {
                list.push(serde_json::json!({"name": name, "file": file}));
            }
        }
    }

    /// Validates the document and writes it (atomically, replacing the old).
    pub fn save(&self) -> Result<(), AdoptError> {
        let mut bytes = serde_json::to_vec_pretty(&self.doc).expect("JSON values serialise");
        bytes.push(b'\n');
        Qualification::parse(&bytes).map_err(|e| {
            AdoptError::Run(format!(
                "the edited qualification.json would not be valid: {e}"
            ))
        })?;
        write_file(&self.root, QUALIFICATION_FILE, &bytes)
    }
}

/// Writes `bytes` to `rel` under `root` (directories created), atomically.
/// Nothing is written through a link: a directory of `rel` or the file
/// itself that is a symbolic link (or the file, something other than a
/// regular file) is refused, so a link planted in the run cannot turn a
/// write into one outside it.
pub fn write_file(root: &Path, rel: &str, bytes: &[u8]) -> Result<(), AdoptError> {
    let path = checked_path(root, rel, true)?;
    crate::atomic::write_atomic(&path, bytes, 0o644, true)
        .map_err(|e| AdoptError::Run(e.to_string()))
}

/// Every one of `rels` under `root` can be written by [`write_file`]: the
/// check of a verb that writes several files, before it writes the first,
/// so that it writes all of them or none.
pub fn writable(root: &Path, rels: &[&str]) -> Result<(), AdoptError> {
    for rel in rels {
        checked_path(root, rel, false)?;
    }
    Ok(())
}

/// `root/rel`, after checking that no directory of `rel` nor the file is
/// a link or another kind of entry (missing directories created when
/// `create`).
fn checked_path(root: &Path, rel: &str, create: bool) -> Result<std::path::PathBuf, AdoptError> {
    let path = root.join(rel);
    let mut at = root.to_path_buf();
    let parts: Vec<_> = Path::new(rel).components().collect();
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        let last = i + 1 == parts.len();
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => return Err(linked(&at)),
            Ok(m) if last && !m.is_file() => return Err(linked(&at)),
            Ok(m) if !last && !m.is_dir() => return Err(linked(&at)),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && !last && create => {
                fs::create_dir(&at).map_err(|source| AdoptError::Io {
                    path: at.clone(),
                    source,
                })?;
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
            Err(source) => return Err(AdoptError::Io { path: at, source }),
        }
    }
    Ok(path)
}

/// The refusal of a write through what proofpack did not make.
fn linked(at: &Path) -> AdoptError {
    AdoptError::Run(format!(
        "{}: a symbolic link or other non-regular entry inside the run directory; proofpack writes the run's files itself and never through a link it did not make: remove it and run again",
        at.display()
    ))
}

/// Reads a file of the run whole (at most `cap` bytes).
pub fn read_file(root: &Path, rel: &str, cap: u64) -> Result<Vec<u8>, AdoptError> {
    let path = root.join(rel);
    crate::capped::read_capped(&path, cap).map_err(|e| AdoptError::Run(format!("{e}")))
}
