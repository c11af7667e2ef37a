//! Reading manifests: the three interchange formats ([`Format`]) and how
//! they are told apart, the lenient parser for manifests a person or another
//! tool wrote, the strict one for a bundle's canonical MANIFEST, and capped
//! reads of manifest files.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::digest::Sha256Digest;

use super::types::{
    validate_path, Entry, Manifest, ManifestError, MANIFEST_SCHEMA, MAX_MANIFEST_BYTES,
};

/// The three interchange formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `path:sha256` lines, the identity of the set.
    Canonical,
    /// The JSON record with sizes and totals.
    Json,
    /// coreutils `sha256sum` lines.
    Sha256sum,
}

impl Format {
    /// The format's name as the CLI spells it.
    pub fn name(self) -> &'static str {
        match self {
            Format::Canonical => "canonical",
            Format::Json => "json",
            Format::Sha256sum => "sha256sum",
        }
    }

    /// Guesses the format of manifest bytes by their start (spec section 2).
    pub fn detect(bytes: &[u8]) -> Format {
        if let Some(b) = bytes.iter().find(|b| !b.is_ascii_whitespace()) {
            if *b == b'{' {
                return Format::Json;
            }
        }
        let first = bytes.split(|b| *b == b'\n').next().unwrap_or(&[]);
        if sha256sum_prefix(first).is_some() {
            Format::Sha256sum
        } else {
            Format::Canonical
        }
    }
}

/// If `line` starts like a sha256sum line, returns (escaped, hex, rest).
pub(super) fn sha256sum_prefix(line: &[u8]) -> Option<(bool, &[u8], &[u8])> {
    let (escaped, l) = match line.first() {
        Some(b'\\') => (true, &line[1..]),
        _ => (false, line),
    };
    if l.len() < 66 || !l[..64].iter().all(u8::is_ascii_hexdigit) || l[64] != b' ' {
        return None;
    }
    if l[65] != b' ' && l[65] != b'*' {
        return None;
    }
    Some((escaped, &l[..64], &l[66..]))
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RecordJson {
    schema: String,
    digest: String,
    files: u64,
    bytes: u64,
    entries: Vec<RecordEntryJson>,
}

/// One entry of the JSON record, as read (also by the streaming reader).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RecordEntryJson {
    pub(super) path: String,
    pub(super) size: u64,
    pub(super) sha256: String,
    /// SHA-256 of a safetensors entry's first 8 + N bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) header_sha256: Option<String>,
}

impl Manifest {
    /// Reads a manifest that a person or another tool wrote, in `format` or,
    /// when `None`, the detected format. Hex of either case is accepted and
    /// normalised; entries may come in any order; duplicates are an error.
    pub fn parse(
        bytes: &[u8],
        format: Option<Format>,
        origin: &str,
    ) -> Result<(Self, Format), ManifestError> {
        let format = format.unwrap_or_else(|| Format::detect(bytes));
        let m = match format {
            Format::Canonical => Self::parse_canonical_lines(bytes, origin, false)?,
            Format::Json => Self::parse_json(bytes, origin)?,
            Format::Sha256sum => Self::parse_sha256sum(bytes, origin)?,
        };
        Ok((m, format))
    }

    /// Reads a manifest that must already be canonical byte for byte (a
    /// bundle's MANIFEST): lowercase hex, sorted, unique, final newline.
    pub fn parse_canonical_strict(bytes: &[u8], origin: &str) -> Result<Self, ManifestError> {
        let m = Self::parse_canonical_lines(bytes, origin, true)?;
        if m.canonical_text().as_bytes() != bytes {
            return Err(ManifestError::Parse {
                origin: origin.to_string(),
                line: 0,
                reason: "not canonical: lines must be sorted by path bytes, each path once, each line ending in '\\n'".into(),
            });
        }
        Ok(m)
    }

