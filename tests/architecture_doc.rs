//! docs/architecture.md held to the code: every `src/...` path it writes
//! in backticks exists; every module path it writes in backticks
//! (`crate::a::b`, `proofpack::a::b`, `a::b::c`, the first segment a
//! top-level module of src/) names a module file or an item of one; and it
//! names `verify::verify` as the entry point, which is all the CLI's
//! `verify` verb calls of the pipeline.
//!
//! A path resolves, segment by segment, through module files (`src/a/b.rs`
//! or `src/a/b/mod.rs`); the first segment that is not a module must be an
//! item its module's file declares (`pub fn`, `struct`, `enum`, `const`,
//! `trait`, `type`, `static`, any `pub(...)` visibility) or re-exports
//! (`pub use`, followed to where it is declared); segments after an item
//! are its members, declared in the same file (a `fn`, a `const` or an
//! enum variant).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn doc() -> String {
    let p = root().join("docs/architecture.md");
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("cannot read {}: {e}", p.display()))
}

/// The inline code spans of a Markdown text, each with the 1-based line it
/// starts on (fenced blocks are taken whole, one span per line).
fn code_spans(text: &str) -> Vec<(usize, String)> {
    let mut spans = Vec::new();
    let mut prose = String::new();
    let mut fenced = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            prose.push('\n');
            continue;
        }
        if fenced {
            spans.push((i + 1, line.to_string()));
            prose.push('\n');
        } else {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    let mut line = 1;
    let mut open: Option<(usize, String)> = None;
    for c in prose.chars() {
        match (&mut open, c) {
            (None, '`') => open = Some((line, String::new())),
            (Some(_), '`') => {
                let (at, s) = open.take().unwrap();
                if !s.is_empty() {
                    spans.push((at, s.replace('\n', " ")));
                }
            }
            (Some((_, s)), c) => s.push(c),
            (None, _) => {}
        }
        if c == '\n' {
            line += 1;
        }
    }
    spans
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every `a::b...` path in `s` (at least two segments).
fn paths_in(s: &str) -> Vec<Vec<String>> {
    let chars: Vec<char> = s.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let starts = (chars[i].is_ascii_alphabetic() || chars[i] == '_')
            && (i == 0 || !(is_ident_char(chars[i - 1]) || chars[i - 1] == ':'));
        if !starts {
            i += 1;
            continue;
        }
        let mut segs = Vec::new();
        let mut j = i;
        loop {
            let k = j;
            while j < chars.len() && is_ident_char(chars[j]) {
                j += 1;
            }
            segs.push(chars[k..j].iter().collect::<String>());
            let more = j + 2 < chars.len()
                && chars[j] == ':'
                && chars[j + 1] == ':'
                && (chars[j + 2].is_ascii_alphabetic() || chars[j + 2] == '_');
            if !more {
                break;
            }
            j += 2;
        }
        if segs.len() >= 2 {
            out.push(segs);
        }
        i = j.max(i + 1);
    }
    out
}

/// The top-level modules of src/ (`x.rs` or `x/mod.rs`; not lib.rs or
/// main.rs).
fn top_modules(src: &Path) -> Vec<String> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(src).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_stem().unwrap().to_string_lossy().to_string();
        let dir_module = p.is_dir() && p.join("mod.rs").is_file();
        let file_module =
            p.extension().is_some_and(|x| x == "rs") && name != "lib" && name != "main";
        if dir_module || file_module {
            out.push(name);
        }
    }
    out.sort();
    out
}

/// The file of the module `segs` (crate-relative), if it exists.
fn module_file(src: &Path, segs: &[String]) -> Option<PathBuf> {
    if segs.is_empty() {
        return None;
    }
    let dir: PathBuf = segs.iter().collect();
    let file = src.join(&dir).with_extension("rs");
    let mod_rs = src.join(&dir).join("mod.rs");
    [file, mod_rs].into_iter().find(|p| p.is_file())
}

