//! Reading a bag: its own manifests first (as bagit-python's `--validate`
//! reads them, refusing what readers read differently), then `data/` as a
//! run directory.
//!
//! Checks (`bag.*`):
//! - `bag.declaration`: `bagit.txt` is exactly `BagIt-Version: 1.0` (or
//!   0.97) and `Tag-File-Character-Encoding: UTF-8`, no byte-order mark;
//! - `bag.structure`: `data/` is a directory, no `fetch.txt` (a bag whose
//!   payload is elsewhere is not the evidence), no link or special file
//!   beside the tag files;
//! - `bag.manifest-sha256` (required) and `bag.manifest-sha512` (when
//!   present): every payload file listed, every listed file present, every
//!   digest equal; other algorithms' manifests are named as not checked;
//! - `bag.oxum`: `Payload-Oxum` of `bag-info.txt` equals the payload's
//!   bytes and file count;
//! - `bag.tagmanifest-sha256` / `-sha512`: every tag file at the top level
//!   listed, and each listed file's digest equal;
//! - `bag.seal`: the bundle's release seal the bag carries, checked under
//!   the trust roots against the payload's MANIFEST digest and the bundle
//!   SHA-256 `bag-info.txt` states.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256, Sha512};

use crate::digest::Sha256Digest;
use crate::keys::TrustStore;
use crate::manifest::{Entry, Manifest};
use crate::report::Check;

use super::types::{
    io, BagError, BAG_INFO, DATA_DIR, MANIFEST_SHA256, MAX_TAG_FILE, SEAL_TAG_FILE,
};

/// Problems shown in one check's detail; the rest are counted.
const SHOWN: usize = 12;

/// True when `dir` holds a `bagit.txt` (it is then read as a bag).
pub fn is_bag(dir: &Path) -> bool {
    fs::symlink_metadata(dir.join("bagit.txt")).is_ok()
}

fn read_tag(path: &Path) -> Result<Option<Vec<u8>>, BagError> {
    match fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(path)(e)),
        Ok(m) if !m.is_file() => return Ok(Some(Vec::new())), // reported by bag.structure
        Ok(_) => {}
    }
    let f = fs::File::open(path).map_err(io(path))?;
    let buf = crate::capped::read_past_cap(f, MAX_TAG_FILE).map_err(io(path))?;
    Ok(Some(buf))
}

fn shown(problems: &[String]) -> String {
    let mut s = problems
        .iter()
        .take(SHOWN)
        .cloned()
        .collect::<Vec<_>>()
        .join("; ");
    if problems.len() > SHOWN {
        s.push_str(&format!("; and {} more", problems.len() - SHOWN));
    }
    s
}

/// A manifest file's lines as `(path, lowercase hex)`, in file order; `Err`
/// names what a reader would read otherwise.
fn parse_manifest(
    name: &str,
    bytes: &[u8],
    hex_len: usize,
    payload: bool,
) -> Result<Vec<(String, String)>, String> {
    if bytes.len() as u64 > MAX_TAG_FILE {
        return Err(format!("{name}: larger than {MAX_TAG_FILE} bytes"));
    }
    if bytes.starts_with(b"\xef\xbb\xbf") {
        return Err(format!("{name}: starts with a byte-order mark"));
    }
    let text = std::str::from_utf8(bytes).map_err(|e| format!("{name}: not UTF-8 ({e})"))?;
    if !text.is_empty() && !text.ends_with('\n') {
        return Err(format!("{name}: the last line has no line break"));
    }
    let mut out = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        let at = |why: String| format!("{name} line {}: {why}", i + 1);
        let (hex, path) = line
            .split_once([' ', '\t'])
            .ok_or_else(|| at("not \"<checksum> <path>\"".into()))?;
        let path = path.trim_start_matches([' ', '\t']);
        if hex.len() != hex_len || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(at(format!("{hex:?} is not {hex_len} hex digits")));
        }
        if path.starts_with('*') || path.contains('%') || path.ends_with([' ', '\t']) {
            return Err(at(format!(
                "path {path:?}: '*', '%' and trailing blanks are read differently by BagIt readers"
            )));
        }
        crate::manifest::validate_path(path).map_err(|w| at(format!("path {path:?}: {w}")))?;
        let in_data = path.starts_with("data/");
        if payload != in_data {
            return Err(at(format!(
                "path {path:?}: a {} manifest lists {}",
                if payload { "payload" } else { "tag" },
                if payload {
                    "only files under data/"
                } else {
                    "only files outside data/"
                }
            )));
        }
        if !seen.insert(path.to_string()) {
            return Err(at(format!("{path:?} is listed twice")));
        }
        out.push((path.to_string(), hex.to_ascii_lowercase()));
    }
    Ok(out)
}

