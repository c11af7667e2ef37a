//! Every `proofpack` command quoted in README.md, docs/*.md and the man
//! pages' EXAMPLES names a verb proofpack has and only flags that verb
//! takes: read from each verb's own `--help`, so a renamed or removed flag
//! fails here the day it changes, not when a reader copies the command.
//! (Running each command as written on the sample is the auditor guide's
//! test, `docs_current`, for the guide's `verify`; the rest are listed
//! with their placeholders, which no test can fill in as written.)

mod common;

use std::collections::BTreeMap;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The quoted commands of one Markdown file: indented (4 spaces) or
/// fenced code lines that start with `proofpack ` or the README's
/// `cargo run --release -- `, continuation lines (`\`) joined, each with
/// its line number.
fn markdown_commands(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let code = if fenced {
            Some(line.trim())
        } else {
            line.strip_prefix("    ").map(str::trim)
        };
        let Some(code) = code else {
            pending = None;
            continue;
        };
        if let Some((at, mut cmd)) = pending.take() {
            cmd.push(' ');
            cmd.push_str(code.trim_end_matches('\\').trim());
            if code.ends_with('\\') {
                pending = Some((at, cmd));
            } else {
                out.push((at, cmd));
            }
            continue;
        }
        let body = code
            .strip_prefix("cargo run --release -- ")
            .map(|r| format!("proofpack {r}"))
            .or_else(|| code.starts_with("proofpack ").then(|| code.to_string()));
        // A comment after the command: two or more spaces, then `(` or
        // `#`; a version line (`proofpack 0.1.0`) is output, not a command.
        let body = body
            .map(|c| match c.find("  (").or_else(|| c.find("  #")) {
                Some(at) => c[..at].trim_end().to_string(),
                None => c,
            })
            .filter(|c| !c["proofpack ".len()..].starts_with(|ch: char| ch.is_ascii_digit()));
        if let Some(cmd) = body {
            if cmd.ends_with('\\') {
                pending = Some((i + 1, cmd.trim_end_matches('\\').trim().to_string()));
            } else {
                out.push((i + 1, cmd));
            }
        }
    }
    out
}

/// The man pages' EXAMPLES: the quoted `"proofpack ..."` strings of
/// src/cli/manpages.rs.
fn man_examples() -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(root().join("src/cli/manpages.rs")).unwrap();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        for piece in line.split("\"proofpack ").skip(1) {
            if let Some(end) = piece.find('"') {
                out.push((i + 1, format!("proofpack {}", &piece[..end])));
            }
        }
    }
    out
}

/// `proofpack ARGS --help`: (exit status, stdout).
fn help(words: &[String]) -> (i32, String) {
    let out = common::command()
        .args(words)
        .arg("--help")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The flags a command line passes (`--name` of `--name=value`, and short
/// `-x`), up to a shell operator.
fn flags(tokens: &[String]) -> Vec<String> {
    tokens
        .iter()
        .take_while(|t| !matches!(t.as_str(), "|" | ">" | "&&" | ";" | "2>&1" | "<"))
        .filter(|t| t.starts_with('-') && t.len() > 1 && !t.starts_with("--=") && *t != "-")
        .map(|t| t.split('=').next().unwrap().to_string())
        .collect()
}

const GLOBAL: &[&str] = &["--no-catalog", "-q", "--quiet", "-v", "--verbose"];

#[test]
fn every_quoted_command_names_a_verb_and_only_flags_it_takes() {
    let mut sources: Vec<(String, Vec<(usize, String)>)> = Vec::new();
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    docs.insert(0, root().join("README.md"));
    for d in docs {
        let text = std::fs::read_to_string(&d).unwrap();
        let rel = d.strip_prefix(root()).unwrap().display().to_string();
        sources.push((rel, markdown_commands(&text)));
    }
    sources.push(("src/cli/manpages.rs".into(), man_examples()));
    let mut helps: BTreeMap<Vec<String>, Option<String>> = BTreeMap::new();
    let mut bad = Vec::new();
    let mut seen = 0;
    for (file, cmds) in &sources {
        for (line, cmd) in cmds {
            let Some(tokens) = shlex::split(cmd) else {
                bad.push(format!("{file}:{line}: not a shell command: {cmd}"));
                continue;
            };
            seen += 1;
            let words: Vec<String> = tokens[1..]
                .iter()
                .filter(|t| !GLOBAL.contains(&t.as_str()))
                .cloned()
                .collect();
            // The verb: the longest run of leading words whose --help
            // names it as its usage.
            let mut verb: Option<(Vec<String>, String)> = None;
            for k in (1..=words.len().min(3)).rev() {
                let path = words[..k].to_vec();
                if path.iter().any(|w| w.starts_with('-')) {
                    continue;
                }
                let text = helps
                    .entry(path.clone())
                    .or_insert_with(|| {
                        let (code, out) = help(&path);
                        let usage = format!("Usage: proofpack {}", path.join(" "));
                        (code == 0
                            && out
                                .lines()
                                .any(|l| l == usage || l.starts_with(&format!("{usage} "))))
                        .then_some(out)
                    })
                    .clone();
                if let Some(text) = text {
                    verb = Some((path, text));
                    break;
                }
            }
            let Some((path, text)) = verb else {
                bad.push(format!("{file}:{line}: names no verb of proofpack: {cmd}"));
                continue;
            };
            for f in flags(&tokens[1..]) {
                if GLOBAL.contains(&f.as_str()) || f == "--help" {
                    continue;
                }
                let known = text.contains(&format!("{f} "))
                    || text.contains(&format!("{f},"))
                    || text.contains(&format!("{f}\n"))
                    || text.contains(&format!("{f}="))
                    || text.contains(&format!("{f} <"));
                if !known {
                    bad.push(format!(
                        "{file}:{line}: `proofpack {}` takes no {f}: {cmd}",
                        path.join(" ")
                    ));
                }
            }
        }
    }
    assert!(seen > 100, "only {seen} quoted commands found");
    assert!(
        bad.is_empty(),
        "{} stale quoted command(s):\n{}",
        bad.len(),
        bad.join("\n")
    );
}
