//! Wrong-file errors: when a file given for one argument (a trust file, pins,
//! a write-up, a manifest, a key, an envelope, a fleet file) cannot be read
//! as what that argument expects, say what the file *is* and how the
//! expected kind is made, instead of the parser's "expected value at line 1
//! column 1".
//!
//! The sniffing here is only for messages: it never decides what a file is
//! read as. Each argument is still read by its own parser, and the hint is
//! given only after that parser refused the file.

use std::io::Read;
use std::path::Path;

use serde_json::Value;

/// How much of a file is looked at to name its kind.
const SNIFF_BYTES: u64 = 1 << 20;

/// What a file looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Directory,
    Empty,
    PublicKey,
    PrivateKey,
    OtherPem,
    Trust,
    Pins,
    Report,
    Qualification,
    ManifestRecord,
    ManifestPart,
    ManifestText,
    Envelope,
    Fleet,
    Publication,
    Gzip,
    Unknown,
}

/// What an argument expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    Trust,
    Pins,
    Publication,
    Manifest,
    PublicKey,
    Envelope,
    Fleet,
}

impl Kind {
    /// The kind as a noun phrase ("a public key (PEM)").
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Directory => "a directory",
            Kind::Empty => "an empty file",
            Kind::PublicKey => "a public key (PEM)",
            Kind::PrivateKey => "a private key (PEM)",
            Kind::OtherPem => "a PEM file",
            Kind::Trust => "a trust file (proofpack/trust/v1)",
            Kind::Pins => "a pins file (proofpack/pins/v1)",
            Kind::Report => "a verification report (proofpack/report/v1)",
            Kind::Qualification => "a qualification.json (proofpack/qualification/v1)",
            Kind::ManifestRecord => "a manifest (JSON record)",
            Kind::ManifestPart => "a manifest part (proofpack/manifest-part/v1)",
            Kind::ManifestText => "a manifest",
            Kind::Envelope => "a signed DSSE envelope",
            Kind::Fleet => "a fleet file",
            Kind::Publication => "a published write-up (Markdown with a \"Pinned inputs\" table)",
            Kind::Gzip => "a gzip file (a bundle?)",
            Kind::Unknown => "not a file proofpack knows",
        }
    }

    /// True when this kind is what `want` reads.
    fn is(self, want: Want) -> bool {
        match want {
            Want::Trust => self == Kind::Trust,
            Want::Pins => self == Kind::Pins,
            Want::Publication => self == Kind::Publication,
            Want::Manifest => matches!(self, Kind::ManifestRecord | Kind::ManifestText),
            Want::PublicKey => self == Kind::PublicKey,
            Want::Envelope => self == Kind::Envelope,
            Want::Fleet => self == Kind::Fleet || self == Kind::Qualification,
        }
    }

    /// Where a file of this kind goes instead, when that is worth saying.
    pub fn belongs(self) -> Option<&'static str> {
        Some(match self {
            Kind::PublicKey => "a public key is trusted by putting it in a trust file",
            Kind::PrivateKey => "a private key signs (--key); never hand it to a verifier",
            Kind::Trust => "a trust file is given with --trust",
            Kind::Pins => "a pins file is given with --pins",
            Kind::Publication => "a write-up is given with --publication",
            Kind::ManifestRecord | Kind::ManifestText => {
                "a manifest is given with --manifest or --weights-manifest"
            }
            Kind::ManifestPart => {
                "parts are joined with `proofpack manifest merge PART... -o MANIFEST`"
            }
            Kind::Envelope => {
                "an envelope is checked with `proofpack attest verify ENVELOPE --trust TRUST`"
            }
            Kind::Report => {
                "a saved report is rendered with `proofpack report REPORT.json -o REPORT.html`"
            }
            Kind::Gzip => "a bundle is checked with `proofpack verify BUNDLE.tgz`",
            _ => return None,
        })
    }
}

