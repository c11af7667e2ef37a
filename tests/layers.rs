//! The library's layering rule, checked on the source: each module imports
//! only modules of lower layers (or an allowed neighbour of its own layer).
//! Layers: 1 digest, report, progress, atomic, …; 2 manifest, keys, attest,
//! …; 3 bundle, catalog, fleet, run, bagit; 4 verify; 5 peers; 6 adopt. The CLI (binary) sits on
//! top.
//!
//! Also checked: no import cycle between any two files of src/ (through
//! `mod.rs` re-exports), no child module importing an item its parent's
//! `mod.rs` defines, no file over 800 lines, and no function over 150 lines
//! beyond the shrinking list in `layers/long_functions.rs`.

#[path = "layers/fns.rs"]
mod fns;
#[path = "layers/graph.rs"]
mod graph;
#[path = "layers/long_functions.rs"]
mod long_functions;
#[path = "layers/source.rs"]
mod source;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use graph::Graph;

fn layer_of(module: &str) -> Option<u8> {
    Some(match module {
        "digest" | "report" | "progress" | "atomic" | "timefmt" | "strictjson" | "capped"
        | "numpy" => 1,
        "manifest" | "keys" | "attest" | "publication" | "safetensors" | "partition" | "html" => 2,
        "bundle" | "catalog" | "fleet" | "run" | "bagit" => 3,
        "verify" => 4,
        "peers" => 5,
        "adopt" => 6,
        _ => return None,
    })
}

/// Allowed same-layer edges (documented in src/lib.rs).
const SAME_LAYER_ALLOWED: &[(&str, &str)] = &[
    ("attest", "keys"),
    ("digest", "progress"),
    ("partition", "manifest"),
    ("manifest", "safetensors"),
    ("bagit", "bundle"),
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
/// `modpath`, e.g. `verify::checks::published`) uses, directly or through an item
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

fn src_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Each file's imports: file -> (imported file -> line and path of the first).
fn import_edges(g: &Graph) -> Vec<BTreeMap<usize, (usize, String)>> {
    (0..g.files.len()).map(|i| g.edges(i)).collect()
}

/// Each cycle of the import graph: its files, and one cycle through them
/// with the line and path of each step.
fn describe_cycles(g: &Graph) -> Vec<String> {
    let edges = import_edges(g);
    let adj: Vec<BTreeSet<usize>> = edges.iter().map(|e| e.keys().copied().collect()).collect();
    let mut out = Vec::new();
    for scc in graph::cycles(&adj) {
        let names: Vec<&str> = scc.iter().map(|&i| g.files[i].rel.as_str()).collect();
        let path = graph::one_cycle(&adj, &scc);
        let mut steps = g.files[path[0]].rel.clone();
        for w in path.windows(2) {
            let (line, via) = &edges[w[0]][&w[1]];
            steps.push_str(&format!(
                "\n    -> {} (line {line}: {via})",
                g.files[w[1]].rel
            ));
        }
        out.push(format!(
            "{} files: {}\n  e.g. {steps}",
            scc.len(),
            names.join(", ")
        ));
    }
    out
}

#[test]
fn no_import_cycle_between_any_two_files() {
    let g = graph::crate_graph(&src_dir());
    assert!(g.files.len() > 100, "expected all of src/");
    let cycles = describe_cycles(&g);
    assert!(
        cycles.is_empty(),
        "{} file-level import cycles (files, the line importing each next one):\n{}",
        cycles.len(),
        cycles.join("\n")
    );
}

/// `file:line: path` for each path of a child module that names an item its
/// parent's `mod.rs` defines (not a child module, not a re-export).
fn parent_items_imported(g: &Graph) -> Vec<String> {
    let mut out = BTreeSet::new();
    for (i, f) in g.files.iter().enumerate() {
        let Some((_, parent)) = f.module.1.split_last() else {
            continue;
        };
        let parent = (f.module.0, parent.to_vec());
        let Some(p) = g.file_of(&parent) else {
            continue;
        };
        if !g.files[p].rel.ends_with("mod.rs") {
            continue; // the crate root: lib.rs, main.rs
        }
        let explicit = |o: &&source::Occurrence| {
            matches!(
                o.segments[0].as_str(),
                "super" | "crate" | "self" | "proofpack"
            )
        };
        for o in f.occurrences.iter().filter(explicit) {
            let Some(abs) = g.absolute(i, o) else {
                continue;
            };
            let n = parent.1.len();
            if abs.0 != parent.0 || abs.1.len() <= n || abs.1[..n] != parent.1[..] {
                continue;
            }
            let item = &abs.1[n];
            let mut child = parent.clone();
            child.1.push(item.clone());
            if g.files[p].defined.contains(item) && g.file_of(&child).is_none() {
                out.insert(format!(
                    "{}:{}: {} (defined in {})",
                    f.rel,
                    o.line,
                    o.segments.join("::"),
                    g.files[p].rel
                ));
            }
        }
    }
    out.into_iter().collect()
}

/// A face re-exports; children import siblings or a `types` file.
#[test]
fn no_child_imports_an_item_of_its_parents_mod_rs() {
    let g = graph::crate_graph(&src_dir());
    let found = parent_items_imported(&g);
    assert!(
        found.is_empty(),
        "{} paths name an item defined in the parent's mod.rs (move it to a sibling file):\n{}",
        found.len(),
        found.join("\n")
    );
}

/// Functions longer than this are listed in `layers/long_functions.rs`.
const MAX_FUNCTION_LINES: usize = 150;

/// Every function of src/ over [`MAX_FUNCTION_LINES`]: (`src/…` file, name,
/// lines), the longest of a name in a file, sorted.
fn long_functions_now() -> Vec<(String, String, usize)> {
    let mut files = Vec::new();
    rust_files(&src_dir(), &mut files);
    let mut longest: BTreeMap<(String, String), usize> = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(env!("CARGO_MANIFEST_DIR")).unwrap();
        let rel = rel.to_string_lossy().replace('\\', "/");
        let code = source::code_only(&std::fs::read_to_string(&f).unwrap());
        for (name, lines) in fns::function_lengths(&code) {
            let e = longest.entry((rel.clone(), name)).or_default();
            *e = (*e).max(lines);
        }
    }
    longest
        .into_iter()
        .filter(|(_, n)| *n > MAX_FUNCTION_LINES)
        .map(|((f, name), n)| (f, name, n))
        .collect()
}

