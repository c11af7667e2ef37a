//! `--junit FILE` through the binary (issue 25): for each of the five verbs
//! that print a report, on an honest and on a failing input, the JUnit file
//! is read back by junitparser and validated against the Jenkins
//! xunit-plugin's junit-10.xsd (tests/junit_read.py, the pinned peers of
//! scripts/requirements-test.txt); its counts are the `--json` report's
//! summary of the same run and every check stands in it once, in its area,
//! with its outcome and detail. Then hostile text, the output's refusals,
//! a FIFO, and the CI examples of docs/ci.md run as documented.

mod fleet_support;

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use fleet_support::qualify_support::common;
use fleet_support::{copy_dir, fleet, os, HOSTS};
use proofpack::report::junit::{render, RunInfo};
use proofpack::report::{Check, Report};
use serde_json::Value;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const BUNDLE: &str = "testdata/sample/kimi-k3-mi355x-20260923-sample.tgz";
const TRUST: &str = "testdata/sample/trust.json";
const PUBLICATION: &str = "testdata/sample/PUBLICATION.md";

fn at_root(rel: &str) -> PathBuf {
    Path::new(ROOT).join(rel)
}

/// junit_read.py's reading of `file`: schema errors, root counts, suites.
fn read_junit(file: &Path) -> Value {
    common::python_json(
        "junit_read.py",
        &[
            at_root("testdata/junit/junit-10.xsd").as_os_str(),
            file.as_os_str(),
        ],
    )
}

/// `s` as an XML 1.0 document can carry it: what the writer promises to
/// replace (the C0 controls but tab, LF and CR; U+FFFE, U+FFFF) is U+FFFD.
fn xml_visible(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\t' | '\n' | '\r' => c,
            '\u{0}'..='\u{1F}' | '\u{FFFE}' | '\u{FFFF}' => '\u{FFFD}',
            c => c,
        })
        .collect()
}

/// What a run answered: exit status, its `--json` report, its JUnit file
/// as read back, and what it printed on stderr.
struct Run {
    code: i32,
    report: Value,
    junit: Value,
    stderr: String,
}

/// `proofpack --no-catalog ARGS --json --junit FILE` in the repository root.
fn run_with_junit(args: &[&OsStr]) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("report.xml");
    let out = common::command()
        .arg("--no-catalog")
        .args(args)
        .arg("--json")
        .arg("--junit")
        .arg(&file)
        .current_dir(ROOT)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(file.exists(), "no JUnit file written: {stderr}");
    Run {
        code: out.status.code().unwrap_or(-1),
        report: serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("not a JSON report ({e}): {stderr}")),
        junit: read_junit(&file),
        stderr,
    }
}

/// The outcome a JUnit reader sees for a report check.
fn outcome_of(check: &Value) -> &'static str {
    match check["ok"] {
        Value::Bool(true) => "passed",
        Value::Bool(false) => "failure",
        _ => "skipped",
    }
}

