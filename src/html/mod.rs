//! The auditor's report as one self-contained HTML page, drawn from the
//! JSON report alone (`proofpack/report/v1` with its page fields, read back
//! into the types of [`crate::report::page`] that wrote them), so that the
//! page and the JSON can never disagree.
//!
//! One file: styles inline, plots as inline SVG ([`plot`], drawn with
//! `plotters`), no script, no font, no link to anything: it opens from a USB
//! stick on an air-gapped machine. It is deterministic for the same report
//! (the only time on it is the report's own). Pass and fail are said in
//! words and symbols as well as colour; the page has `lang`, headings and
//! table headers for screen readers, and a print stylesheet.

pub mod plot;
mod text;
mod writeup;

use std::fmt::Write as _;

use serde_json::Value;

use crate::report::page::{Context, Page, Plot, Published, Slo, Table};

pub use text::esc;
use text::show;

/// Errors rendering a page.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum HtmlError {
    /// The JSON is not a proofpack report.
    #[error("not a proofpack report: {0}")]
    NotAReport(String),
    /// A plot could not be drawn.
    #[error("cannot draw the plot {what}: {reason}")]
    Plot {
        /// Which plot.
        what: String,
        /// Why.
        reason: String,
    },
}

const STYLE: &str = r#"
:root { --pass: #17602a; --fail: #a8201a; --skip: #6b5b00; --ink: #1b1b1b; --muted: #555; --rule: #d0d0d0; }
* { box-sizing: border-box; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); margin: 0; line-height: 1.45; }
main { max-width: 1100px; margin: 0 auto; padding: 1.5rem; }
h1 { font-size: 1.6rem; margin: 0 0 .5rem; }
h2 { font-size: 1.25rem; margin: 2rem 0 .6rem; border-bottom: 1px solid var(--rule); padding-bottom: .2rem; }
h3 { font-size: 1.05rem; margin: 1.2rem 0 .4rem; }
.verdict { font-size: 1.15rem; font-weight: 600; padding: .8rem 1rem; border-radius: 6px; border: 2px solid; }
.verdict.pass { color: var(--pass); border-color: var(--pass); background: #eef7f0; }
.verdict.fail { color: var(--fail); border-color: var(--fail); background: #fbeeed; }
dl.context { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1rem; margin: 0; }
dl.context dt { font-weight: 600; } dl.context dd { margin: 0; overflow-wrap: anywhere; }
code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: .88em; }
table { border-collapse: collapse; width: 100%; margin: .4rem 0 1rem; font-size: .92rem; }
th, td { border-bottom: 1px solid var(--rule); padding: .3rem .45rem; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.st { font-weight: 700; white-space: nowrap; }
.st.pass { color: var(--pass); } .st.fail { color: var(--fail); } .st.skip { color: var(--skip); }
td.detail { overflow-wrap: anywhere; }
details { margin: .3rem 0; } summary { cursor: pointer; font-weight: 600; }
figure { margin: .5rem 0 1.2rem; } figcaption { color: var(--muted); font-size: .88rem; }
.plots { display: grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap: .5rem 1rem; }
.note { color: var(--muted); font-size: .9rem; }
@media print {
  main { max-width: none; padding: 0; }
  details { display: block; } details > summary { list-style: none; }
  details:not([open]) > *:not(summary) { display: block; }
  .verdict { border-width: 1px; background: none; }
  h2 { break-after: avoid; } figure, table tr { break-inside: avoid; }
}
"#;

fn status(ok: Option<bool>) -> (&'static str, &'static str) {
    match ok {
        Some(true) => ("pass", "✔ PASS"),
        Some(false) => ("fail", "✘ FAIL"),
        None => ("skip", "– NOT CHECKED"),
    }
}

/// The styles of the check tables on a page with failures. Fixed column
/// widths (a long detail or a long check id cannot squeeze
/// the Detail column to a few characters or push the table off the page),
/// expected and found under the detail, hex broken anywhere in its cell,
/// and a very long detail kept within a scrollable box.
const FAILING_STYLE: &str = r#"
table.checks { table-layout: fixed; }
table.checks col.c-st { width: 9.5rem; }
table.checks col.c-id { width: 30%; }
table.checks td, table.checks th { overflow-wrap: anywhere; }
table.checks td.mono { word-break: break-all; }
td.detail .d { max-height: 14em; overflow-y: auto; }
dl.ef { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: .1rem .6rem; margin: .35rem 0 0; font-size: .85rem; }
dl.ef dt { font-weight: 600; color: var(--muted); }
dl.ef dd { margin: 0; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; overflow-wrap: anywhere; word-break: break-all; max-height: 8em; overflow-y: auto; }
@media print { td.detail .d, dl.ef dd { max-height: none; overflow: visible; } }
"#;

/// The failed checks of a page in the order the reader needs them: each
/// root cause, then the checks not checkable because of it (directly or
/// through others), then any not checkable for a cause not among them;
/// and how many causes there are.
fn by_cause<'v>(failed: &[&'v Value]) -> (Vec<&'v Value>, usize) {
    let index: std::collections::HashMap<&str, usize> = failed
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c["id"].as_str().map(|id| (id, i)))
        .collect();
    let dependent = |i: usize| failed[i]["reason"] == "not_checkable";
    let g = crate::report::group_by_cause(
        failed.len(),
        |i| !dependent(i),
        dependent,
        |i| {
            failed[i]["cause"]
                .as_str()
                .and_then(|c| index.get(c).copied())
        },
    );
    let mut out = Vec::with_capacity(failed.len());
    for (cause, deps) in &g.groups {
        out.push(failed[*cause]);
        out.extend(deps.iter().map(|d| failed[*d]));
    }
    out.extend(g.unattributed.iter().map(|d| failed[*d]));
    (out, g.groups.len())
}

