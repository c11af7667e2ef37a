//! The library's layering rule, checked on the source: each module imports
//! only modules of lower layers (or, within layer 2, `attest` may use `keys`).
//! Layers: 1 digest, report, progress, atomic (digest reports to progress); 2 manifest, keys, attest;
//! 3 bundle, catalog; 4 qualify; 5 peers. The CLI (binary) sits on top.

use std::collections::BTreeMap;
use std::path::Path;

fn layer_of(module: &str) -> Option<u8> {
    Some(match module {
        "digest" | "report" | "progress" | "atomic" | "timefmt" | "strictjson" | "capped"
        | "numpy" => 1,
        "manifest" | "keys" | "attest" | "publication" | "safetensors" | "partition" | "html" => 2,
        "bundle" | "catalog" | "fleet" => 3,
        "qualify" => 4,
        "peers" => 5,
        _ => return None,
    })
}

/// Allowed same-layer edges (documented in src/lib.rs).
const SAME_LAYER_ALLOWED: &[(&str, &str)] = &[
    ("attest", "keys"),
    ("digest", "progress"),
    ("publication", "manifest"),
    ("partition", "manifest"),
    ("manifest", "safetensors"),
];

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn modules_import_only_lower_layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut violations = Vec::new();
    for f in files {
        let rel = f.strip_prefix(&src).unwrap().to_string_lossy().to_string();
        let module = rel.split(['/', '.']).next().unwrap().to_string();
        let Some(my_layer) = layer_of(&module) else {
            continue; // lib.rs, main.rs, cli/: the top
        };
        *seen.entry(module.clone()).or_default() += 1;
        let text = std::fs::read_to_string(&f).unwrap();
        for (i, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(pos) = rest.find("crate::") {
                rest = &rest[pos + "crate::".len()..];
                let target: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if target == module || target == "TOOL" {
                    continue;
                }
                let Some(t_layer) = layer_of(&target) else {
                    continue;
                };
                let ok = t_layer < my_layer
                    || SAME_LAYER_ALLOWED.contains(&(module.as_str(), target.as_str()));
                if !ok {
                    violations.push(format!(
                        "{rel}:{}: {module} (layer {my_layer}) uses {target} (layer {t_layer})",
                        i + 1
                    ));
                }
            }
        }
    }
    assert!(
        seen.len() >= 8,
        "expected the library's modules, found {seen:?}"
    );
    assert!(
        violations.is_empty(),
        "layering violations:\n{}",
        violations.join("\n")
    );
}

/// The sibling modules of the directory module at `dir` (a file `x.rs` or a
/// directory `x/` beside `mod.rs`).
fn siblings(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        let dir_module = p.is_dir() && p.join("mod.rs").is_file();
        let file_module = p.extension().is_some_and(|x| x == "rs") && name != "mod";
        if dir_module || file_module {
            out.push(name);
        }
    }
    out
}

