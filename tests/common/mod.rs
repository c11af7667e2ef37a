//! Helpers shared by the integration tests: the binary under test with a
//! clean environment, the Python interop peers, and the outcome of a
//! `--json` run read as the contract's report.
#![allow(dead_code)]

pub mod bag;
pub mod corpus;
pub mod ids;

use std::path::PathBuf;

use serde_json::Value;

/// The proofpack binary under test: `PROOFPACK_TEST_BIN` when set (to run
/// the suite against another build, as `scripts/compare-reports.sh` does),
/// else the one cargo built for these tests.
pub fn bin() -> PathBuf {
    match std::env::var_os("PROOFPACK_TEST_BIN") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_BIN_EXE_proofpack")),
    }
}

/// A home directory of the tests' own, so that nothing they run reads or
/// writes the user's (the catalog's default place is under it).
pub fn test_home() -> PathBuf {
    let home = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("test-home");
    std::fs::create_dir_all(&home).unwrap();
    home
}

/// Applies the tests' clean environment to a command: only `PATH`,
/// `TMPDIR` and the locale are kept, `HOME` is [`test_home`], colours are
/// off; nothing of the caller's `PROOFPACK_*` or `XDG_*` leaks in. Tests
/// set what they need on top.
pub fn clean_env(cmd: &mut std::process::Command) -> &mut std::process::Command {
    cmd.env_clear();
    for keep in ["PATH", "TMPDIR", "LANG", "LC_ALL", "PROOFPACK_TEST_SNAP"] {
        if let Some(v) = std::env::var_os(keep) {
            cmd.env(keep, v);
        }
    }
    cmd.env("HOME", test_home()).env("NO_COLOR", "1")
}

/// `proofpack` with the tests' clean environment (see [`clean_env`]).
pub fn command() -> std::process::Command {
    let mut c = std::process::Command::new(bin());
    clean_env(&mut c);
    c
}

/// Runs `proofpack --no-catalog ARGS...`; (exit code, stdout, stderr).
pub fn run_nocat<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (i32, String, String) {
    let out = command().arg("--no-catalog").args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// [`command`] as an `assert_cmd` command.
pub fn proofpack() -> assert_cmd::Command {
    assert_cmd::Command::from_std(command())
}

/// [`proofpack`] with `--no-catalog`: the tests that are not about the
/// catalog never touch one.
pub fn proofpack_nocat() -> assert_cmd::Command {
    let mut c = proofpack();
    c.arg("--no-catalog");
    c
}

/// The Python with the pinned interop peers (cryptography, securesystemslib,
/// numpy, safetensors). `scripts/test.sh` installs them into `target/pyenv`
/// and sets `PROOFPACK_TEST_PYTHON`; without them the test fails (an interop
/// test never skips silently).
pub fn python() -> PathBuf {
    let p = match std::env::var_os("PROOFPACK_TEST_PYTHON") {
        Some(p) => PathBuf::from(p),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/pyenv/bin/python"),
    };
    assert!(
        p.exists(),
        "the Python interop peers are not at {}: run scripts/test.sh (it installs them into \
         target/pyenv), or set PROOFPACK_TEST_PYTHON",
        p.display()
    );
    p
}

/// Copies the tree `from` to `to` (directories created, files copied).
pub fn copy_tree(from: &std::path::Path, to: &std::path::Path) {
    for e in walkdir::WalkDir::new(from) {
        let e = e.unwrap();
        let rel = e.path().strip_prefix(from).unwrap();
        let dest = to.join(rel);
        if e.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else {
            std::fs::copy(e.path(), &dest).unwrap();
        }
    }
}

/// Forges a copy of the sample's run directory: the sixth client record of
/// point rate-1 says `"status": "error"`.
pub fn change_a_client_record(run: &std::path::Path) {
    let p = run.join("benchmark/rate-1/client.jsonl");
    let text = std::fs::read_to_string(&p).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut rec: Value = serde_json::from_str(&lines[5]).unwrap();
    rec["status"] = Value::from("error");
    lines[5] = rec.to_string();
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
}

/// Runs a Python script (with [`python`]) with arguments; panics with its
/// output on failure; its stdout.
pub fn run_python(script: &str, args: &[&std::path::Path]) -> String {
    let out = std::process::Command::new(python())
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("run python");
    assert!(
        out.status.success(),
        "python failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs the Python script `script` of tests/ with [`python`] and `args`;
/// what it printed on stdout, read as JSON (the script failing, or
/// printing anything else, fails the test).
pub fn python_json<S: AsRef<std::ffi::OsStr>>(script: &str, args: &[S]) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(script);
    let out = output_ok(std::process::Command::new(python()).arg(path).args(args));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{script}: {e}: {}",
            String::from_utf8_lossy(&out.stdout)
                .chars()
                .take(2000)
                .collect::<String>()
        )
    })
}

/// Runs a command to completion and asserts it succeeded, showing its
/// stderr when it did not; its output.
pub fn output_ok(cmd: &mut std::process::Command) -> std::process::Output {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?}: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// What a `--json` run answered: its exit status, the report (JSON null
/// when stdout was not JSON) and everything it printed.
pub struct Outcome {
    /// Exit status.
    pub code: i32,
    /// The report.
    pub report: Value,
    /// Standard output and error.
    pub stdout: String,
}

