//! `unpack`: verify while extracting; the tree lands only if everything holds
//! (`--bagit`: as a BagIt bag).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use proofpack::bundle;

use super::bundle_args::LimitArgs;
use super::Ui;

/// `proofpack unpack`
#[derive(clap::Args, Debug)]
pub struct UnpackArgs {
    /// The bundle (.tgz) to unpack.
    pub bundle: PathBuf,
    /// Directory to unpack into (the bundle's root directory is created in
    /// it); created if missing (its parent must exist), and removed again if
    /// the bundle does not verify.
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

/// `-C DIR` that does not exist is created (one level, like
/// `mkdir DIR`: its parent must exist), and removed again unless the unpack
/// succeeds; a path that is not a directory is named as such. True when it
/// was created here.
fn prepare_dir(dir: &Path) -> Result<bool> {
    match std::fs::metadata(dir) {
        Ok(m) if m.is_dir() => return Ok(false),
        Ok(_) => anyhow::bail!(
            "-C {}: is not a directory; -C takes the directory to unpack into (the bundle's root directory is created in it)",
            dir.display()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(anyhow::Error::new(e).context(format!("-C {}", dir.display()))),
    }
    let parent = match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if !parent.is_dir() {
        anyhow::bail!(
            "-C {}: neither it nor its parent {} exists; create it first (`mkdir -p {}`)",
            dir.display(),
            parent.display(),
            dir.display()
        );
    }
    std::fs::create_dir(dir).with_context(|| format!("-C {}: cannot create it", dir.display()))?;
    Ok(true)
}

pub fn run_unpack(a: UnpackArgs, ui: &Ui) -> Result<i32> {
    let created = prepare_dir(&a.dir)?;
    let progress = ui.cancellable_progress("unpacking");
    let result: Result<_> = if a.bagit {
        proofpack::bagit::unpack_bag(
            &a.bundle,
            &a.dir,
            &a.limits.limits(),
            &progress,
            a.seal.as_deref(),
        )
        .map_err(Into::into)
    } else {
        bundle::unpack(&a.bundle, &a.dir, &a.limits.limits(), &progress).map_err(Into::into)
    };
    if created && !result.as_ref().is_ok_and(|v| v.report.ok()) {
        // Nothing was unpacked: leave nothing behind, not even the directory.
        let _ = std::fs::remove_dir(&a.dir);
    }
    let v = result?;
    if a.json {
        println!("{}", v.report.to_json());
    } else {
        ui.print_checks(&v.report, "");
    }
    if v.report.ok() {
        let root = v.root.as_deref().unwrap_or("?");
        ui.note(&format!(
            "unpack: OK, verified and unpacked into {}{}",
            a.dir.join(root).display(),
            if a.bagit { " as a BagIt bag" } else { "" }
        ));
    } else {
        ui.note(&format!(
            "unpack: FAILED, {} checks failed; nothing was written to {}",
            v.report.summary().failed,
            a.dir.display()
        ));
    }
    Ok(v.report.exit_code())
}
