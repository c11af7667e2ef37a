//! `catalog list|show|forget|export|import|info`.
//!
//! Every value read from the catalog is printed through [`shown_value`] (or
//! [`digest`]): a crafted or damaged row can hold anything, and the human
//! output must neither panic on it, nor pass terminal control sequences
//! through, nor echo a 10 MB value whole. `--json` output carries the values
//! as stored (JSON-escaped), for programs.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use proofpack::catalog::{shown_value, Catalog, CatalogError, RecordSummary, StoredRecord};
use proofpack::report::EXIT_OK;
use serde_json::{json, Value};

use super::formats::FormatArg;
use super::{human_bytes, Ui};

/// `proofpack catalog`
#[derive(clap::Args, Debug)]
pub struct CatalogArgs {
    #[command(subcommand)]
    pub command: CatalogCommand,
}

/// What to do with the catalog.
#[derive(clap::Subcommand, Debug)]
pub enum CatalogCommand {
    /// List recorded seals and verifications (newest first) and baselines.
    List(ListArgs),
    /// Show a recorded report: the newest record matching DIGEST|NAME|id:N.
    Show(ShowArgs),
    /// Delete records, baselines or hash-cache entries.
    Forget(ForgetArgs),
    /// Write a baseline as a plain manifest file (nothing is locked in).
    Export(ExportArgs),
    /// Store a manifest file as a baseline.
    Import(ImportArgs),
    /// Where the catalog is, its schema version and what it holds.
    Info(InfoArgs),
}

/// `catalog list`
#[derive(clap::Args, Debug)]
pub struct ListArgs {
    /// Print JSON: {"catalog", "records", "baselines"}.
    #[arg(long)]
    pub json: bool,
    /// Show at most N records.
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
}

/// `catalog show`
#[derive(clap::Args, Debug)]
pub struct ShowArgs {
    /// A bundle or MANIFEST digest (sha256:<hex>, 64 hex, or a prefix of at
    /// least 8 hex), a run name or target as recorded, id:N, or a
    /// baseline's name (catalog:NAME names only a baseline).
    pub query: String,
    /// Print the stored JSON report exactly as recorded.
    #[arg(long)]
    pub json: bool,
    /// Show every matching record, not only the newest.
    #[arg(long)]
    pub all: bool,
}

/// `catalog forget`
#[derive(clap::Args, Debug)]
pub struct ForgetArgs {
    /// Records to delete: every record matching each DIGEST|NAME|id:N.
    /// All or nothing: if one matches nothing, nothing is deleted.
    #[arg(value_name = "DIGEST|NAME|id:N")]
    pub queries: Vec<String>,
    /// Delete the baseline NAME (repeatable).
    #[arg(long, value_name = "NAME")]
    pub baseline: Vec<String>,
    /// Delete every hash-cache entry (files are simply hashed again).
    #[arg(long, conflicts_with = "cache_under")]
    pub cache: bool,
    /// Delete the hash-cache entries of files under PATH.
    #[arg(long, value_name = "PATH")]
    pub cache_under: Option<PathBuf>,
}

/// `catalog export`
#[derive(clap::Args, Debug)]
pub struct ExportArgs {
    /// The baseline's name.
    pub name: String,
    /// Write here (atomically) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Output format (json needs a baseline recorded from a directory).
    #[arg(long, value_enum, default_value = "canonical")]
    pub format: FormatArg,
}

/// `catalog import`
#[derive(clap::Args, Debug)]
pub struct ImportArgs {
    /// The baseline's name.
    pub name: String,
    /// A manifest file: canonical, JSON record or sha256sum (detected).
    pub file: PathBuf,
    /// Override format detection.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub manifest_format: Option<FormatArg>,
    /// Replace an existing baseline of that name.
    #[arg(long)]
    pub replace: bool,
}

