//! The pinned-inputs rows: each row's kind mapped to its checks (digest
//! rows against attested subjects or the file the evidence chain names;
//! engine, accelerator and model rows against the attestations; commits
//! against the plan's revisions; anything else against a fact the
//! publisher declared, marked as such), and every extra column reported as
//! not checked.

use serde_json::json;

use crate::digest::Sha256Digest;
use crate::publication::{Pinned, PinnedRow, Publication};
use crate::report::{Check, Report};
use crate::verify::checks::published::attestations::{per_engine, subject_check};
use crate::verify::checks::published::chain::{missing, Chain};
use crate::verify::checks::published::context::{fact_check, row_at, unmapped, Context};
use crate::verify::checks::published::workload::{budgets, workload};
use crate::verify::evidence::context::file_problem;

fn digest_row(
    ctx: &Context<'_>,
    chain: &Chain,
    p: &Publication,
    r: &PinnedRow,
    digest: Sha256Digest,
    files: Option<u64>,
    shards: Option<u64>,
) -> Check {
    let id = format!("publication:pin:{}", r.slug);
    let at = row_at(p, r);
    let base = r
        .slug
        .trim_end_matches("-sha-256")
        .trim_end_matches("-sha256")
        .to_string();
    let subject = match base.as_str() {
        _ if files.is_some() || shards.is_some() => Some("weights.manifest"),
        "checkpoint-weights" | "weights" | "weights-manifest" | "checkpoint" => {
            Some("weights.manifest")
        }
        "model-config" | "config" | "config-json" => Some("config.json"),
        "engine-image" | "image" => Some("engine-image"),
        _ => None,
    };
    if let Some(name) = subject {
        let c = subject_check(ctx, id.clone(), &at, name, digest);
        if c.failed() || (files.is_none() && shards.is_none()) {
            return c;
        }
        // "N safetensors shards" counts the manifest's `.safetensors`
        // entries, "N files" all of them.
        let stated = [(files, "files"), (shards, "safetensors shards")];
        let Some(m) = ctx
            .collected
            .manifest_lines
            .values()
            .find(|m| m.digest == digest)
        else {
            let (n, what) = stated
                .iter()
                .find_map(|(n, w)| n.map(|n| (n, *w)))
                .unwrap_or((0, "files"));
            return Check::fail(
                id,
                format!("{at}: no file under manifests/ has this digest, so the count of {what} ({n}) cannot be verified"),
            )
            .with_values(n, serde_json::Value::Null);
        };
        let mut said = Vec::new();
        for (n, what) in stated {
            let Some(n) = n else { continue };
            let lists = if what == "files" { m.files } else { m.shards };
            if lists != n {
                return Check::fail(
                    id,
                    format!("{at}: the manifest with this digest lists {lists} {what}, the publication says {n}"),
                )
                .with_values(n, lists);
            }
            said.push(format!("{n} {what}"));
        }
        return Check::pass(
            id,
            format!("{}; the manifest lists {}", c.detail, said.join(" and ")),
        );
    }
    if matches!(base.as_str(), "benchmark-plan" | "plan") {
        let Some(plan) = &ctx.q.plan else {
            return unmapped(
                id,
                &at,
                "the benchmark plan",
                "qualification.json names no plan",
            );
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
                format!(
                    "{at}: the benchmark plan {plan} (named by qualification.json) is {}",
                    d.prefixed()
                ),
            )
            .with_values(digest.to_hex(), d.to_hex()),
        };
    }
    let link = crate::verify::evidence::chain::link_named(&base);
    if let Some(link) = link {
        return match chain.digest(ctx, link) {
            Err(m) => missing(id, &at, &format!("what {base} is"), m),
            Ok((path, by, d)) => Check::outcome(
                id,
                d == digest,
                format!("{at}: {path} (named by {by}) is {}", d.prefixed()),
            )
            .with_values(digest.to_hex(), d.to_hex()),
        };
    }
    let name = if ctx.facts.contains_key(&base) {
        base.clone()
    } else {
        r.slug.clone()
    };
    fact_check(
        ctx,
        id,
        &at,
        &name,
        &format!("the SHA-256 of {base}"),
        move |f| f.as_digest() == Some(digest),
        json!(digest.to_hex()),
    )
}

fn commit_row(
    ctx: &Context<'_>,
    chain: &Chain,
    id: String,
    at: &str,
    r: &PinnedRow,
    c: &str,
) -> Check {
    let which = crate::verify::evidence::chain::revision_named(&r.slug);
    let what = format!("the {} commit", r.label);
    match which {
        Some(w) => match chain.revision(w) {
            Err(m) => missing(id, at, &what, m),
            Ok((rev, by)) => {
                Check::outcome(id, rev == c, format!("{at}: {by} is {rev}")).with_values(c, rev)
            }
        },
        None => {
            let c2 = c.to_string();
            fact_check(
                ctx,
                id,
                at,
                &r.slug,
                &what,
                move |f| f.equals_text(&c2),
                json!(c),
            )
        }
    }
}

pub(super) fn pinned_checks(
    report: &mut Report,
    p: &Publication,
    ctx: &Context<'_>,
    chain: &Chain,
) {
    for r in &p.pinned {
        let id = format!("publication:pin:{}", r.slug);
        let at = row_at(p, r);
        for (h, text) in &r.extra {
            report.push(unmapped(
                format!("{id}.{}", crate::publication::slug(h)),
                &format!("{at}, column \"{h}\": {text:?}"),
                &format!("what a {h:?} column says"),
                "only the Value column of the pinned-inputs table is checked",
            ));
        }
        match &r.kind {
            Pinned::Digest {
                digest,
                files,
                shards,
            } => report.push(digest_row(ctx, chain, p, r, *digest, *files, *shards)),
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
            Pinned::Commit(c) => report.push(commit_row(ctx, chain, id, &at, r, c)),
            Pinned::Budgets {
                ttft,
                tpot,
                deadline,
            } => budgets(ctx, chain, report, &at, &r.slug, ttft, tpot, deadline),
            Pinned::Workload(w) => workload(ctx, chain, report, &at, &r.slug, w),
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
