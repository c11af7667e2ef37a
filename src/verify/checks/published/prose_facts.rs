//! Statement checks against the run's identity and its host launch checks:
//! the bundle named in prose, and "the launch checks confirmed every
//! shard's recorded size and the model config hash on every engine".

use serde_json::json;

use crate::publication::grammar::Slot;
use crate::verify::checks::published::context::Context;
use crate::verify::checks::published::prose_found::{found, json_file, plan_of, Found};

/// "The retained artifact bundle is `<name>` (SHA-256 `<hex>`)": the
/// digest of the bundle's bytes, and the name: the one the run gives
/// itself (`qualification.json` `name`) with `.tgz`, or the verified
/// bundle's own file name (a bundle sealed under another name).
pub fn bundle(s: &[Slot], ctx: &Context<'_>) -> Found {
    let (name, hex) = match s {
        [Slot::Text(n), Slot::Hex(h)] => (n.as_str(), h.as_str()),
        _ => ("", ""),
    };
    let mut f = found(
        format!("the bundle is {name} with SHA-256 {hex}"),
        "the SHA-256 of the verified bundle's bytes, and the run's name in qualification.json or the bundle's file name",
    );
    let own = format!("{}.tgz", ctx.q.name);
    let want_name = match ctx.bundle_name {
        Some(file) if name == file && name != own => file.to_string(),
        _ => own,
    };
    let got = ctx.bundle_digest.map(|d| d.to_hex());
    f.expected = Some(json!({"name": name, "sha256": hex}));
    f.actual = Some(json!({"name": want_name, "sha256": got}));
    f.ok = match &got {
        None => Err("a run directory has no bundle bytes: verify the sealed bundle".into()),
        Some(g) if g != hex => Err(format!("the bundle's bytes have SHA-256 {g}")),
        Some(_) if name != want_name => Err(format!(
            "the run names itself {:?}; its bundle is {want_name}{}",
            ctx.q.name,
            ctx.bundle_name
                .map(|f| format!(", and the bundle verified is {f}"))
                .unwrap_or_default()
        )),
        Some(_) => Ok(()),
    };
    f
}

/// The title: the write-up is of a benchmark qualification (the run's
/// `qualification.json` read as one) and, where it names a model, of the
/// run's model, written whole (`moonshotai/Kimi-K3`) or by its last path
/// component (`Kimi-K3`), as cased in `qualification.json`.
pub fn title(s: &[Slot], ctx: &Context<'_>) -> Found {
    let model = &ctx.q.model;
    let short = model.rsplit('/').next().unwrap_or(model);
    let named = match s {
        [Slot::Text(n)] => Some(n.as_str()),
        _ => None,
    };
    let mut f = found(
        match named {
            Some(n) => format!("the write-up is of a benchmark qualification of {n}"),
            None => "the write-up is of a benchmark qualification".into(),
        },
        "qualification.json's model (the engines attest it: attestation:*.model)",
    );
    if let Some(n) = named {
        f.expected = Some(json!(n));
        f.actual = Some(json!(model));
        if n != model && n != short {
            f.ok = Err(format!("the run's model is {model}"));
        }
    }
    f
}

/// Every host launch check of the run passed (each engine's host has one
/// report, trusted, for the attested weights and config, sizes at least),
/// and every report hashed the config from a file on its host (not
/// `config_source: stated`).
pub fn launch_checks(ctx: &Context<'_>) -> Found {
    let mut f = found(
        "every shard's recorded size and the model config hash confirmed on every engine's host",
        "the host launch checks (host:*) and each report's config_source",
    );
    let checks = ctx.host_checks;
    if ctx.q.host_checks.is_empty() {
        f.ok = Err("qualification.json lists no host launch-check reports (host_checks)".into());
        return f;
    }
    // A config only stated is named below, from the report itself.
    let stated = |c: &crate::report::Check| c.mark() == Some(crate::report::Mark::StatedConfig);
    let bad: Vec<&str> = checks
        .iter()
        .filter(|c| !c.passed() && !stated(c))
        .map(|c| c.id.as_str())
        .collect();
    if checks.is_empty() || !bad.is_empty() {
        f.ok = Err(format!(
            "the host launch checks do not all hold: {}",
            if bad.is_empty() {
                "none ran".to_string()
            } else {
                bad.join(", ")
            }
        ));
        // One cause, one failure: the sentence is not checkable when a
        // host check failed on its own.
        f.cause = checks
            .iter()
            .find(|c| c.failed() && !c.is_not_checkable())
            .map(|c| c.id.clone());
        return f;
    }
    let mut sources = Vec::new();
    for path in &ctx.q.host_checks {
        let claimed = ctx
            .collected
            .small
            .get(path)
            .and_then(|b| crate::attest::inspect_envelope(b).ok())
            .map(|u| u.claimed.predicate);
        let p = claimed.as_ref();
        let host = p
            .and_then(|p| p["host"].as_str())
            .unwrap_or("?")
            .to_string();
        let source = p
            .and_then(|p| p["config_source"].as_str())
            .map(str::to_string);
        let config = p.and_then(|p| p["config"].as_str()).is_some();
        let from_file = source.as_deref().is_some_and(|s| s.starts_with("file"));
        if (!from_file || !config) && f.ok.is_ok() {
            f.ok = Err(format!(
                "{path}: host {host}'s config hash is {}, not hashed from a file on the host",
                match (&source, config) {
                    (_, false) => "not recorded".to_string(),
                    (Some(s), _) => format!("config_source {s:?}"),
                    (None, _) => "of no stated source".to_string(),
                }
            ));
        }
        sources.push(json!({"host": host, "config_source": source}));
    }
    f.expected = Some(json!(
        "every host: sizes checked, config hashed from a file"
    ));
    f.actual = Some(json!(sources));
    f
}