    fn parse_canonical_lines(
        bytes: &[u8],
        origin: &str,
        strict: bool,
    ) -> Result<Self, ManifestError> {
        let perr = |line: usize, reason: String| ManifestError::Parse {
            origin: origin.to_string(),
            line,
            reason,
        };
        if bytes.is_empty() {
            return Ok(Manifest::default());
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|b| **b == b'\n')
                .count()
                + 1;
            perr(line, "not valid UTF-8".into())
        })?;
        if !text.ends_with('\n') {
            let n = text.split('\n').count();
            return Err(perr(n, "missing final newline".into()));
        }
        let mut entries = Vec::new();
        for (i, line) in text[..text.len() - 1].split('\n').enumerate() {
            let ln = i + 1;
            if line.is_empty() {
                return Err(perr(ln, "blank line; expected <path>:<64 hex>".into()));
            }
            if line.contains('\r') {
                return Err(perr(
                    ln,
                    "carriage return in line (CRLF line endings?); lines end with '\\n' only"
                        .into(),
                ));
            }
            let (path, hex) = line
                .rsplit_once(':')
                .ok_or_else(|| perr(ln, format!("expected <path>:<64 hex>, found {line:?}")))?;
            let sha256 = if strict {
                Sha256Digest::parse_hex_canonical(hex)
            } else {
                Sha256Digest::parse_hex(hex)
            }
            .map_err(|e| perr(ln, format!("path {path:?}: {e}")))?;
            validate_path(path).map_err(|r| perr(ln, format!("path {path:?}: {r}")))?;
            entries.push(Entry {
                path: path.to_string(),
                size: None,
                sha256,
            });
        }
        Self::from_entries(entries, origin)
    }

    fn parse_sha256sum(bytes: &[u8], origin: &str) -> Result<Self, ManifestError> {
        let perr = |line: usize, reason: String| ManifestError::Parse {
            origin: origin.to_string(),
            line,
            reason,
        };
        let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
        let mut entries = Vec::new();
        if body.is_empty() {
            return Ok(Manifest::default());
        }
        for (i, line) in body.split(|b| *b == b'\n').enumerate() {
            let ln = i + 1;
            let (escaped, hex, rest) = sha256sum_prefix(line)
                .ok_or_else(|| perr(ln, "expected '<64 hex>  <path>' (sha256sum format)".into()))?;
            let hex = std::str::from_utf8(hex).expect("hex digits are ASCII");
            let sha256 = Sha256Digest::parse_hex(hex).map_err(|e| perr(ln, e.to_string()))?;
            let raw = std::str::from_utf8(rest)
                .map_err(|_| perr(ln, "path is not valid UTF-8".into()))?;
            let path = if escaped {
                unescape_sha256sum(raw).map_err(|r| perr(ln, r))?
            } else {
                raw.to_string()
            };
            validate_path(&path).map_err(|r| perr(ln, format!("path {path:?}: {r}")))?;
            entries.push(Entry {
                path,
                size: None,
                sha256,
            });
        }
        Self::from_entries(entries, origin)
    }

    fn parse_json(bytes: &[u8], origin: &str) -> Result<Self, ManifestError> {
        let rerr = |reason: String| ManifestError::Record {
            origin: origin.to_string(),
            reason,
        };
        let rec: RecordJson = serde_json::from_slice(bytes).map_err(|e| rerr(e.to_string()))?;
        if rec.schema != MANIFEST_SCHEMA {
            return Err(rerr(format!(
                "schema is {:?}, expected {MANIFEST_SCHEMA:?}",
                rec.schema
            )));
        }
        let mut entries = Vec::with_capacity(rec.entries.len());
        let mut headers = Vec::new();
        for (i, e) in rec.entries.into_iter().enumerate() {
            validate_path(&e.path)
                .map_err(|r| rerr(format!("entries[{i}]: path {:?}: {r}", e.path)))?;
            let sha256 = Sha256Digest::parse_hex(&e.sha256)
                .map_err(|x| rerr(format!("entries[{i}] ({:?}): {x}", e.path)))?;
            if let Some(h) = &e.header_sha256 {
                let h = Sha256Digest::parse_hex(h).map_err(|x| {
                    rerr(format!("entries[{i}] ({:?}): header_sha256: {x}", e.path))
                })?;
                headers.push((e.path.clone(), h));
            }
            entries.push(Entry {
                path: e.path,
                size: Some(e.size),
                sha256,
            });
        }
        let mut m = Self::from_entries(entries, origin)?;
        for (p, h) in headers {
            m.set_header_sha256(&p, h, origin)?;
        }
        let digest =
            Sha256Digest::parse_prefixed(&rec.digest).map_err(|e| rerr(format!("digest: {e}")))?;
        if digest != m.digest() {
            return Err(rerr(format!(
                "digest says {}, but the entries give {}",
                rec.digest,
                m.digest().prefixed()
            )));
        }
        if rec.files != m.len() as u64 {
            return Err(rerr(format!(
                "files says {}, but there are {} entries",
                rec.files,
                m.len()
            )));
        }
        let total = m.total_bytes().unwrap_or(0);
        if rec.bytes != total {
            return Err(rerr(format!(
                "bytes says {}, but the entries' sizes add up to {total}",
                rec.bytes
            )));
        }
        Ok(m)
    }

    /// Reads a manifest file (any format, or the given one).
    pub fn read_file(path: &Path, format: Option<Format>) -> Result<(Self, Format), ManifestError> {
        let bytes = crate::capped::read_capped(path, MAX_MANIFEST_BYTES)?;
        Self::parse(&bytes, format, &path.display().to_string())
    }
}

