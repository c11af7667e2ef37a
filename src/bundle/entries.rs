//! The entry rules of spec section 5: which paths a bundle may hold (safe,
//! relative, UTF-8, under one root), no duplicates and no file used as a
//! directory, the names of the entry types that are rejected, and the
//! per-entry checks collected while reading.

use std::collections::HashMap;

use crate::report::Check;

/// Checks a full path (after PAX / GNU long names). `Ok` holds it without
/// the trailing `/` of a directory; `Err` holds (the path as found, lossily
/// decoded; why it is rejected).
pub(crate) fn classify_path(raw: &[u8], is_dir: bool) -> Result<String, (String, String)> {
    let lossy = String::from_utf8_lossy(raw).into_owned();
    let s = std::str::from_utf8(raw)
        .map_err(|_| (lossy.clone(), "path is not valid UTF-8".to_string()))?;
    let mut p = s;
    if is_dir {
        p = p.strip_suffix('/').unwrap_or(p);
    }
    if p.is_empty() {
        return Err((lossy, "empty path".into()));
    }
    if p.starts_with('/') {
        return Err((lossy, "absolute path".into()));
    }
    if let Some(c) = p.chars().find(|c| matches!(c, '\0' | '\n' | '\r')) {
        return Err((lossy, format!("path contains {c:?}")));
    }
    for comp in p.split('/') {
        match comp {
            "" => return Err((lossy, "empty path component ('//' or trailing '/')".into())),
            "." => return Err((lossy, "'.' component (a leading './' is one)".into())),
            ".." => return Err((lossy, "'..' component (path escapes the root)".into())),
            _ => {}
        }
    }
    Ok(p.to_string())
}

/// The bundle's one top-level directory, fixed by the first usable path.
#[derive(Default)]
pub(crate) struct RootDir {
    /// Its name, once known.
    pub name: Option<String>,
    /// Entries found outside it.
    pub outside: u64,
}

impl RootDir {
    /// Splits a safe full path into its part under the root ("" for the root
    /// itself), fixing the root on first use.
    pub(crate) fn split(&mut self, full: &str) -> Result<String, String> {
        let (first, rest) = match full.split_once('/') {
            Some((a, b)) => (a, b),
            None => (full, ""),
        };
        match &self.name {
            None => {
                // The root is a component of every extracted path.
                if let Some(why) = crate::manifest::portable::component_problem(first) {
                    return Err(format!("not a portable name: {why}"));
                }
                self.name = Some(first.to_string())
            }
            Some(r) if r != first => {
                self.outside += 1;
                return Err(format!("outside the root directory {r}/"));
            }
            _ => {}
        }
        Ok(rest.to_string())
    }
}

/// Why [`Paths::register`] refused a path.
pub(crate) enum Refusal {
    /// The entry is rejected (a duplicate or a conflict).
    Entry(String),
    /// The registry would exceed its bound: reading stops (`entries`).
    Limit(String),
}

/// A name inside a directory.
enum Node {
    Dir { id: usize, explicit: bool },
    File,
}

/// A name inside the directory `parent` (0: the root).
#[derive(PartialEq, Eq)]
struct Key {
    parent: usize,
    name: Box<str>,
}

/// The borrowed form of a [`Key`], so that lookups need no allocation.
trait KeyView {
    fn parent(&self) -> usize;
    fn name(&self) -> &str;
}

impl KeyView for Key {
    fn parent(&self) -> usize {
        self.parent
    }
    fn name(&self) -> &str {
        &self.name
    }
}

impl KeyView for (usize, &str) {
    fn parent(&self) -> usize {
        self.0
    }
    fn name(&self) -> &str {
        self.1
    }
}

impl<'a> std::borrow::Borrow<dyn KeyView + 'a> for Key {
    fn borrow(&self) -> &(dyn KeyView + 'a) {
        self
    }
}

impl std::hash::Hash for dyn KeyView + '_ {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.parent().hash(state);
        self.name().hash(state);
    }
}

impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (self as &dyn KeyView).hash(state)
    }
}

impl PartialEq for dyn KeyView + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.parent() == other.parent() && self.name() == other.name()
    }
}

impl Eq for dyn KeyView + '_ {}

/// The paths accepted so far, for the duplicate and conflict rules.
///
/// Paths are kept as a tree of interned components, (directory, name) ->
/// node, so that the memory grows with the number of new components and not
/// with the square of a path's depth. The number of distinct directories,
/// explicit or implied by a path, is bounded by the entries limit.
pub(crate) struct Paths {
    nodes: HashMap<Key, Node>,
    /// (directory, name folded by NFC and case folding) -> the name
    /// as first spelled, for names not in folded form (portable-name rule).
    folded: HashMap<Key, Box<str>>,
    dirs: u64,
    root_explicit: bool,
    max_dirs: u64,
}

impl Paths {
    pub(crate) fn new(max_dirs: u64) -> Self {
        Paths {
            nodes: HashMap::new(),
            folded: HashMap::new(),
            dirs: 0,
            root_explicit: false,
            max_dirs,
        }
    }

