//! `key gen`, `key id`, `key trust`.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use proofpack::keys::{self, Role, TrustStore, TrustedKey};
use proofpack::report::EXIT_OK;

use super::filekind::{read_as, Want};
use super::Ui;

/// `proofpack key`
#[derive(clap::Args, Debug)]
pub struct KeyArgs {
    #[command(subcommand)]
    pub command: KeyCommand,
}

/// Key subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum KeyCommand {
    /// Generate an Ed25519 key pair: PREFIX.key (PKCS#8 PEM, mode 0600) and
    /// PREFIX.pub (SubjectPublicKeyInfo PEM). Prints the key id.
    Gen(GenArgs),
    /// Print the key id of a public key (SHA-256 of its DER SubjectPublicKeyInfo).
    Id(IdArgs),
    /// Write a trust file (proofpack/trust/v1) from public keys and roles.
    Trust(TrustArgs),
}

/// `proofpack key gen`
#[derive(clap::Args, Debug)]
pub struct GenArgs {
    /// Output prefix: writes PREFIX.key and PREFIX.pub.
    #[arg(short, long, value_name = "PREFIX")]
    pub output: PathBuf,
    /// Replace existing PREFIX.key / PREFIX.pub.
    #[arg(long)]
    pub force: bool,
}

/// `proofpack key id`
#[derive(clap::Args, Debug)]
pub struct IdArgs {
    /// An Ed25519 public key (SPKI PEM, "-----BEGIN PUBLIC KEY-----").
    pub public_key: PathBuf,
}

/// `proofpack key trust`
#[derive(clap::Args, Debug)]
pub struct TrustArgs {
    /// Trust this public key for engine attestations (repeatable).
    #[arg(long, value_name = "PUBLIC_KEY")]
    pub engine: Vec<PathBuf>,
    /// Trust this public key for bundle seals (repeatable).
    #[arg(long, value_name = "PUBLIC_KEY")]
    pub release: Vec<PathBuf>,
    /// Trust this public key for host launch-check reports (repeatable).
    #[arg(long, value_name = "PUBLIC_KEY")]
    pub host: Vec<PathBuf>,
    /// Trust this public key for verification summaries, the VSAs
    /// `verify --vsa` writes (repeatable).
    #[arg(long, value_name = "PUBLIC_KEY")]
    pub auditor: Vec<PathBuf>,
    /// Start from the keys of this trust file.
    #[arg(long, value_name = "TRUST")]
    pub from: Option<PathBuf>,
    /// Write the trust file here (atomically) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

pub fn run_key(a: KeyArgs, ui: &Ui) -> Result<i32> {
    match a.command {
        KeyCommand::Gen(g) => {
            let id = keys::generate_keypair(&g.output, g.force)?;
            println!("{id}");
            ui.note(&format!(
                "key gen: wrote {} (private, mode 0600) and {} (public); key id {id}",
                keys::with_suffix(&g.output, ".key").display(),
                keys::with_suffix(&g.output, ".pub").display()
            ));
            Ok(EXIT_OK)
        }
        KeyCommand::Id(i) => {
            let k = read_as(&i.public_key, "PUBLIC_KEY", Want::PublicKey, || {
                keys::load_public_key(&i.public_key)
            })?;
            println!("{}", keys::key_id(&k));
            Ok(EXIT_OK)
        }
        KeyCommand::Trust(t) => run_trust(t, ui),
    }
}

fn run_trust(t: TrustArgs, ui: &Ui) -> Result<i32> {
    if let Some(out) = &t.output {
        super::output::check(out)?;
    }
    let mut list: Vec<TrustedKey> = match &t.from {
        Some(p) => read_as(p, "--from", Want::Trust, || TrustStore::load(p))?
            .keys()
            .to_vec(),
        None => Vec::new(),
    };
    for (role, paths) in [
        (Role::Engine, &t.engine),
        (Role::Release, &t.release),
        (Role::Host, &t.host),
        (Role::Auditor, &t.auditor),
    ] {
        for p in paths {
            let flag = format!("--{role}");
            let k = read_as(p, &flag, Want::PublicKey, || keys::load_public_key(p))?;
            let label = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .filter(|s| !s.is_empty());
            list.push(TrustedKey::new(k, vec![role], label));
        }
    }
    if list.is_empty() {
        anyhow::bail!(
            "no keys given; use --engine PUB, --release PUB, --host PUB and/or --auditor PUB (or --from TRUST)"
        );
    }
    let store = TrustStore::from_keys(list);
    let text = store.to_json();
    match &t.output {
        Some(out) => super::output::write(out, text.as_bytes(), 0o644, true)?,
        None => {
            let mut so = std::io::stdout().lock();
            so.write_all(text.as_bytes()).context("writing to stdout")?;
            so.flush().context("writing to stdout")?;
        }
    }
    let engine = store.keys_for(Role::Engine).count();
    let release = store.keys_for(Role::Release).count();
    let host = store.keys_for(Role::Host).count();
    let auditor = store.keys_for(Role::Auditor).count();
    ui.note(&format!(
        "key trust: {} key(s): {engine} for engine, {release} for release, {host} for host, {auditor} for auditor",
        store.keys().len()
    ));
    Ok(EXIT_OK)
}
