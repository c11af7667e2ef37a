//! The HTML report (issue 15) in a real browser: the sample's report opened
//! in headless Chromium (Debian's package, driven by playwright-core; both
//! installed by scripts/test.sh): no console error, no network request but
//! the page itself, a non-blank screenshot, one DOM row per check of the JSON
//! report with the same ids and verdicts, the verdict text, one CDF plot per
//! point and metric. A failing run's page shows its failures first. The page
//! is deterministic for the same report, and `report` renders the same page
//! from the saved JSON as `verify --html`.

mod qualify_support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use qualify_support::common::{node_modules, output_ok, python};
use qualify_support::*;
use serde_json::Value;

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

/// Verifies with --json and --html; (exit code, JSON report, HTML path).
fn verify_page(target: &Path, dir: &Path, args: &[&OsStr]) -> (i32, Value, PathBuf) {
    let html = dir.join("report.html");
    let mut all = vec![
        os("verify"),
        target.as_os_str(),
        os("--json"),
        os("--html"),
        html.as_os_str(),
    ];
    all.extend_from_slice(args);
    let (code, stdout, stderr) = proofpack(&all);
    let json: Value = serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {stderr}"));
    std::fs::write(dir.join("report.json"), &stdout).unwrap();
    (code, json, html)
}

/// Opens the page in Chromium; what the page script found.
fn open_in_browser(html: &Path) -> (Value, PathBuf) {
    let shot = html.with_extension("png");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/check_page.js");
    let out = output_ok(
        Command::new("node")
            .arg(script)
            .arg(html)
            .arg(&shot)
            .env("NODE_PATH", node_modules()),
    );
    (serde_json::from_slice(&out.stdout).unwrap(), shot)
}

/// Distinct pixel values of a PNG (decoded with the standard library of
/// Python: zlib over the IDAT chunks).
fn distinct_pixels(png: &Path) -> u64 {
    let script = r#"
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat, w = 8, b"", 0
while pos < len(data):
    n, t = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if t == b"IHDR":
        w = struct.unpack(">I", body[:4])[0]
    if t == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
print(len(set(raw[i:i + 3] for i in range(1, len(raw) - 3, 97))))
"#;
    let out = output_ok(Command::new(python()).arg("-c").arg(script).arg(png));
    String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
}

fn sample_args(root: &Path) -> (PathBuf, Vec<std::ffi::OsString>) {
    (
        root.join("kimi-k3-mi355x-20260923-sample.tgz"),
        vec![
            "--publication".into(),
            root.join("PUBLICATION.md").into_os_string(),
            "--trust".into(),
            root.join("trust.json").into_os_string(),
        ],
    )
}