/// The JUnit file says what the report says: valid against the schema,
/// the root's and the suites' counts equal to the summary, one suite per
/// area in the order areas first appear, and each check once, in order,
/// with its outcome, detail and expected/found values.
fn assert_agrees(run: &Run) {
    let (r, j) = (&run.report, &run.junit);
    let errors = j["schema_errors"].as_array().unwrap();
    assert!(
        errors.is_empty(),
        "not valid under junit-10.xsd: {errors:?}"
    );
    let s = &r["summary"];
    let n = |v: &Value| v.as_u64().unwrap_or_else(|| panic!("not a count: {v}"));
    let checks = r["checks"].as_array().unwrap();
    assert_eq!(n(&j["root"]["tests"]), checks.len() as u64);
    assert_eq!(
        n(&j["root"]["tests"]),
        n(&s["passed"]) + n(&s["failed"]) + n(&s["skipped"])
    );
    assert_eq!(n(&j["root"]["failures"]), n(&s["failed"]));
    assert_eq!(n(&j["root"]["errors"]), 0);
    let suites = j["suites"].as_array().unwrap();
    let skipped: u64 = suites.iter().map(|x| n(&x["skipped"])).sum();
    assert_eq!(skipped, n(&s["skipped"]));
    // The report's checks grouped by area, areas in order of first sight.
    let mut areas: Vec<(&str, Vec<&Value>)> = Vec::new();
    for c in checks {
        let a = c["area"].as_str().unwrap();
        match areas.iter_mut().find(|(name, _)| *name == a) {
            Some((_, v)) => v.push(c),
            None => areas.push((a, vec![c])),
        }
    }
    let names: Vec<&str> = suites.iter().map(|x| x["name"].as_str().unwrap()).collect();
    let want: Vec<String> = areas.iter().map(|(a, _)| xml_visible(a)).collect();
    assert_eq!(names, want);
    for (suite, (_, want)) in suites.iter().zip(&areas) {
        let cases = suite["cases"].as_array().unwrap();
        assert_eq!(cases.len(), want.len(), "suite {}", suite["name"]);
        assert_eq!(n(&suite["tests"]), want.len() as u64);
        let count = |o: &str| want.iter().filter(|c| outcome_of(c) == o).count() as u64;
        assert_eq!(n(&suite["failures"]), count("failure"));
        assert_eq!(n(&suite["skipped"]), count("skipped"));
        assert!(suite["timestamp"]
            .as_str()
            .is_some_and(|t| t.ends_with('Z')));
        for (case, c) in cases.iter().zip(want) {
            let id = c["id"].as_str().unwrap();
            assert_eq!(case["name"], xml_visible(id));
            // The area, with no `.` for Jenkins to read as a package.
            let classname = suite["name"].as_str().unwrap().replace('.', "_");
            assert_eq!(case["classname"], classname.as_str());
            let outcome = outcome_of(c);
            assert_eq!(case["outcome"], outcome, "{id}");
            if outcome == "passed" {
                assert_eq!(case["results"], 0, "{id}");
                continue;
            }
            assert_eq!(case["results"], 1, "{id}");
            let detail = xml_visible(c["detail"].as_str().unwrap());
            assert_eq!(case["message"], detail.as_str(), "{id}");
            let text = case["text"].as_str().unwrap();
            assert!(text.starts_with(&detail), "{id}: {text}");
            let reason = c["reason"].as_str().unwrap_or("failed");
            assert_eq!(case["type"], reason, "{id}");
            for (field, label) in [("expected", "expected"), ("actual", "found")] {
                if let Some(v) = c.get(field) {
                    let line = xml_visible(&format!("\n{label}: {v}"));
                    assert!(text.contains(&line), "{id}: {text} lacks {line}");
                }
            }
        }
    }
    // Every id of the report once in the file (ids may repeat only as often
    // as the report repeats them).
    let mut ids: Vec<String> = checks
        .iter()
        .map(|c| xml_visible(c["id"].as_str().unwrap()))
        .collect();
    let mut got: Vec<String> = suites
        .iter()
        .flat_map(|x| x["cases"].as_array().unwrap())
        .map(|c| c["name"].as_str().unwrap().to_string())
        .collect();
    ids.sort();
    got.sort();
    assert_eq!(got, ids);
}

/// An honest run: exit 0, nothing failed, and the file agrees.
fn assert_honest(run: &Run) {
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.report["summary"]["failed"], 0);
    assert_eq!(run.junit["root"]["failures"], 0);
    assert_agrees(run);
}

/// A failing run: exit 1, the failures named, and the file agrees.
fn assert_failing(run: &Run, must_fail: &str) {
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_agrees(run);
    let failed: Vec<&Value> = run.junit["suites"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["cases"].as_array().unwrap())
        .filter(|c| c["outcome"] == "failure")
        .collect();
    assert!(
        failed.iter().any(|c| c["name"] == must_fail),
        "{must_fail} is not a failure in {failed:?}"
    );
}

