//! `attest sign`, `attest engine`, `attest verify`.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use ed25519_dalek::SigningKey;
use proofpack::attest::{self, EnginePredicate, Statement, Subject, ENGINE_PREDICATE_TYPE};
use proofpack::fleet::{HostCheckPredicate, HOST_CHECK_PREDICATE_TYPE};
use proofpack::keys::{self, Role, TrustStore};
use proofpack::progress::NoProgress;
use proofpack::report::{EXIT_FAILED, EXIT_OK};
use serde_json::{Map, Value};

use super::filekind::Want;
use super::Ui;

/// Largest predicate file read (1 MiB).
const PREDICATE_MAX_BYTES: u64 = 1 << 20;

/// `proofpack attest`
#[derive(clap::Args, Debug)]
pub struct AttestArgs {
    #[command(subcommand)]
    pub command: AttestCommand,
}

/// Attestation subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum AttestCommand {
    /// Sign an in-toto Statement (any predicate) into a DSSE envelope.
    Sign(SignArgs),
    /// Sign an engine attestation (urn:proofpack:predicate:engine:v1) from
    /// flags and/or a JSON file: what one engine ran, in one call.
    Engine(Box<EngineArgs>),
    /// Verify a DSSE envelope against trusted keys of a role; print its
    /// subjects and predicate type.
    Verify(VerifyArgs),
}

/// Signing key(s) and output.
#[derive(clap::Args, Debug)]
pub struct SignOutput {
    /// Ed25519 private key (PKCS#8 PEM). Repeat to add signatures by several keys.
    #[arg(long, value_name = "KEY", required = true)]
    pub key: Vec<PathBuf>,
    /// Write the envelope here (atomically; replaces an existing file).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
}

/// `proofpack attest sign`
#[derive(clap::Args, Debug)]
pub struct SignArgs {
    #[command(flatten)]
    pub out: SignOutput,
    /// The predicate type URI.
    #[arg(long, value_name = "URI")]
    pub predicate_type: String,
    /// The predicate: a JSON file (an object).
    #[arg(long, value_name = "FILE")]
    pub predicate: PathBuf,
    /// A subject: NAME=PATH (the file is hashed) or NAME=sha256:HEX (repeatable, at least one).
    #[arg(long, value_name = "NAME=PATH|NAME=sha256:HEX", required = true)]
    pub subject: Vec<String>,
}

/// `proofpack attest engine`
#[derive(clap::Args, Debug)]
pub struct EngineArgs {
    #[command(flatten)]
    pub out: SignOutput,
    /// Predicate fields as a JSON file (an object, possibly partial); flags override its fields.
    #[arg(long, value_name = "FILE")]
    pub predicate: Option<PathBuf>,
    /// engine.id: the engine's id in the qualification (e.g. engine-0).
    #[arg(long, value_name = "ID")]
    pub engine_id: Option<String>,
    /// engine.name: the serving engine (e.g. vllm).
    #[arg(long, value_name = "NAME")]
    pub engine_name: Option<String>,
    /// engine.version.
    #[arg(long, value_name = "VERSION")]
    pub engine_version: Option<String>,
    /// engine.image: the image digest, sha256:HEX (also the engine-image subject).
    #[arg(long, value_name = "sha256:HEX")]
    pub image: Option<String>,
    /// host (default: this machine's host name).
    #[arg(long)]
    pub host: Option<String>,
    /// model served (e.g. moonshotai/Kimi-K3).
    #[arg(long)]
    pub model: Option<String>,
    /// accelerator.name (e.g. MI355X).
    #[arg(long, value_name = "NAME")]
    pub accelerator: Option<String>,
    /// accelerator.count.
    #[arg(long, value_name = "N")]
    pub accelerator_count: Option<u64>,
    /// parallelism degree, DIM=N (repeatable, e.g. tensor=8).
    #[arg(long, value_name = "DIM=N")]
    pub parallelism: Vec<String>,
    /// launched_at, RFC 3339 UTC (default: now).
    #[arg(long, value_name = "TIME")]
    pub launched_at: Option<String>,
    /// generation: restart count of the engine (default 0).
    #[arg(long, value_name = "N")]
    pub generation: Option<u64>,
    /// The weights' shard manifest (any manifest format; its canonical digest
    /// is the weights.manifest subject), or sha256:HEX.
    #[arg(long, value_name = "MANIFEST|sha256:HEX")]
    pub weights_manifest: Option<String>,
    /// The model config file (config.json subject), or sha256:HEX.
    #[arg(long, value_name = "FILE|sha256:HEX")]
    pub config: Option<String>,
    /// Further subjects, NAME=PATH or NAME=sha256:HEX (repeatable).
    #[arg(long, value_name = "NAME=PATH|NAME=sha256:HEX")]
    pub subject: Vec<String>,
}

