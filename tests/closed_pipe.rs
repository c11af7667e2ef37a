//! A reader that closes the pipe (`proofpack ... | head`) ends the program
//! quietly, through the binary: exit 0 (everything was written before the
//! reader left) or 141 (what a shell shows for SIGPIPE), never a panic
//! message or the panic's exit 101.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};

/// Runs `args`, reads `take` bytes of its standard output, closes the
/// pipe, and returns the exit status and standard error.
fn closed_after(args: &[&str], take: usize) -> (Option<i32>, String) {
    let home = tempfile::tempdir().unwrap();
    let mut child = Command::new(common::bin())
        .args(args)
        .env("HOME", home.path())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut buf = vec![0u8; take];
    out.read_exact(&mut buf).unwrap();
    drop(out);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (child.wait().unwrap().code(), err)
}

#[test]
fn a_closed_pipe_ends_every_printing_verb_quietly() {
    let sample = "testdata/sample/kimi-k3-mi355x-20260923-sample.tgz";
    let cases: [&[&str]; 5] = [
        &[
            "--no-catalog",
            "verify",
            sample,
            "--publication",
            "testdata/sample/PUBLICATION.md",
            "--trust",
            "testdata/sample/trust.json",
            "--json",
        ],
        &[
            "--no-catalog",
            "verify",
            sample,
            "--publication",
            "testdata/sample/PUBLICATION.md",
            "--trust",
            "testdata/sample/trust.json",
        ],
        &["completions", "zsh"],
        &["completions", "bash"],
        &["--no-catalog", "manifest", "testdata/sample/weights"],
    ];
    for args in cases {
        let (code, err) = closed_after(args, 1);
        assert!(
            matches!(code, Some(0) | Some(141)),
            "{args:?}: exit {code:?}\n{err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