/// The code of a Rust file with its comment lines left out.
fn code_of(file: &Path) -> String {
    std::fs::read_to_string(file)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `rest` with a leading visibility (`pub`, `pub(...)`) removed, if it has
/// one.
fn strip_pub(rest: &str) -> Option<&str> {
    let r = rest.strip_prefix("pub")?;
    let r = match r.strip_prefix('(') {
        Some(inner) => &inner[inner.find(')')? + 1..],
        None => r,
    };
    r.starts_with(' ').then(|| r.trim_start())
}

/// Whether `text` starts with the identifier `name` (and nothing more of
/// an identifier).
fn starts_with_ident(text: &str, name: &str) -> bool {
    text.strip_prefix(name)
        .is_some_and(|r| !r.starts_with(is_ident_char))
}

/// Whether the code declares a public item `name`.
fn declares_item(code: &str, name: &str) -> bool {
    const KINDS: [&str; 8] = [
        "fn ", "struct ", "enum ", "const ", "trait ", "type ", "static ", "mod ",
    ];
    code.lines().any(|l| {
        let Some(mut r) = strip_pub(l.trim_start()) else {
            return false;
        };
        for q in ["const fn ", "async fn ", "unsafe fn "] {
            if let Some(x) = r.strip_prefix(q) {
                r = x;
                return starts_with_ident(r, name);
            }
        }
        KINDS.iter().any(|k| {
            r.strip_prefix(k)
                .is_some_and(|x| starts_with_ident(x, name))
        })
    })
}

/// Whether the code declares a member `name` of an item: a `fn` or a
/// `const` (any visibility), or an enum variant (a line that starts with
/// the capitalised name and goes on with `,`, `(` or `{`).
fn declares_member(code: &str, name: &str) -> bool {
    code.lines().any(|l| {
        let t = l.trim_start();
        let t = strip_pub(t).unwrap_or(t);
        let t = t.strip_prefix("const fn ").unwrap_or(t);
        if let Some(r) = t.strip_prefix("fn ").or_else(|| t.strip_prefix("const ")) {
            return starts_with_ident(r, name);
        }
        let variant = name.starts_with(|c: char| c.is_ascii_uppercase());
        variant
            && t.strip_prefix(name).is_some_and(|r| {
                let r = r.trim_start();
                r.is_empty() || r.starts_with(',') || r.starts_with('(') || r.starts_with('{')
            })
    })
}

/// The items a module's code re-exports: (name as seen, crate-relative path
/// of what it names), `module` being the module's own path.
fn reexports(code: &str, module: &[String]) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("use ") {
        let before = &rest[..at];
        let stmt_start = before.rfind([';', '}', '\n']).map_or(0, |i| i + 1);
        let head = before[stmt_start..].trim();
        let tail = &rest[at + 4..];
        let end = tail.find(';').unwrap_or(tail.len());
        if strip_pub(&format!("{head} ")).is_some_and(str::is_empty) {
            let mut items = Vec::new();
            expand_use(&tail[..end], Vec::new(), &mut items);
            for (segs, name) in items {
                if let Some(abs) = absolute(&segs, module) {
                    out.push((name, abs));
                }
            }
        }
        rest = &tail[end..];
    }
    out
}

/// The leaves of a use tree: (full path, name it is seen by).
fn expand_use(tree: &str, prefix: Vec<String>, out: &mut Vec<(Vec<String>, String)>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let mut path = prefix;
        path.extend(
            tree[..open]
                .split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(String::from),
        );
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut depth = 0;
        let mut item = String::new();
        for c in inner.chars().chain(std::iter::once(',')) {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    if !item.trim().is_empty() {
                        expand_use(&item, path.clone(), out);
                    }
                    item.clear();
                    continue;
                }
                _ => {}
            }
            item.push(c);
        }
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((p, a)) => (p, Some(a.trim().to_string())),
        None => (tree, None),
    };
    let mut full = prefix;
    full.extend(path.split("::").map(|s| s.trim().to_string()));
    if full.last().is_some_and(|s| s == "self") {
        full.pop();
    }
    if full.last().is_some_and(|s| s == "*") {
        return;
    }
    if let Some(name) = alias.or_else(|| full.last().cloned()) {
        out.push((full, name));
    }
}

/// A use path made crate-relative, seen from `module`.
fn absolute(segs: &[String], module: &[String]) -> Option<Vec<String>> {
    let first = segs.first()?;
    match first.as_str() {
        "crate" => Some(segs[1..].to_vec()),
        "self" => Some([module, &segs[1..]].concat()),
        "super" => {
            let mut m = module.to_vec();
            let mut rest = segs;
            while rest.first().is_some_and(|s| s == "super") {
                m.pop()?;
                rest = &rest[1..];
            }
            Some([&m[..], rest].concat())
        }
        _ => Some([module, segs].concat()),
    }
}

/// Resolves the crate-relative path `segs`, or says why it does not.
fn resolve(src: &Path, segs: &[String], depth: usize) -> Result<(), String> {
    if depth > 8 {
        return Err("re-exports too deep".into());
    }
    let mut n = 1;
    while n < segs.len() && module_file(src, &segs[..n + 1]).is_some() {
        n += 1;
    }
    let module = &segs[..n];
    let Some(file) = module_file(src, module) else {
        return Err(format!("no module {}", module.join("::")));
    };
    if n == segs.len() {
        return Ok(());
    }
    let name = &segs[n];
    let code = code_of(&file);
    let shown = file
        .strip_prefix(root())
        .unwrap_or(&file)
        .display()
        .to_string();
    if declares_item(&code, name) {
        return match segs[n + 1..].iter().find(|m| !declares_member(&code, m)) {
            None => Ok(()),
            Some(m) => Err(format!("{shown} declares {name} but no member {m} of it")),
        };
    }
    if let Some((_, target)) = reexports(&code, module)
        .into_iter()
        .find(|(seen, _)| seen == name)
    {
        let full = [&target[..], &segs[n + 1..]].concat();
        return resolve(src, &full, depth + 1)
            .map_err(|e| format!("{shown} re-exports {name} from {}: {e}", target.join("::")));
    }
    Err(format!(
        "{shown} (module {}) declares no public item {name}",
        module.join("::")
    ))
}