/// `proofpack attest verify`
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The DSSE envelope (JSON).
    pub envelope: PathBuf,
    /// The trust file (proofpack/trust/v1): the keys you trust, with roles.
    #[arg(long, value_name = "TRUST")]
    pub trust: PathBuf,
    /// The role the signing keys must be trusted for.
    #[arg(long, value_name = "ROLE", default_value = "engine", value_parser = ["engine", "release", "host", "auditor"])]
    pub role: String,
    /// Distinct trusted keys that must have signed.
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threshold: u64,
    /// The bundle a verification summary (--role auditor) must be
    /// about: its SHA-256 must be a subject's digest.
    #[arg(long, value_name = "BUNDLE")]
    pub subject: Option<PathBuf>,
    /// Print the verification report (JSON) on stdout.
    #[arg(long)]
    pub json: bool,
}

pub fn run_attest(a: AttestArgs, ui: &Ui) -> Result<i32> {
    match a.command {
        AttestCommand::Sign(s) => run_sign(s, ui),
        AttestCommand::Engine(e) => run_engine(*e, ui),
        AttestCommand::Verify(v) => run_verify(v, ui),
    }
}

fn read_json_object(path: &Path, what: &str) -> Result<Value> {
    let bytes = proofpack::capped::read_capped(path, PREDICATE_MAX_BYTES)?;
    keys::reject_duplicate_json_keys(&bytes)
        .with_context(|| format!("{what} {}: not valid JSON", path.display()))?;
    let v: Value = serde_json::from_slice(&bytes)
        .with_context(|| format!("{what} {}: not valid JSON", path.display()))?;
    if !v.is_object() {
        bail!("{what} {}: expected a JSON object", path.display());
    }
    Ok(v)
}

/// Loads the signing keys first, so that a bad key fails before any hashing.
fn load_keys(out: &SignOutput) -> Result<Vec<SigningKey>> {
    super::output::check(&out.output)?;
    let mut signing = Vec::new();
    for k in &out.key {
        signing.push(keys::load_signing_key(k)?);
    }
    Ok(signing)
}

