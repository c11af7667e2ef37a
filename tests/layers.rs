//! The library's layering rule, checked on the source: each module imports
//! only modules of lower layers (or, within layer 2, `attest` may use `keys`).
//! Layers: 1 digest, report, progress, atomic (digest reports to progress); 2 manifest, keys, attest;
//! 3 bundle, catalog; 4 qualify; 5 peers, bagit. The CLI (binary) sits on top.

use std::collections::BTreeMap;
use std::path::Path;

fn layer_of(module: &str) -> Option<u8> {
    Some(match module {
        "digest" | "report" | "progress" | "atomic" | "timefmt" | "strictjson" => 1,
        "manifest" | "keys" | "attest" | "publication" | "safetensors" | "partition" | "html" => 2,
        "bundle" | "catalog" | "fleet" => 3,
        "qualify" => 4,
        "peers" | "bagit" => 5,
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
