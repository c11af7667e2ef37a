//! Content-addressed manifests of file sets (spec section 2).
//!
//! A manifest is the identity of a set of regular files: one `path:sha256`
//! line per file, sorted by the UTF-8 bytes of the path. Its SHA-256 is the
//! value that gets published, so every rule that shapes those bytes lives here
//! and nowhere else: which paths are representable ([`validate_path`]), how the
//! three interchange formats are written and read, and how a directory becomes
//! a manifest ([`build`]).
//!
//! Building is the part that must run at terabyte scale. SHA-256 cannot be
//! split inside one file, so the ceiling is one core's SHA-NI rate per file
//! times the cores across files. [`build`] therefore stats everything first,
//! then hashes files in parallel, largest first, so that one huge shard
//! started last cannot leave the other cores idle at the end.
//!
//! Nothing is skipped silently: a dangling symlink, a symlink to a directory,
//! a socket, FIFO or device, and a name that cannot be written canonically are
//! all errors that name the path. Only `--exclude` removes files, and only
//! because the user said so.
//!
//! The module is split by concept: `types` holds the manifest types, the
//! path rules and the canonical text (the identity); `parse` reads the three
//! formats, `render` writes them, `walk` lists a tree, `hash` hashes what it
//! lists and builds a manifest, `check` compares a tree with a manifest and
//! `diff` compares two manifests. `stream` reads a manifest file entry
//! by entry and `sorted_walk` lists a tree in manifest order, one directory
//! at a time, so that `check`, `diff` and `catalog import` merge sorted
//! sequences instead of holding tables of entries.

mod check;
mod count;
mod diff;
mod emit;
mod hash;
mod parse;
pub mod portable;
mod render;
mod sorted_walk;
mod stream;
mod types;
mod walk;

pub use check::{
    check, check_streamed, file_check_id, require_header_digests_streamed, structure_check,
    structure_check_shards, CheckOptions, Checked, HASH_BATCH,
};
pub use count::EntryCounter;
pub use diff::{diff, diff_streamed, Diff, DiffCounts, DiffRow, Diffed};
pub use emit::{build_each, Emitted};
pub use hash::{
    build, hash_files, hash_found, header_digests, with_threads, BuildOptions, HashCache,
};
pub use parse::Format;
pub use render::{canonical_line, json_entry, json_head, json_tail, sha256sum_line};
pub use sorted_walk::{SortedEntry, SortedWalk};
pub use stream::{
    with_streams, EntryStream, ManifestSource, ReadWhole, Stopped, StreamEntry, Totals,
};
pub use types::{
    describe_problems, validate_path, Entry, Manifest, ManifestError, MANIFEST_SCHEMA,
    MAX_MANIFEST_BYTES,
};
pub use walk::{
    scan, scan_all, scan_run_dir, walk_tree, Excludes, FileStat, FoundFile, Problems, Walked,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::digest::Sha256Digest;

    /// An entry with a size, for the tests of every submodule.
    pub(super) fn e(p: &str, c: &[u8]) -> Entry {
        Entry {
            path: p.into(),
            size: Some(c.len() as u64),
            sha256: Sha256Digest::of_bytes(c),
        }
    }

    #[test]
    fn path_rules() {
        for ok in ["a", "a/b", "a b/c:d", "ü/ñ", "a\\b", "..a", "a.."] {
            assert!(validate_path(ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "/a", "a/", "a//b", "./a", "a/./b", "../a", "a/..", "a\nb", "a\rb", "a\0b",
        ] {
            assert!(validate_path(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn sorted_by_bytes_and_unique() {
        let m = Manifest::from_entries(
            vec![e("b", b"1"), e("a/z", b"2"), e("a", b"3"), e("B", b"4")],
            "t",
        )
        .unwrap();
        let paths: Vec<_> = m.entries().iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["B", "a", "a/z", "b"]);
        assert!(matches!(
            Manifest::from_entries(vec![e("a", b"1"), e("a", b"2")], "t"),
            Err(ManifestError::Duplicate { .. })
        ));
    }
}
