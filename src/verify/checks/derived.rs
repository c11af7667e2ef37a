//! Client records derived from the benchmark client's own result file:
//! `point:<name>.source` and `point:<name>.derived`.
//!
//! A point imported with `run import` names its source (a vLLM result file
//! kept in the run) and the parameters of the derivation. `verify` derives
//! the records again from the raw file and requires the run's client
//! records file to equal them byte for byte, so that the bundle's records
//! say exactly what the client wrote. The raw file is the primary
//! evidence: the point's counts and metrics are recomputed from the
//! records the raw file derives to (a changed TTFT in the raw file fails
//! the claims it changes), and a records file that differs from them fails
//! `.derived`, naming the first differing line.
//!
//! This layer states what must hold; how a result file becomes records is
//! the adoption layer's (`adopt::derive`), reached through
//! [`crate::run::deriver::RecordDeriver`] as engine attestations are reached through
//! [`crate::verify::checks::attested::EngineAttestationVerifier`].

use crate::report::{Check, Reason, Report};
use crate::verify::evidence::context::Run;

/// `point:<name>.source` and `point:<name>.derived` for point `i`, when it
/// names a source.
pub fn derived_checks(report: &mut Report, run: &Run<'_>, i: usize) {
    let q = run.q();
    let p = &q.points[i];
    let Some(src) = &p.source else {
        return;
    };
    let base = format!("point:{}", p.name);
    let source_id = format!("{base}.source");
    let derived_id = format!("{base}.derived");
    let d = match (run.problem(&src.file), run.collected.derived.get(&i)) {
        (Some(why), _) => {
            report.push(Check::fail(&source_id, why));
            report.push(Check::not_checkable_by(
                &derived_id,
                &source_id,
                format!("the result file {} cannot be read", src.file),
            ));
            return;
        }
        (None, None) => {
            report.push(Check::fail(
                &source_id,
                format!("{}: not in the run", src.file),
            ));
            report.push(Check::not_checkable_by(
                &derived_id,
                &source_id,
                format!("the result file {} is not in the run", src.file),
            ));
            return;
        }
        (None, Some(Err(why))) => {
            report.push(Check::fail(&source_id, why.clone()));
            report.push(Check::not_checkable_by(
                &derived_id,
                &source_id,
                format!("no client records can be derived from {}", src.file),
            ));
            return;
        }
        (None, Some(Ok(d))) => d,
    };
    report.push(match &d.consistency {
        Ok(what) => Check::pass(&source_id, format!("{}: {what}", src.file)),
        Err(what) => Check::fail(&source_id, format!("{}: {what}", src.file)),
    });
    let mut problems = Vec::new();
    let records_digest = match run.problem(&p.client_records) {
        Some(why) => {
            problems.push(why);
            None
        }
        None => run.collected.hashes.get(&p.client_records).copied(),
    };
    match records_digest {
        Some(h) if h == d.digest => {}
        Some(h) => problems.push(match &d.difference {
            Some(diff) => format!(
                "{} differs from the records derived from {} at line {}{}",
                p.client_records,
                src.file,
                diff.line,
                diff.request_id
                    .as_ref()
                    .map_or_else(String::new, |r| format!(" (request {r:?})"))
            ),
            None => format!(
                "{} (SHA-256 {}) is not the records derived from {} (SHA-256 {})",
                p.client_records,
                h.to_hex(),
                src.file,
                d.digest.to_hex()
            ),
        }),
        None if problems.is_empty() => {
            problems.push(format!("{}: not in the run", p.client_records))
        }
        None => {}
    }
    match q.plan.as_ref().map(|f| (f, run.collected.hashes.get(f))) {
        Some((_, Some(h))) if *h == src.plan_sha256 => {}
        Some((f, Some(h))) => problems.push(format!(
            "the point was imported under another benchmark plan (SHA-256 {}); {f} is now {}: the plan changed after the import",
            src.plan_sha256.to_hex(),
            h.to_hex()
        )),
        Some((f, None)) => problems.push(format!(
            "the benchmark plan {f} the import was checked against is not in the run"
        )),
        None => problems.push(
            "qualification.json names no benchmark plan, but the import was checked against one"
                .into(),
        ),
    }
    report.push(if problems.is_empty() {
        Check::pass(
            &derived_id,
            format!(
                "{} equals the {} records derived from {} by {} ({}); imported under the sealed benchmark plan",
                p.client_records, d.count, src.file, src.rules, d.anchor
            ),
        )
    } else {
        Check::fail(&derived_id, problems.join("; "))
    });
}

