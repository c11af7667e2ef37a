//! Verifying a run directory (no bundle: the bundle checks are not
//! checked, and a `bundle` pin fails). The directory is read under the
//! rules `seal` applies, so a run directory and its bundle get the same
//! answer.

use std::collections::BTreeMap;
use std::path::Path;

use crate::report::{Check, Reason, Report};
use crate::run::qualification;
use crate::run::qualification::QUALIFICATION_FILE;
use crate::verify::checks::options::Options;
use crate::verify::checks::order::{
    check_qualification, evaluate, unverifiable_rest, QUALIFICATION_INVALID,
};
use crate::verify::evidence::collector;
use crate::verify::evidence::collector::{Collector, Plan};
use crate::verify::evidence::context::Run;
use crate::verify::source::rundir_files;
use crate::verify::source::rundir_files::{collect_run_dir, open_in_root, Unusable};
use crate::verify::verification::SealState;
use crate::verify::verification::{Source, Verification, VerifyError};

/// Reads `qualification.json` of the run directory `root`: its bytes, or
/// why it cannot be used.
fn read_qualification(root: &Path) -> Result<Result<Vec<u8>, String>, VerifyError> {
    Ok(match open_in_root(root, QUALIFICATION_FILE)? {
        Ok(f) => crate::capped::read_to_cap(f, qualification::MAX_SMALL_FILE)
            .map_err(|source| rundir_files::RunDirError::Io {
                path: root.join(QUALIFICATION_FILE),
                source,
            })?
            .ok_or_else(|| {
                format!(
                    "{QUALIFICATION_FILE}: larger than {} bytes",
                    qualification::MAX_SMALL_FILE
                )
            }),
        Err(Unusable::Missing) => Err(format!("{QUALIFICATION_FILE}: not in the run directory")),
        Err(Unusable::NotRegular(why)) => Err(format!("{QUALIFICATION_FILE}: {why}")),
    })
}

/// Verifies the run directory `root`.
pub fn verify_run_dir(root: &Path, opts: &Options<'_>) -> Result<Verification, VerifyError> {
    if !root.is_dir() {
        return Err(VerifyError::NotARun {
            path: root.to_path_buf(),
        });
    }
    let source = Source {
        seal: SealState::Absent,
        ..Source::default()
    };
    let mut report = Report::new(root.display().to_string()).requiring(opts.strictness);
    report.push(Check::not_checked(
        "bundle",
        Reason::NoEvidence,
        "verifying a run directory: there is no sealed bundle to check",
    ));
    let qbytes = read_qualification(root)?;
    let Some(q) = check_qualification(&mut report, qbytes.as_deref().map_err(Clone::clone)) else {
        unverifiable_rest(&mut report, opts, &QUALIFICATION_INVALID);
        return Ok(Verification::new(report, opts, &source));
    };
    collector::declared_requests_fit(&q).map_err(VerifyError::Usage)?;
    if let Some(p) = opts.publication {
        crate::verify::checks::published::locate_bindings(&q, p).map_err(VerifyError::Usage)?;
    }
    let plan = Plan::new(q, opts.pins, &opts.counted_digests());
    let mut collector = Collector::new(&plan).with_deriver(opts.deriver);
    let scan = collect_run_dir(root, &mut collector)?;
    report.push(if scan.tree_problems.is_empty() {
        Check::pass(
            "run.tree",
            format!(
                "{} regular files, no symlinks, special files or hard links to outside",
                scan.files
            ),
        )
    } else {
        Check::fail(
            "run.tree",
            format!(
                "the run directory holds what a bundle cannot (seal refuses it too): {}",
                crate::manifest::describe_problems(&scan.tree_problems)
            ),
        )
    });
    let unusable: BTreeMap<String, String> = scan
        .unusable
        .into_iter()
        .map(|(k, v)| {
            let why = match v {
                Unusable::Missing => "not in the run".to_string(),
                Unusable::NotRegular(w) => w,
            };
            (k, why)
        })
        .collect();
    let collected = collector.finish();
    let run = Run {
        plan: &plan,
        collected: &collected,
        unusable: &unusable,
        bundle_digest: None,
        bundle_name: None,
    };
    let rows = evaluate(&mut report, &run, opts);
    let mut v = Verification::new(report, opts, &source);
    v.rows = rows;
    v.qualification = Some(plan.q);
    Ok(v)
}
