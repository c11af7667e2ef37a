//! What the verdict says on an auditor's first runs, through the binary
//! (issue 26 point 1): an unpinned verdict points to `--publication` first;
//! a FAILED verdict never says "mapped to evidence" and counts a statement
//! it could not check apart from the checked ones; a damaged bundle says
//! where reading stopped, names what it did not reach as not reached (not
//! "not in the bundle"), and with `--publication` reports no `pin:*` skip.

mod fleet_support;

use std::path::{Path, PathBuf};

use fleet_support::qualify_support::{proofpack, trust_of, verify_with, Outcome};
use fleet_support::*;

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample")
}

fn bundle() -> PathBuf {
    sample().join("kimi-k3-mi355x-20260923-sample.tgz")
}

fn verdict(o: &Outcome) -> String {
    o.report["verdict"].as_str().unwrap().to_string()
}

fn ids(o: &Outcome) -> Vec<String> {
    o.report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_unpinned_verdict_names_publication_first() {
    let trust = sample().join("trust.json");
    let o = verify_with(&bundle(), &[os("--trust"), trust.as_os_str()]);
    assert_eq!(o.code, 0, "{}", o.stdout);
    let v = verdict(&o);
    assert!(v.starts_with("VERIFIED (unpinned)"), "{v}");
    assert!(
        v.contains("pass --publication WRITEUP.md (or --pins PINS.json)"),
        "{v}"
    );
    let pins = o.check("pin:*");
    assert!(
        pins["detail"]
            .as_str()
            .unwrap()
            .starts_with("neither --publication nor --pins given"),
        "{pins}"
    );
    // The checklist prints the same sentence.
    let (code, stdout, _) = proofpack(&[
        os("verify"),
        bundle().as_os_str(),
        os("--trust"),
        trust.as_os_str(),
    ]);
    assert_eq!(code, 0);
    assert!(stdout.contains("pass --publication WRITEUP.md"), "{stdout}");
}

#[test]
fn a_failed_verdict_never_says_mapped_to_evidence() {
    let d = tempfile::tempdir().unwrap();
    let t = trust_of(d.path(), &[("engine", "engine"), ("release", "release")]);
    let writeup = sample().join("PUBLICATION.md");
    let o = verify_with(
        &bundle(),
        &[
            os("--publication"),
            writeup.as_os_str(),
            os("--trust"),
            t.as_os_str(),
        ],
    );
    assert_eq!(o.code, 1, "{}", o.stdout);
    let v = verdict(&o);
    assert!(v.starts_with("FAILED"), "{v}");
    assert!(!v.contains("mapped to evidence"), "{v}");
    // The launch-check sentence could not be checked (its host checks
    // failed): it is not counted as a checked statement.
    assert!(
        v.contains(
            "(19 of 20 statement(s) of the prose checked, 0 bound by the publisher, 1 not checked)"
        ),
        "{v}"
    );
    assert!(
        v.contains("1 publication check(s) not checkable because a check they need failed"),
        "{v}"
    );
    // The same write-up with the host key: every statement checked, and
    // only then mapped.
    let trust = sample().join("trust.json");
    let ok = verify_with(
        &bundle(),
        &[
            os("--publication"),
            writeup.as_os_str(),
            os("--trust"),
            trust.as_os_str(),
        ],
    );
    assert_eq!(ok.code, 0, "{}", ok.stdout);
    let v = verdict(&ok);
    assert!(
        v.contains(
            "(20 of 20 statement(s) of the prose checked, 0 bound by the publisher, 0 not checked)"
        ),
        "{v}"
    );
    assert!(
        v.ends_with("every row, cell and statement mapped to evidence"),
        "{v}"
    );
}

/// The sample bundle with one byte of its compressed stream flipped.
fn damaged(dir: &Path, at: usize) -> PathBuf {
    let mut b = std::fs::read(bundle()).unwrap();
    b[at] ^= 0xff;
    let p = dir.join("damaged.tgz");
    std::fs::write(&p, b).unwrap();
    p
}

#[test]
fn a_damaged_bundle_says_where_reading_stopped_and_nothing_after_it_is_absent() {
    let d = tempfile::tempdir().unwrap();
    let writeup = sample().join("PUBLICATION.md");
    let trust = sample().join("trust.json");
    // A flipped byte inside the deflate data before the MANIFEST ends; the
    // file cut at a quarter, after MANIFEST and qualification.json (v1.1
    // order), before most of the evidence.
    let len = std::fs::metadata(bundle()).unwrap().len() as usize;
    for at in [1000, len / 4] {
        let b = if at == 1000 {
            damaged(d.path(), at)
        } else {
            let p = d.path().join("cut.tgz");
            std::fs::write(&p, &std::fs::read(bundle()).unwrap()[..at]).unwrap();
            p
        };
        let o = verify_with(
            &b,
            &[
                os("--publication"),
                writeup.as_os_str(),
                os("--trust"),
                trust.as_os_str(),
            ],
        );
        assert_eq!(o.code, 1, "{at}: {}", o.stdout);
        let gz = o.check("bundle.gzip");
        let detail = gz["detail"].as_str().unwrap();
        assert!(
            detail.contains("reading stopped after")
                && detail.contains("bytes of the archive, within the first")
                && detail.contains("nothing after that point was read"),
            "{at}: {gz}"
        );
        let q = o.check("qualification.schema");
        if at == 1000 {
            // Reading stopped inside MANIFEST: the qualification was not
            // reached.
            assert_eq!(q["cause"].as_str(), Some("bundle.gzip"), "{at}: {q}");
            assert!(
                q["detail"].as_str().unwrap().contains("not reached"),
                "{at}: {q}"
            );
        } else {
            // v1.1 order: qualification.json comes right after MANIFEST, so
            // it was read; the evidence after the cut was not reached.
            assert_eq!(q["ok"], true, "{at}: {q}");
            let plan = o.check("qualification.plan");
            assert!(
                plan["detail"]
                    .as_str()
                    .unwrap()
                    .contains("not reached: reading stopped before it (see bundle.gzip)"),
                "{at}: {plan}"
            );
        }
        for c in o.report["checks"].as_array().unwrap() {
            let detail = c["detail"].as_str().unwrap_or("");
            assert!(
                !detail.contains("not in the bundle"),
                "{at}: a check reports as absent what was not reached: {c}"
            );
        }
        let all = ids(&o);
        assert!(
            !all.iter().any(|i| i.starts_with("pin:")),
            "{at}: --publication was given, yet a pin check is reported: {all:?}"
        );
        if at == 1000 {
            assert!(all.iter().any(|i| i == "publication:*"), "{at}: {all:?}");
        }
        let v = verdict(&o);
        assert!(v.starts_with("FAILED"), "{at}: {v}");
        assert!(!v.contains("mapped to evidence"), "{at}: {v}");
    }
}