/// `catalog info`
#[derive(clap::Args, Debug)]
pub struct InfoArgs {
    /// Also run SQLite's integrity check (reads the whole file); exit 1 if it fails.
    #[arg(long)]
    pub check: bool,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run_catalog(a: CatalogArgs, ui: &Ui) -> Result<i32> {
    // Only import stores something: it creates the catalog if need be. The
    // other verbs read, and create no catalog file.
    let c = match &a.command {
        CatalogCommand::Import(_) => ui.open_catalog("proofpack catalog import")?,
        _ => match ui.open_existing_catalog("proofpack catalog")? {
            Some(c) => c,
            None => return no_catalog(a, ui),
        },
    };
    match a.command {
        CatalogCommand::List(a) => list(&c, a, ui),
        CatalogCommand::Show(a) => show(&c, a, ui),
        CatalogCommand::Forget(a) => forget(&c, a, ui),
        CatalogCommand::Export(a) => export(&c, a, ui),
        CatalogCommand::Import(a) => import(&c, a, ui),
        CatalogCommand::Info(a) => info(&c, a, ui),
    }
}

/// A reading verb on a catalog that does not exist (yet).
fn no_catalog(a: CatalogArgs, ui: &Ui) -> Result<i32> {
    let path = ui
        .catalog_path()
        .map(|p| p.display().to_string())
        .unwrap_or_default();
    let why = format!(
        "catalog {path}: does not exist (it is created by `seal`, `manifest --record` or `catalog import`)"
    );
    match a.command {
        CatalogCommand::List(l) => {
            if l.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(
                        &json!({"catalog": path, "records": [], "baselines": []})
                    )
                    .expect("serialisable")
                );
            }
            ui.note(&format!(
                "{why}: no seals, verifications or baselines recorded"
            ));
            Ok(EXIT_OK)
        }
        CatalogCommand::Info(i) => {
            if i.json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&json!({"catalog": path, "exists": false}))
                        .expect("serialisable")
                );
            } else {
                println!("catalog:        {path} (does not exist)");
            }
            Ok(EXIT_OK)
        }
        _ => anyhow::bail!(why),
    }
}

/// How many characters of a stored text (a path, a name, a check's detail)
/// the human output shows: a path as long as Linux allows is shown whole.
const TEXT_CHARS: usize = 4096;

/// A stored text as the human output shows it.
fn text(s: &str) -> String {
    shown_value(s, TEXT_CHARS)
}

/// A stored digest (bare hex) as `sha256:` and its first `chars` hex
/// digits; a value that is not 64 hex digits (a damaged row) is shown as
/// what it is, escaped and cut.
fn digest(d: &str, chars: usize) -> String {
    if d.len() == 64 && d.bytes().all(|b| b.is_ascii_hexdigit()) {
        // All ASCII: any cut is on a character boundary.
        format!("sha256:{}", d.get(..chars.min(64)).unwrap_or(d))
    } else {
        format!("not a digest: \"{}\"", shown_value(d, chars))
    }
}

fn short(d: &Option<String>) -> String {
    d.as_deref().map_or_else(|| "-".into(), |h| digest(h, 12))
}