/// `Label: value` pairs of a tag file (RFC 8493 2.2.2: a value may go on
/// over lines that start with whitespace).
fn parse_tags(bytes: &[u8]) -> Result<Vec<(String, String)>, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8 ({e})"))?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut out: Vec<(String, String)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        if line.starts_with([' ', '\t']) {
            match out.last_mut() {
                Some((_, v)) => {
                    v.push(' ');
                    v.push_str(line.trim());
                }
                None => return Err(format!("line {}: a continuation with no label", i + 1)),
            }
            continue;
        }
        let (k, v) = line
            .split_once(':')
            .ok_or_else(|| format!("line {}: not \"Label: value\"", i + 1))?;
        out.push((k.trim().to_string(), v.trim().to_string()));
    }
    Ok(out)
}

/// The payload files: `data/<rel>` to their size; problems named.
fn scan_payload(bag: &Path) -> Result<(BTreeMap<String, u64>, Vec<String>), BagError> {
    let data = bag.join(DATA_DIR);
    let mut files = BTreeMap::new();
    let mut problems = Vec::new();
    if !fs::symlink_metadata(&data).is_ok_and(|m| m.is_dir()) {
        return Ok((files, problems));
    }
    let (found, bad) = crate::manifest::scan_run_dir(&data).map_err(|e| BagError::Io {
        path: data.clone(),
        source: std::io::Error::other(e.to_string()),
    })?;
    for f in found {
        files.insert(format!("{DATA_DIR}/{}", f.rel), f.stat.size);
    }
    for (p, why) in bad {
        problems.push(format!("data/{p}: {why}"));
    }
    Ok((files, problems))
}

/// SHA-256 and SHA-512 of a file, in one read.
fn hash_both(path: &Path) -> Result<(String, String), BagError> {
    let mut f = fs::File::open(path).map_err(io(path))?;
    let (mut a, mut b) = (Sha256::new(), Sha512::new());
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f.read(&mut buf).map_err(io(path))?;
        if n == 0 {
            break;
        }
        a.update(&buf[..n]);
        b.update(&buf[..n]);
    }
    Ok((hex::encode(a.finalize()), hex::encode(b.finalize())))
}

/// One manifest file (payload or tag) checked against the digests of the
/// files it must cover.
fn manifest_check(
    id: &str,
    name: &str,
    listed: &[(String, String)],
    actual: &BTreeMap<String, String>,
    must_list: &BTreeSet<String>,
) -> Check {
    let mut problems = Vec::new();
    for (p, want) in listed {
        match actual.get(p) {
            None => problems.push(format!("{p}: listed but not in the bag")),
            Some(got) if got != want => {
                problems.push(format!("{p}: digest differs (listed {want}, file {got})"))
            }
            Some(_) => {}
        }
    }
    let listed_set: BTreeSet<&str> = listed.iter().map(|(p, _)| p.as_str()).collect();
    for p in must_list {
        if !listed_set.contains(p.as_str()) {
            problems.push(format!("{p}: in the bag but not listed in {name}"));
        }
    }
    if problems.is_empty() {
        Check::pass(
            id,
            format!(
                "{name}: {} files listed, each present with its digest",
                listed.len()
            ),
        )
    } else {
        Check::fail(id, format!("{name}: {}", shown(&problems)))
    }
}

