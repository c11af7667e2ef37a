//! Statement checks against the run's identity and its host launch checks:
//! the bundle named in prose, and "the launch checks confirmed every
//! shard's recorded size and the model config hash on every engine".

use serde_json::json;

use super::prose::Found;
use super::Context;
use crate::publication::grammar::Slot;

fn found(what: String, against: &str) -> Found {
    Found {
        what,
        against: against.into(),
        ok: Ok(()),
        expected: None,
        actual: None,
    }
}

/// "The retained artifact bundle is `<name>` (SHA-256 `<hex>`)": the
/// digest of the bundle's bytes, and the name the run gives itself
/// (`qualification.json` `name`) with `.tgz`.
pub fn bundle(s: &[Slot], ctx: &Context<'_>) -> Found {
    let (name, hex) = match s {
        [Slot::Text(n), Slot::Hex(h)] => (n.as_str(), h.as_str()),
        _ => ("", ""),
    };
    let mut f = found(
        format!("the bundle is {name} with SHA-256 {hex}"),
        "the SHA-256 of the verified bundle's bytes and the run's name in qualification.json",
    );
    let want_name = format!("{}.tgz", ctx.q.name);
    let got = ctx.bundle_digest.map(|d| d.to_hex());
    f.expected = Some(json!({"name": name, "sha256": hex}));
    f.actual = Some(json!({"name": want_name, "sha256": got}));
    f.ok = match &got {
        None => Err("a run directory has no bundle bytes: verify the sealed bundle".into()),
        Some(g) if g != hex => Err(format!("the bundle's bytes have SHA-256 {g}")),
        Some(_) if name != want_name => Err(format!(
            "the run names itself {:?}; its bundle is {want_name}",
            ctx.q.name
        )),
        Some(_) => Ok(()),
    };
    f
}

/// Every host launch check of the run passed (each engine's host has one
/// report, trusted, for the attested weights and config, sizes at least),
/// and every report hashed the config from a file on its host (not
/// `config_source: stated`).
pub fn launch_checks(ctx: &Context<'_>) -> Found {
    let mut f = found(
        "every shard's recorded size and the model config hash confirmed on every engine's host"
            .into(),
        "the host launch checks (host:*) and each report's config_source",
    );
    let checks = ctx.host_checks;
    if ctx.q.host_checks.is_empty() {
        f.ok = Err("qualification.json lists no host launch-check reports (host_checks)".into());
        return f;
    }
    let bad: Vec<&str> = checks
        .iter()
        .filter(|c| !c.passed())
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
