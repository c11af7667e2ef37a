//! BagIt (RFC 8493) for archivists and data repositories: a verified bundle
//! written out as a bag ([`unpack_bag`], `unpack --bagit`), and a bag read
//! back as a run (its checks, [`check_bag`]; `verify DIR` verifies its
//! `data/` through `verify::source::bag`).
//!
//! The bag of a bundle whose root is `<root>` is `DIR/<root>/`:
//!
//! - `data/`: the payload, the bundle's files (its MANIFEST left out:
//!   `manifest-sha256.txt` carries the same lines);
//! - `bagit.txt`: `BagIt-Version: 1.0`, `Tag-File-Character-Encoding: UTF-8`;
//! - `manifest-sha256.txt`: one `<sha256>  data/<path>` line per MANIFEST
//!   entry, in MANIFEST's order;
//! - `bag-info.txt`: `Bag-Software-Agent`, `Bagging-Date` (the date of the
//!   seal's `sealed_at`; left out when the bundle has no seal, so that the
//!   bag never depends on the clock), `Payload-Oxum`, and
//!   `Proofpack-Bundle-SHA256`, `Proofpack-Manifest-SHA256`,
//!   `Proofpack-Root`, `Proofpack-Sealed-At`;
//! - `proofpack-seal.dsse.json`: the bundle's release seal, when it had one;
//! - `tagmanifest-sha256.txt`: the SHA-256 of every other tag file.
//!
//! Reading a bag ([`read`]) checks it the way bagit-python's `--validate`
//! does (declaration, complete payload manifests, fixities, Payload-Oxum,
//! tag manifest), refusing what readers read differently (percent-encoded
//! or unnormalised paths, repeated entries, `fetch.txt`), then hands
//! `data/` to the run-directory verification.

mod read;
mod types;
mod write;

pub use read::{check_bag, is_bag};
pub use types::{
    BagError, BAGIT_TXT, BAG_INFO, DATA_DIR, MANIFEST_SHA256, MAX_TAG_FILE, SEAL_TAG_FILE,
    TAGMANIFEST_SHA256,
};
pub use write::unpack_bag;
