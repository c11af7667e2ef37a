//! `unpack --bagit`: the bundle verified while it is extracted into
//! `data/` of a temporary tree, the tag files written from what was
//! verified, and the bag moved into place only when everything holds.

use std::fs;
use std::path::Path;

use crate::bundle::{self, BundleVerification, Limits, UnpackLayout};
use crate::digest::Sha256Digest;
use crate::progress::Progress;
use crate::report::Check;

use super::types::{
    io, unencodable, BagError, BAGIT_TXT, BAG_INFO, DATA_DIR, MANIFEST_SHA256, SEAL_TAG_FILE,
    TAGMANIFEST_SHA256,
};

/// Report id of the check that the bag could take the bundle's seal.
pub const BAG_SEAL_CHECK_ID: &str = "seal.structure";

/// Verifies `bundle` and writes it as a bag at `dest_dir/<root>`; nothing
/// is left in `dest_dir` unless every check holds.
///
/// The seal is `seal`, else `BUNDLE.seal.dsse.json` beside the bundle when
/// there is one. A seal must name this bundle's bytes and MANIFEST
/// (`seal.structure`, its signature not checked here: `verify BAG --trust`
/// checks it); it is kept in the bag as `proofpack-seal.dsse.json` and its
/// `sealed_at` gives `Bagging-Date`. Without a seal `Bagging-Date` is left
/// out: the bag is the same bytes whenever it is written.
pub fn unpack_bag(
    bundle_path: &Path,
    dest_dir: &Path,
    limits: &Limits,
    progress: &dyn Progress,
    seal: Option<&Path>,
) -> Result<BundleVerification, BagError> {
    let seal_path = match seal {
        Some(p) => Some(p.to_path_buf()),
        None => {
            let p = bundle::seal_path(bundle_path);
            fs::symlink_metadata(&p).is_ok().then_some(p)
        }
    };
    let seal_bytes = match &seal_path {
        Some(p) => Some(crate::attest::read_envelope_file(p).map_err(io(p))?),
        None => None,
    };
    let layout = UnpackLayout {
        payload_dir: DATA_DIR,
        skip_manifest: true,
    };
    bundle::unpack_with(
        bundle_path,
        dest_dir,
        limits,
        progress,
        &layout,
        |tree, v| write_tags(tree, v, seal_bytes.as_deref()),
    )
}

/// The lines of a tag file of `Label: value` pairs.
fn tag_lines(pairs: &[(&str, String)]) -> String {
    pairs.iter().map(|(k, v)| format!("{k}: {v}\n")).collect()
}

fn write_tags(
    tree: &Path,
    v: &mut BundleVerification,
    seal: Option<&[u8]>,
) -> Result<(), BagError> {
    let manifest = v
        .manifest
        .clone()
        .expect("a bundle whose report holds has a MANIFEST");
    let bundle_sha = v
        .bundle_sha256
        .expect("a bundle whose report holds was read to its end");
    let bytes = v.listed_bytes.unwrap_or(0);
    let mut lines = String::with_capacity(manifest.len() * 90);
    for e in manifest.entries() {
        if let Some(why) = unencodable(&e.path) {
            return Err(BagError::Unencodable {
                path: e.path.clone(),
                why,
            });
        }
        lines.push_str(&format!("{}  {DATA_DIR}/{}\n", e.sha256.to_hex(), e.path));
    }
    let mut sealed_at = None;
    if let Some(env) = seal {
        let c = bundle::seal_structure(
            env,
            Some(bundle_sha),
            Some(manifest.digest()),
            Some((manifest.len() as u64, bytes)),
        );
        let ok = c.passed();
        v.report.push(c);
        if !ok {
            return Ok(()); // the report no longer holds: nothing is moved into place
        }
        sealed_at = crate::attest::inspect_envelope(env)
            .ok()
            .and_then(|u| crate::attest::SealPredicate::from_statement(&u.claimed).ok())
            .map(|p| p.sealed_at);
    } else {
        v.report.push(Check::skip(
            BAG_SEAL_CHECK_ID,
            "no seal beside the bundle: the bag has no Bagging-Date and no proofpack-seal.dsse.json",
        ));
    }
    let root = v.root.clone().unwrap_or_default();
    let mut info: Vec<(&str, String)> = vec![("Bag-Software-Agent", crate::TOOL.to_string())];
    if let Some(t) = &sealed_at {
        info.push(("Bagging-Date", t.get(..10).unwrap_or(t).to_string()));
    }
    info.push(("Payload-Oxum", format!("{bytes}.{}", manifest.len())));
    info.push(("Proofpack-Bundle-SHA256", bundle_sha.to_hex()));
    info.push(("Proofpack-Manifest-SHA256", manifest.digest().to_hex()));
    info.push(("Proofpack-Root", root));
    if let Some(t) = sealed_at {
        info.push(("Proofpack-Sealed-At", t));
    }
    let mut tags: Vec<(&str, Vec<u8>)> = vec![
        ("bagit.txt", BAGIT_TXT.as_bytes().to_vec()),
        (BAG_INFO, tag_lines(&info).into_bytes()),
        (MANIFEST_SHA256, lines.into_bytes()),
    ];
    if let Some(env) = seal {
        tags.push((SEAL_TAG_FILE, env.to_vec()));
    }
    let mut tagmanifest = String::new();
    for (name, body) in &tags {
        let p = tree.join(name);
        fs::write(&p, body).map_err(io(&p))?;
        tagmanifest.push_str(&format!(
            "{}  {name}\n",
            Sha256Digest::of_bytes(body).to_hex()
        ));
    }
    let p = tree.join(TAGMANIFEST_SHA256);
    fs::write(&p, tagmanifest).map_err(io(&p))?;
    Ok(())
}