fn list(c: &Catalog, a: ListArgs, ui: &Ui) -> Result<i32> {
    let records = c.list(a.limit)?;
    let baselines = c.baselines()?;
    if a.json {
        let v = json!({
            "catalog": c.path().display().to_string(),
            "records": records,
            "baselines": baselines,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&v).expect("serialisable")
        );
        return Ok(EXIT_OK);
    }
    if records.is_empty() {
        ui.note(&format!(
            "catalog {}: no seals or verifications recorded",
            c.path().display()
        ));
    } else {
        // Each column as wide as its widest value (a run name is often
        // longer than a fixed width), as `column -t` would lay it out.
        let rows: Vec<[String; 5]> = records
            .iter()
            .map(|r| {
                [
                    format!("id:{}", r.id),
                    text(&r.time),
                    r.kind.as_str().to_string(),
                    r.run_name.as_deref().map_or_else(|| "-".into(), text),
                    short(&r.bundle_sha256),
                ]
            })
            .collect();
        let width = |k: usize, head: &str| {
            rows.iter()
                .map(|r| r[k].chars().count())
                .chain([head.len()])
                .max()
                .unwrap_or(0)
        };
        let w = [
            width(0, "ID"),
            width(1, "TIME"),
            width(2, "KIND"),
            width(3, "RUN"),
            width(4, "BUNDLE"),
        ];
        println!(
            "{:<w0$} {:<w1$} {:<w2$} {:<7} {:<w3$} {:<w4$} TARGET",
            "ID",
            "TIME",
            "KIND",
            "VERDICT",
            "RUN",
            "BUNDLE",
            w0 = w[0],
            w1 = w[1],
            w2 = w[2],
            w3 = w[3],
            w4 = w[4]
        );
        for (r, cells) in records.iter().zip(&rows) {
            let verdict = if r.ok {
                ui.green("OK")
            } else {
                ui.red("FAILED")
            };
            let pad = if r.ok { 7 - 2 } else { 7 - 6 };
            let col = |k: usize| {
                let n = cells[k].chars().count();
                format!("{}{}", cells[k], " ".repeat(w[k].saturating_sub(n)))
            };
            println!(
                "{} {} {} {verdict}{} {} {} {}",
                col(0),
                col(1),
                col(2),
                " ".repeat(pad),
                col(3),
                col(4),
                text(&r.target)
            );
        }
    }
    if !baselines.is_empty() {
        println!("\nbaselines (use as catalog:NAME):");
        for b in &baselines {
            let size = b
                .bytes
                .map(|n| format!(", {}", human_bytes(n)))
                .unwrap_or_default();
            let hex = b.digest.strip_prefix("sha256:").unwrap_or(&b.digest);
            println!(
                "  {}  {}  {} files{size}  {}  from {}",
                text(&b.name),
                digest(hex, 64),
                b.files,
                text(&b.time),
                text(&b.source)
            );
        }
    }
    Ok(EXIT_OK)
}

fn print_record(r: &StoredRecord, ui: &Ui) {
    let s: &RecordSummary = &r.summary;
    let verdict = if s.ok {
        ui.green("OK")
    } else {
        ui.red("FAILED")
    };
    println!(
        "{} id:{}  {}  {}  {}",
        s.kind.as_str(),
        s.id,
        text(&s.time),
        verdict,
        text(&s.tool)
    );
    println!("target:   {}", text(&s.target));
    let opt = |label: &str, v: &Option<String>, show: fn(&str) -> String| {
        if let Some(v) = v {
            println!("{label:<9} {}", show(v));
        }
    };
    let full = |d: &str| digest(d, 64);
    opt("run:", &s.run_name, text);
    opt("bundle:", &s.bundle_sha256, full);
    opt("manifest:", &s.manifest_sha256, full);
    opt("pins:", &s.pins_sha256, full);
    let report: Value = match serde_json::from_str(&r.report_json) {
        Ok(v) => v,
        Err(e) => {
            ui.warn(&format!(
                "the stored report is not valid JSON ({e}); showing it raw"
            ));
            println!("{}", text(&r.report_json));
            return;
        }
    };
    if let Some(checks) = report.get("checks").and_then(Value::as_array) {
        for c in checks {
            let id = text(c.get("id").and_then(Value::as_str).unwrap_or("?"));
            let detail = text(c.get("detail").and_then(Value::as_str).unwrap_or(""));
            let values = match (c.get("expected"), c.get("actual")) {
                (Some(e), Some(a)) => format!("; expected {}, found {}", plain(e), plain(a)),
                _ => String::new(),
            };
            match c.get("ok") {
                Some(Value::Bool(true)) if ui.verbose => println!("  {id}: {}", ui.green("OK")),
                Some(Value::Bool(true)) => {}
                Some(Value::Bool(false)) => {
                    println!("  {id}: {} ({detail}{values})", ui.red("FAILED"))
                }
                _ => println!("  {id}: {} ({detail})", ui.yellow("SKIPPED")),
            }
        }
    }
    if let Some(sum) = report.get("summary") {
        let n = |k: &str| sum.get(k).and_then(Value::as_u64).unwrap_or(0);
        println!(
            "summary:  {} passed, {} failed, {} skipped{}",
            n("passed"),
            n("failed"),
            n("skipped"),
            if ui.verbose {
                ""
            } else {
                " (-v lists the passed checks)"
            }
        );
    }
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => text(s),
        other => text(&other.to_string()),
    }
}

