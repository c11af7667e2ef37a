//! The pinned-inputs rows: each row's kind mapped to its checks (digest
//! rows against attested subjects, the plan or a fact; engine, accelerator
//! and model rows against the attestations; commits and unknown labels
//! against facts), and every extra column reported as not checked.

use serde_json::json;

use super::attestations::{per_engine, subject_check};
use super::workload::{budgets, workload};
use super::{fact_check, row_at, unmapped, Context};
use crate::digest::Sha256Digest;
use crate::publication::{Pinned, PinnedRow, Publication};
use crate::qualify::file_problem;
use crate::report::{Check, Report};

fn digest_row(
    ctx: &Context<'_>,
    p: &Publication,
    r: &PinnedRow,
    digest: Sha256Digest,
    files: Option<u64>,
) -> Check {
    let id = format!("publication:pin:{}", r.slug);
    let at = row_at(p, r);
    let base = r
        .slug
        .trim_end_matches("-sha-256")
        .trim_end_matches("-sha256")
        .to_string();
    let subject = match base.as_str() {
        _ if files.is_some() => Some("weights.manifest"),
        "checkpoint-weights" | "weights" | "weights-manifest" | "checkpoint" => {
            Some("weights.manifest")
        }
        "model-config" | "config" | "config-json" => Some("config.json"),
        "engine-image" | "image" => Some("engine-image"),
        _ => None,
    };
    if let Some(name) = subject {
        let c = subject_check(ctx, id.clone(), &at, name, digest);
        let Some(files) = files else {
            return c;
        };
        if c.failed() {
            return c;
        }
        return match ctx.collected.manifest_lines.values().find(|(d, _)| *d == digest) {
            Some((_, lines)) if *lines == files => Check::pass(
                id,
                format!("{}; the manifest lists {files} files", c.detail),
            ),
            Some((_, lines)) => Check::fail(
                id,
                format!("{at}: the manifest with this digest lists {lines} files, the publication says {files}"),
            )
            .with_values(files, *lines),
            None => Check::fail(
                id,
                format!("{at}: no file under manifests/ has this digest, so the file count {files} cannot be verified"),
            )
            .with_values(files, serde_json::Value::Null),
        };
    }
    if matches!(base.as_str(), "benchmark-plan" | "plan") {
        let Some(plan) = &ctx.q.plan else {
            return Check::not_checkable(id, format!("{at}: qualification.json names no plan"));
        };
        return match (
            file_problem(plan, ctx.collected, ctx.unusable),
            ctx.collected.hashes.get(plan),
        ) {
            (Some(why), _) => Check::not_checkable(id, format!("{at}: {why}")),
            (None, None) => Check::not_checkable(id, format!("{at}: {plan} not in the run")),
            (None, Some(d)) => Check::outcome(
                id,
                *d == digest,
                format!("{at}: the benchmark plan {plan} is {}", d.prefixed()),
            )
            .with_values(digest.to_hex(), d.to_hex()),
        };
    }
    let name = if ctx.facts.contains_key(&base) {
        &base
    } else {
        &r.slug
    };
    match ctx.facts.get(name) {
        None => unmapped(
            ctx,
            id,
            &at,
            &format!("what {base} is"),
            &format!("declare a fact named {base:?} in qualification.json"),
        ),
        Some(Err(why)) => Check::fail(id, format!("{at}: fact {name} cannot be read: {why}")),
        Some(Ok(f)) => match f.as_digest() {
            Some(d) => Check::outcome(
                id,
                d == digest,
                format!("{at}: fact {name} of the run is {}", d.prefixed()),
            )
            .with_values(digest.to_hex(), d.to_hex()),
            None => Check::fail(
                id,
                format!("{at}: fact {name} is {}, not a digest", f.describe()),
            ),
        },
    }
}