/// Which functions are new to the list or grew, and which listed ones shrank
/// or went (the list must shrink with them).
fn long_function_problems(now: &[(String, String, usize)]) -> Vec<String> {
    let listed: BTreeMap<(&str, &str), usize> = long_functions::LONG_FUNCTIONS
        .iter()
        .map(|&(f, n, l)| ((f, n), l))
        .collect();
    let mut out = Vec::new();
    for (f, name, n) in now {
        match listed.get(&(f.as_str(), name.as_str())) {
            None => out.push(format!(
                "{f}: fn {name} is {n} lines (over {MAX_FUNCTION_LINES}): split it"
            )),
            Some(&l) if *n > l => out.push(format!(
                "{f}: fn {name} grew to {n} lines (listed {l}): split it"
            )),
            _ => {}
        }
    }
    for (&(f, name), &l) in &listed {
        let current = now.iter().find(|(g, m, _)| g == f && m == name);
        match current {
            None => out.push(format!(
                "shrink the list: {f}: fn {name} (listed {l}) is now {MAX_FUNCTION_LINES} lines or fewer, or gone"
            )),
            Some((_, _, n)) if *n < l => out.push(format!(
                "shrink the list: {f}: fn {name} is now {n} lines (listed {l})"
            )),
            _ => {}
        }
    }
    out
}

#[test]
fn functions_over_150_lines_are_listed_and_the_list_only_shrinks() {
    let now = long_functions_now();
    eprintln!(
        "warning: {} functions over {MAX_FUNCTION_LINES} lines:",
        now.len()
    );
    for (f, name, n) in &now {
        eprintln!("  {f}: fn {name} ({n} lines)");
    }
    let problems = long_function_problems(&now);
    assert!(
        problems.is_empty(),
        "{}\n(regenerate layers/long_functions.rs with LAYERS_PRINT_LONG=1 cargo test --test layers print_long_functions -- --nocapture)",
        problems.join("\n")
    );
}

/// With `LAYERS_PRINT_LONG=1`, prints tests/layers/long_functions.rs as it
/// should be today.
#[test]
fn print_long_functions() {
    if std::env::var_os("LAYERS_PRINT_LONG").is_none_or(|v| v != "1") {
        return;
    }
    println!("{}", long_functions_file(&long_functions_now()));
}

fn long_functions_file(now: &[(String, String, usize)]) -> String {
    let mut s = String::from(
        "//! The functions of src/ over 150 lines (file, name, lines), checked by\n\
         //! tests/layers.rs: the list may only shrink. Regenerate with\n\
         //! `LAYERS_PRINT_LONG=1 cargo test --test layers print_long_functions -- --nocapture`.\n\
         \n\
         /// (file, function, lines from its `fn` line to its closing brace).\n\
         pub const LONG_FUNCTIONS: &[(&str, &str, usize)] = &[\n",
    );
    for (f, name, n) in now {
        s.push_str(&format!("    ({f:?}, {name:?}, {n}),\n"));
    }
    s.push_str("];");
    s
}