    /// A new name `name` in directory `parent` (whose path is `dir_path`,
    /// "" for the root) must not equal a sibling's after NFC and case
    /// folding: macOS and Windows would extract both to one file. Only
    /// names not already in folded form are kept (under their folded
    /// form); a name in folded form is its own key in `nodes`. So the
    /// common lower-case ASCII tree costs nothing beyond the nodes.
    fn portable(
        &mut self,
        rel: &str,
        parent: usize,
        dir_path: &str,
        name: &str,
    ) -> Result<(), Refusal> {
        let clash = |other: &str| {
            Err(Refusal::Entry(format!(
                "not a portable name: {rel}: {dir_path}{name} and {dir_path}{other} are one file on macOS and Windows (equal after Unicode NFC and case folding)"
            )))
        };
        let ascii_folded = name
            .bytes()
            .all(|b| b.is_ascii() && !b.is_ascii_uppercase());
        let folded = if ascii_folded {
            None
        } else {
            Some(crate::manifest::portable::fold(name)).filter(|f| f != name)
        };
        match folded {
            // In folded form: only a differently spelled earlier name can
            // fold to it.
            None => match self.folded.get(&(parent, name) as &dyn KeyView) {
                Some(first) if **first != *name => clash(first),
                _ => Ok(()),
            },
            Some(f) => {
                if self
                    .nodes
                    .contains_key(&(parent, f.as_str()) as &dyn KeyView)
                {
                    return clash(&f);
                }
                match self.folded.get(&(parent, f.as_str()) as &dyn KeyView) {
                    Some(first) if **first != *name => clash(first),
                    Some(_) => Ok(()),
                    None => {
                        self.folded.insert(
                            Key {
                                parent,
                                name: f.into(),
                            },
                            name.into(),
                        );
                        Ok(())
                    }
                }
            }
        }
    }

    fn get(&mut self, parent: usize, name: &str) -> Option<&mut Node> {
        self.nodes.get_mut(&(parent, name) as &dyn KeyView)
    }

    fn insert(&mut self, parent: usize, name: &str, node: Node) {
        let name = name.into();
        self.nodes.insert(Key { parent, name }, node);
    }

    fn new_dir(&mut self, parent: usize, name: &str, explicit: bool) -> Result<usize, Refusal> {
        if self.dirs >= self.max_dirs {
            return Err(Refusal::Limit(format!(
                "more than {} directories, explicit or implied by the entries' paths; raise --max-entries if this is expected",
                self.max_dirs
            )));
        }
        self.dirs += 1;
        let id = self.dirs as usize;
        self.insert(parent, name, Node::Dir { id, explicit });
        Ok(id)
    }