impl Outcome {
    /// `proofpack --no-catalog ARGS...` (the args include `--json`).
    pub fn of(args: &[&std::ffi::OsStr]) -> Outcome {
        let out = command().arg("--no-catalog").args(args).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        Outcome {
            code: out.status.code().unwrap_or(-1),
            report: serde_json::from_str(&stdout).unwrap_or(Value::Null),
            stdout: format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr)),
        }
    }
    fn checks(&self) -> &[Value] {
        self.report["checks"]
            .as_array()
            .map(Vec::as_slice)
            .unwrap_or_else(|| panic!("not a report:\n{}", self.stdout))
    }
    /// The ids of the failed checks.
    pub fn failed(&self) -> Vec<String> {
        self.checks()
            .iter()
            .filter(|c| c["ok"] == Value::Bool(false))
            .map(|c| c["id"].as_str().unwrap().to_string())
            .collect()
    }
    /// The check `id`.
    pub fn check(&self, id: &str) -> &Value {
        self.checks()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("no check {id} in {}", self.stdout))
    }
    /// Exit 1 and `id` among the failures, its detail containing `needle`.
    pub fn assert_fails(&self, id: &str, needle: &str) {
        assert_eq!(
            self.code,
            1,
            "expected exit 1; failed checks {:?}\n{}",
            self.failed(),
            self.stdout
        );
        let c = self.check(id);
        assert_eq!(c["ok"], Value::Bool(false), "{id} did not fail: {c}");
        let text = c.to_string();
        assert!(
            text.contains(needle),
            "{id} does not name {needle:?}: {text}"
        );
    }
    /// Exit 0 and a report that holds.
    pub fn assert_ok(&self) {
        assert_eq!(
            self.code,
            0,
            "expected exit 0; failed checks {:?}\n{}",
            self.failed(),
            self.stdout
        );
        assert_eq!(self.report["ok"], Value::Bool(true));
    }
}

/// [`proofpack`] with `PROOFPACK_CATALOG` set to `catalog`.
pub fn proofpack_at(catalog: &std::path::Path) -> assert_cmd::Command {
    let mut c = proofpack();
    c.env("PROOFPACK_CATALOG", catalog);
    c
}

/// `manifest ROOT -o OUT` with the catalog `catalog`, which must pass.
pub fn manifest_to(catalog: &std::path::Path, root: &std::path::Path, out: &std::path::Path) {
    proofpack_at(catalog)
        .arg("manifest")
        .arg(root)
        .arg("-o")
        .arg(out)
        .assert()
        .success();
}

/// Runs the binary (`--no-catalog`, so no user catalog is read or written)
/// with `args`: its exit code, stdout and stderr.
pub fn proofpack_out<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (i32, String, String) {
    let out = command()
        .arg("--no-catalog")
        .args(args)
        .output()
        .expect("run proofpack");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Replays the committed corpus of `target` (see [`corpus`]) through a fuzz
/// harness on stable: no input may panic. Returns how many inputs ran.
pub fn replay_corpus(target: &str, run: fn(&[u8])) -> usize {
    let inputs = corpus::inputs(target);
    for (name, data) in &inputs {
        let r = std::panic::catch_unwind(|| run(data));
        assert!(r.is_ok(), "corpus input {target}/{name} panicked");
    }
    inputs.len()
}

/// Where scripts/test.sh installed playwright-core (it drives Debian's
/// chromium): `PROOFPACK_TEST_NODE_MODULES`, else `target/js/node_modules`.
/// Without it the browser tests fail, naming the fix.
pub fn node_modules() -> PathBuf {
    let p = std::env::var_os("PROOFPACK_TEST_NODE_MODULES")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/js/node_modules")
        });
    assert!(
        p.join("playwright-core").exists(),
        "playwright-core is not in {}: run scripts/test.sh (it installs it and Debian's chromium)",
        p.display()
    );
    p
}

/// Runs the browser script `tests/browser/<script>` with `args` under node;
/// the JSON it prints.
pub fn browser(script: &str, args: &[&std::ffi::OsStr]) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/browser")
        .join(script);
    let out = output_ok(
        std::process::Command::new("node")
            .arg(path)
            .args(args)
            .env("NODE_PATH", node_modules()),
    );
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{script}: {e}: {}", String::from_utf8_lossy(&out.stdout)))
}

/// Runs `proofpack --no-catalog ARGS...` under the test Python and returns
/// (exit code, stdout, stderr, peak RSS of the child in KiB), the peak
/// read from getrusage(RUSAGE_CHILDREN).ru_maxrss.
pub fn proofpack_measured(args: &[&std::ffi::OsStr]) -> (i32, String, String, u64) {
    let bin = bin();
    let script = r#"
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
sys.stdout.buffer.write(r.stdout)
sys.stderr.buffer.write(r.stderr)
sys.stderr.write("\nPEAK_RSS_KIB=%d\n" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
sys.exit(r.returncode if r.returncode >= 0 else 128 - r.returncode)
"#;
    let out = std::process::Command::new(python())
        .arg("-c")
        .arg(script)
        .arg(&bin)
        .arg("--no-catalog")
        .args(args)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let peak = stderr
        .rsplit("PEAK_RSS_KIB=")
        .next()
        .and_then(|s| s.trim().parse().ok())
        .expect("peak RSS reported");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
        peak,
    )
}