/// Shows the baseline `name` (`catalog show` finds baselines by name).
fn show_baseline(c: &Catalog, name: &str, json_out: bool) -> Result<i32> {
    let info = c
        .baselines()?
        .into_iter()
        .find(|b| b.name == name)
        .ok_or_else(|| CatalogError::NoBaseline {
            path: c.path().to_path_buf(),
            name: name.to_string(),
        })?;
    // Read (and so checked against its digest) like any use of it.
    let m = c.require_baseline(name)?;
    if json_out {
        let v = json!({"baseline": info});
        println!(
            "{}",
            serde_json::to_string_pretty(&v).expect("serialisable")
        );
        return Ok(EXIT_OK);
    }
    let hex = info.digest.strip_prefix("sha256:").unwrap_or(&info.digest);
    println!("baseline {}", text(&info.name));
    println!("digest:   {}", digest(hex, 64));
    println!(
        "files:    {}{}",
        m.len(),
        info.bytes
            .map(|b| format!(" ({})", human_bytes(b)))
            .unwrap_or_default()
    );
    println!("recorded: {} by {}", text(&info.time), text(&info.tool));
    println!("from:     {}", text(&info.source));
    println!(
        "use:      check DIR --manifest catalog:{0}   diff catalog:{0} DIR   catalog export {0} -o FILE",
        text(&info.name)
    );
    Ok(EXIT_OK)
}

fn show(c: &Catalog, a: ShowArgs, ui: &Ui) -> Result<i32> {
    if let Some(name) = a.query.strip_prefix("catalog:") {
        return show_baseline(c, name, a.json);
    }
    let found = match c.find(&a.query) {
        Ok(f) => f,
        Err(CatalogError::NoMatch { .. }) if c.baselines()?.iter().any(|b| b.name == a.query) => {
            return show_baseline(c, &a.query, a.json);
        }
        Err(e) => return Err(e.into()),
    };
    if c.baselines()
        .map(|bs| bs.iter().any(|b| b.name == a.query))
        .unwrap_or(false)
    {
        ui.note(&format!(
            "a baseline is also named {:?}: `catalog show catalog:{}` shows it",
            a.query, a.query
        ));
    }
    // find() never returns an empty list (no match is an error).
    let shown: &[StoredRecord] = if a.all {
        &found
    } else {
        &found[..found.len().min(1)]
    };
    if a.json {
        if a.all {
            let arr: Vec<Value> = shown
                .iter()
                .map(|r| {
                    let report = serde_json::from_str::<Value>(&r.report_json)
                        .unwrap_or(Value::String(r.report_json.clone()));
                    json!({"record": r.summary, "report": report})
                })
                .collect();
            println!(
                "{}",
                serde_json::to_string_pretty(&arr).expect("serialisable")
            );
        } else {
            let mut so = std::io::stdout().lock();
            for r in shown {
                so.write_all(r.report_json.as_bytes())
                    .context("writing to stdout")?;
                if !r.report_json.ends_with('\n') {
                    so.write_all(b"\n").context("writing to stdout")?;
                }
            }
        }
    } else {
        for (i, r) in shown.iter().enumerate() {
            if i > 0 {
                println!();
            }
            print_record(r, ui);
        }
    }
    if let (false, [newest, _, ..]) = (a.all, found.as_slice()) {
        ui.note(&format!(
            "{} records match {:?}; showed the newest (id:{}); --all shows every one",
            found.len(),
            a.query,
            newest.summary.id
        ));
    }
    Ok(EXIT_OK)
}