/// The check table of a page with failures: three fixed columns, expected
/// and found under the detail.
fn check_rows_failing(out: &mut String, checks: &[&Value], anchor: bool) {
    out.push_str("<table class=\"checks\"><colgroup><col class=\"c-st\"><col class=\"c-id\"><col class=\"c-detail\"></colgroup><thead><tr><th scope=\"col\">Result</th><th scope=\"col\">Check</th><th scope=\"col\">Detail, expected and found</th></tr></thead><tbody>\n");
    for c in checks {
        let (cls, word) = status(c["ok"].as_bool());
        let id = c["id"].as_str().unwrap_or("");
        let (expected, found) = (show(&c["expected"]), show(&c["actual"]));
        let mut values = String::new();
        if !expected.is_empty() || !found.is_empty() {
            let _ = write!(
                values,
                "<dl class=\"ef\"><dt>expected</dt><dd>{}</dd><dt>found</dt><dd>{}</dd></dl>",
                esc(&expected),
                esc(&found)
            );
        }
        let _ = writeln!(
            out,
            "<tr{} class=\"check {cls}\" data-check-id=\"{}\" data-ok=\"{}\"><td class=\"st {cls}\">{word}</td><td class=\"mono\">{}</td><td class=\"detail\"><div class=\"d\">{}</div>{values}</td></tr>",
            row_anchor(anchor, id),
            esc(id),
            esc(&c["ok"].to_string()),
            esc(id),
            esc(c["detail"].as_str().unwrap_or("")),
        );
    }
    out.push_str("</tbody></table>\n");
}

fn check_rows(out: &mut String, checks: &[&Value], anchor: bool) {
    out.push_str("<table><thead><tr><th scope=\"col\">Result</th><th scope=\"col\">Check</th><th scope=\"col\">Detail</th><th scope=\"col\">Expected</th><th scope=\"col\">Found</th></tr></thead><tbody>\n");
    for c in checks {
        let (cls, word) = status(c["ok"].as_bool());
        let id = c["id"].as_str().unwrap_or("");
        let _ = writeln!(
            out,
            "<tr{} class=\"check {cls}\" data-check-id=\"{}\" data-ok=\"{}\"><td class=\"st {cls}\">{word}</td><td class=\"mono\">{}</td><td class=\"detail\">{}</td><td class=\"mono\">{}</td><td class=\"mono\">{}</td></tr>",
            row_anchor(anchor, id),
            esc(id),
            esc(&c["ok"].to_string()),
            esc(id),
            esc(c["detail"].as_str().unwrap_or("")),
            esc(&show(&c["expected"])),
            esc(&show(&c["actual"])),
        );
    }
    out.push_str("</tbody></table>\n");
}

/// ` id="check-<id>"` on a row of the "Every check" section: the target
/// of the write-up's links.
fn row_anchor(anchor: bool, id: &str) -> String {
    if anchor {
        format!(" id=\"check-{}\"", esc(id))
    } else {
        String::new()
    }
}

