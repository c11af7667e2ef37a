//! The docs cannot go stale: the auditor's guide shows what `verify` prints
//! on the sample (every line it shows is a line the binary prints, in
//! order), and docs/checks.md documents every check id `verify` emits on
//! the sample and on forged copies of it.
//!
//! `PROOFPACK_REGEN_DOCS=1 cargo test --test docs_current` rewrites the
//! guide's sample output from what the binary prints (the same lines,
//! digests abridged) instead of failing.

mod common;

use std::path::{Path, PathBuf};

use common::ids;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const BUNDLE: &str = "testdata/sample/kimi-k3-mi355x-20260923-sample.tgz";
const WRITEUP: &str = "testdata/sample/PUBLICATION.md";
const TRUST: &str = "testdata/sample/trust.json";
const GUIDE: &str = "docs/auditor-guide.md";
const INTRO: &str = "On the sample this prints (abridged; ";

/// `proofpack --no-catalog ARGS` run from the checkout's root: (exit, stdout).
fn run(args: &[&str]) -> (i32, String) {
    let out = common::command()
        .current_dir(root())
        .arg("--no-catalog")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// A doc line matches an output line when its parts between `...` occur in
/// the line in order, the first at its start and the last at its end.
fn line_matches(doc: &str, out: &str) -> bool {
    let parts: Vec<&str> = doc.split("...").collect();
    let mut rest = out;
    for (i, p) in parts.iter().enumerate() {
        if i == 0 {
            match rest.strip_prefix(p) {
                Some(r) => rest = r,
                None => return false,
            }
        } else if i == parts.len() - 1 {
            return rest.ends_with(p);
        } else {
            match rest.find(p) {
                Some(at) => rest = &rest[at + p.len()..],
                None => return false,
            }
        }
    }
    rest.is_empty()
}

/// Every 64-digit hex run cut to its first 8 and last 7 digits.
fn abridge(line: &str) -> String {
    let b = line.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let run = b[i..].iter().take_while(|c| c.is_ascii_hexdigit()).count();
        let bounded = i == 0 || !b[i - 1].is_ascii_alphanumeric();
        if run == 64 && bounded {
            out.push_str(&line[i..i + 8]);
            out.push_str("...");
            out.push_str(&line[i + 57..i + 64]);
            i += 64;
        } else {
            let step = run.max(1);
            let end = (i + step).min(b.len());
            // Copy whole characters.
            let mut e = end;
            while !line.is_char_boundary(e) {
                e += 1;
            }
            out.push_str(&line[i..e]);
            i = e;
        }
    }
    out
}

/// The head of a line (`PASS id`, `VERIFIED:`, a table row's first
/// cell), to find the output line a doc line shows.
fn key(line: &str) -> String {
    let words: Vec<&str> = line.split_whitespace().collect();
    let n = match words.first() {
        Some(&("PASS" | "FAIL" | "SKIP" | "NOT")) => 2,
        _ => 1,
    };
    words[..n.min(words.len())].join(" ")
}

