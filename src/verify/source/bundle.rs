//! Verifying a sealed bundle: the bundle layer's structural checks, then the
//! qualification checks on the very bytes those checks verified.
//!
//! The bundle is streamed, never extracted. A bundle sealed with
//! `qualification.json` right after MANIFEST is read once: the
//! qualification is read ahead from the first blocks (untrusted), the plan
//! made from it, and the one verifying pass checks every entry against
//! MANIFEST while it collects the evidence; `bundle.stable` then requires
//! the qualification read ahead to be the entry the pass verified. A bundle
//! in the v1 order is read twice: pass 1 verifies the structure and keeps
//! only `qualification.json`, pass 2 collects through the same verifying
//! reader, and its bytes are trusted only if its digest and structural
//! verdict equal pass 1's. Otherwise the file changed under us and every
//! content check is reported as not checkable.

use std::collections::BTreeMap;
use std::io::{self, Read};
use std::path::Path;

use crate::bundle::{seal_check, verify_bundle, BundleError, EntryVisitor, Limits};
use crate::keys::TrustStore;
use crate::progress::{NoProgress, Progress};
use crate::report::{Check, Reason, Report};
use crate::run::qualification::MAX_SMALL_FILE;
use crate::run::qualification::QUALIFICATION_FILE;
use crate::verify::checks::options::Options;
use crate::verify::checks::order::{
    check_qualification, evaluate, no_pins, unverifiable_rest, Unverifiable, QUALIFICATION_INVALID,
};
use crate::verify::evidence::collector::{declared_requests_fit, Collector, Plan, Reread};
use crate::verify::evidence::context::{point_area, Run, ATTESTATIONS_AREA, PINS_AREA};
use crate::verify::verification::SealState;
use crate::verify::verification::{Source, Verification, VerifyError};

struct QualificationGrab {
    bytes: Option<Result<Vec<u8>, String>>,
}

impl EntryVisitor for QualificationGrab {
    fn wants(&mut self, rel: &str) -> bool {
        rel == QUALIFICATION_FILE
    }
    fn visit(&mut self, _rel: &str, content: &mut dyn Read) -> io::Result<()> {
        self.bytes = Some(
            crate::capped::read_to_cap(&mut *content, MAX_SMALL_FILE)?
                .ok_or_else(|| format!("{QUALIFICATION_FILE}: larger than {MAX_SMALL_FILE} bytes")),
        );
        io::copy(content, &mut io::sink())?;
        Ok(())
    }
}

struct Pass2<'a, 'p> {
    collector: &'a mut Collector<'p>,
    seen: std::collections::BTreeSet<String>,
    /// The SHA-256 of the qualification.json entry this pass read.
    qualification: Option<crate::digest::Sha256Digest>,
}

impl EntryVisitor for Pass2<'_, '_> {
    fn wants(&mut self, _rel: &str) -> bool {
        // Every file: the evidence is read, every other file is sniffed for
        // records of undeclared points.
        true
    }
    fn visit(&mut self, rel: &str, content: &mut dyn Read) -> io::Result<()> {
        self.seen.insert(rel.to_string());
        if rel == QUALIFICATION_FILE {
            // Its digest comes from the reader (`digested`).
            io::copy(content, &mut io::sink())?;
            return Ok(());
        }
        self.collector.offer(rel, content)
    }
    fn digested(&mut self, rel: &str, sha256: &crate::digest::Sha256Digest) {
        if rel == QUALIFICATION_FILE {
            self.qualification = Some(*sha256);
        } else {
            self.collector.digested(rel, *sha256);
        }
    }
}

/// Another reading of the journals a pass asked to read again (see
/// [`Reread`]).
struct Deferred<'a, 'p> {
    collector: &'a mut Collector<'p>,
    now: Vec<(String, Reread)>,
}

impl EntryVisitor for Deferred<'_, '_> {
    fn wants(&mut self, rel: &str) -> bool {
        self.now.iter().any(|(d, _)| d == rel)
    }
    fn visit(&mut self, rel: &str, content: &mut dyn Read) -> io::Result<()> {
        let why = self
            .now
            .iter()
            .find(|(d, _)| d == rel)
            .map_or(Reread::Details, |(_, w)| *w);
        self.collector.reread(rel, why, content)
    }
}

