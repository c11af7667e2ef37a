//! Fuzz harnesses for the text parsers of untrusted input other than the
//! bundle reader: manifests given to `check`/`diff` (and a bundle's MANIFEST),
//! DSSE envelopes with their in-toto Statements, and the qualification inputs
//! (qualification.json, pins, claims, client records, journal). Shared by the cargo-fuzz
//! targets and the stable corpus replay test (tests/parsers_fuzz_corpus.rs).

// Each fuzz target uses one of these functions; the replay test uses all.
#![allow(dead_code)]

use proofpack::attest::{verify_envelope, Statement};
use proofpack::keys::{Role, TrustStore, TrustedKey};
use proofpack::manifest::{Format, Manifest};

/// Manifest parsing: never panics; whatever parses round-trips through
/// every format to the same digest, and its canonical text is strict-canonical.
pub fn manifest(data: &[u8]) {
    manifest_stream(data);
    if let Ok((m, _)) = Manifest::parse(data, None, "fuzz") {
        let canonical = m.canonical_text();
        let strict = Manifest::parse_canonical_strict(canonical.as_bytes(), "fuzz")
            .expect("canonical text of a parsed manifest is canonical");
        assert_eq!(strict.digest(), m.digest());
        for f in [Format::Canonical, Format::Sha256sum] {
            let text = m.render(f).expect("renders");
            let (back, _) = Manifest::parse(text.as_bytes(), Some(f), "fuzz").expect("round trip");
            assert_eq!(back.digest(), m.digest());
        }
    }
    if let Ok(m) = Manifest::parse_canonical_strict(data, "fuzz") {
        assert_eq!(m.canonical_text().as_bytes(), data);
    }
}

/// v1.1: the streaming reader (check, diff, catalog import) agrees with the
/// parser: the same entries, header digests and digest, or it gives up
/// (and the caller reads whole); it never accepts what the parser refuses.
fn manifest_stream(data: &[u8]) {
    use proofpack::manifest::{EntryStream, ReadWhole};
    let run = || -> Result<_, ReadWhole> {
        let mut s = EntryStream::from_reader(std::io::Cursor::new(data.to_vec()), None)?;
        let mut v = Vec::new();
        while let Some(e) = s.next_entry()? {
            v.push(e);
        }
        Ok((v, s.finish()?))
    };
    let Ok((entries, totals)) = run() else {
        return;
    };
    let (m, _) = Manifest::parse(data, None, "fuzz").expect("the parser reads what streams");
    assert_eq!(entries.len(), m.len());
    for (s, e) in entries.iter().zip(m.entries()) {
        assert_eq!(&s.entry, e);
        assert_eq!(s.header_sha256, m.header_sha256(&e.path));
    }
    assert_eq!(totals.digest, m.digest());
}

fn trust() -> TrustStore {
    let key = ed25519_dalek::SigningKey::from_bytes(&[7u8; 32]);
    TrustStore::from_keys(vec![TrustedKey::new(
        key.verifying_key(),
        vec![Role::Engine],
        Some("fuzz".into()),
    )])
}

/// Envelope verification and Statement parsing: never panics; an envelope
/// can only verify if the fuzz key signed it (which the fuzzer cannot forge).
pub fn envelope(data: &[u8]) {
    let t = trust();
    if let Ok(v) = verify_envelope(data, &t, Role::Engine, 1) {
        assert!(!v.signers().is_empty());
    }
    let _ = verify_envelope(data, &t, Role::Release, 1);
    if let Ok(s) = Statement::parse(data) {
        let again = Statement::parse(&s.to_json_bytes()).expect("re-serialised statement parses");
        assert_eq!(again.subjects.len(), s.subjects.len());
    }
}

/// Qualification inputs from inside a run: `qualification.json`, a pins
/// file, a published claim, client records and router journal lines. Never
/// panics; the readers of records only fail on I/O, which memory cannot give.
pub fn qualification(data: &[u8]) {
    use proofpack::run::journal::{read_journal, read_journal_with, IdLimit};
    use proofpack::run::qualification::{Claim, Pins, Qualification};
    use proofpack::run::records::read_client_records;
    let _ = Qualification::parse(data);
    let _ = Pins::parse(data, "fuzz");
    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(c) = Claim::parse(s.trim()) {
            let _ = c.holds(c.tolerance());
        }
    }
    let mut r = data;
    let summary = read_client_records(&mut r, "client.jsonl", "rate-1", 10.0, 0.3)
        .expect("reading from memory cannot fail");
    let _ = summary.metrics;
    // One point judged against the records just read, one kept per id.
    let mut r = data;
    read_journal(
        &mut r,
        "journal.jsonl",
        &[("rate-1", Some(&summary)), ("rate-0.5", None)],
        1.0,
    )
    .expect("reading from memory cannot fail");
    // Past no full records (v1.1): every disagreeing request kept compact,
    // and the journal read again for what the checks quote.
    let points = [("rate-1", Some(&summary))];
    let mut r = data;
    let mut j = read_journal_with(
        &mut r,
        "journal.jsonl",
        &points,
        1.0,
        IdLimit::Fixed(1 << 20),
        0,
    )
    .expect("reading from memory cannot fail");
    let mut r = data;
    j.read_details(&mut r, "journal.jsonl", &points, 1.0)
        .expect("reading from memory cannot fail");
    assert!(!j.needs_details());
    sniffer(data);
    // A host launch-check predicate (v1.1 fields validated after parsing).
    if let Ok(p) = serde_json::from_slice::<proofpack::fleet::HostCheckPredicate>(data) {
        let _ = p.validate();
    }
}

/// `run.undeclared`'s sniffer: the same answer however the bytes are
/// chunked, and the answer of reading the input line by line.
fn sniffer(data: &[u8]) {
    use proofpack::run::sniff::{records_point, Found, RecordSniffer};
    let mut whole = RecordSniffer::new();
    whole.feed(data);
    let whole = whole.finish();
    let mut chunked = RecordSniffer::new();
    let step = 1 + data.first().map_or(0, |b| (*b % 7) as usize);
    for c in data.chunks(step) {
        chunked.feed(c);
    }
    assert_eq!(
        chunked.finish(),
        whole,
        "chunking changed the sniffer's answer"
    );
    // Inputs here are far below the line limit: every line is read whole.
    let mut oracle = None;
    for (i, l) in data.split(|b| *b == b'\n').enumerate() {
        if i == 0 && l.is_empty() && data.is_empty() {
            break;
        }
        let mut l = l;
        if i == 0 {
            l = l.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(l);
        }
        l = l.strip_suffix(b"\r").unwrap_or(l);
        if let Some(point) = records_point(l) {
            oracle = Some(Found {
                line: i as u64 + 1,
                point: Some(point),
            });
            break;
        }
    }
    assert_eq!(
        whole, oracle,
        "the sniffer disagrees with a line-by-line read"
    );
}