/// The module paths written in backticks, crate-relative, with their line.
fn module_paths(text: &str, modules: &[String]) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    for (line, span) in code_spans(text) {
        for mut segs in paths_in(&span) {
            if segs[0] == "crate" || segs[0] == "proofpack" {
                segs.remove(0);
            }
            if segs.len() >= 2 && modules.contains(&segs[0]) {
                out.push((line, segs));
            }
        }
    }
    out
}

#[test]
fn every_src_path_in_the_doc_exists() {
    let text = doc();
    let mut missing = Vec::new();
    let mut seen = 0;
    for (line, span) in code_spans(&text) {
        for word in span.split_whitespace() {
            let word = word.trim_end_matches([',', ';', ':', ')', '.']);
            if !word.starts_with("src/") {
                continue;
            }
            seen += 1;
            if !root().join(word.trim_end_matches('/')).exists() {
                missing.push(format!(
                    "docs/architecture.md:{line}: `{word}` does not exist"
                ));
            }
        }
    }
    assert!(seen > 0, "docs/architecture.md names no `src/...` path");
    assert!(
        missing.is_empty(),
        "docs/architecture.md names paths that are not in the tree:\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_module_path_in_the_doc_resolves() {
    let src = root().join("src");
    let modules = top_modules(&src);
    let text = doc();
    let paths = module_paths(&text, &modules);
    assert!(
        !paths.is_empty(),
        "docs/architecture.md names no module path"
    );
    let unresolved: Vec<String> = paths
        .iter()
        .filter_map(|(line, segs)| {
            resolve(&src, segs, 0)
                .err()
                .map(|why| format!("docs/architecture.md:{line}: `{}`: {why}", segs.join("::")))
        })
        .collect();
    assert!(
        unresolved.is_empty(),
        "module paths in docs/architecture.md that do not resolve to a file or item of src/:\n{}",
        unresolved.join("\n")
    );
}

#[test]
fn the_entry_point_is_verify_and_the_cli_calls_only_it() {
    let text = doc();
    let names_entry = text.split("\n\n").any(|para| {
        para.to_lowercase().contains("entry point")
            && code_spans(para).iter().any(|(_, s)| {
                let s = s.trim();
                let s = s
                    .strip_prefix("proofpack::")
                    .or_else(|| s.strip_prefix("crate::"))
                    .unwrap_or(s);
                let path = s.split('(').next().unwrap_or(s);
                path == "verify::verify"
            })
    });
    assert!(
        names_entry,
        "docs/architecture.md must name `verify::verify` as the entry point (in a paragraph that says \"entry point\")"
    );
    let cli = root().join("src/cli/verify/mod.rs");
    let code = code_of(&cli);
    assert!(
        code.contains("proofpack::verify::verify("),
        "{} must call `proofpack::verify::verify(`",
        cli.display()
    );
    let bypasses: Vec<&str> = [
        "verify_with",
        "bagit::",
        "verify_run_dir",
        "verify_bundle_file",
        "source::bag",
    ]
    .into_iter()
    .filter(|b| code.contains(b))
    .collect();
    assert!(
        bypasses.is_empty(),
        "{} must reach the pipeline only through `proofpack::verify::verify`; it also uses {bypasses:?}",
        cli.display()
    );
}

#[test]
fn the_resolver_refuses_what_does_not_exist() {
    let src = root().join("src");
    let p = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
    for good in [
        "verify::verify",
        "verify::inputs::Policy::check",
        "verify::Inputs",
        "report::Strictness::RequireAll",
        "verify::source::rundir",
    ] {
        assert!(resolve(&src, &p(good), 0).is_ok(), "{good} should resolve");
    }
    for bad in [
        "verify::no_such_item",
        "verify::inputs::Policy::no_such_method",
        "verify::no_such_module::x",
        "report::Report::push_all",
    ] {
        assert!(
            resolve(&src, &p(bad), 0).is_err(),
            "{bad} should not resolve"
        );
    }
    assert_eq!(
        paths_in("proofpack::verify::verify(target, &Inputs) and a::b"),
        [p("proofpack::verify::verify"), p("a::b")]
    );
}