fn args<'a>(v: &'a [&'a str]) -> Vec<&'a OsStr> {
    v.iter().map(OsStr::new).collect()
}

#[test]
fn verify_honest_and_failing() {
    let honest = run_with_junit(&args(&[
        "verify",
        BUNDLE,
        "--trust",
        TRUST,
        "--publication",
        PUBLICATION,
        "--require-all",
    ]));
    assert_honest(&honest);
    assert!(honest.junit["suites"].as_array().unwrap().len() > 3);
    // A run directory has no seal beside it.
    let failing = run_with_junit(&args(&[
        "verify",
        "testdata/sample/run",
        "--trust",
        TRUST,
        "--require-seal",
    ]));
    assert_failing(&failing, "seal");
}

/// A copy of the sample's weights and its JSON manifest record (outside
/// the tree).
fn weights_and_record() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let weights = dir.path().join("weights");
    copy_dir(&at_root("testdata/sample/weights"), &weights);
    let record = dir.path().join("weights.manifest.json");
    let (code, _, stderr) = common::proofpack_out(&[
        os("manifest"),
        weights.as_os_str(),
        os("--format"),
        os("json"),
        os("-o"),
        record.as_os_str(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    (dir, weights, record)
}

#[test]
fn check_honest_and_failing() {
    let (_dir, weights, record) = weights_and_record();
    let check = |extra: &[&str]| {
        let mut a = vec![
            os("check"),
            weights.as_os_str(),
            os("--manifest"),
            record.as_os_str(),
        ];
        a.extend(extra.iter().map(OsStr::new));
        run_with_junit(&a)
    };
    assert_honest(&check(&[]));
    // The sizes-only launch check adds the shard headers' checks.
    let sizes = check(&["--sizes-only"]);
    assert_honest(&sizes);
    assert!(sizes.junit["suites"].as_array().unwrap().len() > 1);
    let shard = weights.join("model-00042-of-00096.safetensors");
    let mut bytes = std::fs::read(&shard).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&shard, &bytes).unwrap();
    std::fs::write(weights.join("extra.bin"), b"x").unwrap();
    let failing = check(&[]);
    assert_failing(&failing, "file:model-00042-of-00096.safetensors");
    assert_failing(&failing, "file:extra.bin");
    bytes.truncate(last);
    std::fs::write(&shard, &bytes).unwrap();
    assert_failing(
        &check(&["--sizes-only"]),
        "file:model-00042-of-00096.safetensors",
    );
}

#[test]
fn fleet_verify_honest_and_failing() {
    let f = fleet();
    for h in HOSTS {
        assert_eq!(f.check(h, "--full"), 0);
    }
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("fleet.xml");
    let junit = [os("--junit"), file.as_os_str()];
    let fleet_run = |reports: &[PathBuf]| {
        let o = f.verify_with(reports, "full", &junit);
        Run {
            code: o.code,
            report: o.report,
            junit: read_junit(&file),
            stderr: o.stdout,
        }
    };
    assert_honest(&fleet_run(&f.all_reports()));
    let without_node3: Vec<PathBuf> = f
        .all_reports()
        .into_iter()
        .filter(|r| !r.ends_with("node-3.dsse.json"))
        .collect();
    assert_failing(&fleet_run(&without_node3), "host:node-3");
}

#[test]
fn results_check_honest_and_failing() {
    let good = "testdata/peers/generated/vllm-bench-serve.json";
    assert_honest(&run_with_junit(&args(&["results", "check", good])));
    let mut v: Value = serde_json::from_slice(&std::fs::read(at_root(good)).unwrap()).unwrap();
    let ttft = v["ttfts"][0].as_f64().unwrap();
    v["ttfts"][0] = Value::from(ttft * 50.0 + 1.0);
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("changed.json");
    std::fs::write(&bad, serde_json::to_vec(&v).unwrap()).unwrap();
    let failing = run_with_junit(&[os("results"), os("check"), bad.as_os_str()]);
    assert_eq!(failing.code, 1, "{}", failing.stderr);
    assert_agrees(&failing);
    assert!(failing.junit["root"]["failures"].as_u64().unwrap() > 0);
}

#[test]
fn receipt_verify_honest_and_failing() {
    let fixture = at_root("testdata/peers/inferencex-receipt");
    assert_honest(&run_with_junit(&[
        os("receipt"),
        os("verify"),
        fixture.as_os_str(),
    ]));
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("receipt");
    copy_tree(&fixture, &copy);
    let member = copy.join("bmk_pilot/agg.json");
    let mut b = std::fs::read(&member).unwrap();
    let i = b.iter().position(|c| *c == b'1').unwrap();
    b[i] = b'2';
    std::fs::write(&member, b).unwrap();
    let failing = run_with_junit(&[os("receipt"), os("verify"), copy.as_os_str()]);
    assert_failing(&failing, "receipt.member:bmk_pilot/agg.json.sha256");
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

/// Text no reader may take for markup, nor stop at.
const HOSTILE: &str = "]]> <script>alert(\"x\")</script> 'q' &amp; \u{1}\u{1b}\u{7f}";

#[test]
fn hostile_file_names_are_text_in_the_file() {
    let (_dir, weights, record) = weights_and_record();
    let names = [
        // A file name holds no '/'.
        format!("a{}", HOSTILE.replace('/', "")),
        "]]>".to_string(),
        "<testcase name=\"x\">".to_string(),
    ];
    for n in &names {
        std::fs::write(weights.join(n), b"x").unwrap();
    }
    let run = run_with_junit(&[
        os("check"),
        weights.as_os_str(),
        os("--manifest"),
        record.as_os_str(),
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_agrees(&run);
    let cases: Vec<&str> = run.junit["suites"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["cases"].as_array().unwrap())
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    for n in &names {
        let want = xml_visible(&format!("file:{n}"));
        assert!(cases.contains(&want.as_str()), "{want:?} not in {cases:?}");
    }
}

#[test]
fn a_forged_detail_round_trips_as_text() {
    // A report no verb makes: its detail and id carry everything XML
    // treats specially, a NUL and the characters XML 1.0 forbids.
    let detail = format!("{HOSTILE} \u{0} \u{FFFE}\u{FFFF} tab\t cr\r lf\n end \"'");
    let mut r = Report::new("forged");
    r.push(Check::fail(format!("id{HOSTILE}"), detail.clone()).with_values(HOSTILE, "\u{0}"));
    r.push(Check::skip(format!("skip{HOSTILE}"), detail.clone()).in_area(HOSTILE));
    r.push(Check::pass("fine", "ok"));
    let info = RunInfo {
        name: format!("name{HOSTILE}"),
        timestamp: Some("2026-01-01T00:00:00Z".into()),
        seconds: Some(1.5),
    };
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("forged.xml");
    std::fs::write(&file, render(&r, &info)).unwrap();
    let junit = read_junit(&file);
    let report: Value = serde_json::from_str(&r.to_json()).unwrap();
    let run = Run {
        code: 1,
        report,
        junit,
        stderr: String::new(),
    };
    assert_agrees(&run);
    let j = &run.junit;
    assert_eq!(j["root"]["name"], xml_visible(&info.name));
    assert_eq!(j["root"]["time"], "1.500");
    let case = &j["suites"][0]["cases"][0];
    assert_eq!(case["message"], xml_visible(&detail));
    assert!(!case["message"].as_str().unwrap().contains('\u{0}'));
    assert_eq!(j["suites"][1]["name"], xml_visible(HOSTILE));
    assert_eq!(j["suites"][1]["cases"][0]["message"], xml_visible(&detail));
}

#[test]
fn the_junit_file_is_checked_before_the_work_and_a_fifo_is_written_to() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no/such/dir/report.xml");
    for junit in [missing.as_os_str(), os("-")] {
        let out = common::command()
            .args(["--no-catalog", "verify", BUNDLE, "--trust", TRUST, "--json"])
            .arg("--junit")
            .arg(junit)
            .current_dir(ROOT)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{junit:?}");
        assert!(out.stdout.is_empty(), "the work started for {junit:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--junit"), "{err}");
    }
    assert!(!dir.path().join("no").exists());
    let fifo = dir.path().join("fifo");
    let st = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(st.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    let out = common::command()
        .args([
            "--no-catalog",
            "verify",
            "testdata/sample/run",
            "--trust",
            TRUST,
        ])
        .args(["--require-seal", "--junit"])
        .arg(&fifo)
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "the verdict's exit status");
    let xml = reader.join().unwrap();
    assert!(
        xml.starts_with("<?xml") && xml.contains("<failure"),
        "{xml}"
    );
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::metadata(&fifo).unwrap().file_type().is_fifo());
}

/// The `proofpack` commands of docs/ci.md's YAML examples, as
/// tests/ci_examples.py reads them: (the heading they stand under, the
/// command).
fn ci_commands() -> Vec<(String, String)> {
    let v = common::python_json("ci_examples.py", &[at_root("docs/ci.md")]);
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let s = |k: &str| c[k].as_str().unwrap().to_string();
            (s("heading"), s("command"))
        })
        .collect()
}