#[test]
fn the_auditors_guide_shows_what_verify_prints_on_the_sample() {
    let (code, out) = run(&["verify", BUNDLE, "--publication", WRITEUP, "--trust", TRUST]);
    assert_eq!(code, 0, "{out}");
    let out_lines: Vec<&str> = out.lines().collect();
    let guide_path = root().join(GUIDE);
    let guide = std::fs::read_to_string(&guide_path).unwrap();
    let intro_at = guide
        .find(INTRO)
        .expect("the guide introduces the sample output");
    let open = intro_at + guide[intro_at..].find("```\n").unwrap() + 4;
    let close = open + guide[open..].find("```\n").unwrap();
    let block: Vec<&str> = guide[open..close].lines().collect();
    let verdict = out_lines
        .iter()
        .find(|l| l.starts_with("VERIFIED"))
        .expect("a verdict line");
    let total: usize = {
        // "VERIFIED: N checks passed, M skipped; ..."
        let nums: Vec<usize> = verdict
            .split(|c: char| !c.is_ascii_digit())
            .filter(|s| !s.is_empty())
            .take(2)
            .map(|s| s.parse().unwrap())
            .collect();
        nums.iter().sum()
    };
    let stated: usize = guide[intro_at + INTRO.len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap();

    let regen = std::env::var_os("PROOFPACK_REGEN_DOCS").is_some();
    let mut at = 0;
    let mut new_block = Vec::new();
    let mut stale = Vec::new();
    for d in &block {
        if d.trim() == "..." || d.is_empty() {
            new_block.push(d.to_string());
            continue;
        }
        match out_lines[at..].iter().position(|o| line_matches(d, o)) {
            Some(i) => {
                at += i + 1;
                new_block.push(d.to_string());
            }
            None => {
                stale.push(d.to_string());
                // The output line with the same head, abridged.
                match out_lines[at..].iter().position(|o| key(o) == key(d)) {
                    Some(i) => {
                        new_block.push(abridge(out_lines[at + i]));
                        at += i + 1;
                    }
                    None => new_block.push(d.to_string()),
                }
            }
        }
    }
    // Every section verify prints is shown, in order (at least its header,
    // its first line and "..."): a guide that leaves out a whole section
    // (the host launch checks) cannot pass as current.
    let is_header = |l: &&str| !l.is_empty() && !l.starts_with(' ') && !l.starts_with("proofpack ");
    let verdict_at = out_lines
        .iter()
        .position(|l| l.starts_with("VERIFIED"))
        .unwrap();
    let headers: Vec<&str> = out_lines[..verdict_at]
        .iter()
        .copied()
        .filter(is_header)
        .collect();
    let missing: Vec<&str> = headers
        .iter()
        .copied()
        .filter(|h| !new_block.iter().any(|l| l == h))
        .collect();
    for (k, h) in headers.iter().enumerate() {
        if !missing.contains(h) {
            continue;
        }
        // Before the next section the guide shows, or the verdict.
        let next = headers[k + 1..]
            .iter()
            .find_map(|n| new_block.iter().position(|l| l == n))
            .or_else(|| new_block.iter().position(|l| l.starts_with("VERIFIED")))
            .unwrap_or(new_block.len());
        let at_out = out_lines.iter().position(|l| l == h).unwrap();
        let first = abridge(out_lines[at_out + 1]);
        let section = [h.to_string(), first, "  ...".to_string(), String::new()];
        for (i, l) in section.into_iter().enumerate() {
            new_block.insert(next + i, l);
        }
    }
    if regen && (!stale.is_empty() || stated != total || !missing.is_empty()) {
        let mut g = String::new();
        g.push_str(&guide[..intro_at + INTRO.len()]);
        g.push_str(&total.to_string());
        let after_num = intro_at + INTRO.len() + stated.to_string().len();
        g.push_str(&guide[after_num..open]);
        for l in &new_block {
            g.push_str(l);
            g.push('\n');
        }
        g.push_str(&guide[close..]);
        std::fs::write(&guide_path, g).unwrap();
        return;
    }
    assert_eq!(
        stated, total,
        "{GUIDE}: the guide says {stated} checks in all, verify runs {total} (PROOFPACK_REGEN_DOCS=1 rewrites it)"
    );
    assert!(
        stale.is_empty(),
        "{GUIDE}: lines of the sample output that verify does not print (in this order):\n{}\n\nverify printed:\n{out}\n(PROOFPACK_REGEN_DOCS=1 cargo test --test docs_current rewrites them)",
        stale.join("\n")
    );
    assert!(
        missing.is_empty(),
        "{GUIDE}: sections verify prints that the guide's sample output leaves out: {missing:?} (PROOFPACK_REGEN_DOCS=1 cargo test --test docs_current adds them)"
    );
}

/// The documented id patterns: the backticked ids of the first column of
/// docs/checks.md's tables (see [`ids::table_ids`]).
fn documented() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("docs/checks.md")).unwrap();
    ids::table_ids(&text, |id| !id.contains([' ', '"']))
}

