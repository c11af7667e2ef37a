//! The committed fuzz corpora: one archive per target,
//! `fuzz/corpus/<target>.tgz` (scripts/fuzz-corpus.sh packs and unpacks
//! them), read here without unpacking.

use std::io::Read;
use std::path::PathBuf;

/// The archive of `target`'s corpus.
pub fn archive(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(format!("{target}.tgz"))
}

/// Every input of `target`'s corpus, `(name, bytes)`, in name order. The
/// archive holds one folder, `<target>/`, of regular files.
pub fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let path = archive(target);
    let file = std::fs::File::open(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the corpus is committed; scripts/fuzz-corpus.sh pack {target} writes it)",
            path.display()
        )
    });
    let mut tar = tar::Archive::new(flate2::read::GzDecoder::new(file));
    let mut out = Vec::new();
    for entry in tar.entries().unwrap() {
        let mut entry = entry.unwrap();
        let name = entry.path().unwrap().to_string_lossy().into_owned();
        if entry.header().entry_type().is_dir() {
            continue;
        }
        assert!(
            entry.header().entry_type().is_file(),
            "{}: {name} is not a regular file",
            path.display()
        );
        let name = name
            .strip_prefix(&format!("{target}/"))
            .unwrap_or_else(|| panic!("{}: {name} is not under {target}/", path.display()))
            .to_string();
        let mut bytes = Vec::new();
        entry.read_to_end(&mut bytes).unwrap();
        out.push((name, bytes));
    }
    out.sort();
    out
}

/// The input `name` of `target`'s corpus.
pub fn input(target: &str, name: &str) -> Vec<u8> {
    inputs(target)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no input {name} in {}", archive(target).display()))
        .1
}
