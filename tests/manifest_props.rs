//! Property tests: every manifest survives a round trip through each of the
//! three formats with its digest intact, and format detection agrees.

use proofpack::digest::Sha256Digest;
use proofpack::manifest::{Entry, Format, Manifest};
use proptest::prelude::*;

fn component() -> impl Strategy<Value = String> {
    // Awkward but legal characters: spaces, colons, backslashes, non-ASCII.
    "[a-zA-Z0-9 :\\\\._ü€-]{1,12}".prop_filter("not . or ..", |s| s != "." && s != "..")
}

fn path() -> impl Strategy<Value = String> {
    prop::collection::vec(component(), 1..4).prop_map(|v| v.join("/"))
}

fn manifest() -> impl Strategy<Value = Manifest> {
    prop::collection::btree_map(path(), (any::<[u8; 32]>(), 0u64..1 << 40), 0..20).prop_filter_map(
        "file/dir clash is fine; duplicates impossible",
        |m| {
            let entries = m
                .into_iter()
                .map(|(path, (d, size))| Entry {
                    path,
                    size: Some(size),
                    sha256: Sha256Digest(d),
                })
                .collect();
            Manifest::from_entries(entries, "prop").ok()
        },
    )
}

proptest! {
    #[test]
    fn round_trips(m in manifest()) {
        for f in [Format::Canonical, Format::Json, Format::Sha256sum] {
            let text = m.render(f).unwrap();
            if !m.is_empty() {
                prop_assert_eq!(Format::detect(text.as_bytes()), f);
            }
            let (back, _) = Manifest::parse(text.as_bytes(), Some(f), "prop").unwrap();
            prop_assert_eq!(back.digest(), m.digest());
            prop_assert_eq!(back.canonical_text(), m.canonical_text());
            if f == Format::Json {
                prop_assert_eq!(&back, &m);
            }
        }
        let strict = Manifest::parse_canonical_strict(m.canonical_text().as_bytes(), "prop").unwrap();
        prop_assert_eq!(strict.digest(), m.digest());
    }
}