fn sign_and_write(
    statement: &Statement,
    signing: &[SigningKey],
    out: &SignOutput,
    ui: &Ui,
) -> Result<i32> {
    let refs: Vec<&_> = signing.iter().collect();
    let envelope = attest::sign_statement(statement, &refs);
    super::output::write(&out.output, &envelope, 0o644, true)?;
    let ids: Vec<String> = signing
        .iter()
        .map(|k| keys::key_id(&k.verifying_key()))
        .collect();
    for s in &statement.subjects {
        let line = format!("subject: {} sha256:{}", s.name, s.digest);
        if super::output::is_stdout(&out.output) {
            // The envelope is on standard output: the subjects go beside it.
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    }
    ui.note(&format!(
        "attest: wrote {} ({}, {} subject(s)), signed by {}",
        out.output.display(),
        statement.predicate_type,
        statement.subjects.len(),
        ids.join(", ")
    ));
    Ok(EXIT_OK)
}

fn check_unique(subjects: &[Subject]) -> Result<()> {
    for (i, s) in subjects.iter().enumerate() {
        if subjects[..i].iter().any(|o| o.name == s.name) {
            bail!(
                "subject {:?} is given twice; each subject name once",
                s.name
            );
        }
    }
    Ok(())
}

fn run_sign(a: SignArgs, ui: &Ui) -> Result<i32> {
    let signing = load_keys(&a.out)?;
    let predicate = read_json_object(&a.predicate, "--predicate")?;
    let mut subjects = Vec::new();
    for spec in &a.subject {
        subjects.push(attest::subject_from_spec(spec, &NoProgress)?);
    }
    check_unique(&subjects)?;
    let statement = Statement::new(subjects, &a.predicate_type, predicate)?;
    if a.predicate_type == ENGINE_PREDICATE_TYPE {
        // Refuse to sign an engine attestation that a verifier would reject.
        let p = EnginePredicate::from_statement(&statement)?;
        p.statement(statement.subjects.clone())?;
    }
    if let Some(why) = attest::known_predicate_problem(&statement) {
        // The same for a seal: never sign what `verify` rejects.
        bail!("refusing to sign: {why}");
    }
    sign_and_write(&statement, &signing, &a.out, ui)
}

/// Sets `obj[path...] = value`, creating objects on the way.
fn set_path(obj: &mut Value, path: &[&str], value: Value) -> Result<()> {
    let mut cur = obj;
    for (i, key) in path.iter().enumerate() {
        let map = cur
            .as_object_mut()
            .with_context(|| format!("predicate field {} is not an object", path[..i].join(".")))?;
        if i + 1 == path.len() {
            map.insert((*key).to_string(), value);
            return Ok(());
        }
        cur = map.entry(*key).or_insert_with(|| Value::Object(Map::new()));
    }
    Ok(())
}

fn local_hostname() -> Option<String> {
    let h = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| std::fs::read_to_string("/etc/hostname"))
        .ok()?;
    let h = h.trim().to_string();
    (!h.is_empty()).then_some(h)
}

/// `NAME` subject from `PATH|sha256:HEX`, a manifest's canonical digest when `manifest`.
fn named_subject(name: &str, value: &str, manifest: bool) -> Result<Subject> {
    if value.starts_with("sha256:") || !manifest {
        return Ok(attest::subject_from_spec(
            &format!("{name}={value}"),
            &NoProgress,
        )?);
    }
    let path = Path::new(value);
    if path.is_dir() {
        bail!(
            "--weights-manifest {value}: is a directory; build the shard manifest first (`proofpack manifest {value} -o weights.manifest`) and give that file"
        );
    }
    let m = super::manifest::read_manifest_arg(path, "--weights-manifest", None)?;
    Ok(Subject {
        name: name.to_string(),
        digest: m.digest(),
    })
}