#[test]
fn use_groups_expand_to_each_leaf() {
    let code = source::code_only(
        "use crate::{a::b, c::{d, E as F}, g::{self, *}};\nfn x() { super::super::h::i(); }",
    );
    let got: Vec<(String, Option<String>)> = source::occurrences(&code)
        .into_iter()
        .map(|o| (o.segments.join("::"), o.alias))
        .collect();
    let want = [
        ("crate::a::b", Some("b")),
        ("crate::c::d", Some("d")),
        ("crate::c::E", Some("F")),
        ("crate::g", Some("g")),
        ("crate::g::*", None),
        ("super::super::h::i", None),
    ];
    let want: Vec<(String, Option<String>)> = want
        .iter()
        .map(|(p, a)| (p.to_string(), a.map(String::from)))
        .collect();
    assert_eq!(got, want);
}

#[test]
fn comments_strings_and_test_modules_are_not_code() {
    let text = "let s = \"crate::a {\"; // crate::b\nlet c = '{'; let r = r#\"}\"#; fn f<'a>() {}\n#[cfg(test)]\nmod tests { use super::x; }\n";
    let code = source::without_test_items(&source::code_only(text));
    assert!(!code.contains("crate::"), "{code}");
    assert_eq!(code.matches('{').count(), 1, "{code}");
    assert!(code.contains("<'a>"), "{code}");
    assert!(source::occurrences(&code).is_empty());
    assert_eq!(code.lines().count(), text.lines().count());
}

/// A small crate: a face re-exporting from children (one through a chain),
/// and a user of the face.
fn small_crate(mod_rs_extra: &str, inner_extra: &str) -> Graph {
    let inner = format!("{inner_extra}pub struct Thing;\npub struct Other;\n");
    let files = [
        ("lib.rs", "pub mod m;\npub mod user;\n"),
        ("m/inner.rs", inner.as_str()),
        ("m/deep/mod.rs", "mod leaf;\npub(crate) use leaf::Deep;\n"),
        ("m/deep/leaf.rs", "pub struct Deep;\n"),
        (
            "user.rs",
            "use crate::m::Renamed;\nfn f() { crate::m::Deep::new(); }\n",
        ),
        ("m/tests.rs", "use super::Thing;\n"),
    ];
    let mod_rs = format!(
        "mod deep;\nmod inner;\npub use inner::{{Thing, Other as Renamed}};\npub use self::deep::Deep;\n{mod_rs_extra}#[cfg(test)]\nmod tests;\n"
    );
    let mut all: Vec<graph::File> = files.iter().map(|(p, t)| graph::file(p, t)).collect();
    all.push(graph::file("m/mod.rs", &mod_rs));
    Graph::new(all)
}

fn edges_by_name(g: &Graph, from: &str) -> Vec<String> {
    let i = g.files.iter().position(|f| f.rel == from).unwrap();
    g.edges(i).keys().map(|&j| g.files[j].rel.clone()).collect()
}

#[test]
fn paths_through_a_face_reach_the_file_that_defines_the_item() {
    let g = small_crate("", "");
    assert!(
        g.files.iter().all(|f| f.rel != "m/tests.rs"),
        "a test-only file"
    );
    assert_eq!(
        edges_by_name(&g, "user.rs"),
        ["m/deep/leaf.rs", "m/inner.rs"]
    );
    assert_eq!(
        edges_by_name(&g, "m/mod.rs"),
        ["m/deep/leaf.rs", "m/inner.rs"]
    );
    assert_eq!(edges_by_name(&g, "m/deep/mod.rs"), ["m/deep/leaf.rs"]);
    assert!(describe_cycles(&g).is_empty());
    assert!(parent_items_imported(&g).is_empty());
}

#[test]
fn the_cycle_finder_finds_a_face_that_defines_what_its_children_use() {
    let g = small_crate("pub struct Shared;\n", "use super::Shared;\n");
    let cycles = describe_cycles(&g);
    assert_eq!(cycles.len(), 1, "{cycles:?}");
    assert!(
        cycles[0].starts_with("2 files: m/inner.rs, m/mod.rs"),
        "{}",
        cycles[0]
    );
    assert_eq!(
        parent_items_imported(&g),
        ["m/inner.rs:1: super::Shared (defined in m/mod.rs)"]
    );
}

#[test]
fn function_lengths_count_by_brace_depth() {
    let text = "fn short() {}\ntrait T { fn decl(&self); }\nfn long(a: [u8; 2]) -> u8 {\n    let s = \"}\";\n    // }\n    a[0]\n}\n";
    let code = source::code_only(text);
    assert_eq!(
        fns::function_lengths(&code),
        [("short".to_string(), 1), ("long".to_string(), 5)]
    );
}