fn context_list(out: &mut String, report: &Value, ctx: &Context) {
    let row = |out: &mut String, k: &str, v: String| {
        if !v.is_empty() {
            let _ = writeln!(out, "<dt>{}</dt><dd>{v}</dd>", esc(k));
        }
    };
    let text = |v: &Option<String>| esc(v.as_deref().unwrap_or(""));
    out.push_str("<dl class=\"context\">\n");
    row(
        out,
        "Verified",
        format!(
            "<span class=\"mono\">{}</span>",
            esc(report["target"].as_str().unwrap_or(""))
        ),
    );
    row(out, "Run", text(&ctx.run));
    row(out, "Model", text(&ctx.model));
    if let Some(d) = &ctx.bundle_sha256 {
        row(
            out,
            "Bundle SHA-256",
            format!(
                "<span class=\"mono\">{}</span> (computed from the bytes read)",
                esc(d)
            ),
        );
    }
    if let Some(d) = &ctx.manifest_sha256 {
        row(out, "MANIFEST SHA-256", format!("<span class=\"mono\">{}</span> (the list of every file in the bundle and its digest)", esc(d)));
    }
    if let Some(s) = &ctx.seal {
        let (_, word) = status(s.ok);
        row(out, "Release seal", format!("{word}: {}", esc(&s.detail)));
    }
    if let Some(t) = &ctx.trust_sha256 {
        row(out, "Trust file", format!("{} (SHA-256 <span class=\"mono\">{}</span>): the keys the auditor trusts, never taken from the bundle", text(&ctx.trust), esc(t)));
    }
    row(out, "Publication", text(&ctx.publication));
    row(out, "Pins", text(&ctx.pins));
    row(out, "Tool", esc(&ctx.tool));
    row(out, "Time", esc(&ctx.verified_at));
    out.push_str("</dl>\n");
}

fn published(out: &mut String, p: &Published) {
    let Some(rows) = &p.rows else {
        return;
    };
    let _ = writeln!(out, "<section id=\"published\"><h2>Pinned inputs as published</h2><p class=\"note\">From {}. Each row with the checks that compared it with the evidence.</p>", esc(&p.source));
    out.push_str("<table><thead><tr><th scope=\"col\">Input</th><th scope=\"col\">Published value</th><th scope=\"col\">Checks</th></tr></thead><tbody>\n");
    for r in rows {
        let checks: Vec<String> = r
            .checks
            .iter()
            .map(|c| {
                let (cls, word) = status(c.ok);
                let by = if c.source.as_deref() == Some("publisher") {
                    " <span class=\"st skip\">stated by the publisher: checked only against a file the publisher wrote for it</span>"
                } else {
                    ""
                };
                format!(
                    "<span class=\"st {cls}\">{word}</span> <span class=\"mono\">{}</span>{by}",
                    esc(&c.id)
                )
            })
            .collect();
        let _ = writeln!(
            out,
            "<tr class=\"published\" data-row=\"{}\"><td>{}</td><td class=\"mono detail\">{}</td><td>{}</td></tr>",
            esc(&r.label),
            esc(&r.label),
            esc(&r.value),
            if checks.is_empty() { "<span class=\"st skip\">– no check</span>".to_string() } else { checks.join("<br>") }
        );
    }
    out.push_str("</tbody></table></section>\n");
}

