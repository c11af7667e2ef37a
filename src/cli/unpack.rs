//! `unpack`: verify while extracting; the tree lands only if everything holds
//! (`--bagit`: as a BagIt bag).

use std::path::PathBuf;

use anyhow::Result;
use proofpack::bundle;

use super::bundle_args::LimitArgs;
use super::Ui;

/// `proofpack unpack`
#[derive(clap::Args, Debug)]
pub struct UnpackArgs {
    /// The bundle (.tgz) to unpack.
    pub bundle: PathBuf,
    /// Directory to unpack into (the bundle's root directory is created in it).
    #[arg(short = 'C', long = "directory", value_name = "DIR")]
    pub dir: PathBuf,
    /// Print the verification report (JSON) on stdout.
    #[arg(long)]
    pub json: bool,
    /// Write a BagIt bag (RFC 8493) instead of the plain tree: the files
    /// under data/, manifest-sha256.txt from MANIFEST, bag-info.txt
    /// (Payload-Oxum, Bagging-Date from the seal, the bundle's SHA-256),
    /// tagmanifest-sha256.txt and the seal. `verify DIR/<root>` checks it.
    #[arg(long)]
    pub bagit: bool,
    /// With --bagit: the release seal to keep in the bag (default:
    /// BUNDLE.tgz.seal.dsse.json beside the bundle, when there is one).
    #[arg(long, value_name = "FILE", requires = "bagit")]
    pub seal: Option<PathBuf>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run_unpack(a: UnpackArgs, ui: &Ui) -> Result<i32> {
    let progress = ui.cancellable_progress("unpacking");
    let v = if a.bagit {
        proofpack::bagit::unpack_bag(
            &a.bundle,
            &a.dir,
            &a.limits.limits(),
            &progress,
            a.seal.as_deref(),
        )?
    } else {
        bundle::unpack(&a.bundle, &a.dir, &a.limits.limits(), &progress)?
    };
    if a.json {
        println!("{}", v.report.to_json());
    } else {
        ui.print_checks(&v.report, "");
    }
    if v.report.ok {
        let root = v.root.as_deref().unwrap_or("?");
        ui.note(&format!(
            "unpack: OK, verified and unpacked into {}{}",
            a.dir.join(root).display(),
            if a.bagit { " as a BagIt bag" } else { "" }
        ));
    } else {
        ui.note(&format!(
            "unpack: FAILED, {} checks failed; nothing was written to {}",
            v.report.summary.failed,
            a.dir.display()
        ));
    }
    Ok(v.report.exit_code())
}
