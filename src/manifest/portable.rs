//! Portable names (contract section 5.1): the paths a sealed bundle
//! may hold are the paths that extract to the same files on Linux, macOS
//! and Windows. A path is refused when any component
//!
//! - holds `\` or `:` (a directory separator on Windows; `:` also opens an
//!   NTFS alternate data stream, so `config.json:Zone.Identifier` writes
//!   into `config.json`), or a control character (U+0000-U+001F,
//!   U+007F-U+009F);
//! - ends with a dot or a space (Windows drops them: `config.json.` and
//!   `config.json ` are `config.json` there);
//! - is a Windows reserved device name, with or without an extension and
//!   in any case (`CON`, `PRN`, `AUX`, `NUL`, `COM1`-`COM9`, `LPT1`-`LPT9`:
//!   `aux.json` opens the AUX device);
//!
//! and two paths are refused together when they are equal after Unicode
//! normalisation (NFC) and full case folding (Unicode CaseFolding.txt,
//! statuses C and F): macOS (normalisation- and case-insensitive APFS and
//! HFS+) and Windows (case-insensitive NTFS) extract them to one file, the
//! later entry overwriting the earlier, so the file on disk would not be
//! the file that was verified. Folding is `NFC(casefold(NFD(name)))`, the
//! canonical caseless match of Unicode 16 section 3.13 (crates
//! `unicode-normalization` and `caseless`), compared component by
//! component so that `Inputs/x` collides with `inputs/y`'s directory.
//!
//! Manifests of model trees are not held to these rules (they stay
//! byte-exact); `check` and `diff` warn about their colliding names.

use std::collections::HashMap;

use unicode_normalization::UnicodeNormalization;

const RESERVED: [&str; 4] = ["CON", "PRN", "AUX", "NUL"];

fn reserved(c: &str) -> bool {
    // Windows takes the part before the first dot, trailing spaces dropped.
    let stem = c.split('.').next().unwrap_or("").trim_end_matches(' ');
    let up = stem.to_ascii_uppercase();
    if RESERVED.contains(&up.as_str()) {
        return true;
    }
    let b = up.as_bytes();
    b.len() == 4
        && (up.starts_with("COM") || up.starts_with("LPT"))
        && (b'1'..=b'9').contains(&b[3])
}

/// Why one path component is not portable, if it is not.
pub fn component_problem(c: &str) -> Option<String> {
    if let Some(ch) = c.chars().find(|ch| matches!(ch, '\\' | ':')) {
        return Some(format!(
            "component {c:?} holds {ch:?}, a separator on Windows (':' also names an NTFS alternate stream)"
        ));
    }
    if let Some(ch) = c.chars().find(|ch| ch.is_control()) {
        return Some(format!(
            "component {c:?} holds the control character U+{:04X}",
            ch as u32
        ));
    }
    if c.ends_with('.') || c.ends_with(' ') {
        return Some(format!(
            "component {c:?} ends with a dot or a space, which Windows drops (it would be another file's name there)"
        ));
    }
    if reserved(c) {
        return Some(format!(
            "component {c:?} is a Windows reserved device name (CON, PRN, AUX, NUL, COM1-9, LPT1-9, with or without an extension)"
        ));
    }
    None
}

/// Why a `/`-separated relative path is not portable, if it is not.
pub fn path_problem(path: &str) -> Option<String> {
    path.split('/').find_map(component_problem)
}

/// A name as macOS and Windows compare it: `NFC(casefold(NFD(name)))`.
pub fn fold(name: &str) -> String {
    // ASCII is its own NFD and NFC, and folds to its lower case: the common
    // path, without the three passes of the general one.
    if name.is_ascii() {
        return name.to_ascii_lowercase();
    }
    fold_unicode(name)
}

fn fold_unicode(name: &str) -> String {
    let folded = caseless::default_case_fold_str(&name.nfd().collect::<String>());
    folded.nfc().collect()
}

/// The paths seen so far, as a tree of folded components, to find those
/// that collide under NFC and case folding. Memory grows with the number
/// of distinct components, not with the square of a path's depth.
#[derive(Default)]
pub struct Collisions {
    /// (parent node, folded component) -> (node, the component as first spelled).
    nodes: HashMap<(usize, String), (usize, Box<str>)>,
}

impl Collisions {
    /// Registers `path`; returns the earlier path it collides with: one
    /// whose folded form equals this path's, or one of its directories'
    /// (given another spelling).
    pub fn register(&mut self, path: &str) -> Option<String> {
        let mut parent = 0usize;
        let mut end = 0usize;
        for c in path.split('/') {
            let start = end + usize::from(end > 0);
            end = start + c.len();
            let next = self.nodes.len() + 1;
            let (id, first) = self
                .nodes
                .entry((parent, fold(c)))
                .or_insert_with(|| (next, c.into()));
            if **first != *c {
                return Some(format!("{}{first}", &path[..start]));
            }
            parent = *id;
        }
        None
    }
}