pub(super) fn unescape_sha256sum(s: &str) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            match it.next() {
                Some('\\') => out.push('\\'),
                Some('n') => out.push('\n'),
                Some('r') => out.push('\r'),
                other => {
                    return Err(format!(
                        "unknown escape '\\{}' in sha256sum path",
                        other.map(String::from).unwrap_or_default()
                    ))
                }
            }
        } else {
            out.push(c);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::tests::e;

    #[test]
    fn formats_round_trip() {
        let m = Manifest::from_entries(
            vec![
                e("x:y", b"1"),
                e("sp ace", b""),
                e("back\\slash", b"z"),
                e("ü", b"q"),
            ],
            "t",
        )
        .unwrap();
        for f in [Format::Canonical, Format::Json, Format::Sha256sum] {
            let text = m.render(f).unwrap();
            assert_eq!(Format::detect(text.as_bytes()), f, "{text}");
            let (back, got) = Manifest::parse(text.as_bytes(), None, "t").unwrap();
            assert_eq!(got, f);
            assert_eq!(back.canonical_text(), m.canonical_text());
            assert_eq!(back.digest(), m.digest());
        }
        assert!(
            m.to_sha256sum().contains("\\")
                && m.to_sha256sum().lines().any(|l| l.starts_with('\\'))
        );
    }

    #[test]
    fn strict_canonical() {
        let good = format!(
            "a:{}\nb:{}\n",
            Sha256Digest::of_bytes(b"a"),
            Sha256Digest::of_bytes(b"b")
        );
        assert!(Manifest::parse_canonical_strict(good.as_bytes(), "M").is_ok());
        let unsorted = format!(
            "b:{}\na:{}\n",
            Sha256Digest::of_bytes(b"b"),
            Sha256Digest::of_bytes(b"a")
        );
        assert!(Manifest::parse_canonical_strict(unsorted.as_bytes(), "M").is_err());
        assert!(Manifest::parse(unsorted.as_bytes(), None, "M").is_ok());
        assert!(Manifest::parse_canonical_strict(
            good.to_uppercase()
                .replace("A:", "a:")
                .replace("B:", "b:")
                .as_bytes(),
            "M"
        )
        .is_err());
        assert!(Manifest::parse_canonical_strict(good.trim_end().as_bytes(), "M").is_err());
        assert!(Manifest::parse_canonical_strict(b"", "M")
            .unwrap()
            .is_empty());
        assert!(Manifest::parse(good.replace('\n', "\r\n").as_bytes(), None, "M").is_err());
    }

    #[test]
    fn json_record_is_checked() {
        let m = Manifest::from_entries(vec![e("a", b"1")], "t").unwrap();
        let j = m.to_json_record().unwrap();
        let bad_bytes = j.replace("\"bytes\": 1", "\"bytes\": 2");
        assert!(Manifest::parse(bad_bytes.as_bytes(), None, "t").is_err());
        let bad_files = j.replace("\"files\": 1", "\"files\": 2");
        assert!(Manifest::parse(bad_files.as_bytes(), None, "t").is_err());
        let extra = j.replacen('{', "{\"extra\": 1, ", 1);
        assert!(Manifest::parse(extra.as_bytes(), None, "t").is_err());
    }

    #[test]
    fn header_digests_ride_along_in_the_json_record_only() {
        let mut m = Manifest::from_entries(
            vec![e("model-00001.safetensors", b"1"), e("config.json", b"2")],
            "t",
        )
        .unwrap();
        let plain = m.clone();
        let h = Sha256Digest::of_bytes(b"header");
        m.set_header_sha256("model-00001.safetensors", h, "t")
            .unwrap();
        assert!(m.set_header_sha256("config.json", h, "t").is_err());
        assert!(m.set_header_sha256("absent.safetensors", h, "t").is_err());
        assert_eq!(m, plain, "equality is the file set's");
        assert_eq!(m.digest(), plain.digest());
        assert_eq!(m.canonical_text(), plain.canonical_text());
        let j = m.to_json_record().unwrap();
        assert!(j.contains(&format!("\"header_sha256\": \"{}\"", h.to_hex())));
        let (back, _) = Manifest::parse(j.as_bytes(), None, "t").unwrap();
        assert_eq!(back.header_sha256("model-00001.safetensors"), Some(h));
        assert_eq!(back.header_sha256("config.json"), None);
        let specs = back.shard_specs();
        assert_eq!(specs.len(), 1);
        assert_eq!(specs[0].header_sha256, Some(h));
        let upper = j.replace(&h.to_hex(), &h.to_hex().to_uppercase());
        assert_eq!(
            Manifest::parse(upper.as_bytes(), None, "t")
                .unwrap()
                .0
                .header_sha256("model-00001.safetensors"),
            Some(h)
        );
        let bad = j.replace(&h.to_hex(), "abc");
        assert!(Manifest::parse(bad.as_bytes(), None, "t").is_err());
        let misplaced = plain.to_json_record().unwrap().replace(
            &format!(
                "\"sha256\": \"{}\"}}",
                Sha256Digest::of_bytes(b"2").to_hex()
            ),
            &format!(
                "\"sha256\": \"{}\", \"header_sha256\": \"{}\"}}",
                Sha256Digest::of_bytes(b"2").to_hex(),
                h.to_hex()
            ),
        );
        assert!(misplaced.contains("header_sha256"));
        let err = Manifest::parse(misplaced.as_bytes(), None, "t").unwrap_err();
        assert!(err.to_string().contains("only safetensors shards"), "{err}");
    }
}