pub(super) fn pinned_checks(report: &mut Report, p: &Publication, ctx: &Context<'_>) {
    for r in &p.pinned {
        let id = format!("publication:pin:{}", r.slug);
        let at = row_at(p, r);
        for (h, text) in &r.extra {
            report.push(unmapped(
                ctx,
                format!("{id}.{}", crate::publication::slug(h)),
                &format!("{at}, column \"{h}\": {text:?}"),
                &format!("what a {h:?} column says"),
                "only the Value column of the pinned-inputs table is checked",
            ));
        }
        match &r.kind {
            Pinned::Digest { digest, files } => report.push(digest_row(ctx, p, r, *digest, *files)),
            Pinned::Engine {
                name,
                version,
                image,
            } => {
                report.push(per_engine(
                    ctx,
                    format!("{id}.name"),
                    &at,
                    "engine",
                    name,
                    |f| f.name.clone(),
                    |v| v.eq_ignore_ascii_case(name),
                ));
                report.push(per_engine(
                    ctx,
                    format!("{id}.version"),
                    &at,
                    "engine version",
                    version,
                    |f| f.version.clone(),
                    |v| v == version,
                ));
                if let Some(img) = image {
                    report.push(subject_check(
                        ctx,
                        format!("{id}.image"),
                        &at,
                        "engine-image",
                        *img,
                    ));
                }
            }
            Pinned::Accelerator {
                name,
                count,
                tensor,
            } => {
                let norm = |s: &str| {
                    s.split_whitespace()
                        .collect::<Vec<_>>()
                        .join(" ")
                        .to_ascii_lowercase()
                };
                report.push(per_engine(
                    ctx,
                    format!("{id}.name"),
                    &at,
                    "accelerator",
                    name,
                    |f| f.accelerator.clone(),
                    |v| norm(v) == norm(name),
                ));
                if let Some((n, word)) = count {
                    let n = *n;
                    report.push(per_engine(
                        ctx,
                        format!("{id}.count"),
                        &at,
                        "GPUs per engine",
                        &format!("{word} ({n})"),
                        |f| f.accelerator_count.to_string(),
                        |v| v == n.to_string(),
                    ));
                }
                if let Some(tp) = tensor {
                    let tp = *tp;
                    report.push(per_engine(
                        ctx,
                        format!("{id}.tensor-parallelism"),
                        &at,
                        "tensor parallelism",
                        &tp.to_string(),
                        |f| {
                            f.parallelism
                                .get("tensor")
                                .map_or("none".into(), |t| t.to_string())
                        },
                        |v| v == tp.to_string(),
                    ));
                }
            }
            Pinned::Model(m) => {
                report.push(
                    Check::outcome(
                        format!("{id}.qualification"),
                        &ctx.q.model == m,
                        format!("{at}: qualification.json's model is {}", ctx.q.model),
                    )
                    .with_values(m.clone(), ctx.q.model.clone()),
                );
                report.push(per_engine(
                    ctx,
                    format!("{id}.attestations"),
                    &at,
                    "model",
                    m,
                    |f| f.model.clone(),
                    |v| v == m,
                ));
            }
            Pinned::Commit(c) => {
                let c2 = c.clone();
                report.push(fact_check(
                    ctx,
                    id,
                    &at,
                    &r.slug,
                    &format!("the {} commit", r.label),
                    move |f| f.equals_text(&c2),
                    json!(c),
                ));
            }
            Pinned::Budgets {
                ttft,
                tpot,
                deadline,
            } => budgets(ctx, report, &at, &r.slug, ttft, tpot, deadline),
            Pinned::Workload(w) => workload(ctx, report, &at, &r.slug, w),
            Pinned::Text => {
                let v = r.value.clone();
                report.push(fact_check(
                    ctx,
                    id,
                    &at,
                    &r.slug,
                    &format!("\"{}\"", r.label),
                    move |f| f.equals_text(&v),
                    json!(r.value),
                ));
            }
        }
    }
}