/// Reads the journals `collector` asks to read again, one more pass through
/// the verifying reader at a time, until it asks for none (at most two: a
/// journal read after its records may then ask for its details). The
/// passes' outcomes are for [`SecondReading::same_as`].
fn read_deferred(
    path: &Path,
    limits: &Limits,
    collector: &mut Collector<'_>,
) -> Result<SecondReading, BundleError> {
    let mut passes = Vec::new();
    for _ in 0..2 {
        let now = collector.take_deferred();
        if now.is_empty() {
            break;
        }
        let said: Vec<String> = now
            .iter()
            .map(|(rel, why)| format!("{rel} ({})", why.why()))
            .collect();
        let mut v = Deferred { collector, now };
        let pass = verify_bundle(path, limits, Some(&mut v), &NoProgress)?;
        passes.push((said.join("; "), pass));
    }
    // None is left: a reading after the records asks at most for details.
    for (rel, _) in collector.take_deferred() {
        collector.not_read_again(&rel, "a third reading was asked for");
    }
    Ok(SecondReading(passes))
}

/// The passes that read journals again, each with what it read and why.
struct SecondReading(Vec<(String, crate::bundle::BundleVerification)>);

impl SecondReading {
    /// Whether every pass read the bytes `first` verified.
    fn same_as(&self, first: &crate::bundle::BundleVerification) -> bool {
        self.0.iter().all(|(_, p)| {
            p.bundle_sha256.is_some()
                && p.bundle_sha256 == first.bundle_sha256
                && p.report == first.report
        })
    }

    /// What `bundle.stable` adds when it holds.
    fn said(&self) -> String {
        self.0
            .iter()
            .map(|(journals, _)| {
                format!("; read again in one more pass of the same verified bytes (same SHA-256, same structural verdict): {journals}")
            })
            .collect()
    }

    /// Why `bundle.stable` fails when a pass read other bytes.
    fn changed(&self) -> String {
        let journals: Vec<&str> = self.0.iter().map(|(j, _)| j.as_str()).collect();
        format!(
            "the bundle changed before a journal was read again ({}); its content cannot be trusted, verify a copy that is not being written",
            journals.join("; ")
        )
    }
}

/// Identity of the bundle, its sidecar and its seal (device, inode, size,
/// modification time), to notice any of them being replaced mid-way.
#[derive(Debug, PartialEq, Eq)]
struct FileSet(Vec<Option<FileId>>);

/// (device, inode, size, mtime seconds, mtime nanoseconds).
type FileId = (u64, u64, u64, i64, i64);

impl FileSet {
    fn of(bundle: &Path, seal: Option<&Path>) -> FileSet {
        use std::os::unix::fs::MetadataExt;
        let id = |p: &Path| {
            std::fs::metadata(p)
                .ok()
                .map(|m| (m.dev(), m.ino(), m.len(), m.mtime(), m.mtime_nsec()))
        };
        let mut side = bundle.as_os_str().to_owned();
        side.push(".sha256");
        let default_seal = crate::bundle::seal_path(bundle);
        FileSet(vec![
            id(bundle),
            id(Path::new(&side)),
            id(seal.unwrap_or(&default_seal)),
        ])
    }
}

/// Where the release seal is and what to check it against.
#[derive(Default, Clone, Copy)]
pub struct SealRequest<'a> {
    /// The seal envelope; `None`: `BUNDLE.seal.dsse.json` beside the bundle.
    pub path: Option<&'a Path>,
    /// Trust roots (the seal needs a key trusted for `release`).
    pub trust: Option<&'a TrustStore>,
    /// Fail when no seal verifies.
    pub require: bool,
    /// Verify the structure and the seal only, not the qualification.
    pub structure_only: bool,
}

/// The engine attestations and host reports the qualification names, as
/// paths in the bundle with the digests MANIFEST lists for them.
fn bundled_inputs(
    q: &crate::run::qualification::Qualification,
    pass1: &crate::bundle::BundleVerification,
) -> Vec<(String, crate::digest::Sha256Digest)> {
    let Some(m) = &pass1.manifest else {
        return Vec::new();
    };
    let root = pass1.root.as_deref().unwrap_or_default();
    q.engines
        .iter()
        .map(|e| &e.attestation)
        .chain(q.host_checks.iter())
        .filter_map(|rel| m.get(rel).map(|e| (format!("{root}/{rel}"), e.sha256)))
        .collect()
}