/// The bag's own checks (not the run's). `Err` only when a file could not
/// be read.
pub fn check_bag(bag: &Path, trust: Option<&TrustStore>) -> Result<Vec<Check>, BagError> {
    let mut out = Vec::new();
    // bagit.txt
    let decl = read_tag(&bag.join("bagit.txt"))?.unwrap_or_default();
    let decl_ok = decl == b"BagIt-Version: 1.0\nTag-File-Character-Encoding: UTF-8\n"
        || decl == b"BagIt-Version: 0.97\nTag-File-Character-Encoding: UTF-8\n";
    out.push(if decl_ok {
        Check::pass("bag.declaration", String::from_utf8_lossy(&decl).trim().replace('\n', ", "))
    } else {
        Check::fail(
            "bag.declaration",
            format!(
                "bagit.txt is {:?}, not \"BagIt-Version: 1.0\" (or 0.97) and \"Tag-File-Character-Encoding: UTF-8\", one per line",
                String::from_utf8_lossy(&decl.iter().take(200).copied().collect::<Vec<u8>>())
            ),
        )
    });
    // The top level.
    let mut top_files = BTreeSet::new();
    let mut structure = Vec::new();
    let mut data_dir = false;
    for e in fs::read_dir(bag).map_err(io(bag))? {
        let e = e.map_err(io(bag))?;
        let name = e.file_name().to_string_lossy().into_owned();
        let m = fs::symlink_metadata(e.path()).map_err(io(e.path()))?;
        if name == DATA_DIR {
            data_dir = m.is_dir();
            if !data_dir {
                structure.push("data is not a directory".to_string());
            }
        } else if name == "fetch.txt" {
            structure.push("fetch.txt: the payload would be fetched from elsewhere; proofpack verifies only what is in the bag".into());
        } else if m.file_type().is_symlink() {
            structure.push(format!("{name}: a symbolic link"));
        } else if m.is_file() {
            top_files.insert(name);
        } else if !m.is_dir() {
            structure.push(format!("{name}: not a regular file or directory"));
        }
    }
    if !data_dir && !structure.iter().any(|s| s.starts_with("data")) {
        structure.push("no data/ directory".into());
    }
    let (payload, payload_problems) = scan_payload(bag)?;
    structure.extend(payload_problems);
    out.push(if structure.is_empty() {
        Check::pass(
            "bag.structure",
            format!("data/ holds {} regular files; no fetch.txt", payload.len()),
        )
    } else {
        Check::fail("bag.structure", shown(&structure))
    });
    // Digests of everything, once.
    let mut sha256 = BTreeMap::new();
    let mut sha512 = BTreeMap::new();
    for p in payload.keys().chain(top_files.iter()) {
        let (a, b) = hash_both(&bag.join(p))?;
        sha256.insert(p.clone(), a);
        sha512.insert(p.clone(), b);
    }
    let payload_set: BTreeSet<String> = payload.keys().cloned().collect();
    let mut payload256 = None;
    for name in top_files.iter().filter(|n| n.starts_with("manifest-")) {
        let alg = name
            .trim_start_matches("manifest-")
            .trim_end_matches(".txt");
        let id = format!("bag.manifest-{alg}");
        let bytes = read_tag(&bag.join(name))?.unwrap_or_default();
        let (len, actual) = match alg {
            "sha256" => (64, &sha256),
            "sha512" => (128, &sha512),
            _ => {
                out.push(Check::skip(
                    id,
                    format!("{name}: not checked (proofpack checks SHA-256 and SHA-512 manifests)"),
                ));
                continue;
            }
        };
        out.push(match parse_manifest(name, &bytes, len, true) {
            Err(why) => Check::fail(id, why),
            Ok(listed) => {
                let c = manifest_check(&id, name, &listed, actual, &payload_set);
                if alg == "sha256" && c.passed() {
                    payload256 = Some(listed);
                }
                c
            }
        });
    }
    if !top_files.contains(MANIFEST_SHA256) {
        out.push(Check::fail(
            "bag.manifest-sha256",
            "no manifest-sha256.txt: proofpack needs the SHA-256 payload manifest (MANIFEST's digests)",
        ));
    }
    // bag-info.txt
    let info = read_tag(&bag.join(BAG_INFO))?
        .map(|b| parse_tags(&b).map_err(|w| format!("{BAG_INFO}: {w}")));
    let tag = |k: &str| -> Vec<String> {
        match &info {
            Some(Ok(t)) => t
                .iter()
                .filter(|(a, _)| a.eq_ignore_ascii_case(k))
                .map(|(_, v)| v.clone())
                .collect(),
            _ => Vec::new(),
        }
    };
    let bytes: u64 = payload.values().sum();
    let oxum = tag("Payload-Oxum");
    out.push(match (&info, oxum.as_slice()) {
        (Some(Err(why)), _) => Check::fail("bag.oxum", why.clone()),
        (None, _) => Check::skip("bag.oxum", "no bag-info.txt, so no Payload-Oxum to compare"),
        (_, []) => Check::skip("bag.oxum", "bag-info.txt has no Payload-Oxum"),
        (_, [one]) => {
            let want = format!("{bytes}.{}", payload.len());
            Check::outcome(
                "bag.oxum",
                *one == want,
                format!(
                    "Payload-Oxum {one}; the payload has {bytes} bytes in {} files",
                    payload.len()
                ),
            )
        }
        (_, many) => Check::fail(
            "bag.oxum",
            format!("bag-info.txt states Payload-Oxum {} times", many.len()),
        ),
    });
    // Tag manifests.
    let tag_set: BTreeSet<String> = top_files
        .iter()
        .filter(|n| !n.starts_with("tagmanifest-"))
        .cloned()
        .collect();
    let mut any_tagmanifest = false;
    for name in top_files.iter().filter(|n| n.starts_with("tagmanifest-")) {
        any_tagmanifest = true;
        let alg = name
            .trim_start_matches("tagmanifest-")
            .trim_end_matches(".txt");
        let id = format!("bag.tagmanifest-{alg}");
        let bytes = read_tag(&bag.join(name))?.unwrap_or_default();
        let (len, actual) = match alg {
            "sha256" => (64, &sha256),
            "sha512" => (128, &sha512),
            _ => {
                out.push(Check::skip(id, format!("{name}: not checked")));
                continue;
            }
        };
        out.push(match parse_manifest(name, &bytes, len, false) {
            Err(why) => Check::fail(id, why),
            Ok(listed) => {
                // A tag file in a tag directory may be listed; it is hashed here.
                let mut actual = actual.clone();
                for (p, _) in &listed {
                    if !actual.contains_key(p) && p.contains('/') {
                        let abs = bag.join(p);
                        if fs::symlink_metadata(&abs).is_ok_and(|m| m.is_file()) {
                            let (a, b) = hash_both(&abs)?;
                            actual.insert(p.clone(), if len == 64 { a } else { b });
                        }
                    }
                }
                manifest_check(&id, name, &listed, &actual, &tag_set)
            }
        });
    }
    if !any_tagmanifest {
        out.push(Check::skip(
            "bag.tagmanifest-sha256",
            "no tag manifest: bag-info.txt and the payload manifests are not protected by digests",
        ));
    }
    out.push(seal_check(bag, trust, payload256.as_deref(), &tag, bytes)?);
    Ok(out)
}