fn table(out: &mut String, t: &Table) {
    // A table without headers (never written) or without rows is not drawn.
    if t.headers.is_empty() || t.rows.is_empty() {
        return;
    }
    out.push_str("<section id=\"measured\"><h2>Measured points, recomputed from the raw client records</h2><p class=\"note\">Failed, timed-out and cancelled requests are counted in the result column.</p><table><thead><tr>");
    for c in &t.headers {
        let _ = write!(out, "<th scope=\"col\">{}</th>", esc(c));
    }
    out.push_str("</tr></thead><tbody>\n");
    for cells in &t.rows {
        out.push_str("<tr class=\"measured\">");
        for (i, c) in cells.iter().enumerate() {
            let cls = if i + 1 == cells.len() {
                ""
            } else {
                " class=\"num\""
            };
            let _ = write!(out, "<td{cls}>{}</td>", esc(c));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></section>\n");
}

fn plots(out: &mut String, ps: &[Plot]) -> Result<(), HtmlError> {
    if ps.is_empty() {
        return Ok(());
    }
    out.push_str("<section id=\"latency\"><h2>Latency against the budgets</h2><p class=\"note\">Empirical CDFs over the ok measured requests, their axis zoomed to the data, the SLO budget as a red line (a red bar at the edge, with its value, when it lies beyond the data), p50/p95/p99 marked; and each request's TTFT over the point's time window, failures as red crosses. A CDF of more than 1,000 requests is drawn at 1,000 evenly spaced ranks; a timeline of more than 2,000 requests keeps every failure (up to 1,000) and an evenly strided sample of the rest.</p>\n");
    for p in ps {
        let name = p.point.as_str();
        let _ = writeln!(out, "<h3>Point {}</h3><div class=\"plots\">", esc(name));
        // A budget the report gives as null (or not at all) is not drawn.
        let budget = |b: fn(&Slo) -> f64| p.slo.as_ref().map(b).filter(|b| !b.is_nan());
        let plot_err = |what: String| {
            move |reason: String| HtmlError::Plot {
                what: what.clone(),
                reason,
            }
        };
        for (key, title, unit, metric, budget) in [
            ("ttft_s", "TTFT", "s", &p.ttft_s, budget(|s| s.ttft_s)),
            ("tpot_ms", "TPOT", "ms", &p.tpot_ms, budget(|s| s.tpot_ms)),
        ] {
            let cdf = &metric.cdf;
            let svg = plot::cdf_svg(
                &format!("{title} CDF, {name}"),
                unit,
                cdf,
                &metric.marks,
                budget,
            )
            .map_err(plot_err(format!("{key} of {name}")))?;
            let _ = writeln!(
                out,
                "<figure class=\"plot\" data-plot=\"{key}-cdf\" data-point=\"{}\" role=\"img\" aria-label=\"{title} CDF of point {}\">{svg}<figcaption>{title} of {} ok requests{}</figcaption></figure>",
                esc(name),
                esc(name),
                cdf.n,
                if cdf.shown < cdf.n { format!(" (drawn at {} ranks)", cdf.shown) } else { String::new() }
            );
        }
        let tl = &p.timeline;
        let svg = plot::timeline_svg(&format!("TTFT over time, {name}"), tl, budget(|s| s.ttft_s))
            .map_err(plot_err(format!("timeline of {name}")))?;
        let _ = writeln!(
            out,
            "<figure class=\"plot\" data-plot=\"timeline\" data-point=\"{}\" role=\"img\" aria-label=\"TTFT over time of point {}\">{svg}<figcaption>{} of {} measured requests shown</figcaption></figure></div>",
            esc(name),
            esc(name),
            tl.shown,
            tl.n
        );
    }
    out.push_str("</section>\n");
    Ok(())
}

/// Renders a JSON report (`proofpack/report/v1`, with its page fields
/// when present) as one HTML page.
pub fn render(report: &Value) -> Result<String, HtmlError> {
    // A page shows what its report's checks give, never what a saved
    // report claims beside them.
    crate::report::check_saved(report).map_err(|e| HtmlError::NotAReport(e.0))?;
    let page = Page::read(report).map_err(|e| HtmlError::NotAReport(e.to_string()))?;
    let checks: Vec<&Value> = report["checks"]
        .as_array()
        .ok_or_else(|| HtmlError::NotAReport("no checks array".into()))?
        .iter()
        .collect();
    let ok = report["ok"].as_bool().unwrap_or(false);
    let verdict = report["verdict"]
        .as_str()
        .map(str::to_string)
        .unwrap_or_else(|| {
            if ok {
                "VERIFIED".into()
            } else {
                "FAILED".into()
            }
        });
    let target = report["target"].as_str().unwrap_or("");
    let failed: Vec<&Value> = checks
        .iter()
        .copied()
        .filter(|c| c["ok"] == Value::Bool(false))
        .collect();
    // A page without failures keeps the plain check tables; a page with
    // failures gets the fixed-width ones.
    let rows: fn(&mut String, &[&Value], bool) = if failed.is_empty() {
        check_rows
    } else {
        check_rows_failing
    };
    let extra_style = if failed.is_empty() { "" } else { FAILING_STYLE };
    let mut out = String::with_capacity(64 << 10);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\"><title>proofpack report: {}</title><style>{STYLE}{extra_style}</style></head><body><main>\n",
        esc(target)
    );
    out.push_str("<header><h1>Verification report</h1>\n");
    let _ = writeln!(
        out,
        "<p class=\"verdict {}\" id=\"verdict\" role=\"status\">{} {}</p>",
        if ok { "pass" } else { "fail" },
        if ok { "✔" } else { "✘" },
        esc(&verdict)
    );
    let s = &report["summary"];
    let _ = writeln!(
        out,
        "<p>{} checks: {} passed, {} failed{}, {} not checked{}. {}</p></header>",
        checks.len(),
        s["passed"],
        s["failed"],
        if s["not_checkable"].as_u64().unwrap_or(0) > 0 {
            format!(
                " ({} of them only because another failed)",
                s["not_checkable"]
            )
        } else {
            String::new()
        },
        s["skipped"],
        not_checked_why(&checks),
        if ok {
            "Every check held: the evidence supports what was published, as far as the checks below reach (see “What a green verdict does not prove” in the auditor's guide)."
        } else {
            "At least one check failed: the evidence does not support what was published. The failures are listed first."
        }
    );
    out.push_str("<section id=\"context\"><h2>What was verified</h2>\n");
    context_list(&mut out, report, &page.context.unwrap_or_default());
    out.push_str("</section>\n");
    if !failed.is_empty() {
        let (ordered, causes) = by_cause(&failed);
        let _ = writeln!(
            out,
            "<section id=\"failures\"><h2>Failed checks ({})</h2><p>{causes} cause(s) first, each followed by the checks not checkable because of it.</p>",
            failed.len()
        );
        rows(&mut out, &ordered, false);
        out.push_str("</section>\n");
    }
    // The write-up itself comes first after what was verified and what
    // failed (a failing page shows its failures on the first screen).
    if let Some(p) = &page.published {
        writeup::writeup(&mut out, p);
        published(&mut out, p);
    }
    if let Some(t) = &page.table {
        table(&mut out, t);
    }
    if let Some(ps) = &page.plots {
        plots(&mut out, ps)?;
    }
    // Every check, grouped by area as in the terminal; groups with a
    // failure open.
    // (A report saved by an older proofpack names no areas: its checks are
    // grouped by the head of their ids.)
    let mut groups: Vec<(String, Vec<&Value>)> = Vec::new();
    for c in &checks {
        let a = match c["area"].as_str() {
            Some(a) => a.to_string(),
            None => {
                let id = c["id"].as_str().unwrap_or("");
                id.split([':', '.']).next().unwrap_or(id).to_string()
            }
        };
        match groups.iter_mut().find(|(g, _)| *g == a) {
            Some((_, v)) => v.push(c),
            None => groups.push((a, vec![c])),
        }
    }
    out.push_str("<section id=\"checks\"><h2>Every check</h2>\n");
    for (g, cs) in &groups {
        let bad = cs.iter().filter(|c| c["ok"] == Value::Bool(false)).count();
        let _ =
            writeln!(
            out,
            "<details{} class=\"group\" data-group=\"{}\"><summary>{} — {} check(s){}</summary>",
            if bad > 0 { " open" } else { "" },
            esc(g),
            esc(g),
            cs.len(),
            if bad > 0 { format!(", {bad} failed") } else { String::new() }
        );
        rows(&mut out, cs, true);
        out.push_str("</details>\n");
    }
    out.push_str("</section>\n<footer class=\"note\"><p>Rendered by proofpack from the JSON report alone; the same report gives the same page.</p></footer>\n</main></body></html>\n");
    Ok(out)
}

/// Why the checks that were not checked were not, counted by the reason
/// each names (" (2 not asked for, 1 no evidence)"); empty when none was
/// left unchecked.
fn not_checked_why(checks: &[&Value]) -> String {
    let mut counts: Vec<(String, u64)> = Vec::new();
    for c in checks.iter().filter(|c| c["ok"].is_null()) {
        let why = c["reason"]
            .as_str()
            .unwrap_or("no reason given")
            .replace('_', " ");
        match counts.iter_mut().find(|(w, _)| *w == why) {
            Some((_, n)) => *n += 1,
            None => counts.push((why, 1)),
        }
    }
    if counts.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = counts.iter().map(|(w, n)| format!("{n} {w}")).collect();
    format!(" ({})", esc(&parts.join(", ")))
}