#[test]
fn the_sample_report_in_a_real_browser() {
    let d = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample");
    let (bundle, args) = sample_args(&root);
    let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let (code, json, html) = verify_page(&bundle, d.path(), &args);
    assert_eq!(code, 0);
    let (page, shot) = open_in_browser(&html);
    assert_eq!(page["errors"], serde_json::json!([]), "console errors");
    let requests = page["requests"].as_array().unwrap();
    assert_eq!(requests.len(), 1, "network requests: {requests:?}");
    assert!(requests[0].as_str().unwrap().ends_with("report.html"));
    let dom = &page["dom"];
    assert_eq!(dom["lang"], "en");
    // One row per check, same ids, same verdicts, same order.
    let want: Vec<(String, String)> = json["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["id"].as_str().unwrap().to_string(), c["ok"].to_string()))
        .collect();
    let got: Vec<(String, String)> = dom["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r[0].as_str().unwrap().to_string(),
                r[1].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(got, want);
    let verdict = dom["verdict"].as_str().unwrap();
    assert!(
        verdict.contains(json["verdict"].as_str().unwrap()),
        "{verdict}"
    );
    // One CDF per point and metric, and a timeline, each an SVG.
    for point in ["rate-0.5", "rate-1"] {
        for plot in ["ttft_s-cdf", "tpot_ms-cdf", "timeline"] {
            let n = dom["plots"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|p| p[0] == point && p[1] == plot && p[2] == 1)
                .count();
            assert_eq!(n, 1, "{point} {plot}");
        }
    }
    assert_eq!(
        dom["published"].as_array().unwrap().len(),
        13,
        "the write-up's rows"
    );
    assert!(dom["th"].as_u64().unwrap() > 10 && dom["headings"].as_u64().unwrap() > 5);
    assert!(distinct_pixels(&shot) > 20, "the screenshot is blank");
}

#[test]
fn a_failing_runs_page_shows_its_failures_first() {
    let c = fresh();
    c.edit_json("qualification.json", |q| {
        q["points"][0]["claims"]["ttft_s"]["p95"] = serde_json::json!("6.700")
    });
    let d = c.seal();
    let pins = c.pins(Some(d), |_| {});
    let out = tempfile::tempdir().unwrap();
    let (code, json, html) = verify_page(
        &c.bundle_path(),
        out.path(),
        &[
            os("--pins"),
            pins.as_os_str(),
            os("--trust"),
            c.trust().as_os_str(),
        ],
    );
    assert_eq!(code, 1);
    let (page, _) = open_in_browser(&html);
    let dom = &page["dom"];
    let sections: Vec<&str> = dom["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(sections[..2], ["context", "failures"], "{sections:?}");
    let failures: Vec<&str> = dom["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(failures, ["point:rate-0.5.claim.ttft_s.p95"]);
    assert!(dom["verdict"].as_str().unwrap().starts_with("✘ FAILED"));
    assert_eq!(json["ok"], false);
}

#[test]
fn the_page_is_deterministic_and_report_renders_the_same_page_from_the_json() {
    let d = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample");
    let (bundle, args) = sample_args(&root);
    let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let (_, _, html) = verify_page(&bundle, d.path(), &args);
    let json = d.path().join("report.json");
    let (a, b) = (d.path().join("a.html"), d.path().join("b.html"));
    for out in [&a, &b] {
        let (code, _, stderr) =
            proofpack(&[os("report"), json.as_os_str(), os("-o"), out.as_os_str()]);
        assert_eq!(code, 0, "{stderr}");
    }
    let page = std::fs::read(&html).unwrap();
    assert_eq!(
        std::fs::read(&a).unwrap(),
        page,
        "report renders what verify --html wrote"
    );
    assert_eq!(
        std::fs::read(&b).unwrap(),
        page,
        "the same report gives the same page"
    );
    let text = String::from_utf8(page).unwrap();
    // No script, no link to anything (the only URL is the SVG namespace).
    for banned in ["<script", "<link", "src=", "href=", "@import", "url("] {
        assert!(!text.contains(banned), "the page references {banned}");
    }
    // Not a report: exit 2.
    std::fs::write(d.path().join("x.json"), "{\"schema\": \"other\"}").unwrap();
    let (code, _, stderr) = proofpack(&[
        os("report"),
        d.path().join("x.json").as_os_str(),
        os("-o"),
        a.as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
}

#[test]
fn man_pages_render_and_completions_load_in_bash() {
    let d = tempfile::tempdir().unwrap();
    let (code, _, stderr) = proofpack(&[os("man"), os("-o"), d.path().as_os_str()]);
    assert_eq!(code, 0, "{stderr}");
    let page = d.path().join("proofpack-verify.1");
    let out = output_ok(
        Command::new("man")
            .arg("-l")
            .arg(&page)
            .env("MANPAGER", "cat")
            .env("MANWIDTH", "100"),
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("--publication"), "{text}");
    let bin = qualify_support::common::bin();
    let out = output_ok(Command::new("bash").arg("-c").arg(format!(
        "source <('{}' completions bash) && complete -p proofpack",
        bin.display()
    )));
    assert!(String::from_utf8_lossy(&out.stdout).contains("_proofpack"));
    for shell in ["zsh", "fish"] {
        let (code, stdout, _) = proofpack(&[os("completions"), os(shell)]);
        assert!(code == 0 && stdout.contains("proofpack"), "{shell}");
    }
}

/// Every string of a report (check ids, details, point names, the
/// write-up's cells, file names: all of it can come from a hostile bundle or
/// write-up) with markup appended: the page shows it as text, never as
/// markup, so a publisher cannot hide a failure with a style or a script.
fn with_markup(v: &Value, payload: &str) -> Value {
    match v {
        Value::String(s) => Value::String(format!("{s}{payload}")),
        Value::Array(a) => Value::Array(a.iter().map(|x| with_markup(x, payload)).collect()),
        Value::Object(m) => Value::Object(
            m.iter()
                .map(|(k, x)| {
                    let x = if k == "schema" {
                        x.clone()
                    } else {
                        with_markup(x, payload)
                    };
                    (k.clone(), x)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

#[test]
fn markup_in_every_string_of_a_report_is_shown_as_text() {
    let d = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample");
    let (bundle, args) = sample_args(&root);
    let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let (code, json, _) = verify_page(&bundle, d.path(), &args);
    assert_eq!(code, 0);
    let payload =
        "<style>.fail{display:none}</style><script>alert(1)</script><img src=x onerror=y>";
    let forged = d.path().join("forged.json");
    std::fs::write(&forged, with_markup(&json, payload).to_string()).unwrap();
    let page = d.path().join("forged.html");
    let (code, _, stderr) =
        proofpack(&[os("report"), forged.as_os_str(), os("-o"), page.as_os_str()]);
    assert_eq!(code, 0, "{stderr}");
    let text = std::fs::read_to_string(&page).unwrap();
    for raw in [
        "<script",
        "<img",
        ".fail{display:none}</style>",
        "onerror=y>",
    ] {
        assert!(!text.contains(raw), "{raw} reached the page as markup");
    }
    let shown = text
        .matches("&lt;script&gt;alert(1)&lt;/script&gt;")
        .count();
    let checks = json["checks"].as_array().unwrap().len();
    assert!(
        shown >= checks,
        "the payload is shown as text in every check row ({shown} for {checks} checks)"
    );
}

/// Opens the page at `width` x `height`; what tests/browser/check_layout.js
/// measured.
fn layout_in_browser(html: &Path, width: u32, height: u32) -> Value {
    let shot = html.with_extension(format!("{width}.png"));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/browser/check_layout.js");
    let out = output_ok(
        Command::new("node")
            .arg(script)
            .arg(html)
            .arg(&shot)
            .arg(width.to_string())
            .arg(height.to_string())
            .env("NODE_PATH", node_modules()),
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The report with long details on several checks, made failing: a long
/// list of paths in the detail, 64-hex digests and a 300-character value in
/// expected/found, a check id of 300 characters.
fn with_long_failures(report: &Value) -> Value {
    let mut r = report.clone();
    let paths: Vec<String> = (0..60)
        .map(|i| format!("model-{i:05}-of-00096.safetensors: size 4831838208, expected 4831838720"))
        .collect();
    let long = paths.join("; ");
    let checks = r["checks"].as_array_mut().unwrap();
    let mut n = 0;
    for c in checks.iter_mut() {
        if c["ok"] == true && c["id"].as_str().unwrap().starts_with("publication:pin:") && n < 6 {
            c["ok"] = Value::Bool(false);
            c["detail"] = Value::String(format!("{} -- {long}", c["detail"].as_str().unwrap()));
            c["expected"] = Value::String(format!("sha256:{}", "ab".repeat(32)));
            c["actual"] = Value::String(format!("sha256:{}/{}", "cd".repeat(32), "x".repeat(300)));
            n += 1;
        }
    }
    checks.insert(
        0,
        serde_json::json!({"id": format!("bundle.entry:{}model.safetensors", "very/long/path/".repeat(20)),
                           "ok": false, "detail": "x".repeat(50), "expected": "e".repeat(200), "actual": "f".repeat(200)}),
    );
    r["ok"] = Value::Bool(false);
    r["summary"]["failed"] = Value::from(r["summary"]["failed"].as_u64().unwrap() + n + 1);
    r["summary"]["passed"] = Value::from(r["summary"]["passed"].as_u64().unwrap() - n);
    r
}

fn assert_readable(layout: &Value, what: &str) {
    assert!(
        layout["scroll_width"].as_f64() <= layout["client_width"].as_f64(),
        "{what}: the page scrolls sideways: {layout}"
    );
    assert_eq!(
        layout["overflowing"],
        serde_json::json!([]),
        "{what}: {layout}"
    );
    assert_eq!(
        layout["narrow_count"], 0,
        "{what}: a cell narrower than its header: {layout}"
    );
    let d = &layout["first_failure_detail"];
    assert!(
        d["text_top"].as_f64().unwrap() + 20.0 < d["viewport"].as_f64().unwrap(),
        "{what}: the first failure's detail is below the first screen: {layout}"
    );
    for w in layout["failure_detail_widths"].as_array().unwrap() {
        assert!(
            w.as_f64().unwrap() > 400.0,
            "{what}: a Detail cell of {w} px: {layout}"
        );
    }
}

#[test]
fn a_failing_page_with_long_details_stays_readable_at_1300_px() {
    let d = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample");
    // A real failing run: the trust file lacks the host keys.
    let trust = d.path().join("trust.json");
    let (code, _, stderr) = proofpack(&[
        os("key"),
        os("trust"),
        os("--engine"),
        root.join("keys/TEST-ONLY-engine.pub").as_os_str(),
        os("--release"),
        root.join("keys/TEST-ONLY-release.pub").as_os_str(),
        os("-o"),
        trust.as_os_str(),
    ]);
    assert_eq!(code, 0, "{stderr}");
    let writeup = root.join("PUBLICATION.md");
    let (code, json, html) = verify_page(
        &root.join("kimi-k3-mi355x-20260923-sample.tgz"),
        d.path(),
        &[
            os("--publication"),
            writeup.as_os_str(),
            os("--trust"),
            trust.as_os_str(),
        ],
    );
    assert_eq!(code, 1);
    assert_readable(&layout_in_browser(&html, 1300, 900), "the failing sample");
    // The same report with long details: still readable, at 1300 and 1900 px.
    let forged = d.path().join("long.json");
    std::fs::write(&forged, with_long_failures(&json).to_string()).unwrap();
    let page = d.path().join("long.html");
    let (code, _, stderr) =
        proofpack(&[os("report"), forged.as_os_str(), os("-o"), page.as_os_str()]);
    assert_eq!(code, 0, "{stderr}");
    for w in [1300, 1900] {
        assert_readable(
            &layout_in_browser(&page, w, 900),
            &format!("long details at {w} px"),
        );
    }
    // Expected and found are under the detail, in the same cell.
    let text = std::fs::read_to_string(&page).unwrap();
    assert!(text.contains("<dl class=\"ef\"><dt>expected</dt>"));
}

#[test]
fn a_passing_page_keeps_its_layout() {
    let d = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample");
    let (bundle, args) = sample_args(&root);
    let args: Vec<&OsStr> = args.iter().map(|a| a.as_os_str()).collect();
    let (code, _, html) = verify_page(&bundle, d.path(), &args);
    assert_eq!(code, 0);
    let text = std::fs::read_to_string(&html).unwrap();
    // The five-column check table, without the failing page's styles.
    assert!(text.contains(
        "<th scope=\"col\">Detail</th><th scope=\"col\">Expected</th><th scope=\"col\">Found</th>"
    ));
    assert!(!text.contains("table.checks") && !text.contains("class=\"checks\""));
    let layout = layout_in_browser(&html, 1300, 900);
    assert!(
        layout["scroll_width"].as_f64() <= layout["client_width"].as_f64(),
        "{layout}"
    );
}