fn forget(c: &Catalog, a: ForgetArgs, ui: &Ui) -> Result<i32> {
    if a.queries.is_empty() && a.baseline.is_empty() && !a.cache && a.cache_under.is_none() {
        anyhow::bail!("nothing to forget: give DIGEST|NAME|id:N, --baseline NAME, --cache or --cache-under PATH");
    }
    // Check every baseline name first, so that a typo deletes nothing. A
    // damaged baseline exists all the same: forgetting it is the remedy.
    for name in &a.baseline {
        match c.get_baseline(name) {
            Ok(Some(_)) | Err(CatalogError::BadRow { .. }) => {}
            Ok(None) => anyhow::bail!(
                "no baseline named {name:?} in {} (nothing was deleted)",
                c.path().display()
            ),
            Err(e) => return Err(e.into()),
        }
    }
    if !a.queries.is_empty() {
        let n = c.forget(&a.queries)?;
        ui.note(&format!("forgot {n} record(s)"));
    }
    for name in &a.baseline {
        c.forget_baseline(name)?;
        ui.note(&format!("forgot baseline {name}"));
    }
    if a.cache || a.cache_under.is_some() {
        let n = c.forget_cache(a.cache_under.as_deref())?;
        ui.note(&format!("forgot {n} hash-cache entries"));
    }
    Ok(EXIT_OK)
}

fn export(c: &Catalog, a: ExportArgs, ui: &Ui) -> Result<i32> {
    if let Some(out) = &a.output {
        super::output::check(out)?;
    }
    let text = c.export_baseline(&a.name, a.format.into())?;
    match &a.output {
        Some(out) => {
            super::output::write(out, text.as_bytes(), 0o644, true)?;
            ui.note(&format!(
                "exported baseline {} to {}",
                a.name,
                out.display()
            ));
        }
        None => {
            let mut so = std::io::stdout().lock();
            so.write_all(text.as_bytes()).context("writing to stdout")?;
            so.flush().context("writing to stdout")?;
        }
    }
    Ok(EXIT_OK)
}

fn import(c: &Catalog, a: ImportArgs, ui: &Ui) -> Result<i32> {
    proofpack::catalog::validate_baseline_name(&a.name)?;
    if !a.replace {
        c.refuse_existing_baseline(&a.name)?;
    }
    let source = std::fs::canonicalize(&a.file).unwrap_or_else(|_| a.file.clone());
    // Streamed, never held whole (read whole only when it must be).
    let m = super::filekind::read_as(
        &a.file,
        "MANIFEST_FILE",
        super::filekind::Want::Manifest,
        || {
            c.import_baseline(
                &a.name,
                &a.file,
                a.manifest_format.map(Into::into),
                &source.display().to_string(),
            )
        },
    )?;
    ui.note(&format!(
        "baseline catalog:{} recorded: {}, {} files",
        a.name,
        m.digest.prefixed(),
        m.files
    ));
    Ok(EXIT_OK)
}

fn info(c: &Catalog, a: InfoArgs, ui: &Ui) -> Result<i32> {
    let version = c.schema_version()?;
    // Counted, not read: info still works when a row is damaged.
    let records = c.records_len()?;
    let baselines = c.baselines_len()?;
    let cache = c.cache_len()?;
    let integrity = if a.check {
        Some(c.integrity_check().map_err(|e| e.to_string()))
    } else {
        None
    };
    if a.json {
        let v = json!({
            "catalog": c.path().display().to_string(),
            "schema_version": version,
            "records": records,
            "baselines": baselines,
            "cache_entries": cache,
            "integrity": integrity.as_ref().map(|r| match r { Ok(()) => "ok".to_string(), Err(e) => e.clone() }),
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&v).expect("serialisable")
        );
    } else {
        println!("catalog:        {}", c.path().display());
        println!("schema version: {version}");
        println!("records:        {records}");
        println!("baselines:      {baselines}");
        println!("cache entries:  {cache}");
        match &integrity {
            Some(Ok(())) => println!("integrity:      {}", ui.green("ok")),
            Some(Err(e)) => println!("integrity:      {} ({e})", ui.red("FAILED")),
            None => {}
        }
    }
    Ok(match integrity {
        Some(Err(_)) => proofpack::report::EXIT_FAILED,
        _ => EXIT_OK,
    })
}
