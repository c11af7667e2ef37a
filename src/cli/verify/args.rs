//! The flags of `verify`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::ValueEnum;
use proofpack::digest::Sha256Digest;
use proofpack::run::qualification::MAX_SMALL_FILE;

use crate::cli::bundle_args::LimitArgs;
use crate::cli::filekind::{read_as, Want};
use crate::cli::junit::JunitArgs;

/// How to print the recomputed table.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableFormat {
    /// Aligned plain text.
    Text,
    /// The measured-points table `publish` writes (GitHub-flavoured
    /// Markdown): pasted under "Measured points", it verifies.
    Markdown,
    /// No table.
    None,
}

/// `proofpack verify`
#[derive(clap::Args, Debug)]
pub struct VerifyArgs {
    /// The sealed bundle (.tgz) or the run directory to verify. Given only
    /// --publication, verify names the bundle the write-up names.
    #[arg(required_unless_present = "publication")]
    pub target: Option<PathBuf>,
    /// The published write-up (Markdown, or the text copied from its
    /// rendered page): every row of its "Pinned inputs" table, every cell
    /// of its "Measured points" table and every sentence of its prose is
    /// checked against the evidence.
    #[arg(long, value_name = "WRITEUP.md")]
    pub publication: Option<PathBuf>,
    /// Read the write-up in this form (by default: tab-separated table
    /// rows and no Markdown delimiter row are the text form, else gfm).
    #[arg(long, value_enum, value_name = "FORM", requires = "publication")]
    pub publication_format: Option<crate::cli::formats::PublicationFormatArg>,
    /// With --publication: every table, row or cell of the write-up that is
    /// not checked against evidence, and every row backed only by a file
    /// the publisher wrote for it, fails (by default each is reported and
    /// named in the verdict).
    #[arg(
        long = "require-all",
        alias = "require-all-rows",
        requires = "publication"
    )]
    pub strict: bool,
    /// The published pins (proofpack/pins/v1), when there is no write-up to
    /// give with --publication. Without either the verdict is "unpinned".
    #[arg(long, value_name = "PINS")]
    pub pins: Option<PathBuf>,
    /// Trust roots (proofpack/trust/v1): the keys you trust for engine,
    /// release and host. Required (exit 2 without it) unless --structure-only.
    #[arg(long, value_name = "TRUST")]
    pub trust: Option<PathBuf>,
    /// Print the report as one JSON object (proofpack/report/v1) instead.
    #[arg(long)]
    pub json: bool,
    /// The release seal (default: BUNDLE.tgz.seal.dsse.json beside the bundle).
    #[arg(long, value_name = "FILE")]
    pub seal: Option<PathBuf>,
    /// Fail unless a release seal is present and verifies under a key of
    /// --trust trusted for `release`.
    #[arg(long)]
    pub require_seal: bool,
    /// Verify only the bundle's structure and seal, not the qualification
    /// (for a bundle that is not a qualification run). The verdict says so.
    #[arg(long)]
    pub structure_only: bool,
    #[command(flatten)]
    pub limits: LimitArgs,
    /// Layout of the recomputed measured-points table.
    #[arg(long, value_enum, default_value = "text")]
    pub table: TableFormat,
    /// Also write the report as one self-contained HTML page (verdict,
    /// checks, published inputs, recomputed table, latency plots).
    #[arg(long, value_name = "REPORT.html")]
    pub html: Option<PathBuf>,
    /// Also write a signed SLSA Verification Summary Attestation (DSSE, in-toto
    /// Statement v1) of this verification, PASSED or FAILED. Needs --vsa-key.
    #[arg(long, value_name = "VSA.dsse.json")]
    pub vsa: Option<PathBuf>,
    /// The auditor's Ed25519 private key (PKCS#8 PEM) that signs --vsa.
    #[arg(long, value_name = "KEY")]
    pub vsa_key: Option<PathBuf>,
    #[command(flatten)]
    pub junit: JunitArgs,
}

/// Reads the argument file `path` of `flag` (if given) whole and parses it
/// as a `want`: the value and the SHA-256 of the very bytes parsed. A file
/// of another kind is named as such.
pub fn load<T>(
    path: Option<&std::path::Path>,
    (flag, want): (&str, Want),
    parse: impl Fn(&[u8], &str) -> Result<T>,
) -> Result<(Option<T>, Option<Sha256Digest>)> {
    let Some(p) = path else {
        return Ok((None, None));
    };
    read_as(p, flag, want, || {
        let bytes = proofpack::capped::read_capped(p, MAX_SMALL_FILE)?;
        let value = parse(&bytes, &p.display().to_string())?;
        Ok::<_, anyhow::Error>((Some(value), Some(Sha256Digest::of_bytes(&bytes))))
    })
    .with_context(|| format!("cannot use the {flag} file {}", p.display()))
}
