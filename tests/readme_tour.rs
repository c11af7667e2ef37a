//! The README's "Qualify your own benchmark" tour, run as written from a
//! fresh temporary directory (its `target/release/proofpack` is the binary
//! under test, its `testdata` the checkout's): every command succeeds but
//! the two the README says are refused (exit 2), and the last one prints
//! the verdict the README quotes, word for word.

mod common;

use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The tour's commands (continuation lines joined), each with the exit
/// status the README's comment after it says (2 for "refused (exit 2)",
/// else 0), and the verdict quoted after the last one.
fn tour() -> (Vec<(String, i32)>, String) {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let lines: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("    P=target/release/proofpack"))
        .take_while(|l| l.starts_with("    "))
        .map(|l| &l[4..])
        .collect();
    let mut cmds: Vec<(String, i32)> = Vec::new();
    let mut quoted = Vec::new();
    let mut open = false;
    for l in lines {
        let t = l.trim();
        if let Some(comment) = t.strip_prefix('#') {
            if comment.contains("refused (exit 2)") {
                cmds.last_mut().unwrap().1 = 2;
            } else if !comment.trim_start().starts_with("refused")
                && !comment.starts_with("  ")
                && cmds.last().is_some_and(|c| c.0.contains(" verify "))
            {
                quoted.push(comment.trim().to_string());
            }
            continue;
        }
        if open {
            let last = cmds.last_mut().unwrap();
            last.0.push(' ');
            last.0.push_str(t.trim_end_matches('\\').trim());
        } else {
            cmds.push((t.trim_end_matches('\\').trim().to_string(), 0));
        }
        open = t.ends_with('\\');
    }
    (cmds, quoted.join(" "))
}

#[test]
fn the_readme_tour_runs_as_written_and_prints_the_verdict_it_quotes() {
    let (cmds, verdict) = tour();
    assert!(cmds.len() >= 12, "{cmds:?}");
    assert!(verdict.starts_with("VERIFIED"), "{verdict}");
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("target/release")).unwrap();
    std::os::unix::fs::symlink(
        common::command().get_program(),
        dir.path().join("target/release/proofpack"),
    )
    .unwrap();
    std::os::unix::fs::symlink(root().join("testdata"), dir.path().join("testdata")).unwrap();
    // The first line sets the shell variables the others use.
    let (setup, _) = &cmds[0];
    let mut last = String::new();
    for (cmd, want) in &cmds[1..] {
        let out = std::process::Command::new("bash")
            .arg("-c")
            .arg(format!("{setup}; {cmd}"))
            .current_dir(dir.path())
            .env("PROOFPACK_CATALOG", dir.path().join("catalog.db"))
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .output()
            .unwrap();
        let code = out.status.code().unwrap_or(-1);
        assert_eq!(
            code,
            *want,
            "{cmd}\n{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        last = String::from_utf8_lossy(&out.stdout).into_owned();
    }
    let printed = last
        .lines()
        .find(|l| l.starts_with("VERIFIED") || l.starts_with("FAILED"))
        .unwrap_or_default();
    assert_eq!(printed, verdict, "the README quotes another verdict");
}
