//! Property tests: any tree of legal names and contents seals into a bundle
//! that verifies with exactly the tree's manifest and unpacks back to the
//! same files; any single-byte corruption or truncation of a bundle is
//! reported as a failed check, never a panic or an `Err`.

use std::collections::BTreeMap;
use std::fs;

use proofpack::bundle::{seal, unpack, verify_bundle, verify_bundle_reader, Limits, SealOptions};
use proofpack::manifest::{self, portable, BuildOptions};
use proofpack::progress::NoProgress;
use proptest::prelude::*;

/// Legal names: portable ones (contract section 5.1, v1.1), so no `:`,
/// `\\`, trailing dot or space, or reserved device name; mixed case and
/// non-ASCII names stay in.
fn component() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9_.-]{1,12}",
        "[a-zA-Z üñファ]{0,7}[a-zA-Züñファ]",
        "[a-z]{90,130}",
    ]
    .prop_filter("not . or .., portable", |c| {
        c != "." && c != ".." && c != "MANIFEST" && portable::component_problem(c).is_none()
    })
}

fn tree() -> impl Strategy<Value = BTreeMap<String, Vec<u8>>> {
    prop::collection::btree_map(
        prop::collection::vec(component(), 1..4).prop_map(|v| v.join("/")),
        prop::collection::vec(any::<u8>(), 0..3000),
        1..8,
    )
    .prop_filter("no file is also a directory", |m| {
        m.keys()
            .all(|a| !m.keys().any(|b| b.starts_with(&format!("{a}/"))))
    })
    .prop_filter("no two names are one file on macOS or Windows", |m| {
        portable::collisions(m.keys().map(String::as_str)).is_empty()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn seal_verify_unpack_round_trip(files in tree(), level in 0u32..=9) {
        let d = tempfile::tempdir().unwrap();
        let run = d.path().join("run");
        for (rel, content) in &files {
            let p = run.join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, content).unwrap();
        }
        let out = d.path().join("b.tgz");
        let opts = SealOptions { name: Some("root".into()), level, mtime: 0, threads: 1, ..Default::default() };
        let sealed = seal(&run, &out, &opts, &NoProgress).unwrap();
        let want = manifest::build(&run, &BuildOptions::default(), &NoProgress).unwrap();
        prop_assert_eq!(sealed.manifest_digest, want.digest());
        let v = verify_bundle(&out, &Limits::default(), None, &NoProgress).unwrap();
        prop_assert!(v.report.ok(), "{}", v.report.to_json());
        prop_assert_eq!(v.manifest.unwrap().digest(), want.digest());
        prop_assert_eq!(v.bundle_sha256, Some(sealed.bundle_sha256));
        prop_assert_eq!(v.listed_bytes, Some(files.values().map(|c| c.len() as u64).sum::<u64>()));
        let x = d.path().join("x");
        fs::create_dir(&x).unwrap();
        prop_assert!(unpack(&out, &x, &Limits::default(), &NoProgress).unwrap().report.ok());
        for (rel, content) in &files {
            prop_assert_eq!(&fs::read(x.join("root").join(rel)).unwrap(), content);
        }
    }

    #[test]
    fn corruption_is_a_failed_check(files in tree(), pos in any::<prop::sample::Index>(), flip in 1u8..=255, cut in any::<bool>()) {
        let d = tempfile::tempdir().unwrap();
        let run = d.path().join("run");
        for (rel, content) in &files {
            let p = run.join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(&p, content).unwrap();
        }
        let out = d.path().join("b.tgz");
        seal(&run, &out, &SealOptions::default(), &NoProgress).unwrap();
        let orig = fs::read(&out).unwrap();
        let mut bytes = orig.clone();
        let i = pos.index(bytes.len());
        if cut {
            bytes.truncate(i);
        } else {
            bytes[i] ^= flip;
        }
        let v = verify_bundle_reader(&bytes[..], "mutated", &Limits::default(), None, &NoProgress).unwrap();
        prop_assert_eq!(v.bundle_sha256, Some(proofpack::digest::Sha256Digest::of_bytes(&bytes)));
        if v.report.ok() {
            // Only a change that leaves the content intact may pass: the
            // gzip header's MTIME/XFL/OS bytes, or padding bits after the
            // final deflate block. The digest still tells the files apart.
            prop_assert!(!cut, "truncation at {} not detected", i);
            let inflate = |b: &[u8]| {
                let mut out = Vec::new();
                std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(b), &mut out).map(|_| out).ok()
            };
            prop_assert_eq!(inflate(&bytes), inflate(&orig), "content changed at {} but the report holds", i);
        }
    }
}
