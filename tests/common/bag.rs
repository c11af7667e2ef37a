//! The sample bundle as BagIt bags, for the tests that need every bag
//! check emitted.

use std::path::{Path, PathBuf};

/// `unpack --bagit` of the sample bundle into `dir`: the bag as written,
/// and a copy with the optional SHA-512 payload and tag manifests added.
pub fn sample_bags(dir: &Path) -> [PathBuf; 2] {
    let sample = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/sample/kimi-k3-mi355x-20260923-sample.tgz");
    std::fs::create_dir_all(dir).unwrap();
    let bag = dir.join("bag");
    let (code, _, err) = super::proofpack_out(&[
        "unpack".as_ref(),
        sample.as_os_str(),
        "--bagit".as_ref(),
        "-C".as_ref(),
        bag.as_os_str(),
    ]);
    assert_eq!(code, 0, "{err}");
    let bag = if bag.join("bagit.txt").exists() {
        bag
    } else {
        std::fs::read_dir(&bag)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path()
    };
    assert!(bag.join("bagit.txt").exists(), "{}", bag.display());
    let with512 = dir.join("bag512");
    super::copy_tree(&bag, &with512);
    add_sha512_manifests(&with512);
    [bag, with512]
}

/// Writes `manifest-sha512.txt` of the bag's payload and
/// `tagmanifest-sha512.txt` of its tag files, as BagIt 1.0 lays them out.
pub fn add_sha512_manifests(bag: &Path) {
    use sha2::{Digest, Sha512};
    let hex = |p: &Path| {
        let d = Sha512::digest(std::fs::read(p).unwrap());
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    let mut payload: Vec<String> = walkdir::WalkDir::new(bag.join("data"))
        .sort_by_file_name()
        .into_iter()
        .map(|e| e.unwrap())
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e
                .path()
                .strip_prefix(bag)
                .unwrap()
                .to_str()
                .unwrap()
                .to_string();
            format!("{}  {rel}\n", hex(e.path()))
        })
        .collect();
    payload.sort();
    std::fs::write(bag.join("manifest-sha512.txt"), payload.concat()).unwrap();
    let mut tags = Vec::new();
    for name in [
        "bagit.txt",
        "bag-info.txt",
        "manifest-sha256.txt",
        "manifest-sha512.txt",
    ] {
        if bag.join(name).exists() {
            tags.push(format!("{}  {name}\n", hex(&bag.join(name))));
        }
    }
    std::fs::write(bag.join("tagmanifest-sha512.txt"), tags.concat()).unwrap();
}