/// `point:<name>.journal_source`, for a point whose records are derived
/// from a source and that names a journal: the journal is byte for byte
/// what its router log, kept in the run, derives to. A journal that names
/// no log is the publisher's file: not checked, failed where every check
/// is required.
pub fn journal_source_check(report: &mut Report, run: &Run<'_>, i: usize) {
    let p = &run.q().points[i];
    let (Some(_), Some(journal)) = (&p.source, &p.journal) else {
        return;
    };
    let id = format!("point:{}.journal_source", p.name);
    let Some(js) = &p.journal_source else {
        let why = format!(
            "{journal} names no router log it was derived from (journal_source): the journal is the publisher's file, not the router's own record"
        );
        report.push(
            Check::not_checked(&id, Reason::NoEvidence, format!("not checked: {why}"))
                .or_fail(format!("{why}; --require-all")),
        );
        return;
    };
    let derived = match (run.problem(&js.file), run.collected.journal_derived.get(&i)) {
        (Some(why), _) => Err(why),
        (None, None) => Err(format!(
            "{}: the router log the journal names is not in the run",
            js.file
        )),
        (None, Some(Err(why))) => Err(why.clone()),
        (None, Some(Ok(d))) => Ok(*d),
    };
    let check = match (derived, run.collected.hashes.get(journal)) {
        (Err(why), _) => Check::fail(&id, why),
        (Ok(_), None) => Check::fail(&id, format!("{journal}: not read")),
        (Ok(want), Some(got)) => Check::outcome(
            &id,
            want == *got,
            if want == *got {
                format!("{journal} is the journal the router log {} derives to", js.file)
            } else {
                format!(
                    "{journal} is not the journal the router log {} derives to: the journal was changed after it was derived, or the log was",
                    js.file
                )
            },
        )
        .with_values(want.to_hex(), got.to_hex()),
    };
    report.push(check);
}

/// `point:<name>.journal_source.tokens`, for a point whose journal derives
/// from a router log: every successful request whose log line states
/// `completion_tokens` has that many output tokens in the records the
/// result file derives to (the log is the backend's count, passed on by
/// the router; the result file's `output_lens` is the client's, and they
/// drive the output throughput and TPOT). A log that states no token
/// count witnesses none: not checked, failed where every check is
/// required.
pub fn journal_tokens_check(report: &mut Report, run: &Run<'_>, i: usize) {
    let p = &run.q().points[i];
    let (Some(_), Some(js)) = (&p.source, &p.journal_source) else {
        return;
    };
    let id = format!("point:{}.journal_source.tokens", p.name);
    let Some(witnessed) = run.collected.journal_tokens.get(&i) else {
        report.push(Check::not_checkable_by(
            &id,
            format!("point:{}.journal_source", p.name),
            format!("{}: the router log was not derived", js.file),
        ));
        return;
    };
    let Some(records) = run.collected.clients.get(&i) else {
        report.push(Check::not_checkable_by(
            &id,
            format!("point:{}.records", p.name),
            "the point's records could not be read",
        ));
        return;
    };
    let ok: std::collections::HashMap<&str, u64> = records
        .in_file_order()
        .filter(|(_, c, _)| c.status == crate::run::qualification::Status::Ok)
        .map(|(rid, _, (_, out))| (rid, out))
        .collect();
    let (off, compared) =
        crate::run::deriver::token_disagreements(witnessed, |rid| ok.get(rid).copied(), &js.file);
    if compared == 0 {
        let why = format!(
            "{} states no completion_tokens of a successful request of the records: the router log witnesses no output token count",
            js.file
        );
        report.push(
            Check::not_checked(&id, Reason::NoEvidence, format!("not checked: {why}"))
                .or_fail(format!("{why}; --require-all")),
        );
        return;
    }
    report.push(if off.is_empty() {
        Check::pass(
            &id,
            format!(
                "the output tokens of all {compared} successful requests the router log counts are the records' ({})",
                js.file
            ),
        )
    } else {
        Check::fail(
            &id,
            format!(
                "{} of {compared} successful requests have other output tokens in the records than the router log counts: {}{}",
                off.len(),
                off.iter().take(5).cloned().collect::<Vec<_>>().join("; "),
                if off.len() > 5 { "; ..." } else { "" }
            ),
        )
    });
}