impl Want {
    /// The expected kind as a noun phrase.
    pub fn noun(self) -> &'static str {
        match self {
            Want::Trust => "a trust file",
            Want::Pins => "a pins file",
            Want::Publication => "a published write-up",
            Want::Manifest => "a manifest",
            Want::PublicKey => "a public key",
            Want::Envelope => "a signed envelope",
            Want::Fleet => "a fleet file",
        }
    }

    /// How a file of the expected kind is made.
    pub fn made(self) -> &'static str {
        match self {
            Want::Trust => "a trust file is made with `proofpack key trust --engine ENGINE.pub --release RELEASE.pub --host HOST.pub -o trust.json`",
            Want::Pins => "a pins file is made with `proofpack pins from-publication WRITEUP.md -o pins.json`",
            Want::Publication => "--publication takes the published write-up: Markdown (or the text a docs site exports) with a \"Pinned inputs\" table",
            Want::Manifest => "a manifest is made with `proofpack manifest DIR -o FILE` (add --format json for the record with sizes)",
            Want::PublicKey => "a public key is PREFIX.pub as `proofpack key gen -o PREFIX` writes it (\"-----BEGIN PUBLIC KEY-----\")",
            Want::Envelope => "an envelope is written by `proofpack attest engine`, `attest sign`, `seal --key` or `host check`",
            Want::Fleet => "a fleet file is {\"hosts\": [{\"name\": \"node-01\"}, ...]}, or a qualified-fleet file with {\"engines\": [{\"host\": ...}]}",
        }
    }
}

fn read_head(path: &Path) -> Option<Vec<u8>> {
    let mut buf = Vec::new();
    std::fs::File::open(path)
        .ok()?
        .take(SNIFF_BYTES)
        .read_to_end(&mut buf)
        .ok()?;
    Some(buf)
}

