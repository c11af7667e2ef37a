//! The entry rules of spec section 5: which paths a bundle may hold (safe,
//! relative, UTF-8, under one root), no duplicates and no file used as a
//! directory, the names of the entry types that are rejected, and the
//! per-entry checks collected while reading.

use std::collections::{HashMap, HashSet};

use crate::report::Check;

/// Checks a full path (after PAX / GNU long names). `Ok` holds it without
/// the trailing `/` of a directory; `Err` holds (the path as found, lossily
/// decoded; why it is rejected).
pub(crate) fn classify_path(raw: &[u8], is_dir: bool) -> Result<String, (String, String)> {
    let lossy = String::from_utf8_lossy(raw).into_owned();
    let s = std::str::from_utf8(raw)
        .map_err(|_| (lossy.clone(), "path is not valid UTF-8".to_string()))?;
    let mut p = s;
    if is_dir {
        p = p.strip_suffix('/').unwrap_or(p);
    }
    if p.is_empty() {
        return Err((lossy, "empty path".into()));
    }
    if p.starts_with('/') {
        return Err((lossy, "absolute path".into()));
    }
    if let Some(c) = p.chars().find(|c| matches!(c, '\0' | '\n' | '\r')) {
        return Err((lossy, format!("path contains {c:?}")));
    }
    for comp in p.split('/') {
        match comp {
            "" => return Err((lossy, "empty path component ('//' or trailing '/')".into())),
            "." => return Err((lossy, "'.' component (a leading './' is one)".into())),
            ".." => return Err((lossy, "'..' component (path escapes the root)".into())),
            _ => {}
        }
    }
    Ok(p.to_string())
}

/// The bundle's one top-level directory, fixed by the first usable path.
#[derive(Default)]
pub(crate) struct RootDir {
    /// Its name, once known.
    pub name: Option<String>,
    /// Entries found outside it.
    pub outside: u64,
}

impl RootDir {
    /// Splits a safe full path into its part under the root ("" for the root
    /// itself), fixing the root on first use.
    pub(crate) fn split(&mut self, full: &str) -> Result<String, String> {
        let (first, rest) = match full.split_once('/') {
            Some((a, b)) => (a, b),
            None => (full, ""),
        };
        match &self.name {
            None => self.name = Some(first.to_string()),
            Some(r) if r != first => {
                self.outside += 1;
                return Err(format!("outside the root directory {r}/"));
            }
            _ => {}
        }
        Ok(rest.to_string())
    }
}

/// The paths accepted so far, for the duplicate and conflict rules.
#[derive(Default)]
pub(crate) struct Paths {
    seen: HashSet<String>,
    files: HashSet<String>,
    dirs: HashSet<String>,
}

impl Paths {
    /// Duplicate and file/directory conflict checks; registers the path.
    pub(crate) fn register(&mut self, rel: &str, is_dir: bool) -> Result<(), String> {
        if !self.seen.insert(rel.to_string()) {
            return Err("duplicate path (the same path appears twice in the archive)".into());
        }
        if is_dir {
            if self.files.contains(rel) {
                return Err("duplicate path (a file and a directory)".into());
            }
        } else if self.dirs.contains(rel) {
            return Err(
                "duplicate path (a file and a directory, or a file used as a parent directory)"
                    .into(),
            );
        }
        let mut prefix_conflict = None;
        let mut idx = 0;
        while let Some(i) = rel[idx..].find('/') {
            let pre = &rel[..idx + i];
            if self.files.contains(pre) {
                prefix_conflict = Some(pre.to_string());
            }
            self.dirs.insert(pre.to_string());
            idx += i + 1;
        }
        if is_dir {
            self.dirs.insert(rel.to_string());
        } else {
            self.files.insert(rel.to_string());
        }
        if let Some(pre) = prefix_conflict {
            return Err(format!(
                "path conflict: {pre} is a regular file but is used as a directory here"
            ));
        }
        Ok(())
    }
}

/// The name of a typeflag that is rejected.
pub(crate) fn type_name(t: u8) -> String {
    match t {
        b'1' => "hard link".into(),
        b'2' => "symbolic link".into(),
        b'3' => "character device".into(),
        b'4' => "block device".into(),
        b'6' => "FIFO".into(),
        b'7' => "contiguous file".into(),
        b'S' => "GNU sparse file".into(),
        b'g' => "PAX global header".into(),
        b'V' => "GNU volume label".into(),
        b'M' => "GNU multi-volume continuation".into(),
        b'D' => "GNU dump directory".into(),
        t if t.is_ascii_graphic() => format!("unsupported entry type '{}'", t as char),
        t => format!("unsupported entry type 0x{t:02x}"),
    }
}

/// What an entry of typeflag `t` is, for messages.
pub(crate) fn kind_name(t: u8) -> String {
    match t {
        b'0' | 0 => "regular file".into(),
        b'5' => "directory".into(),
        t => type_name(t),
    }
}

/// Per-entry results, keyed by check id, in archive order; a second problem
/// with the same id is merged into the first check.
#[derive(Default)]
pub(crate) struct EntryChecks {
    pub order: Vec<String>,
    pub checks: HashMap<String, Check>,
}

impl EntryChecks {
    pub(crate) fn put(&mut self, id: String, c: Check) {
        match self.checks.get_mut(&id) {
            Some(old) => {
                if c.failed() {
                    if old.failed() {
                        old.detail = format!("{}; {}", old.detail, c.detail);
                    } else {
                        *old = c;
                    }
                }
            }
            None => {
                self.order.push(id.clone());
                self.checks.insert(id, c);
            }
        }
    }
}