/// Errors from the bundle layer surface unchanged (exit 2).
impl From<BundleError> for VerifyError {
    fn from(e: BundleError) -> Self {
        VerifyError::Bundle(e)
    }
}

/// Verifies a sealed bundle end to end. `bundle_report` receives the
/// structural checks (`bundle.*`) of pass 1 first, so the report reads in
/// the order an auditor thinks: structure, qualification, pins,
/// attestations, points.
pub fn verify_bundle_file(
    path: &Path,
    limits: &Limits,
    seal: &SealRequest<'_>,
    opts: &Options<'_>,
    progress: &dyn Progress,
) -> Result<Verification, VerifyError> {
    let mut grab = QualificationGrab { bytes: None };
    // A seal of this path in progress finishes first, so that the bundle,
    // its sidecar and its seal are read as one set.
    crate::atomic::OutputLock::wait_for_writer(path);
    let before = FileSet::of(path, seal.path);
    // A bundle sealed with qualification.json right after MANIFEST
    // is read in one pass: the qualification is read ahead from the first
    // blocks, and the one verifying pass collects the evidence while it
    // checks every entry against MANIFEST (bundle.stable then holds the
    // qualification read ahead to the entry the pass verified). A bundle
    // in the v1 order is read in two passes.
    let ahead = if seal.structure_only {
        None
    } else {
        crate::bundle::read_ahead(path, MAX_SMALL_FILE)
    };
    let ahead_q = ahead
        .as_deref()
        .and_then(|b| crate::run::qualification::Qualification::parse(b).ok());
    if let Some(q) = &ahead_q {
        declared_requests_fit(q).map_err(VerifyError::Usage)?;
        if let Some(p) = opts.publication {
            crate::verify::checks::published::locate_bindings(q, p).map_err(VerifyError::Usage)?;
        }
    }
    let ahead_plan = ahead_q.map(|q| Plan::new(q, opts.pins, &opts.counted_digests()));
    let mut ahead_collector = ahead_plan.as_ref().map(|p| {
        Collector::new(p)
            .with_deriver(opts.deriver)
            .hashed_by_reader()
            .deferring_journals()
    });
    let mut one = ahead_collector.as_mut().map(|c| Pass2 {
        collector: c,
        seen: Default::default(),
        qualification: None,
    });
    let pass1 = match one.as_mut() {
        Some(v) => verify_bundle(path, limits, Some(v), progress)?,
        None => verify_bundle(path, limits, Some(&mut grab), progress)?,
    };
    if one.is_some() {
        grab.bytes = ahead.clone().map(Ok);
    }
    let mut report = Report::new(path.display().to_string()).requiring(opts.strictness);
    report.extend(pass1.report.clone());
    let seal_outcome = seal_check(path, seal.path, seal.trust, seal.require, &pass1)?;
    let seal_state = match (seal_outcome.present, seal_outcome.signature_checked) {
        (false, _) => SealState::Absent,
        (true, false) => SealState::NotChecked,
        (true, true) => SealState::Checked,
    };
    let seal_checks = seal_outcome.checks;
    let mut source = Source {
        inputs: seal_outcome.envelope.into_iter().collect(),
        bundle_sha256: pass1.bundle_sha256,
        manifest_digest: pass1.manifest.as_ref().map(|m| m.digest()),
        root: pass1.root.clone(),
        structure_only: seal.structure_only,
        seal: seal_state,
    };
    if seal.structure_only {
        // Asked for the bundle's structure (and seal) only: said plainly in
        // the report and the verdict. A `bundle` pin is still compared with
        // the bytes; every other pin needs the qualification and fails.
        for c in seal_checks {
            report.push(c);
        }
        report.push(Check::not_checked(
            "qualification.schema",
            Reason::NotAskedFor,
            "--structure-only: the qualification was not verified, only the bundle's structure and seal",
        ));
        report.enter(Some(PINS_AREA));
        if let Some(p) = opts.pins {
            for pin in &p.pins {
                let id = format!("pin:{}", pin.name);
                report.push(match (pin.name.as_str(), pass1.bundle_sha256, pin.sha256) {
                    ("bundle", Some(d), Some(want))
                        if pin.path.is_none() && pin.files.is_none() =>
                    {
                        Check::outcome(id, d == want, "the .tgz bytes")
                            .with_values(want.to_hex(), d.to_hex())
                    }
                    _ => Check::not_checkable(
                        id,
                        "--structure-only: the qualification was not verified",
                    ),
                });
            }
        } else if opts.publication.is_none() {
            report.push(no_pins("neither --publication nor --pins given"));
        }
        report.enter(None);
        if opts.publication.is_some() {
            report.push(
                Check::not_checkable(
                    "publication:*",
                    "--structure-only: the qualification was not verified, so the publication cannot be checked against it",
                )
                .publication(),
            );
        }
        report.push(
            Check::not_checked("attestation:*", Reason::NotAskedFor, "--structure-only")
                .in_area(ATTESTATIONS_AREA),
        );
        report.push(
            Check::not_checked("point:*", Reason::NotAskedFor, "--structure-only")
                .in_area(point_area("*")),
        );
        return Ok(Verification::new(report, opts, &source));
    }
    source.structure_only = false;
    if let (None, Some(cause)) = (&grab.bytes, pass1.stopped_by.as_deref()) {
        // Reading stopped before qualification.json: it was not reached,
        // which is not "not in the bundle".
        for c in seal_checks {
            report.push(c);
        }
        let why = format!("reading stopped before {QUALIFICATION_FILE} was reached");
        report.push(Check::not_checkable_by(
            "qualification.schema",
            cause,
            format!("{QUALIFICATION_FILE}: not reached: reading stopped before it (see {cause})"),
        ));
        unverifiable_rest(&mut report, opts, &Unverifiable { cause, why: &why });
        return Ok(Verification::new(report, opts, &source));
    }
    let qbytes = grab.bytes.unwrap_or_else(|| {
        Err(format!(
            "{QUALIFICATION_FILE}: not in the bundle, so it is not a qualification run (pass --structure-only to verify only its structure and seal)"
        ))
    });
    // The qualification check is reported after `bundle.stable`, so that
    // the bundle's checks stay together.
    let mut qreport = Report::new("").requiring(opts.strictness);
    let Some(q) = check_qualification(&mut qreport, qbytes.as_deref().map_err(Clone::clone)) else {
        for c in seal_checks {
            report.push(c);
        }
        report.extend(qreport);
        unverifiable_rest(&mut report, opts, &QUALIFICATION_INVALID);
        return Ok(Verification::new(report, opts, &source));
    };
    declared_requests_fit(&q).map_err(VerifyError::Usage)?;
    if let Some(p) = opts.publication {
        crate::verify::checks::published::locate_bindings(&q, p).map_err(VerifyError::Usage)?;
    }
    source.inputs.extend(bundled_inputs(&q, &pass1));
    if let (Some(one), Some(ahead)) = (one, ahead.as_deref()) {
        let (seen, verified) = (one.seen, one.qualification);
        let (Some(mut collector), Some(plan)) = (ahead_collector, ahead_plan.as_ref()) else {
            return Err(VerifyError::Usage(
                "internal: a bundle read in one pass without its plan".into(),
            ));
        };
        let again = read_deferred(path, limits, &mut collector)?;
        let collected = collector.finish();
        let read_ahead = crate::digest::Sha256Digest::of_bytes(ahead);
        let same_files = FileSet::of(path, seal.path) == before;
        let stable = pass1.bundle_sha256.is_some()
            && verified == Some(read_ahead)
            && same_files
            && again.same_as(&pass1);
        let stable_check = Check::outcome(
                "bundle.stable",
                stable,
                if stable {
                    format!("read in one pass (qualification.json right after MANIFEST): the qualification.json read ahead is the entry this pass verified against MANIFEST, and the bundle, its .sha256 sidecar and its seal were not replaced while it was read{}", again.said())
                } else if !same_files {
                    "the bundle, its .sha256 sidecar or its seal was replaced while it was verified; the set read cannot be trusted, verify a copy that is not being written".to_string()
                } else if !again.same_as(&pass1) {
                    again.changed()
                } else {
                    "the qualification.json read ahead is not the entry the verifying pass read; its content cannot be trusted".to_string()
                },
            )
            .with_values(
                read_ahead.to_hex(),
                verified.map(|d| d.to_hex()).unwrap_or_default(),
            );
        let checks = Reported {
            report,
            stable: (stable_check, stable),
            seal_checks,
            qreport,
        };
        let mut v = conclude(checks, plan, collected, &seen, &pass1, opts, &source);
        v.qualification = Some(q);
        return Ok(v);
    }
    let plan = Plan::new(q, opts.pins, &opts.counted_digests());
    let mut collector = Collector::new(&plan)
        .with_deriver(opts.deriver)
        .hashed_by_reader()
        .deferring_journals();
    let mut visitor = Pass2 {
        collector: &mut collector,
        seen: Default::default(),
        qualification: None,
    };
    let pass2 = verify_bundle(path, limits, Some(&mut visitor), &NoProgress)?;
    let seen = std::mem::take(&mut visitor.seen);
    let again = read_deferred(path, limits, &mut collector)?;
    let same_files = FileSet::of(path, seal.path) == before;
    let stable = pass2.bundle_sha256.is_some()
        && pass2.bundle_sha256 == pass1.bundle_sha256
        && pass2.report == pass1.report
        && same_files
        && again.same_as(&pass1);
    let stable_check = Check::outcome(
            "bundle.stable",
            stable,
            if stable {
                format!("read in two passes (v1 order: qualification.json is not the first entry after MANIFEST); the second pass read the same verified bytes (same SHA-256, same structural verdict){}", again.said())
            } else if !same_files {
                "the bundle, its .sha256 sidecar or its seal was replaced while it was verified; the set read cannot be trusted, verify a copy that is not being written".to_string()
            } else if !again.same_as(&pass1) {
                again.changed()
            } else {
                "the bundle changed between the two passes; its content cannot be trusted, verify a copy that is not being written".to_string()
            },
        )
        .with_values(
            pass1.bundle_sha256.map(|d| d.to_hex()).unwrap_or_default(),
            pass2.bundle_sha256.map(|d| d.to_hex()).unwrap_or_default(),
        );
    let checks = Reported {
        report,
        stable: (stable_check, stable),
        seal_checks,
        qreport,
    };
    let collected = collector.finish();
    let mut v = conclude(checks, &plan, collected, &seen, &pass2, opts, &source);
    v.qualification = Some(plan.q);
    Ok(v)
}

