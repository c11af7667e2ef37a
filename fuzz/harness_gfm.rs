//! Differential harness of the publication reader against cmark-gfm itself
//! (tests/gfm_view.py, run as a persistent child process): shared by the
//! cargo-fuzz target `publication_gfm`, its corpus replay and the listed
//! inputs of tests/publication_gfm.rs.
//!
//! The invariant: a write-up proofpack reads (Document::parse accepts it)
//! renders in cmark-gfm as exactly the blocks proofpack sees: the same
//! kinds, in the same order, in the same containers, the same text, the
//! same tables with the same cells in the same order, on the same lines.
//! Normalised before comparing, and only these: runs of white space in
//! inline text are one space (a browser shows them so); a code or HTML
//! block's final newline; and the lines cmark-gfm is known to report wrong
//! (0 for a paragraph a table interrupts, the paragraph's first line for a
//! table's header row), which are not compared.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use proofpack::publication::document::{squash, Document};
use proofpack::publication::markdown;
use serde_json::Value;

/// cmark-gfm behind a pipe.
pub struct Oracle {
    child: Child,
    stdin: ChildStdin,
    stdout: ChildStdout,
}

impl Oracle {
    /// Starts tests/gfm_view.py --serve under the test Python
    /// (`PROOFPACK_TEST_PYTHON`, else `target/pyenv/bin/python` of `root`).
    pub fn new(root: &Path) -> Oracle {
        let python = std::env::var_os("PROOFPACK_TEST_PYTHON")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| root.join("target/pyenv/bin/python"));
        assert!(
            python.exists(),
            "{}: the Python with cmarkgfm is missing: run scripts/test.sh (it installs the pinned peers into target/pyenv) or set PROOFPACK_TEST_PYTHON",
            python.display()
        );
        let mut child = Command::new(&python)
            .arg(root.join("tests/gfm_view.py"))
            .arg("--serve")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start gfm_view.py");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        Oracle {
            child,
            stdin,
            stdout,
        }
    }

    /// cmark-gfm's view of `md`.
    pub fn view(&mut self, md: &[u8]) -> Value {
        self.stdin
            .write_all(&(md.len() as u32).to_be_bytes())
            .and_then(|_| self.stdin.write_all(md))
            .and_then(|_| self.stdin.flush())
            .expect("write to gfm_view.py");
        let mut head = [0u8; 4];
        self.stdout
            .read_exact(&mut head)
            .expect("read from gfm_view.py");
        let mut body = vec![0u8; u32::from_be_bytes(head) as usize];
        self.stdout
            .read_exact(&mut body)
            .expect("read from gfm_view.py");
        serde_json::from_slice(&body).expect("gfm_view.py prints JSON")
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn norm_text(v: &mut Value) {
    if let Some(s) = v.as_str() {
        *v = Value::String(squash(s));
    }
}

/// Both views normalised as the module doc says.
pub fn normalise(ours: &Value, theirs: &Value) -> (Vec<Value>, Vec<Value>) {
    let mut a: Vec<Value> = ours.as_array().cloned().unwrap_or_default();
    let mut b: Vec<Value> = theirs.as_array().cloned().unwrap_or_default();
    for (i, blk) in b.iter_mut().enumerate() {
        let t = blk["t"].as_str().unwrap_or("").to_string();
        let drop_line = blk["line"] == 0 || t == "table";
        if let Some(ctx) = blk["ctx"].as_array_mut() {
            for c in ctx.iter_mut() {
                if c == "task" {
                    *c = Value::from("item");
                }
            }
        }
        for side in [Some(&mut *blk), a.get_mut(i)].into_iter().flatten() {
            if drop_line {
                side.as_object_mut().map(|o| o.remove("line"));
            }
            match t.as_str() {
                "code_block" | "html_block" => {
                    if let Some(s) = side["text"].as_str() {
                        side["text"] = Value::String(s.trim_end_matches('\n').to_string());
                    }
                }
                "table" => {
                    if let Some(rows) = side["rows"].as_array_mut() {
                        for (k, r) in rows.iter_mut().enumerate() {
                            if k == 0 {
                                r.as_object_mut().map(|o| o.remove("line"));
                            }
                            if let Some(cells) = r["cells"].as_array_mut() {
                                cells.iter_mut().for_each(norm_text);
                            }
                        }
                    }
                }
                _ => {
                    if let Some(x) = side.get_mut("text") {
                        norm_text(x);
                    }
                }
            }
        }
    }
    (a, b)
}

/// Compares proofpack's view of `text` with cmark-gfm's; `Err` names the
/// first block that differs.
pub fn compare(oracle: &mut Oracle, text: &str) -> Result<(), String> {
    let Ok(tree) = markdown::parse(text) else {
        return Ok(());
    };
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    let (md, _) = markdown::prepass(body);
    let theirs = oracle.view(md.as_bytes());
    let (a, b) = normalise(&tree.view(), &theirs);
    if a == b {
        return Ok(());
    }
    let i = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    Err(format!(
        "block {i} differs:\n  proofpack: {}\n  cmark-gfm: {}",
        a.get(i).map_or("(none)".into(), |v| v.to_string()),
        b.get(i).map_or("(none)".into(), |v| v.to_string())
    ))
}

/// The fuzz invariant: what proofpack reads, cmark-gfm renders the same.
pub fn run(oracle: &mut Oracle, data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if Document::parse(text, "fuzz.md").is_err() {
        return;
    }
    if let Err(e) = compare(oracle, text) {
        panic!("proofpack reads a write-up that cmark-gfm renders otherwise: {e}\ninput: {text:?}");
    }
}