fn run_engine(a: EngineArgs, ui: &Ui) -> Result<i32> {
    let signing = load_keys(&a.out)?;
    let mut pred = match &a.predicate {
        Some(p) => read_json_object(p, "--predicate")?,
        None => Value::Object(Map::new()),
    };
    let s = |v: &Option<String>| v.clone().map(Value::String);
    for (path, value) in [
        (&["engine", "id"][..], s(&a.engine_id)),
        (&["engine", "name"][..], s(&a.engine_name)),
        (&["engine", "version"][..], s(&a.engine_version)),
        (&["engine", "image"][..], s(&a.image)),
        (&["host"][..], s(&a.host)),
        (&["model"][..], s(&a.model)),
        (&["accelerator", "name"][..], s(&a.accelerator)),
        (
            &["accelerator", "count"][..],
            a.accelerator_count.map(Value::from),
        ),
        (&["launched_at"][..], s(&a.launched_at)),
        (&["generation"][..], a.generation.map(Value::from)),
    ] {
        if let Some(v) = value {
            set_path(&mut pred, path, v)?;
        }
    }
    for p in &a.parallelism {
        let (dim, n) = p
            .split_once('=')
            .with_context(|| format!("--parallelism {p:?}: expected DIM=N, e.g. tensor=8"))?;
        let n: u64 = n
            .parse()
            .with_context(|| format!("--parallelism {p:?}: {n:?} is not a whole number"))?;
        set_path(&mut pred, &["parallelism", dim], Value::from(n))?;
    }
    // Defaults for what a sidecar knows itself.
    let obj = pred.as_object_mut().expect("checked object");
    if !obj.contains_key("host") {
        if let Some(h) = local_hostname() {
            obj.insert("host".into(), Value::String(h));
        }
    }
    obj.entry("launched_at")
        .or_insert_with(|| Value::String(attest::rfc3339_utc_now()));
    obj.entry("generation").or_insert_with(|| Value::from(0u64));
    obj.entry("parallelism")
        .or_insert_with(|| Value::Object(Map::new()));
    let predicate = EnginePredicate::from_value(&pred).map_err(|e| {
        anyhow::anyhow!(
            "{e}\n(give the field as a flag, e.g. --engine-id/--engine-name/--engine-version/--image/--model/--accelerator/--accelerator-count, or in --predicate FILE)"
        )
    })?;
    let mut subjects = Vec::new();
    if let Some(w) = &a.weights_manifest {
        subjects.push(named_subject("weights.manifest", w, true)?);
    }
    if let Some(c) = &a.config {
        subjects.push(named_subject("config.json", c, false)?);
    }
    for spec in &a.subject {
        subjects.push(attest::subject_from_spec(spec, &NoProgress)?);
    }
    check_unique(&subjects)?;
    let statement = predicate.statement(subjects)?;
    sign_and_write(&statement, &signing, &a.out, ui)
}