#[test]
fn checks_md_documents_every_id_verify_emits() {
    let patterns = documented();
    let d = tempfile::tempdir().unwrap();
    let sample_run = root().join("testdata/sample/run/kimi-k3-mi355x-20260923-sample");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    let mut runs: Vec<(String, Vec<String>)> = vec![
        (
            "the sample with its write-up".into(),
            vec![
                "verify".into(),
                BUNDLE.into(),
                "--publication".into(),
                WRITEUP.into(),
                "--trust".into(),
                TRUST.into(),
                "--require-all".into(),
                "--require-seal".into(),
                "--json".into(),
            ],
        ),
        (
            "the sample with its pins".into(),
            vec![
                "verify".into(),
                BUNDLE.into(),
                "--pins".into(),
                "testdata/sample/pins.json".into(),
                "--trust".into(),
                TRUST.into(),
                "--json".into(),
            ],
        ),
        (
            "the sample's bundle, structure only".into(),
            vec![
                "verify".into(),
                BUNDLE.into(),
                "--structure-only".into(),
                "--json".into(),
            ],
        ),
    ];
    // The sample as a bag (every bag check), and a real vLLM result file
    // checked on its own (the result checks).
    let bags = common::bag::sample_bags(&d.path().join("bags"));
    for (what, bag) in ["the sample as a bag", "the bag with SHA-512 manifests"]
        .iter()
        .zip(&bags)
    {
        runs.push((
            what.to_string(),
            vec![
                "verify".into(),
                s(bag),
                "--trust".into(),
                TRUST.into(),
                "--json".into(),
            ],
        ));
    }
    for file in [
        "lambdalabs-benchmark-serving-2024.json",
        "tokenkaki-vllm-bench-serve-0.19.1.json",
    ] {
        runs.push((
            format!("results check of {file}"),
            vec![
                "results".into(),
                "check".into(),
                format!("testdata/peers/real/{file}"),
                "--json".into(),
            ],
        ));
    }
    // Forged copies of the run directory, each verified with the write-up.
    type Forgery = (&'static str, fn(&Path));
    let forgeries: [Forgery; 5] = [
        ("an attestation removed", |r| {
            std::fs::remove_file(r.join("attestations/engine-1.dsse.json")).unwrap()
        }),
        ("a file nothing declares", |r| {
            std::fs::write(r.join("notes.txt"), "extra\n").unwrap()
        }),
        ("the router journal removed", |r| {
            std::fs::remove_file(r.join("router-journal.jsonl")).unwrap()
        }),
        ("a host report removed", |r| {
            std::fs::remove_file(r.join("hosts/mi355x-node-02.qual.example.dsse.json")).unwrap()
        }),
        ("a client record changed", common::change_a_client_record),
    ];
    for (i, (what, forge)) in forgeries.iter().enumerate() {
        let dir = d
            .path()
            .join(format!("f{i}/kimi-k3-mi355x-20260923-sample"));
        common::copy_tree(&sample_run, &dir);
        forge(&dir);
        runs.push((
            what.to_string(),
            vec![
                "verify".into(),
                s(&dir),
                "--publication".into(),
                WRITEUP.into(),
                "--trust".into(),
                TRUST.into(),
                "--json".into(),
            ],
        ));
    }
    let mut undocumented = std::collections::BTreeMap::<String, String>::new();
    let mut seen = 0;
    let mut emitted = std::collections::BTreeSet::<String>::new();
    for (what, args) in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, json) = run(&args);
        assert!(code == 0 || code == 1, "{what}: exit {code}\n{json}");
        for id in ids::of_report(&json, what) {
            seen += 1;
            if !patterns.iter().any(|p| ids::matches(p, &id)) {
                undocumented
                    .entry(id.clone())
                    .or_insert_with(|| what.clone());
            }
            emitted.insert(id);
        }
    }
    // The other way round: a documented id that none of these runs emitted
    // must at least be spelled in the source (its literal parts, in the
    // code that formats it); one that is not is a check the binary cannot
    // emit, documented in vain.
    let source = ids::source_text();
    let emitted: Vec<String> = emitted.into_iter().collect();
    let (_, never) = ids::unmatched(&patterns, &emitted);
    let stale: Vec<&String> = never
        .iter()
        .filter(|p| {
            ids::literal_parts(p)
                .iter()
                .any(|part| !source.contains(part.as_str()))
        })
        .collect();
    assert!(
        stale.is_empty(),
        "docs/checks.md documents ids that no run emitted and no source file spells: {stale:?}"
    );
    assert!(
        never.len() * 2 < patterns.len(),
        "most documented ids are emitted by these runs; only {} of {} were",
        patterns.len() - never.len(),
        patterns.len()
    );
    assert!(seen > 500, "only {seen} checks seen");
    assert!(
        undocumented.is_empty(),
        "docs/checks.md lists no pattern for these ids verify emits (id: the run):\n{}",
        undocumented
            .iter()
            .map(|(id, w)| format!("  {id}: {w}"))
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn the_id_matcher_reads_the_patterns_as_documented() {
    assert!(ids::matches("point:<name>.count", "point:rate-0.5.count"));
    assert!(!ids::matches("point:<name>.count", "point:.count"));
    assert!(!ids::matches("point:<name>.count", "point:rate-0.5.counts"));
    assert!(ids::matches("bundle.sha256", "bundle.sha256"));
    assert!(line_matches(
        "PASS seal  signed by 962a...6dab (release)",
        "PASS seal  signed by 962a2679bb6dab (release)"
    ));
    assert!(!line_matches(
        "PASS seal  signed by 962a...6dab",
        "PASS seal  signed by 962a2679bb6dab (release)"
    ));
    assert_eq!(
        abridge(&format!("x sha256:{}.", "ab".repeat(32))),
        "x sha256:abababab...bababab."
    );
}