/// `bag.seal`: the bundle's release seal kept in the bag.
fn seal_check(
    bag: &Path,
    trust: Option<&TrustStore>,
    payload256: Option<&[(String, String)]>,
    tag: &dyn Fn(&str) -> Vec<String>,
    bytes: u64,
) -> Result<Check, BagError> {
    let id = "bag.seal";
    let Some(env) = read_tag(&bag.join(SEAL_TAG_FILE))? else {
        return Ok(Check::skip(
            id,
            format!("the bag carries no release seal ({SEAL_TAG_FILE})"),
        ));
    };
    let Some(listed) = payload256 else {
        return Ok(Check::not_checkable(
            id,
            "bag.manifest-sha256 failed: the payload's MANIFEST is unknown",
        ));
    };
    let mut entries = Vec::with_capacity(listed.len());
    for (p, hex) in listed {
        let sha256 = Sha256Digest::parse_hex(hex).map_err(|e| BagError::Io {
            path: bag.join(MANIFEST_SHA256),
            source: std::io::Error::other(e.to_string()),
        })?;
        entries.push(Entry {
            path: p.trim_start_matches("data/").to_string(),
            size: None,
            sha256,
        });
    }
    let manifest = Manifest::from_entries(entries, MANIFEST_SHA256).map_err(|e| BagError::Io {
        path: bag.join(MANIFEST_SHA256),
        source: std::io::Error::other(e.to_string()),
    })?;
    let stated = tag("Proofpack-Bundle-SHA256");
    let bundle = match stated.as_slice() {
        [one] => Sha256Digest::parse_hex(one).ok(),
        _ => None,
    };
    let Some(bundle) = bundle else {
        return Ok(Check::fail(
            id,
            "the bag carries a seal but bag-info.txt states no single Proofpack-Bundle-SHA256 for it to name",
        ));
    };
    let totals = Some((manifest.len() as u64, bytes));
    let note = "the bundle's SHA-256 as bag-info.txt states it (the bundle's bytes are not in the bag); MANIFEST recomputed from manifest-sha256.txt";
    Ok(match trust {
        Some(t) => {
            let c =
                crate::bundle::verify_seal(&env, t, Some(bundle), Some(manifest.digest()), totals);
            Check::outcome(id, c.passed(), format!("{}; {note}", c.detail))
        }
        None => {
            let c =
                crate::bundle::seal_structure(&env, Some(bundle), Some(manifest.digest()), totals);
            if c.passed() {
                Check::skip(
                    id,
                    format!("{}; {note}; pass --trust to check its signature", c.detail),
                )
            } else {
                Check::fail(id, format!("{}; {note}", c.detail))
            }
        }
    })
}