/// Runs a docs/ci.md command with the placeholders it names replaced by
/// `with`, in `work`: its exit status.
fn run_documented(command: &str, with: &[(&str, &Path)], work: &Path) -> i32 {
    let mut line = command.to_string();
    for (placeholder, path) in with {
        line = line.replace(placeholder, &path.display().to_string());
    }
    let words: Vec<OsString> = shell_words(&line);
    assert!(
        !words.iter().any(|w| w.to_string_lossy().contains('$')),
        "a placeholder the test does not know: {command}"
    );
    assert_eq!(words[0], "proofpack");
    let out = common::command()
        .arg("--no-catalog")
        .args(&words[1..])
        .current_dir(work)
        .output()
        .unwrap();
    // The release gate's JUnit file is there for the upload step, whatever
    // the verdict.
    if let Some(i) = words.iter().position(|w| w == "--junit") {
        let file = work.join(&words[i + 1]);
        let j = read_junit(&file);
        assert!(j["schema_errors"].as_array().unwrap().is_empty(), "{j}");
        assert!(j["root"]["tests"].as_u64().unwrap() > 0);
        std::fs::remove_file(file).unwrap();
    }
    // So is the signed verification summary: an envelope of the SLSA
    // verification summary, PASSED or FAILED as the verdict was.
    if let Some(i) = words.iter().position(|w| w == "--vsa") {
        let file = work.join(&words[i + 1]);
        let env: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&file).expect("the summary is written")).unwrap();
        assert_eq!(env["payloadType"], "application/vnd.in-toto+json", "{env}");
        assert_eq!(env["signatures"].as_array().map(Vec::len), Some(1), "{env}");
        std::fs::remove_file(file).unwrap();
    }
    out.status.code().unwrap_or(-1)
}

