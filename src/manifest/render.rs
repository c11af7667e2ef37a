//! Writing manifests in the formats other than the canonical text: coreutils
//! `sha256sum` lines, the JSON record with sizes, totals and header digests,
//! and [`Manifest::render`] for any [`Format`].

use std::fmt::Write as _;

use super::{Format, Manifest, ManifestError, MANIFEST_SCHEMA};

impl Manifest {
    /// coreutils `sha256sum` lines, with its backslash escaping.
    pub fn to_sha256sum(&self) -> String {
        let mut s = String::with_capacity(self.entries.len() * 100);
        for e in &self.entries {
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
        }
        s
    }

    /// The JSON record; needs sizes on every entry.
    pub fn to_json_record(&self) -> Result<String, ManifestError> {
        let total = self.total_bytes().ok_or(ManifestError::NoSizes {
            origin: "manifest".into(),
            format: "canonical",
        })?;
        let mut s = String::with_capacity(self.entries.len() * 130 + 200);
        let _ = write!(
            s,
            "{{\"schema\": \"{MANIFEST_SCHEMA}\",\n \"digest\": \"{}\",\n \"files\": {}, \"bytes\": {},\n \"entries\": [",
            self.digest().prefixed(),
            self.entries.len(),
            total
        );
        for (i, e) in self.entries.iter().enumerate() {
            s.push_str(if i == 0 { "\n  " } else { ",\n  " });
            let _ = write!(
                s,
                "{{\"path\": {}, \"size\": {}, \"sha256\": \"{}\"",
                serde_json::to_string(&e.path).expect("string serialises"),
                e.size.unwrap_or(0),
                e.sha256.to_hex()
            );
            if let Some(h) = self.headers.get(&e.path) {
                let _ = write!(s, ", \"header_sha256\": \"{}\"", h.to_hex());
            }
            s.push('}');
        }
        s.push_str(if self.entries.is_empty() {
            "]}\n"
        } else {
            "\n ]}\n"
        });
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
