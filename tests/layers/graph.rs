//! The file-level import graph of src/: which file each path of each file
//! names, through `mod.rs` re-exports, and the cycles in that graph.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::path::Path;

use super::source::{self, Occurrence};

/// The library (src/lib.rs and its modules) or the binary (src/main.rs, cli/).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Krate {
    Lib,
    Bin,
}

/// A module path in one crate: `(Lib, ["bundle", "read"])`.
pub type ModPath = (Krate, Vec<String>);

/// One file of src/ as a module.
pub struct File {
    /// Relative to src/, with `/`: `bundle/read.rs`.
    pub rel: String,
    pub module: ModPath,
    /// The paths of its non-test code.
    pub occurrences: Vec<Occurrence>,
    /// The items its non-test code defines at the top level.
    pub defined: Vec<String>,
    /// The modules its non-test code declares (`mod x;`).
    declared: Vec<String>,
    /// Names its `use`s bind, at any depth: name -> absolute path.
    aliases: BTreeMap<String, ModPath>,
}

/// A file of src/ given as its path relative to src/ and its text.
pub fn file(rel: &str, text: &str) -> File {
    let code = source::without_test_items(&source::code_only(text));
    let mut segs: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if segs.last().is_some_and(|s| s == "mod") {
        segs.pop();
    }
    let krate = if segs[0] == "main" || segs[0] == "cli" {
        Krate::Bin
    } else {
        Krate::Lib
    };
    if segs == ["main"] || segs == ["lib"] {
        segs.clear();
    }
    File {
        rel: rel.to_string(),
        module: (krate, segs),
        occurrences: source::occurrences(&code),
        defined: source::defined_items(&code),
        declared: source::declared_modules(&code),
        aliases: BTreeMap::new(),
    }
}

fn child_of(parent: &ModPath, name: &str) -> ModPath {
    let mut p = parent.clone();
    p.1.push(name.to_string());
    p
}

/// Every file of the crate, and how paths resolve among them.
pub struct Graph {
    pub files: Vec<File>,
    by_module: BTreeMap<ModPath, usize>,
    /// Per file: name its top-level `use`s bind -> absolute path.
    reexports: Vec<BTreeMap<String, ModPath>>,
}

