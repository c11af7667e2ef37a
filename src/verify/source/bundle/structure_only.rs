//! A bundle verified under `--structure-only`: its structure and seal, and
//! what that leaves unverified, said plainly.

use crate::bundle::BundleVerification;
use crate::report::{Check, Reason, Report};
use crate::verify::checks::options::Options;
use crate::verify::checks::order::no_pins;
use crate::verify::evidence::context::{point_area, ATTESTATIONS_AREA, PINS_AREA};

/// Asked for the bundle's structure (and seal) only: said plainly in the
/// report and the verdict. A `bundle` pin is still compared with the
/// bytes; every other pin needs the qualification and fails.
pub(super) fn structure_only(
    report: &mut Report,
    seal_checks: Vec<Check>,
    pass1: &BundleVerification,
    opts: &Options<'_>,
) {
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
                ("bundle", Some(d), Some(want)) if pin.path.is_none() && pin.files.is_none() => {
                    Check::outcome(id, d == want, "the .tgz bytes")
                        .with_values(want.to_hex(), d.to_hex())
                }
                _ => {
                    Check::not_checkable(id, "--structure-only: the qualification was not verified")
                }
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
}