/// Every pair `(earlier, later)` of `paths` that collide under NFC and
/// case folding, in order.
pub fn collisions<'a>(paths: impl IntoIterator<Item = &'a str>) -> Vec<(String, String)> {
    let mut c = Collisions::default();
    paths
        .into_iter()
        .filter_map(|p| c.register(p).map(|other| (other, p.to_string())))
        .collect()
}

/// The pairs of [`collisions`] from paths read twice (`pass` gives every
/// path to its visitor, in any order, and returns false when it could not):
/// the first pass keeps only the spellings not in folded form (nothing for
/// a lower-case ASCII tree), the second looks every folded-form path and
/// directory up among them. So memory follows the names that are not in
/// folded form, not the listing. `None` when a pass could not be made.
pub fn collisions_in_passes(
    mut pass: impl FnMut(&mut dyn FnMut(&str)) -> bool,
) -> Option<Vec<(String, String)>> {
    let mut spelled: HashMap<String, Box<str>> = HashMap::new();
    let mut pairs = Vec::new();
    let mut reported: std::collections::HashSet<Box<str>> = Default::default();
    let prefixes = |path: &str| {
        let ends: Vec<usize> = path.match_indices('/').map(|(i, _)| i).collect();
        ends.into_iter()
            .chain(std::iter::once(path.len()))
            .map(|end| path[..end].to_string())
            .collect::<Vec<_>>()
    };
    let mut first = |p: &str| {
        for prefix in prefixes(p) {
            let f = fold(&prefix);
            if f == prefix {
                continue;
            }
            match spelled.get(&f) {
                Some(other) if **other != *prefix => {
                    if reported.insert(prefix.clone().into()) {
                        pairs.push((other.to_string(), prefix));
                    }
                }
                Some(_) => {}
                None => {
                    spelled.insert(f, prefix.into());
                }
            }
        }
    };
    if !pass(&mut first) {
        return None;
    }
    if spelled.is_empty() {
        return Some(pairs);
    }
    let mut second = |p: &str| {
        for prefix in prefixes(p) {
            if let Some(other) = spelled.get(&prefix) {
                if **other != *prefix && reported.insert(prefix.clone().into()) {
                    pairs.push((other.to_string(), prefix));
                }
            }
        }
    };
    if !pass(&mut second) {
        return None;
    }
    Some(pairs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components() {
        for bad in [
            "a\\b",
            "config.json:Zone.Identifier",
            "config.json.",
            "config.json ",
            "CON",
            "con",
            "aux.json",
            "Nul.tar.gz",
            "COM1",
            "lpt9.txt",
            "CON .txt",
            "a\u{7}b",
            "a\u{85}b",
        ] {
            assert!(component_problem(bad).is_some(), "{bad:?}");
        }
        for good in [
            "config.json",
            "COM",
            "COM0",
            "COM10",
            "CONSOLE",
            "lpt",
            ".hidden",
            "a b",
            "naïve",
        ] {
            assert!(component_problem(good).is_none(), "{good:?}");
        }
        assert!(path_problem("inputs/aux.json").is_some());
        assert!(path_problem("inputs/config.json").is_none());
    }

    #[test]
    fn folding() {
        // The ASCII path folds as the general one does, character by
        // character and in words.
        for c in 0u8..128 {
            let s = (c as char).to_string();
            assert_eq!(fold(&s), fold_unicode(&s), "{c}");
        }
        assert_eq!(
            fold("Inputs/Config.JSON"),
            fold_unicode("Inputs/Config.JSON")
        );
        assert_eq!(fold("Config.JSON"), fold("config.json"));
        // NFC and NFD spellings of "é".
        assert_eq!(fold("caf\u{e9}"), fold("cafe\u{301}"));
        // Full case folding: ß folds to ss, the Kelvin sign to k.
        assert_eq!(fold("stra\u{df}e"), fold("STRASSE"));
        assert_eq!(fold("\u{212a}"), fold("k"));
        let pairs = collisions(["inputs/config.json", "inputs/Config.json", "Inputs/x", "b"]);
        assert_eq!(
            pairs,
            vec![
                (
                    "inputs/config.json".to_string(),
                    "inputs/Config.json".to_string()
                ),
                ("inputs".to_string(), "Inputs/x".to_string()),
            ]
        );
        assert!(collisions(["a/b", "a/c", "a/b/c"]).is_empty());
        let in_passes = |paths: &[&str]| {
            let mut v = collisions_in_passes(|visit| {
                paths.iter().for_each(|p| visit(p));
                true
            })
            .unwrap();
            v.sort();
            v
        };
        assert!(in_passes(&["a/b", "a/c", "a/b/c"]).is_empty());
        // The folded spelling first ("ss" sorts before "\u{df}"), then after.
        assert_eq!(
            in_passes(&["d/ss", "d/\u{df}"]),
            [("d/\u{df}".to_string(), "d/ss".to_string())]
        );
        assert_eq!(
            in_passes(&["Inputs/x", "inputs/config.json", "inputs/Config.json"]),
            [
                ("Inputs".to_string(), "inputs".to_string()),
                (
                    "inputs/Config.json".to_string(),
                    "inputs/config.json".to_string()
                )
            ]
        );
    }
}