impl Graph {
    /// The graph of `files`, less the test-only ones (a file whose parent
    /// declares it only in `#[cfg(test)]` code, and the files under it).
    pub fn new(mut files: Vec<File>) -> Graph {
        loop {
            let declared: BTreeSet<ModPath> = files
                .iter()
                .flat_map(|f| f.declared.iter().map(|d| child_of(&f.module, d)))
                .collect();
            let before = files.len();
            files.retain(|f| f.module.1.is_empty() || declared.contains(&f.module));
            if files.len() == before {
                break;
            }
        }
        files.sort_by(|a, b| a.rel.cmp(&b.rel));
        let by_module = files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.module.clone(), i))
            .collect();
        let mut g = Graph {
            files,
            by_module,
            reexports: Vec::new(),
        };
        for i in 0..g.files.len() {
            // Twice: a `use` may start from a name an earlier one binds.
            for _ in 0..2 {
                let aliases = g.bound_names(i, false);
                g.files[i].aliases = aliases;
            }
        }
        g.reexports = (0..g.files.len()).map(|i| g.bound_names(i, true)).collect();
        g
    }

    /// The names the `use`s of file `i` bind (only top-level ones if `top`).
    fn bound_names(&self, i: usize, top: bool) -> BTreeMap<String, ModPath> {
        let f = &self.files[i];
        let mut out = BTreeMap::new();
        for o in f
            .occurrences
            .iter()
            .filter(|o| o.in_use && (o.top_level || !top))
        {
            if let (Some(a), Some(p)) = (&o.alias, self.absolute(i, o)) {
                out.insert(a.clone(), p);
            }
        }
        out
    }

    /// The absolute path `o` in file `i` names; `None` for other crates.
    pub fn absolute(&self, i: usize, o: &Occurrence) -> Option<ModPath> {
        let f = &self.files[i];
        let (krate, here) = (f.module.0, &f.module.1);
        let segs = &o.segments;
        let first = segs.first()?.as_str();
        let (base, rest): (ModPath, &[String]) = match first {
            "crate" => ((krate, vec![]), &segs[1..]),
            "proofpack" if krate == Krate::Bin => ((Krate::Lib, vec![]), &segs[1..]),
            "self" => ((krate, here.clone()), &segs[1..]),
            "super" => {
                let n = segs.iter().take_while(|s| *s == "super").count();
                let up = n.saturating_sub(o.inline);
                let keep = here.len().checked_sub(up)?;
                ((krate, here[..keep].to_vec()), &segs[n..])
            }
            _ => {
                let child = child_of(&f.module, first);
                if self.by_module.contains_key(&child) {
                    (child, &segs[1..])
                } else {
                    (f.aliases.get(first)?.clone(), &segs[1..])
                }
            }
        };
        let mut p = base.1;
        p.extend(rest.iter().cloned());
        Some((base.0, p))
    }

    /// The longest prefix of `p` that is a module file: (file, its length).
    fn module_prefix(&self, p: &ModPath) -> (usize, usize) {
        (0..=p.1.len())
            .rev()
            .find_map(|k| {
                self.by_module
                    .get(&(p.0, p.1[..k].to_vec()))
                    .map(|&i| (i, k))
            })
            .expect("the crate root is a file")
    }

    /// The file an absolute path names: the longest module prefix, or, when
    /// the next segment is a name that module's `use`s bind, the file that
    /// name resolves to (re-export chains followed).
    pub fn resolve(&self, p: &ModPath) -> usize {
        let mut p = p.clone();
        for _ in 0..16 {
            let (file, k) = self.module_prefix(&p);
            let Some(target) = p.1.get(k).and_then(|n| self.reexports[file].get(n)) else {
                return file;
            };
            let mut next = target.clone();
            next.1.extend(p.1[k + 1..].iter().cloned());
            p = next;
        }
        self.module_prefix(&p).0
    }

    /// The files file `i` imports, each with the line and path of its first
    /// import. A `use` of a module by name is not an edge (its uses are).
    pub fn edges(&self, i: usize) -> BTreeMap<usize, (usize, String)> {
        let mut out = BTreeMap::new();
        for o in &self.files[i].occurrences {
            let Some(p) = self.absolute(i, o) else {
                continue;
            };
            if o.in_use && self.module_prefix(&p).1 == p.1.len() {
                continue;
            }
            let to = self.resolve(&p);
            if to != i {
                out.entry(to)
                    .or_insert_with(|| (o.line, o.segments.join("::")));
            }
        }
        out
    }

    /// The file of a module path, if it is one.
    pub fn file_of(&self, p: &ModPath) -> Option<usize> {
        self.by_module.get(p).copied()
    }
}

/// Every file under `src`, read.
pub fn crate_graph(src: &Path) -> Graph {
    let mut paths = Vec::new();
    super::rust_files(src, &mut paths);
    let files = paths
        .iter()
        .map(|p| {
            let rel = p
                .strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            file(&rel, &std::fs::read_to_string(p).unwrap())
        })
        .collect();
    Graph::new(files)
}

/// The strongly connected components of `adj` with more than one node
/// (Tarjan's algorithm), each sorted.
pub fn cycles(adj: &[BTreeSet<usize>]) -> Vec<Vec<usize>> {
    struct T<'a> {
        adj: &'a [BTreeSet<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    fn visit(t: &mut T, v: usize) {
        t.index[v] = Some(t.next);
        t.low[v] = t.next;
        t.next += 1;
        t.stack.push(v);
        t.on_stack[v] = true;
        for &w in t.adj[v].iter() {
            match t.index[w] {
                None => {
                    visit(t, w);
                    t.low[v] = t.low[v].min(t.low[w]);
                }
                Some(iw) if t.on_stack[w] => t.low[v] = t.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(t.low[v]) == t.index[v] {
            let mut scc = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on_stack[w] = false;
                scc.push(w);
                if w == v {
                    break;
                }
            }
            if scc.len() > 1 {
                scc.sort();
                t.out.push(scc);
            }
        }
    }
    let n = adj.len();
    let mut t = T {
        adj,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            visit(&mut t, v);
        }
    }
    t.out.sort();
    t.out
}

/// A shortest cycle through the first node of `scc`: the nodes in order,
/// the first repeated at the end.
pub fn one_cycle(adj: &[BTreeSet<usize>], scc: &[usize]) -> Vec<usize> {
    let start = scc[0];
    let mut came_from: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for &w in &adj[v] {
            if w == start {
                let mut back = vec![start];
                let mut at = v;
                while at != start {
                    back.push(at);
                    at = came_from[&at];
                }
                back.push(start);
                back.reverse();
                return back;
            }
            if scc.contains(&w) && !came_from.contains_key(&w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    vec![start]
}
