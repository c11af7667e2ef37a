//! Check-id patterns as the docs write them, shared by the tests that hold
//! the docs to the binary (tests/docs_current.rs, tests/docs_binary.rs).

use serde_json::Value;

/// The backticked ids of the first column of the markdown tables in
/// `text`: `.x` continues the id before it (its last `.` part replaced),
/// `<...>` and `*` stand for any text. Only tokens for which `keep` holds
/// are ids (a table may also name files).
pub fn table_ids(text: &str, keep: impl Fn(&str) -> bool) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    for line in text.lines() {
        if !line.starts_with('|') || line.starts_with("|---") || line.starts_with("| id") {
            continue;
        }
        let first = line.split('|').nth(1).unwrap_or("");
        for tok in first.split('`').skip(1).step_by(2) {
            let id = match (tok.strip_prefix('.'), ids.last()) {
                (Some(_), Some(prev)) => {
                    let stem = prev.rsplit_once('.').map_or(prev.as_str(), |(s, _)| s);
                    format!("{stem}{tok}")
                }
                _ => tok.to_string(),
            };
            if keep(&id) {
                ids.push(id);
            }
        }
    }
    ids
}

/// `id` matches `pattern`: literal text, with each `<...>` or `*` one or
/// more characters.
pub fn matches(pattern: &str, id: &str) -> bool {
    let hole = |p: &str| -> Option<(usize, usize)> {
        let star = p.find('*').map(|at| (at, at + 1));
        let angle = p
            .find('<')
            .and_then(|at| p[at..].find('>').map(|len| (at, at + len + 1)));
        match (star, angle) {
            (Some(s), Some(a)) => Some(if s.0 < a.0 { s } else { a }),
            (s, a) => s.or(a),
        }
    };
    match hole(pattern) {
        None => pattern == id,
        Some((open, close)) => {
            let (lit, rest) = (&pattern[..open], &pattern[close..]);
            let Some(tail) = id.strip_prefix(lit) else {
                return false;
            };
            (1..=tail.len())
                .filter(|&n| tail.is_char_boundary(n))
                .any(|n| matches(rest, &tail[n..]))
        }
    }
}

/// The literal parts of a pattern (the text between its holes).
pub fn literal_parts(pattern: &str) -> Vec<String> {
    let mut parts = Vec::new();
    let mut cur = String::new();
    let mut in_angle = false;
    for ch in pattern.chars() {
        match ch {
            '<' if !in_angle => {
                in_angle = true;
                parts.push(std::mem::take(&mut cur));
            }
            '>' if in_angle => in_angle = false,
            '*' if !in_angle => parts.push(std::mem::take(&mut cur)),
            _ if in_angle => {}
            _ => cur.push(ch),
        }
    }
    parts.push(cur);
    parts.retain(|p| !p.is_empty());
    parts
}

/// The check ids of a `--json` report.
pub fn of_report(json: &str, what: &str) -> Vec<String> {
    let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{what}: {e}\n{json}"));
    v["checks"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: not a report"))
        .iter()
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

/// Every `.rs` file under `src/`, concatenated: where an id the docs name
/// but no test run emitted must at least be spelled.
pub fn source_text() -> String {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut all = String::new();
    for e in walkdir::WalkDir::new(root).sort_by_file_name() {
        let e = e.unwrap();
        if e.path().extension().is_some_and(|x| x == "rs") {
            all.push_str(&std::fs::read_to_string(e.path()).unwrap());
        }
    }
    all
}

/// Both directions at once: the emitted ids no pattern matches, and the
/// patterns no emitted id matches.
pub fn unmatched(patterns: &[String], emitted: &[String]) -> (Vec<String>, Vec<String>) {
    let ids: Vec<String> = emitted
        .iter()
        .filter(|id| !patterns.iter().any(|p| matches(p, id)))
        .cloned()
        .collect();
    let pats: Vec<String> = patterns
        .iter()
        .filter(|p| !emitted.iter().any(|id| matches(p, id)))
        .cloned()
        .collect();
    (ids, pats)
}