fn is_hex64(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// What the bytes of a file look like.
pub fn sniff_bytes(bytes: &[u8]) -> Kind {
    if bytes.is_empty() {
        return Kind::Empty;
    }
    if bytes.starts_with(&[0x1f, 0x8b]) {
        return Kind::Gzip;
    }
    let text = String::from_utf8_lossy(bytes);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with("-----BEGIN ") {
        let first = t.lines().next().unwrap_or("");
        return if first.contains("PUBLIC KEY") {
            Kind::PublicKey
        } else if first.contains("PRIVATE KEY") {
            Kind::PrivateKey
        } else {
            Kind::OtherPem
        };
    }
    if t.starts_with('{') {
        let Ok(v) = serde_json::from_slice::<Value>(bytes) else {
            return Kind::Unknown;
        };
        return match v.get("schema").and_then(Value::as_str) {
            Some("proofpack/trust/v1") => Kind::Trust,
            Some("proofpack/pins/v1") => Kind::Pins,
            Some("proofpack/report/v1") => Kind::Report,
            Some("proofpack/qualification/v1") => Kind::Qualification,
            Some("proofpack/manifest/v1") => Kind::ManifestRecord,
            Some("proofpack/manifest-part/v1") => Kind::ManifestPart,
            _ if v.get("payloadType").is_some() && v.get("signatures").is_some() => Kind::Envelope,
            _ if v.get("keys").is_some_and(Value::is_array) => Kind::Trust,
            _ if v.get("pins").is_some_and(Value::is_array) => Kind::Pins,
            _ if v.get("hosts").is_some_and(Value::is_array) => Kind::Fleet,
            _ => Kind::Unknown,
        };
    }
    let lines: Vec<&str> = t.lines().filter(|l| !l.trim().is_empty()).collect();
    let manifest_line = |l: &str| {
        l.rsplit_once(':')
            .is_some_and(|(p, h)| !p.is_empty() && is_hex64(h))
            || l.split_once("  ")
                .is_some_and(|(h, p)| is_hex64(h.trim_start_matches('\\')) && !p.is_empty())
    };
    if !lines.is_empty() && lines.iter().all(|l| manifest_line(l)) {
        return Kind::ManifestText;
    }
    if lines
        .iter()
        .any(|l| l.to_ascii_lowercase().contains("pinned inputs"))
        && lines.iter().any(|l| l.trim_start().starts_with('|'))
    {
        return Kind::Publication;
    }
    Kind::Unknown
}

/// What the file at `path` looks like (`None` when it cannot be read).
pub fn sniff(path: &Path) -> Option<Kind> {
    let meta = std::fs::metadata(path).ok()?;
    if meta.is_dir() {
        return Some(Kind::Directory);
    }
    read_head(path).map(|b| sniff_bytes(&b))
}

/// The message for a file of the wrong kind, if `path` is one: `flag`
/// names the argument (`--trust`).
pub fn wrong_kind(path: &Path, flag: &str, want: Want) -> Option<String> {
    let kind = sniff(path)?;
    if kind.is(want) || kind == Kind::Unknown {
        return None;
    }
    let p = path.display();
    Some(match kind {
        Kind::Directory => format!(
            "{flag} {p}: is a directory, but {flag} takes {} (a file): {}{}",
            want.noun(),
            want.made(),
            if want == Want::Manifest {
                "; to compare two directories, `proofpack diff OLD_DIR NEW_DIR`"
            } else {
                ""
            }
        ),
        Kind::Empty => format!(
            "{flag} {p}: the file is empty; {flag} takes {}: {}",
            want.noun(),
            want.made()
        ),
        _ => {
            let mut s = format!(
                "{flag} {p}: this is {}, not {}: {}",
                kind.noun(),
                want.noun(),
                want.made()
            );
            if let Some(b) = kind.belongs() {
                s.push_str(&format!(" ({b})"));
            }
            s
        }
    })
}

/// Runs `read`; when it fails and the file is recognisably of another kind
/// than `want`, the error says what the file is and how the expected kind
/// is made (the parser's own error stays as the cause).
pub fn read_as<T, E>(
    path: &Path,
    flag: &str,
    want: Want,
    read: impl FnOnce() -> Result<T, E>,
) -> anyhow::Result<T>
where
    E: Into<anyhow::Error>,
{
    // A directory is named before any reader tries to open it.
    if path.is_dir() {
        if let Some(msg) = wrong_kind(path, flag, want) {
            anyhow::bail!(msg);
        }
    }
    read().map_err(|e| {
        let e: anyhow::Error = e.into();
        match wrong_kind(path, flag, want) {
            Some(msg) => anyhow::anyhow!(msg),
            None => e,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds() {
        assert_eq!(sniff_bytes(b""), Kind::Empty);
        assert_eq!(
            sniff_bytes(b"-----BEGIN PUBLIC KEY-----\nMCow\n"),
            Kind::PublicKey
        );
        assert_eq!(
            sniff_bytes(b"-----BEGIN PRIVATE KEY-----\n"),
            Kind::PrivateKey
        );
        assert_eq!(
            sniff_bytes(br#"{"schema": "proofpack/trust/v1", "keys": []}"#),
            Kind::Trust
        );
        assert_eq!(
            sniff_bytes(br#"{"schema": "proofpack/pins/v1", "pins": []}"#),
            Kind::Pins
        );
        assert_eq!(
            sniff_bytes(br#"{"payloadType": "x", "payload": "", "signatures": []}"#),
            Kind::Envelope
        );
        let h = "a".repeat(64);
        assert_eq!(
            sniff_bytes(format!("a/b:{h}\nc:{h}\n").as_bytes()),
            Kind::ManifestText
        );
        assert_eq!(
            sniff_bytes(format!("{h}  a/b\n").as_bytes()),
            Kind::ManifestText
        );
        assert_eq!(
            sniff_bytes(b"# Run\n\n## Pinned inputs\n\n| Input | Value |\n"),
            Kind::Publication
        );
        assert_eq!(sniff_bytes(b"hello"), Kind::Unknown);
        assert_eq!(sniff_bytes(&[0x1f, 0x8b, 8, 0]), Kind::Gzip);
        assert!(Kind::Qualification.is(Want::Fleet));
    }
}