/// What is reported before the evidence checks, in the order an auditor
/// reads it: the bundle's structure, `bundle.stable` (and whether it
/// holds), the seal's checks, the qualification's.
struct Reported {
    report: Report,
    stable: (Check, bool),
    seal_checks: Vec<Check>,
    qreport: Report,
}

/// The checks after the evidence pass, one path for both bundle orders:
/// what `checks` reports first; then, when the bundle was stable, the files
/// the plan names that the pass did not see (not in the bundle, or not
/// reached when reading stopped early) and every family of checks, and
/// otherwise every content check not checkable because of `bundle.stable`.
fn conclude(
    checks: Reported,
    plan: &Plan,
    collected: crate::verify::evidence::collector::Collected,
    seen: &std::collections::BTreeSet<String>,
    pass: &crate::bundle::BundleVerification,
    opts: &Options<'_>,
    source: &Source,
) -> Verification {
    let Reported {
        mut report,
        stable: (stable_check, stable),
        seal_checks,
        qreport,
    } = checks;
    report.push(stable_check);
    for c in seal_checks {
        report.push(c);
    }
    report.extend(qreport);
    if !stable {
        unverifiable_rest(
            &mut report,
            opts,
            &Unverifiable {
                cause: "bundle.stable",
                why: "the bundle changed while it was read",
            },
        );
        return Verification::new(report, opts, source);
    }
    // A file the plan names but the pass did not see.
    let missing = match pass.stopped_by.as_deref() {
        Some(cause) => format!("not reached: reading stopped before it (see {cause})"),
        None => "not in the bundle".to_string(),
    };
    let mut unusable = BTreeMap::new();
    for rel in plan
        .clients
        .keys()
        .chain(plan.journals.keys())
        .chain(plan.attestations.iter())
        .chain(plan.pin_paths.iter())
        .chain(plan.plan_file.iter())
        .chain(plan.fact_files.keys())
        .chain(plan.sources.keys())
    {
        if !seen.contains(rel) {
            unusable.insert(rel.clone(), missing.clone());
        }
    }
    let run = Run {
        plan,
        collected: &collected,
        unusable: &unusable,
        bundle_digest: pass.bundle_sha256,
    };
    let rows = evaluate(&mut report, &run, opts);
    let mut v = Verification::new(report, opts, source);
    v.rows = rows;
    v
}
