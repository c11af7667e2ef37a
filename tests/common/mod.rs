//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

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

/// Runs the binary (`--no-catalog`, so no user catalog is read or written)
/// with `args`: its exit code, stdout and stderr.
pub fn proofpack<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> (i32, String, String) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_proofpack"))
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