fn run_verify(a: VerifyArgs, ui: &Ui) -> Result<i32> {
    let role: Role = a.role.parse()?;
    let trust = super::filekind::read_as(&a.trust, "--trust", Want::Trust, || {
        TrustStore::load(&a.trust)
    })
    .context("cannot use the trust file")?;
    if trust.keys_for(role).next().is_none() {
        bail!(
            "{}: no key is trusted for role {role}; add one (`proofpack key trust --{role} KEY.pub`)",
            a.trust.display()
        );
    }
    if a.envelope.is_dir() {
        bail!(
            "{}: is a directory; attest verify takes one DSSE envelope file ({})",
            a.envelope.display(),
            Want::Envelope.made()
        );
    }
    let subject = match &a.subject {
        Some(p) => Some(
            proofpack::digest::hash_file(p, &NoProgress)
                .with_context(|| format!("cannot read --subject {}", p.display()))?
                .0,
        ),
        None => None,
    };
    let bytes = attest::read_envelope_file(&a.envelope)
        .with_context(|| format!("cannot read {}", a.envelope.display()))?;
    let v = attest::verify_envelope_detailed(&bytes, &trust, role, a.threshold as usize);
    let target = a.envelope.display().to_string();
    if v.result.is_err() {
        // Not an envelope at all: say what it is.
        if let Some(msg) = super::filekind::wrong_kind(&a.envelope, "ENVELOPE", Want::Envelope) {
            ui.note(&format!("attest verify: {msg}"));
        }
    }
    // A host launch-check report: signed is not enough, the check
    // it records must have passed.
    let host_problem = match &v.result {
        Ok(st) => host_report_problem(st.get()),
        Err(_) => None,
    };
    // The auditor role signs verification summaries only, and a
    // summary holds only under it (and, with --subject, for that bundle).
    let vsa_checks = match &v.result {
        Ok(st) => attest::vsa_checks(st.get(), role, subject),
        Err(_) => Vec::new(),
    };
    let vsa_failure = vsa_checks.iter().find(|c| c.failed());
    if a.json {
        let mut report = v.to_report(&target);
        if let Ok(st) = &v.result {
            if st.predicate_type == HOST_CHECK_PREDICATE_TYPE {
                report.push(match &host_problem {
                    None => proofpack::report::Check::pass(
                        "host_check",
                        "the signed host launch-check report records a passing check",
                    ),
                    Some(why) => proofpack::report::Check::fail("host_check", why.clone()),
                });
            }
        }
        for c in &vsa_checks {
            report.push(c.clone());
        }
        println!("{}", report.to_json());
    }
    match &v.result {
        Ok(_) if host_problem.is_some() => {
            ui.note(&format!(
                "attest verify: FAILED, {}: signed by a key trusted for {role}, but {}",
                a.envelope.display(),
                host_problem.unwrap_or_default()
            ));
            Ok(EXIT_FAILED)
        }
        Ok(st) if attest::known_predicate_problem(st.get()).is_some() => {
            let why = attest::known_predicate_problem(st.get()).unwrap_or_default();
            ui.note(&format!(
                "attest verify: FAILED, {}: signed, but its predicate is not valid: {why}",
                a.envelope.display()
            ));
            Ok(EXIT_FAILED)
        }
        Ok(_) if vsa_failure.is_some() => {
            let (id, why) = vsa_failure
                .map(|c| (c.id.as_str(), c.detail.as_str()))
                .unwrap_or_default();
            ui.note(&format!(
                "attest verify: FAILED, {}: signed by a key trusted for {role}, but check {id} failed: {why}",
                a.envelope.display(),
            ));
            Ok(EXIT_FAILED)
        }
        Ok(st) => {
            if !a.json {
                println!("predicateType: {}", st.predicate_type);
                for s in &st.subjects {
                    println!("subject: {} sha256:{}", s.name, s.digest);
                }
                if let Some(p) = host_predicate(st.get()) {
                    println!(
                        "host check: {} {} {} against {}: {} files, {} failed",
                        p.host,
                        p.mode.as_str(),
                        p.root,
                        p.manifest,
                        p.files,
                        p.failed
                    );
                }
                if st.predicate_type == attest::VSA_PREDICATE_TYPE {
                    let p = &st.predicate;
                    println!(
                        "verification summary: {} by {} at {}, levels {}",
                        p["verificationResult"].as_str().unwrap_or_default(),
                        p["verifier"]["id"].as_str().unwrap_or_default(),
                        p["timeVerified"].as_str().unwrap_or("(no time)"),
                        p["verifiedLevels"]
                    );
                }
                for k in st.signers() {
                    let label = trust.get(k).and_then(|t| t.label.clone());
                    match label {
                        Some(l) => println!("signer: {k} ({l})"),
                        None => println!("signer: {k}"),
                    }
                }
            }
            for n in st.ignored() {
                ui.note(&format!("attest verify: note: {n}"));
            }
            ui.note(&format!(
                "attest verify: OK, {} signed by {} distinct key(s) trusted for {role} (threshold {})",
                a.envelope.display(),
                st.signers().len(),
                a.threshold
            ));
            Ok(EXIT_OK)
        }
        Err(e) => {
            ui.note(&format!(
                "attest verify: FAILED, {}: {e}",
                a.envelope.display()
            ));
            Ok(EXIT_FAILED)
        }
    }
}

fn host_predicate(st: &Statement) -> Option<HostCheckPredicate> {
    if st.predicate_type != HOST_CHECK_PREDICATE_TYPE {
        return None;
    }
    serde_json::from_value(st.predicate.clone()).ok()
}

/// Why a signed host launch-check report does not show a passing check.
fn host_report_problem(st: &Statement) -> Option<String> {
    if st.predicate_type != HOST_CHECK_PREDICATE_TYPE {
        return None;
    }
    match serde_json::from_value::<HostCheckPredicate>(st.predicate.clone()) {
        Err(e) => Some(format!(
            "its predicate is not a valid host-check predicate: {e}"
        )),
        Ok(p) if !p.passed || p.failed > 0 => Some(format!(
            "the report records a failed launch check on host {} ({} path(s) did not match: {})",
            p.host,
            p.failed,
            p.failures.join("; ")
        )),
        Ok(p)
            if st.subject("weights.manifest").map(|s| s.digest.prefixed())
                != Some(p.manifest.clone()) =>
        {
            Some(format!(
                "the report's weights.manifest subject disagrees with its predicate ({})",
                p.manifest
            ))
        }
        Ok(_) => None,
    }
}
