//! Writing manifests in the formats other than the canonical text: coreutils
//! `sha256sum` lines, the JSON record with sizes, totals and header digests,
//! and [`Manifest::render`] for any [`Format`]. The JSON record is written
//! in three pieces ([`json_head`], [`json_entry`], [`json_tail`]) so that a
//! manifest can also be written entry by entry as it streams past.

use std::fmt::Write as _;

use crate::digest::Sha256Digest;

use super::parse::Format;
use super::types::{Entry, Manifest, ManifestError, MANIFEST_SCHEMA};

/// The JSON record up to its first entry.
pub fn json_head(digest: &Sha256Digest, files: u64, bytes: u64) -> String {
    format!(
        "{{\"schema\": \"{MANIFEST_SCHEMA}\",\n \"digest\": \"{}\",\n \"files\": {files}, \"bytes\": {bytes},\n \"entries\": [",
        digest.prefixed()
    )
}

/// Entry `index` (0-based) of the JSON record, with its separator.
pub fn json_entry(index: u64, e: &Entry, header_sha256: Option<&Sha256Digest>) -> String {
    let mut s = String::with_capacity(e.path.len() + 140);
    s.push_str(if index == 0 { "\n  " } else { ",\n  " });
    let _ = write!(
        s,
        "{{\"path\": {}, \"size\": {}, \"sha256\": \"{}\"",
        serde_json::to_string(&e.path).expect("string serialises"),
        e.size.unwrap_or(0),
        e.sha256.to_hex()
    );
    if let Some(h) = header_sha256 {
        let _ = write!(s, ", \"header_sha256\": \"{}\"", h.to_hex());
    }
    s.push('}');
    s
}

/// The end of a JSON record of `files` entries.
pub fn json_tail(files: u64) -> &'static str {
    if files == 0 {
        "]}\n"
    } else {
        "\n ]}\n"
    }
}

/// One canonical `path:hex` line.
pub fn canonical_line(e: &Entry) -> String {
    format!("{}:{}\n", e.path, e.sha256.to_hex())
}

/// One coreutils `sha256sum` line, with its backslash escaping.
pub fn sha256sum_line(e: &Entry) -> String {
    let mut s = String::with_capacity(e.path.len() + 68);
    if e.path.contains('\\') {
        s.push('\\');
        s.push_str(&e.sha256.to_hex());
        s.push_str("  ");
        s.push_str(&e.path.replace('\\', "\\\\"));
    } else {
        s.push_str(&e.sha256.to_hex());
        s.push_str("  ");
        s.push_str(&e.path);
    }
    s.push('\n');
    s
}

impl Manifest {
    /// coreutils `sha256sum` lines, with its backslash escaping.
    pub fn to_sha256sum(&self) -> String {
        let mut s = String::with_capacity(self.entries.len() * 100);
        for e in &self.entries {
            s.push_str(&sha256sum_line(e));
        }
        s
    }

    /// The JSON record; needs sizes on every entry.
    pub fn to_json_record(&self) -> Result<String, ManifestError> {
        let total = self.total_bytes().ok_or(ManifestError::NoSizes {
            origin: "manifest".into(),
            format: "canonical",
        })?;
        let files = self.entries.len() as u64;
        let mut s = String::with_capacity(self.entries.len() * 130 + 200);
        s.push_str(&json_head(&self.digest(), files, total));
        for (i, e) in self.entries.iter().enumerate() {
            s.push_str(&json_entry(i as u64, e, self.headers.get(&e.path)));
        }
        s.push_str(json_tail(files));
        Ok(s)
    }

    /// Writes the manifest in a format.
    pub fn render(&self, format: Format) -> Result<String, ManifestError> {
        match format {
            Format::Canonical => Ok(self.canonical_text()),
            Format::Json => self.to_json_record(),
            Format::Sha256sum => Ok(self.to_sha256sum()),
        }
    }
}