/// The first path segment of every item a `prefix` path names in `text`:
/// `prefix name`, `prefix {a, b::c, D}` (code only; comments skipped).
fn names_after(text: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut rest = code.as_str();
    while let Some(pos) = rest.find(prefix) {
        rest = &rest[pos + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Items at depth 0 of the group, each's first segment.
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(first_segment(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            out.push(first_segment(&item));
        } else {
            out.push(first_segment(rest));
        }
    }
    out.retain(|n| !n.is_empty());
    out
}

fn first_segment(s: &str) -> String {
    s.trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}

/// Items that `mod.rs` of `dir` re-exports from a sibling: item -> sibling.
fn reexports(dir: &Path, sibs: &[String]) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Ok(text) = std::fs::read_to_string(dir.join("mod.rs")) else {
        return out;
    };
    for line in text.lines() {
        let l = line.trim_start();
        let Some(rest) = l
            .strip_prefix("pub use ")
            .or_else(|| l.strip_prefix("pub(crate) use "))
            .or_else(|| l.strip_prefix("use "))
        else {
            continue;
        };
        let from = first_segment(rest);
        if !sibs.contains(&from) {
            continue;
        }
        let tail = &rest[from.len()..];
        let items: Vec<String> = match tail.find('{') {
            Some(i) => tail[i + 1..]
                .split([',', '}'])
                .map(|s| s.rsplit("::").next().unwrap_or("").trim().to_string())
                .collect(),
            None => vec![tail
                .trim_end_matches(';')
                .rsplit("::")
                .next()
                .unwrap_or("")
                .trim()
                .to_string()],
        };
        for item in items {
            let item = item.split(" as ").last().unwrap_or("").trim().to_string();
            if !item.is_empty() && item != "self" {
                out.insert(item, from.clone());
            }
        }
    }
    out
}

/// Which siblings each sibling of the directory module `dir` (module path
/// `modpath`, e.g. `qualify::published`) uses, directly or through an item
/// `mod.rs` re-exports.
fn sibling_edges(dir: &Path, modpath: &str) -> BTreeMap<String, Vec<String>> {
    let sibs = siblings(dir);
    let re = reexports(dir, &sibs);
    let mut edges: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for s in &sibs {
        let mut files = Vec::new();
        let file = dir.join(format!("{s}.rs"));
        if file.is_file() {
            files.push((file, "super::".to_string()));
        } else {
            // A directory sibling: every file in it, where its parent is
            // `super::super::` (or `super::` from its own mod.rs).
            let mut inner = Vec::new();
            rust_files(&dir.join(s), &mut inner);
            for f in inner {
                let depth = f.strip_prefix(dir.join(s)).unwrap().components().count();
                let up = if f.file_name().unwrap() == "mod.rs" {
                    depth - 1
                } else {
                    depth
                };
                files.push((f, "super::".repeat(up + 1)));
            }
        }
        let mut uses = Vec::new();
        for (f, up) in files {
            let text = std::fs::read_to_string(&f).unwrap();
            let mut names = names_after(&text, &up);
            names.extend(names_after(&text, &format!("crate::{modpath}::")));
            for n in names {
                let target = if sibs.contains(&n) {
                    Some(n)
                } else {
                    re.get(&n).cloned()
                };
                if let Some(t) = target {
                    if &t != s && !uses.contains(&t) {
                        uses.push(t);
                    }
                }
            }
        }
        edges.insert(s.clone(), uses);
    }
    edges
}

/// A cycle in `edges`, if there is one.
fn find_cycle(edges: &BTreeMap<String, Vec<String>>) -> Option<Vec<String>> {
    fn dfs(
        n: &str,
        edges: &BTreeMap<String, Vec<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(n.to_string(), 1);
        stack.push(n.to_string());
        for m in edges.get(n).into_iter().flatten() {
            match state.get(m.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|s| s == m).unwrap();
                    let mut c = stack[at..].to_vec();
                    c.push(m.clone());
                    return Some(c);
                }
                0 => {
                    if let Some(c) = dfs(m, edges, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(n.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for n in edges.keys() {
        if state.get(n.as_str()).copied().unwrap_or(0) == 0 {
            let mut stack = Vec::new();
            if let Some(c) = dfs(n, edges, &mut state, &mut stack) {
                return Some(c);
            }
        }
    }
    None
}

#[test]
fn no_import_cycle_between_the_files_of_a_module() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut dirs = Vec::new();
    fn walk(d: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                out.push(p.clone());
                walk(&p, out);
            }
        }
    }
    walk(&src, &mut dirs);
    let mut cycles = Vec::new();
    for d in dirs {
        let modpath = d
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('/', "::");
        if let Some(c) = find_cycle(&sibling_edges(&d, &modpath)) {
            cycles.push(format!("{modpath}: {}", c.join(" -> ")));
        }
    }
    assert!(cycles.is_empty(), "import cycles:\n{}", cycles.join("\n"));
}

#[test]
fn the_cycle_finder_finds_a_cycle() {
    let mut e = BTreeMap::new();
    e.insert("a".to_string(), vec!["b".to_string()]);
    e.insert("b".to_string(), vec!["c".to_string()]);
    e.insert("c".to_string(), vec!["a".to_string()]);
    assert_eq!(find_cycle(&e).unwrap(), ["a", "b", "c", "a"]);
    e.insert("c".to_string(), vec![]);
    assert!(find_cycle(&e).is_none());
    assert_eq!(
        names_after("use super::{a, b::{c, d}, E};", "super::"),
        ["a", "b", "E"]
    );
}

#[test]
fn no_source_file_is_over_800_lines() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let long: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let n = std::fs::read_to_string(f).unwrap().lines().count();
            (n > 800).then(|| format!("{} ({n} lines)", f.display()))
        })
        .collect();
    assert!(long.is_empty(), "split these files: {long:?}");
}