#[test]
fn the_ci_examples_run_as_documented() {
    let commands = ci_commands();
    for system in ["GitHub Actions", "GitLab CI"] {
        for verb in ["proofpack check ", "proofpack verify "] {
            assert!(
                commands
                    .iter()
                    .any(|(h, c)| h.contains(system) && c.starts_with(verb)),
                "docs/ci.md has no {verb:?} under {system}: {commands:?}"
            );
        }
    }
    let (_dir, weights, record) = weights_and_record();
    let (_drifted_dir, drifted, _) = weights_and_record();
    std::fs::write(drifted.join("extra.bin"), b"x").unwrap();
    let work = tempfile::tempdir().unwrap();
    // The placeholders docs/ci.md names: honest, then failing values.
    let (bundle, trust, publication) = (at_root(BUNDLE), at_root(TRUST), at_root(PUBLICATION));
    // The sample's bundle without its seal beside it: --require-seal fails.
    let unsealed = work.path().join("unsealed.tgz");
    std::fs::copy(&bundle, &unsealed).unwrap();
    let out = common::command()
        .args(["--no-catalog", "key", "gen", "-o"])
        .arg(work.path().join("auditor"))
        .output()
        .unwrap();
    let key = work.path().join("auditor.key");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let honest: [(&str, &Path); 6] = [
        ("$WEIGHTS_DIR", &weights),
        ("$WEIGHTS_MANIFEST", &record),
        ("$BUNDLE", &bundle),
        ("$TRUST", &trust),
        ("$PUBLICATION", &publication),
        ("$AUDITOR_KEY", &key),
    ];
    let mut failing = honest;
    failing[0].1 = &drifted;
    failing[2].1 = &unsealed;
    for (heading, command) in &commands {
        let code = run_documented(command, &honest, work.path());
        assert_eq!(code, 0, "{heading}: {command} on the sample");
        let code = run_documented(command, &failing, work.path());
        assert_eq!(
            code, 1,
            "{heading}: {command} on drifted weights, an unsealed run"
        );
    }
}

/// A command line split at spaces, as the examples write them (no quotes,
/// no shell syntax: the test refuses what it cannot split).
fn shell_words(line: &str) -> Vec<OsString> {
    assert!(
        !line.contains(['"', '\'', '\\', '|', '&', ';', '>', '<', '`']),
        "not a plain command line: {line}"
    );
    line.split_whitespace().map(OsString::from).collect()
}