    /// Duplicate and file/directory conflict checks; registers the path
    /// (relative to the root, "" for the root itself, already checked by
    /// [`classify_path`]).
    pub(crate) fn register(&mut self, rel: &str, is_dir: bool) -> Result<(), Refusal> {
        const TWICE: &str = "duplicate path (the same path appears twice in the archive)";
        // A name that extracts to another file on macOS or Windows.
        if let Some(why) = crate::manifest::portable::path_problem(rel) {
            return Err(Refusal::Entry(format!("not a portable name: {why}")));
        }
        if rel.is_empty() {
            return match std::mem::replace(&mut self.root_explicit, true) {
                true => Err(Refusal::Entry(TWICE.into())),
                false => Ok(()),
            };
        }
        let (parents, name) = match rel.rsplit_once('/') {
            Some((p, n)) => (Some(p), n),
            None => (None, rel),
        };
        let mut dir = 0;
        let mut prefix_len = 0;
        for c in parents.into_iter().flat_map(|p| p.split('/')) {
            let start = prefix_len + usize::from(prefix_len > 0);
            prefix_len = start + c.len();
            dir = match self.get(dir, c) {
                Some(Node::File) => {
                    return Err(Refusal::Entry(format!(
                        "path conflict: {} is a regular file but is used as a directory here",
                        &rel[..prefix_len]
                    )))
                }
                Some(Node::Dir { id, .. }) => *id,
                None => {
                    self.portable(rel, dir, &rel[..start], c)?;
                    self.new_dir(dir, c, false)?
                }
            };
        }
        let dir_path = &rel[..rel.len() - name.len()];
        if self.get(dir, name).is_none() {
            self.portable(rel, dir, dir_path, name)?;
        }
        match (self.get(dir, name), is_dir) {
            (Some(Node::File), false) | (Some(Node::Dir { explicit: true, .. }), true) => {
                Err(Refusal::Entry(TWICE.into()))
            }
            (Some(Node::File), true) => Err(Refusal::Entry(
                "duplicate path (a file and a directory)".into(),
            )),
            (Some(Node::Dir { .. }), false) => Err(Refusal::Entry(
                "duplicate path (a file and a directory, or a file used as a parent directory)"
                    .into(),
            )),
            (Some(Node::Dir { explicit, .. }), true) => {
                *explicit = true;
                Ok(())
            }
            (None, false) => {
                self.insert(dir, name, Node::File);
                Ok(())
            }
            (None, true) => self.new_dir(dir, name, true).map(|_| ()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(r: Result<(), Refusal>) -> Option<String> {
        match r {
            Ok(()) => None,
            Err(Refusal::Entry(why)) => Some(why),
            Err(Refusal::Limit(why)) => Some(format!("limit: {why}")),
        }
    }

    #[test]
    fn duplicates_and_conflicts() {
        let mut p = Paths::new(100);
        assert_eq!(entry(p.register("", true)), None);
        assert!(entry(p.register("", true)).unwrap().contains("twice"));
        assert_eq!(entry(p.register("a/b/c", false)), None);
        assert!(entry(p.register("a/b/c", false)).unwrap().contains("twice"));
        assert!(entry(p.register("a/b", false))
            .unwrap()
            .contains("parent directory"));
        assert_eq!(entry(p.register("a/b", true)), None);
        assert!(entry(p.register("a/b", true)).unwrap().contains("twice"));
        assert!(entry(p.register("a/b/c", true))
            .unwrap()
            .contains("a file and a directory"));
        assert!(entry(p.register("a/b/c/d", false))
            .unwrap()
            .contains("path conflict: a/b/c is a regular file"));
        assert_eq!(entry(p.register("a/x", false)), None);
        assert_eq!(entry(p.register("x", false)), None);
    }

    #[test]
    fn names_equal_under_nfc_and_case_folding_collide() {
        let mut p = Paths::new(100);
        assert_eq!(entry(p.register("inputs/config.json", false)), None);
        let why = entry(p.register("inputs/Config.json", false)).unwrap();
        assert!(
            why.contains("inputs/Config.json and inputs/config.json"),
            "{why}"
        );
        let why = entry(p.register("Inputs/x", false)).unwrap();
        assert!(why.contains("Inputs and inputs"), "{why}");
        assert!(entry(p.register("cafe\u{301}", false)).is_none());
        assert!(entry(p.register("caf\u{e9}", false)).is_some());
        assert_eq!(entry(p.register("inputs/other.json", false)), None);
    }

    #[test]
    fn directories_are_bounded() {
        let mut p = Paths::new(3);
        assert_eq!(entry(p.register("a/b/c/f", false)), None);
        assert!(entry(p.register("a/b/d/f", false))
            .unwrap()
            .starts_with("limit: more than 3 directories"));
    }
}

/// The name of a typeflag that is rejected.
pub(crate) fn type_name(t: u8) -> String {
    match t {
        b'1' => "hard link".into(),
        b'2' => "symbolic link".into(),
        b'3' => "character device".into(),
        b'4' => "block device".into(),
        b'6' => "FIFO".into(),
        b'7' => "contiguous file".into(),
        b'S' => "GNU sparse file".into(),
        b'g' => "PAX global header".into(),
        b'V' => "GNU volume label".into(),
        b'M' => "GNU multi-volume continuation".into(),
        b'D' => "GNU dump directory".into(),
        t if t.is_ascii_graphic() => format!("unsupported entry type '{}'", t as char),
        t => format!("unsupported entry type 0x{t:02x}"),
    }
}

/// What an entry of typeflag `t` is, for messages.
pub(crate) fn kind_name(t: u8) -> String {
    match t {
        b'0' | 0 => "regular file".into(),
        b'5' => "directory".into(),
        t => type_name(t),
    }
}

/// Past this many bytes, further problems with the same id are not appended
/// to its detail (the report stays bounded).
const MAX_MERGED_DETAIL: usize = 4096;
const MORE: &str = "; and more problems with entries of this id";

/// Per-entry results, keyed by check id, in archive order; a second problem
/// with the same id is merged into the first check.
#[derive(Default)]
pub(crate) struct EntryChecks {
    /// The checks, in the order their ids first came (a list and an index,
    /// not a map of checks that the report then copies).
    checks: Vec<Check>,
    index: HashMap<String, u32>,
}

impl EntryChecks {
    pub(crate) fn put(&mut self, id: String, c: Check) {
        match self.index.get(&id) {
            Some(&i) => {
                let old = &mut self.checks[i as usize];
                if c.failed() {
                    if !old.failed() {
                        *old = c;
                    } else if old.detail.len() < MAX_MERGED_DETAIL {
                        old.detail = format!("{}; {}", old.detail, c.detail);
                    } else if !old.detail.ends_with(MORE) {
                        old.detail.push_str(MORE);
                    }
                }
            }
            None => {
                self.index.insert(id, self.checks.len() as u32);
                self.checks.push(c);
            }
        }
    }

    /// True when a check has id `id`.
    pub(crate) fn contains(&self, id: &str) -> bool {
        self.index.contains_key(id)
    }

    /// The checks, in order.
    pub(crate) fn into_checks(self) -> Vec<Check> {
        self.checks
    }
}