/// "The launch checks hashed every shard in full on N hosts": the launch
/// checks hold as for [`launch_checks`], the run lists exactly N host
/// reports, and every one was made in mode `full`.
pub fn full_launch_checks(n: Option<u64>, ctx: &Context<'_>) -> Found {
    let mut f = launch_checks(ctx);
    f.what = format!(
        "every shard hashed in full on {} hosts",
        n.map_or("?".into(), |n| n.to_string())
    );
    if f.ok.is_err() {
        return f;
    }
    let modes: Vec<(String, String)> = ctx
        .q
        .host_checks
        .iter()
        .map(|path| {
            let p = ctx
                .collected
                .small
                .get(path)
                .and_then(|b| crate::attest::inspect_envelope(b).ok())
                .map(|u| u.claimed.predicate);
            let get = |k: &str| {
                p.as_ref()
                    .and_then(|p| p[k].as_str())
                    .unwrap_or("?")
                    .to_string()
            };
            (get("host"), get("mode"))
        })
        .collect();
    f.expected = Some(json!({"hosts": n, "mode": "full"}));
    f.actual = Some(json!(modes
        .iter()
        .map(|(h, m)| json!({"host": h, "mode": m}))
        .collect::<Vec<_>>()));
    f.ok = if n != Some(modes.len() as u64) {
        Err(format!("the run has {} host report(s)", modes.len()))
    } else if let Some((h, m)) = modes.iter().find(|(_, m)| m != "full") {
        Err(format!(
            "host {h}'s launch check was made in mode {m}, not full"
        ))
    } else {
        Ok(())
    };
    f
}

/// Most differing paths a JSON difference lists.
const MAX_DIFFS: usize = 64;

/// The paths (`a.b[2].c`) at which two JSON values differ: a key present in
/// one only, an array of another length, a different scalar.
pub fn json_diff(a: &serde_json::Value, b: &serde_json::Value) -> Vec<String> {
    fn walk(a: &serde_json::Value, b: &serde_json::Value, at: &str, out: &mut Vec<String>) {
        use serde_json::Value::{Array, Object};
        if out.len() >= MAX_DIFFS {
            return;
        }
        match (a, b) {
            (Object(x), Object(y)) => {
                let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
                keys.sort();
                keys.dedup();
                for k in keys {
                    let here = if at.is_empty() {
                        k.clone()
                    } else {
                        format!("{at}.{k}")
                    };
                    match (x.get(k), y.get(k)) {
                        (Some(p), Some(q)) => walk(p, q, &here, out),
                        _ => out.push(here),
                    }
                }
            }
            (Array(x), Array(y)) if x.len() == y.len() => {
                for (i, (p, q)) in x.iter().zip(y).enumerate() {
                    walk(p, q, &format!("{at}[{i}]"), out);
                }
            }
            _ if a == b => {}
            _ => out.push(if at.is_empty() {
                "(the whole file)".into()
            } else {
                at.into()
            }),
        }
    }
    let mut out = Vec::new();
    walk(a, b, "", &mut out);
    out
}

/// "The qualified fleet copy changes only `<key>` to `<value>`": the JSON
/// difference of the packaged fleet (the plan's `packaged_fleet`) and the
/// qualified fleet (the plan's `fleet`) is exactly that key, and the
/// qualified fleet's value there is the stated number (in seconds when a
/// unit is written).
pub fn derived_input(s: &[Slot], ctx: &Context<'_>) -> Found {
    let key = match s.first() {
        Some(Slot::Text(k)) => k.clone(),
        _ => String::new(),
    };
    let (value, factor) = match (s.get(1), s.get(2)) {
        (Some(Slot::Num(d)), Some(Slot::Text(u))) => {
            (d.clone(), if u == "ms" { 0.001 } else { 1.0 })
        }
        (Some(Slot::Num(d)), _) => (d.clone(), 1.0),
        _ => return found("?", "").fails_with("not read"),
    };
    let mut f = found(
        format!(
            "the qualified fleet differs from the packaged fleet only in {key}, now {}",
            value.text
        ),
        "the JSON difference of the plan's packaged_fleet and fleet files",
    );
    let plan = match plan_of(ctx) {
        Ok((_, p)) => p,
        Err(e) => return f.fails_with(e),
    };
    let (Some(packaged), Some(qualified)) = (&plan.packaged_fleet, &plan.fleet) else {
        return f.fails_with("the benchmark plan names no packaged_fleet and fleet to compare");
    };
    let (a, b) = match (json_file(ctx, packaged), json_file(ctx, qualified)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(e), _) | (_, Err(e)) => return f.fails_with(e),
    };
    let diff = json_diff(&a, &b);
    let at: Option<&serde_json::Value> = key.split('.').try_fold(&b, |v, k| v.get(k));
    let got = at.and_then(serde_json::Value::as_f64);
    f.expected = Some(json!({"changed": [key], "value": value.text}));
    f.actual = Some(json!({"changed": diff, "value": at}));
    f.ok = if diff != [key.clone()] {
        Err(format!(
            "{packaged} and {qualified} differ in {}",
            if diff.is_empty() {
                "nothing".to_string()
            } else {
                diff.join(", ")
            }
        ))
    } else if !got
        .is_some_and(|g| (g / factor - value.value).abs() <= 1e-9 * value.value.abs().max(1.0))
    {
        Err(format!(
            "{qualified} has {key} = {}",
            at.map_or("nothing".into(), |v| v.to_string())
        ))
    } else {
        Ok(())
    };
    f
}

/// "The preflight passed its A, B and C gates": the preflight report the
/// plan names (`preflight`) has a check of each name (any case), each
/// with `"ok": true`, and no check of the report failed.
pub fn gates(names: &[String], ctx: &Context<'_>) -> Found {
    let mut f = found(
        format!(
            "the preflight passed, its gates {} among them",
            names.join(", ")
        ),
        "the checks of the preflight report the plan names",
    );
    let plan = match plan_of(ctx) {
        Ok((_, p)) => p,
        Err(e) => return f.fails_with(e),
    };
    let Some(path) = plan.preflight else {
        return f.fails_with("the benchmark plan names no preflight report (preflight)");
    };
    let report = match json_file(ctx, &path) {
        Ok(v) => v,
        Err(e) => return f.fails_with(e),
    };
    let Some(checks) = report["checks"].as_array() else {
        return f.fails_with(format!("{path}: no checks array"));
    };
    let gate = |c: &serde_json::Value| {
        (
            c["name"].as_str().unwrap_or("").to_string(),
            c["ok"] == serde_json::Value::Bool(true),
        )
    };
    let all: Vec<(String, bool)> = checks.iter().map(gate).collect();
    f.expected = Some(json!(names));
    f.actual = Some(json!(all
        .iter()
        .map(|(n, ok)| json!({"name": n, "ok": ok}))
        .collect::<Vec<_>>()));
    let missing: Vec<&String> = names
        .iter()
        .filter(|n| !all.iter().any(|(g, _)| g.eq_ignore_ascii_case(n)))
        .collect();
    let failed: Vec<&str> = all
        .iter()
        .filter(|(_, ok)| !ok)
        .map(|(n, _)| n.as_str())
        .collect();
    f.ok = if !missing.is_empty() {
        Err(format!(
            "{path} has no gate {}",
            missing
                .iter()
                .map(|m| format!("{m:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    } else if !failed.is_empty() {
        Err(format!(
            "{path}: gate(s) {} did not pass",
            failed.join(", ")
        ))
    } else {
        Ok(())
    };
    f
}

trait FailsWith {
    fn fails_with(self, why: impl Into<String>) -> Found;
}

impl FailsWith for Found {
    fn fails_with(mut self, why: impl Into<String>) -> Found {
        self.ok = Err(why.into());
        self
    }
}
