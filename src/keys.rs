//! Ed25519 keys, key ids, the trust file and the strict signature check
//! (spec section 3).
//!
//! Why these rules:
//!
//! - **One algorithm.** proofpack signs with Ed25519 only. A PEM file holding
//!   any other key (RSA, P-256, an encrypted key) is refused with a message
//!   naming what was found, never "interpreted".
//! - **Key ids are derived, never trusted.** A key id is the SHA-256 of the
//!   key's 44-byte DER SubjectPublicKeyInfo, the same value
//!   `openssl pkey -pubin -outform DER | sha256sum` prints. The trust file
//!   repeats it so that a person can read and compare it, and the reader
//!   recomputes it and rejects the file on a mismatch: a hand-edited id can
//!   never make a different key trusted.
//! - **One encoding per key.** A public key must be the canonical encoding of
//!   its point and not of small order; otherwise one key could have two ids,
//!   or a "key" could verify signatures that nobody made.
//! - **Strict verification in one place.** [`verify_ed25519_strict`] is the only
//!   Ed25519 check in proofpack. The envelope verifier calls it, and the
//!   Wycheproof and speccheck vector tests call it, so the vectors test exactly
//!   what an auditor's verdict rests on. It rejects what RFC 8032's strict
//!   reading rejects: a signature that is not 64 bytes, `S >= L`, a
//!   non-canonical or small-order `R` or `A`; then it runs ed25519-dalek's
//!   `verify_strict` (cofactorless equation, encoded-R comparison).

use std::collections::BTreeSet;
use std::fmt;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use ed25519_dalek::pkcs8::{DecodePrivateKey, ObjectIdentifier};
use ed25519_dalek::{Signature, SigningKey, VerifyingKey};
use serde::{Deserialize, Serialize};

use crate::atomic::{AtomicError, AtomicFile};
use crate::digest::Sha256Digest;

/// Largest trust file or PEM key file read (1 MiB): far above any real one,
/// small enough that a wrong path (a weights shard) fails fast.
pub const KEY_FILE_MAX_BYTES: u64 = 1 << 20;

/// Schema tag of the trust file.
pub const TRUST_SCHEMA: &str = "proofpack/trust/v1";

/// DER prefix of an Ed25519 SubjectPublicKeyInfo (RFC 8410): SEQUENCE {
/// SEQUENCE { OID 1.3.101.112 }, BIT STRING (33 bytes, 0 unused bits) }.
const ED25519_SPKI_PREFIX: [u8; 12] = [
    0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
];

/// OID of Ed25519 (RFC 8410).
const OID_ED25519: &str = "1.3.101.112";

/// What a key is trusted for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Signs engine attestations (`urn:proofpack:predicate:engine:v1`).
    Engine,
    /// Signs bundle seals (`urn:proofpack:predicate:seal:v1`).
    Release,
    /// v1.1: signs host launch-check reports
    /// (`urn:proofpack:predicate:host-check:v1`).
    Host,
}

impl Role {
    /// The role's name in trust files and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Engine => "engine",
            Role::Release => "release",
            Role::Host => "host",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = KeyError;
    fn from_str(s: &str) -> Result<Self, KeyError> {
        match s {
            "engine" => Ok(Role::Engine),
            "release" => Ok(Role::Release),
            "host" => Ok(Role::Host),
            other => Err(KeyError::UnknownRole {
                found: other.to_string(),
            }),
        }
    }
}

/// Errors about keys and trust files. All of them mean "the tool could not
/// run" (exit 2) when the file was an argument.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum KeyError {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },
    /// A key or trust file is larger than [`KEY_FILE_MAX_BYTES`].
    #[error("{}: larger than {} bytes; this is not a key or trust file", path.display(), KEY_FILE_MAX_BYTES)]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// An output file exists and `--force` was not given.
    #[error("{} already exists; refusing to overwrite a key (pass --force to replace it)", path.display())]
    Exists {
        /// The file.
        path: PathBuf,
    },
    /// The text is not a PEM document of the expected kind.
    #[error("{origin}: {reason}")]
    BadPem {
        /// Where the text came from.
        origin: String,
        /// What was wrong and what was expected.
        reason: String,
    },
    /// A well-formed key of another algorithm.
    #[error("{origin}: this is {algorithm} key; proofpack uses Ed25519 keys only (create one with `proofpack key gen -o PREFIX`)")]
    WrongAlgorithm {
        /// Where the key came from.
        origin: String,
        /// A description of what was found ("an RSA", "a P-256 (EC)" ...).
        algorithm: String,
    },
    /// The Ed25519 public key bytes are unusable.
    #[error("{origin}: unusable Ed25519 public key: {reason}")]
    BadPublicKey {
        /// Where the key came from.
        origin: String,
        /// Why.
        reason: SigError,
    },
    /// The trust file is not valid JSON of the trust schema.
    #[error("{origin}: not a proofpack/trust/v1 file: {reason}")]
    BadTrustFile {
        /// Where the trust file came from.
        origin: String,
        /// What was wrong.
        reason: String,
    },
    /// A trust file entry's key id is not the id of its key.
    #[error("{origin}: key #{index} says keyid {stated} but its public_key has keyid {computed}; fix the keyid (`proofpack key id KEY.pub` prints it) or the key")]
    KeyIdMismatch {
        /// Where the trust file came from.
        origin: String,
        /// 1-based entry number.
        index: usize,
        /// The key id written in the file.
        stated: String,
        /// The key id recomputed from the key.
        computed: String,
    },
    /// The same key appears twice in a trust file.
    #[error("{origin}: key {keyid} is listed twice; list each key once with all its roles")]
    DuplicateKey {
        /// Where the trust file came from.
        origin: String,
        /// The repeated key id.
        keyid: String,
    },
    /// A role name other than `engine` or `release`.
    #[error("unknown role {found:?}; roles are \"engine\", \"release\" and \"host\"")]
    UnknownRole {
        /// The name found.
        found: String,
    },
    /// Writing a key file failed.
    #[error(transparent)]
    Write(#[from] AtomicError),
}

/// Why an Ed25519 check rejected (public key, message, signature).
/// These are evidence failures: the signature does not hold.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SigError {
    /// The public key is not 32 bytes.
    #[error("public key is {0} bytes; an Ed25519 public key is 32 bytes")]
    PublicKeyLength(usize),
    /// The signature is not 64 bytes.
    #[error("signature is {0} bytes; an Ed25519 signature is 64 bytes")]
    SignatureLength(usize),
    /// The public key does not decode to a curve point.
    #[error("public key is not a point on Ed25519")]
    PublicKeyNotOnCurve,
    /// The public key is a non-canonical encoding of its point.
    #[error("public key is a non-canonical point encoding")]
    PublicKeyNonCanonical,
    /// The public key has small order (it would "verify" forged signatures).
    #[error("public key is a small-order point")]
    PublicKeySmallOrder,
    /// The scalar S of the signature is not reduced (S >= L): a malleated signature.
    #[error("signature scalar S is not reduced modulo L (malleable signature)")]
    NonCanonicalS,
    /// The R component does not decode to a curve point.
    #[error("signature point R is not a point on Ed25519")]
    RNotOnCurve,
    /// The R component is a non-canonical encoding.
    #[error("signature point R is a non-canonical point encoding")]
    RNonCanonical,
    /// The R component has small order.
    #[error("signature point R is a small-order point")]
    RSmallOrder,
    /// The verification equation does not hold: wrong key, message or signature.
    #[error("signature does not verify")]
    Mismatch,
}

/// L, the order of the Ed25519 base point, little-endian.
const ORDER_L: [u8; 32] = [
    0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10,
];

/// True if the little-endian 256-bit number `s` is smaller than L.
fn scalar_is_reduced(s: &[u8; 32]) -> bool {
    for i in (0..32).rev() {
        if s[i] != ORDER_L[i] {
            return s[i] < ORDER_L[i];
        }
    }
    false
}

/// Decodes a point encoding, requiring it to be canonical and of large order.
/// Returns the errors for the public key (`is_key`) or for R.
fn decode_point(bytes: &[u8; 32], is_key: bool) -> Result<VerifyingKey, SigError> {
    let (not_on_curve, non_canonical, small) = if is_key {
        (
            SigError::PublicKeyNotOnCurve,
            SigError::PublicKeyNonCanonical,
            SigError::PublicKeySmallOrder,
        )
    } else {
        (
            SigError::RNotOnCurve,
            SigError::RNonCanonical,
            SigError::RSmallOrder,
        )
    };
    let point = VerifyingKey::from_bytes(bytes).map_err(|_| not_on_curve)?;
    if point.to_edwards().compress().to_bytes() != *bytes {
        return Err(non_canonical);
    }
    if point.is_weak() {
        return Err(small);
    }
    Ok(point)
}

/// Checks a public key's 32 bytes: on the curve, canonically encoded, not of
/// small order. Every key proofpack trusts or writes passes this.
pub fn check_public_key_bytes(pk: &[u8]) -> Result<VerifyingKey, SigError> {
    let pk: &[u8; 32] = pk
        .try_into()
        .map_err(|_| SigError::PublicKeyLength(pk.len()))?;
    decode_point(pk, true)
}

/// The one strict Ed25519 verification of proofpack: raw public key bytes,
/// message, raw signature bytes. Used by the envelope verifier and by the
/// Wycheproof and speccheck vector tests.
///
/// Rejects, in this order: a public key that is not 32 bytes, a signature
/// that is not 64 bytes, a public key that is not a canonical encoding of a
/// large-order point, `S >= L`, an `R` that is not a canonical encoding of a
/// large-order point, and finally a failed `verify_strict`
/// (`[S]B = R + [k]A`, compared on the encoding of `R`).
pub fn verify_ed25519_strict(pk: &[u8], msg: &[u8], sig: &[u8]) -> Result<(), SigError> {
    if pk.len() != 32 {
        return Err(SigError::PublicKeyLength(pk.len()));
    }
    let sig: &[u8; 64] = sig
        .try_into()
        .map_err(|_| SigError::SignatureLength(sig.len()))?;
    let key = check_public_key_bytes(pk)?;
    let mut r = [0u8; 32];
    let mut s = [0u8; 32];
    r.copy_from_slice(&sig[..32]);
    s.copy_from_slice(&sig[32..]);
    if !scalar_is_reduced(&s) {
        return Err(SigError::NonCanonicalS);
    }
    decode_point(&r, false)?;
    let signature = Signature::from_bytes(sig);
    key.verify_strict(msg, &signature)
        .map_err(|_| SigError::Mismatch)
}

/// The 44-byte DER SubjectPublicKeyInfo of an Ed25519 public key.
pub fn spki_der(key: &VerifyingKey) -> [u8; 44] {
    let mut out = [0u8; 44];
    out[..12].copy_from_slice(&ED25519_SPKI_PREFIX);
    out[12..].copy_from_slice(key.as_bytes());
    out
}

/// The key id: lowercase hex SHA-256 of the 44-byte DER SubjectPublicKeyInfo.
pub fn key_id(key: &VerifyingKey) -> String {
    Sha256Digest::of_bytes(&spki_der(key)).to_hex()
}

/// The SPKI PEM text of a public key (`-----BEGIN PUBLIC KEY-----`, `\n` line ends).
pub fn public_key_pem(key: &VerifyingKey) -> String {
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(spki_der(key));
    format!("-----BEGIN PUBLIC KEY-----\n{b64}\n-----END PUBLIC KEY-----\n")
}

/// DER prefix of an Ed25519 PKCS#8 v1 PrivateKeyInfo (RFC 8410): version 0,
/// AlgorithmIdentifier 1.3.101.112, OCTET STRING { OCTET STRING (32-byte seed) }.
const ED25519_PKCS8_PREFIX: [u8; 16] = [
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

/// The PKCS#8 PEM text of a private key, in the 48-byte v1 form of RFC 8410
/// that OpenSSL 3 and Python's `cryptography` write and read. (The v2 form
/// with the public key attached, which some libraries write, is not read by
/// OpenSSL 3.0.) The returned text is wiped when dropped.
pub fn private_key_pem(key: &SigningKey) -> SecretText {
    use base64::Engine as _;
    let mut der = Wiped(Vec::with_capacity(48));
    der.0.extend_from_slice(&ED25519_PKCS8_PREFIX);
    der.0.extend_from_slice(key.as_bytes());
    let b64 = Wiped(
        base64::engine::general_purpose::STANDARD
            .encode(&der.0)
            .into_bytes(),
    );
    let mut text = String::with_capacity(128);
    text.push_str("-----BEGIN PRIVATE KEY-----\n");
    text.push_str(std::str::from_utf8(&b64.0).expect("base64 is ASCII"));
    text.push_str("\n-----END PRIVATE KEY-----\n");
    SecretText(text)
}

/// Text holding a secret, wiped when dropped.
pub struct SecretText(String);

impl SecretText {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
    /// The text as bytes.
    pub fn as_bytes(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

impl Drop for SecretText {
    fn drop(&mut self) {
        let mut bytes = std::mem::take(&mut self.0).into_bytes();
        for b in bytes.iter_mut() {
            *b = 0;
        }
        std::hint::black_box(&bytes);
    }
}

fn io_err(path: &Path) -> impl FnOnce(io::Error) -> KeyError + '_ {
    move |source| KeyError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Reads a small file (key, trust file), refusing anything over
/// [`KEY_FILE_MAX_BYTES`].
pub fn read_key_file(path: &Path) -> Result<Vec<u8>, KeyError> {
    let f = fs::File::open(path).map_err(io_err(path))?;
    if f.metadata().map(|m| m.is_dir()).unwrap_or(false) {
        return Err(KeyError::Io {
            path: path.to_path_buf(),
            source: io::Error::new(
                io::ErrorKind::InvalidInput,
                "is a directory, expected a file",
            ),
        });
    }
    let mut buf = Vec::new();
    f.take(KEY_FILE_MAX_BYTES + 1)
        .read_to_end(&mut buf)
        .map_err(io_err(path))?;
    if buf.len() as u64 > KEY_FILE_MAX_BYTES {
        return Err(KeyError::TooLarge {
            path: path.to_path_buf(),
        });
    }
    Ok(buf)
}

fn bad_pem(origin: &str, reason: impl Into<String>) -> KeyError {
    KeyError::BadPem {
        origin: origin.to_string(),
        reason: reason.into(),
    }
}

/// Names an algorithm OID for messages.
fn describe_algorithm(oid: &ObjectIdentifier, params: Option<ObjectIdentifier>) -> String {
    let curve = params.map(|p| match p.to_string().as_str() {
        "1.2.840.10045.3.1.7" => "P-256".to_string(),
        "1.3.132.0.34" => "P-384".to_string(),
        "1.3.132.0.35" => "P-521".to_string(),
        "1.3.132.0.10" => "secp256k1".to_string(),
        other => format!("curve {other}"),
    });
    match oid.to_string().as_str() {
        "1.2.840.113549.1.1.1" => "an RSA".to_string(),
        "1.2.840.113549.1.1.10" => "an RSA-PSS".to_string(),
        "1.2.840.10045.2.1" => format!(
            "an EC ({})",
            curve.unwrap_or_else(|| "unknown curve".into())
        ),
        "1.3.101.110" => "an X25519".to_string(),
        "1.3.101.111" => "an X448".to_string(),
        "1.3.101.113" => "an Ed448".to_string(),
        "1.2.840.10040.4.1" => "a DSA".to_string(),
        other => format!("a key of algorithm OID {other}, not an Ed25519"),
    }
}

/// Splits PEM text into its label and DER bytes, with errors that say what
/// was expected.
fn pem_document(text: &str, origin: &str, want: &str) -> Result<(String, Vec<u8>), KeyError> {
    let trimmed = text.trim_start_matches('\u{feff}').trim();
    if !trimmed.starts_with("-----BEGIN ") {
        return Err(bad_pem(
            origin,
            format!("not a PEM file (expected \"-----BEGIN {want}-----\")"),
        ));
    }
    let (label, doc) = ed25519_dalek::pkcs8::Document::from_pem(trimmed).map_err(|e| {
        bad_pem(
            origin,
            format!("malformed PEM ({e}); expected \"-----BEGIN {want}-----\""),
        )
    })?;
    Ok((label.to_string(), doc.as_bytes().to_vec()))
}

/// Parses the SPKI PEM text of an Ed25519 public key.
pub fn parse_public_key_pem(text: &str, origin: &str) -> Result<VerifyingKey, KeyError> {
    use ed25519_dalek::pkcs8::spki::der::Decode;
    use ed25519_dalek::pkcs8::spki::SubjectPublicKeyInfoRef;
    let (label, der) = pem_document(text, origin, "PUBLIC KEY")?;
    match label.as_str() {
        "PUBLIC KEY" => {}
        "PRIVATE KEY" | "ENCRYPTED PRIVATE KEY" | "RSA PRIVATE KEY" | "EC PRIVATE KEY" | "OPENSSH PRIVATE KEY" => {
            return Err(bad_pem(
                origin,
                format!("this is a private key (\"{label}\"); give the public key (PREFIX.pub, \"-----BEGIN PUBLIC KEY-----\")"),
            ))
        }
        "RSA PUBLIC KEY" => {
            return Err(KeyError::WrongAlgorithm {
                origin: origin.into(),
                algorithm: "an RSA (PKCS#1)".into(),
            })
        }
        other => {
            return Err(bad_pem(
                origin,
                format!("PEM label is \"{other}\"; expected \"PUBLIC KEY\" (SubjectPublicKeyInfo)"),
            ))
        }
    }
    let spki = SubjectPublicKeyInfoRef::from_der(&der)
        .map_err(|e| bad_pem(origin, format!("not a DER SubjectPublicKeyInfo ({e})")))?;
    if spki.algorithm.oid.to_string() != OID_ED25519 {
        let params = spki
            .algorithm
            .parameters
            .and_then(|p| p.decode_as::<ObjectIdentifier>().ok());
        return Err(KeyError::WrongAlgorithm {
            origin: origin.into(),
            algorithm: describe_algorithm(&spki.algorithm.oid, params),
        });
    }
    if spki.algorithm.parameters.is_some() {
        return Err(bad_pem(
            origin,
            "Ed25519 AlgorithmIdentifier must have no parameters (RFC 8410)",
        ));
    }
    let raw = spki
        .subject_public_key
        .as_bytes()
        .ok_or_else(|| bad_pem(origin, "public key bit string has unused bits"))?;
    let key = check_public_key_bytes(raw).map_err(|reason| KeyError::BadPublicKey {
        origin: origin.into(),
        reason,
    })?;
    if der.as_slice() != spki_der(&key).as_slice() {
        return Err(bad_pem(
            origin,
            "SubjectPublicKeyInfo is not in canonical DER form",
        ));
    }
    Ok(key)
}

/// Parses the PKCS#8 PEM text of an Ed25519 private key.
pub fn parse_signing_key_pem(text: &str, origin: &str) -> Result<SigningKey, KeyError> {
    use ed25519_dalek::pkcs8::spki::der::Decode;
    use ed25519_dalek::pkcs8::PrivateKeyInfo;
    let (label, der) = pem_document(text, origin, "PRIVATE KEY")?;
    let der = zeroize_on_drop(der);
    match label.as_str() {
        "PRIVATE KEY" => {}
        "PUBLIC KEY" => {
            return Err(bad_pem(
                origin,
                "this is a public key; signing needs the private key (PREFIX.key, \"-----BEGIN PRIVATE KEY-----\")",
            ))
        }
        "ENCRYPTED PRIVATE KEY" => {
            return Err(bad_pem(
                origin,
                "encrypted private keys are not supported; store the key unencrypted with mode 0600 (e.g. `openssl pkey -in KEY -out PLAIN.key`)",
            ))
        }
        "RSA PRIVATE KEY" => {
            return Err(KeyError::WrongAlgorithm {
                origin: origin.into(),
                algorithm: "an RSA (PKCS#1)".into(),
            })
        }
        "EC PRIVATE KEY" => {
            return Err(KeyError::WrongAlgorithm {
                origin: origin.into(),
                algorithm: "an EC (SEC1)".into(),
            })
        }
        other => {
            return Err(bad_pem(
                origin,
                format!("PEM label is \"{other}\"; expected \"PRIVATE KEY\" (PKCS#8)"),
            ))
        }
    }
    let info = PrivateKeyInfo::from_der(&der.0)
        .map_err(|e| bad_pem(origin, format!("not a DER PKCS#8 PrivateKeyInfo ({e})")))?;
    if info.algorithm.oid.to_string() != OID_ED25519 {
        let params = info
            .algorithm
            .parameters
            .and_then(|p| p.decode_as::<ObjectIdentifier>().ok());
        return Err(KeyError::WrongAlgorithm {
            origin: origin.into(),
            algorithm: describe_algorithm(&info.algorithm.oid, params),
        });
    }
    SigningKey::from_pkcs8_der(&der.0)
        .map_err(|e| bad_pem(origin, format!("not a usable Ed25519 PKCS#8 key ({e})")))
}

/// A byte buffer wiped on drop (private key DER).
struct Wiped(Vec<u8>);
impl Drop for Wiped {
    fn drop(&mut self) {
        for b in self.0.iter_mut() {
            *b = 0;
        }
    }
}
fn zeroize_on_drop(v: Vec<u8>) -> Wiped {
    Wiped(v)
}

fn utf8<'a>(bytes: &'a [u8], origin: &str) -> Result<&'a str, KeyError> {
    std::str::from_utf8(bytes).map_err(|_| bad_pem(origin, "not UTF-8 text; expected a PEM file"))
}

/// Loads an Ed25519 private key (PKCS#8 PEM).
pub fn load_signing_key(path: &Path) -> Result<SigningKey, KeyError> {
    let bytes = Wiped(read_key_file(path)?);
    let origin = path.display().to_string();
    parse_signing_key_pem(utf8(&bytes.0, &origin)?, &origin)
}

/// Loads an Ed25519 public key (SPKI PEM).
pub fn load_public_key(path: &Path) -> Result<VerifyingKey, KeyError> {
    let bytes = read_key_file(path)?;
    let origin = path.display().to_string();
    parse_public_key_pem(utf8(&bytes, &origin)?, &origin)
}

/// `PREFIX` + `suffix`, keeping non-UTF-8 prefixes intact.
pub fn with_suffix(prefix: &Path, suffix: &str) -> PathBuf {
    let mut s = prefix.as_os_str().to_os_string();
    s.push(suffix);
    PathBuf::from(s)
}

/// Generates a key pair: `PREFIX.key` (PKCS#8 PEM, mode 0600) and
/// `PREFIX.pub` (SPKI PEM, mode 0644), each written atomically. Refuses to
/// replace either file unless `force`. Returns the key id.
pub fn generate_keypair(prefix: &Path, force: bool) -> Result<String, KeyError> {
    let key_path = with_suffix(prefix, ".key");
    let pub_path = with_suffix(prefix, ".pub");
    if !force {
        for p in [&key_path, &pub_path] {
            if fs::symlink_metadata(p).is_ok() {
                return Err(KeyError::Exists { path: p.clone() });
            }
        }
    }
    let signing = SigningKey::generate(&mut rand_core::OsRng);
    let verifying = signing.verifying_key();
    let pem = private_key_pem(&signing);
    let exists = |e: AtomicError| match e {
        AtomicError::Exists { path } => KeyError::Exists { path },
        other => KeyError::Write(other),
    };
    // Private key first: a crash in between leaves a private key without its
    // public half (recoverable with `openssl pkey -pubout`), never the reverse.
    let mut f = AtomicFile::create(&key_path, 0o600, force).map_err(exists)?;
    std::io::Write::write_all(&mut f, pem.as_bytes()).map_err(io_err(&key_path))?;
    f.commit().map_err(exists)?;
    if let Err(e) = crate::atomic::write_atomic(
        &pub_path,
        public_key_pem(&verifying).as_bytes(),
        0o644,
        force,
    ) {
        let _ = fs::remove_file(&key_path);
        return Err(exists(e));
    }
    Ok(key_id(&verifying))
}

pub use crate::strictjson::reject_duplicate_json_keys;

/// A key of the trust file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustedKey {
    /// The key id (recomputed from `key`, lowercase hex).
    pub keyid: String,
    /// What the key is trusted for.
    pub roles: Vec<Role>,
    /// The public key.
    pub key: VerifyingKey,
    /// A person's name for the key, shown in messages.
    pub label: Option<String>,
    /// v1.1: the engine ids this key may attest for (`None`: any engine).
    pub engines: Option<Vec<String>>,
}

impl TrustedKey {
    /// A trusted key with its id computed from `key`, for any engine.
    pub fn new(key: VerifyingKey, roles: Vec<Role>, label: Option<String>) -> Self {
        TrustedKey {
            keyid: key_id(&key),
            roles,
            key,
            label,
            engines: None,
        }
    }
    /// True if trusted for `role`.
    pub fn has_role(&self, role: Role) -> bool {
        self.roles.contains(&role)
    }
    /// True if the key may attest for the engine `id` (it is not restricted
    /// to other engines).
    pub fn allows_engine(&self, id: &str) -> bool {
        self.engines
            .as_ref()
            .is_none_or(|list| list.iter().any(|e| e == id))
    }
    /// `keyid` or `keyid (label)` for messages.
    pub fn describe(&self) -> String {
        match &self.label {
            Some(l) => format!("{} ({l})", self.keyid),
            None => self.keyid.clone(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustFileIn {
    schema: String,
    keys: Vec<TrustKeyIn>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustKeyIn {
    keyid: String,
    roles: Vec<String>,
    public_key: String,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    engines: Option<Vec<String>>,
}

#[derive(Serialize)]
struct TrustFileOut<'a> {
    schema: &'static str,
    keys: Vec<TrustKeyOut<'a>>,
}

#[derive(Serialize)]
struct TrustKeyOut<'a> {
    keyid: &'a str,
    roles: &'a [Role],
    public_key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    label: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    engines: &'a Option<Vec<String>>,
}

/// The verifier's trust roots: keys and the roles each is trusted for.
/// Never taken from inside a bundle; always an argument of the auditor's.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustStore {
    keys: Vec<TrustedKey>,
}

impl TrustStore {
    /// Reads and parses a trust file.
    pub fn load(path: &Path) -> Result<Self, KeyError> {
        let bytes = read_key_file(path)?;
        Self::parse(&bytes, &path.display().to_string())
    }

    /// Parses a trust file: strict JSON of the schema, every key an Ed25519
    /// SPKI PEM, every key id recomputed and compared (either hex case is
    /// accepted and normalised), each key once, each role known and listed
    /// once, at least one role per key.
    pub fn parse(bytes: &[u8], origin: &str) -> Result<Self, KeyError> {
        let bad = |reason: String| KeyError::BadTrustFile {
            origin: origin.to_string(),
            reason,
        };
        reject_duplicate_json_keys(bytes).map_err(|e| bad(e.to_string()))?;
        let file: TrustFileIn = serde_json::from_slice(bytes).map_err(|e| bad(e.to_string()))?;
        if file.schema != TRUST_SCHEMA {
            return Err(bad(format!(
                "schema is {:?}, expected {TRUST_SCHEMA:?}",
                file.schema
            )));
        }
        let mut keys = Vec::with_capacity(file.keys.len());
        let mut seen = BTreeSet::new();
        for (i, k) in file.keys.into_iter().enumerate() {
            let n = i + 1;
            let key_origin = format!("{origin}: key #{n}");
            let key = parse_public_key_pem(&k.public_key, &key_origin)?;
            let computed = key_id(&key);
            let stated = Sha256Digest::parse_hex(&k.keyid)
                .map_err(|e| bad(format!("key #{n}: keyid: {e}")))?
                .to_hex();
            if stated != computed {
                return Err(KeyError::KeyIdMismatch {
                    origin: origin.to_string(),
                    index: n,
                    stated: k.keyid,
                    computed,
                });
            }
            if !seen.insert(computed.clone()) {
                return Err(KeyError::DuplicateKey {
                    origin: origin.to_string(),
                    keyid: computed,
                });
            }
            if k.roles.is_empty() {
                return Err(bad(format!(
                    "key #{n} ({computed}) has no roles; give \"engine\", \"release\" and/or \"host\""
                )));
            }
            let mut roles = Vec::new();
            for r in &k.roles {
                let role: Role = r
                    .parse()
                    .map_err(|e: KeyError| bad(format!("key #{n}: {e}")))?;
                if roles.contains(&role) {
                    return Err(bad(format!("key #{n}: role {r:?} is listed twice")));
                }
                roles.push(role);
            }
            if let Some(list) = &k.engines {
                if list.is_empty() {
                    return Err(bad(format!(
                        "key #{n} ({computed}): \"engines\" is empty; list the engine ids the key may attest for, or leave the field out for any engine"
                    )));
                }
                let mut ids = BTreeSet::new();
                for e in list {
                    if e.is_empty() || !ids.insert(e.as_str()) {
                        return Err(bad(format!(
                            "key #{n} ({computed}): engine id {e:?} in \"engines\" is empty or listed twice"
                        )));
                    }
                }
                if !roles.contains(&Role::Engine) {
                    return Err(bad(format!(
                        "key #{n} ({computed}): \"engines\" restricts engine attestations, but the key is not trusted for the engine role"
                    )));
                }
            }
            keys.push(TrustedKey {
                keyid: computed,
                roles,
                key,
                label: k.label,
                engines: k.engines,
            });
        }
        Ok(TrustStore { keys })
    }

    /// A trust store from keys. Key ids are recomputed from the keys; a key
    /// given twice is merged into one entry (union of roles, first label).
    pub fn from_keys(keys: Vec<TrustedKey>) -> Self {
        let mut out: Vec<TrustedKey> = Vec::new();
        for mut k in keys {
            k.keyid = key_id(&k.key);
            if let Some(existing) = out.iter_mut().find(|e| e.keyid == k.keyid) {
                for r in k.roles {
                    if !existing.roles.contains(&r) {
                        existing.roles.push(r);
                    }
                }
                if existing.label.is_none() {
                    existing.label = k.label;
                }
            } else {
                let mut roles = Vec::new();
                for r in k.roles {
                    if !roles.contains(&r) {
                        roles.push(r);
                    }
                }
                k.roles = roles;
                out.push(k);
            }
        }
        TrustStore { keys: out }
    }

    /// Every key, in file order.
    pub fn keys(&self) -> &[TrustedKey] {
        &self.keys
    }

    /// The keys trusted for `role`.
    pub fn keys_for(&self, role: Role) -> impl Iterator<Item = &TrustedKey> {
        self.keys.iter().filter(move |k| k.has_role(role))
    }

    /// The key with this id (any role).
    pub fn get(&self, keyid: &str) -> Option<&TrustedKey> {
        self.keys.iter().find(|k| k.keyid == keyid)
    }

    /// True when no key is trusted.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The trust file text (pretty JSON, ending with `\n`).
    pub fn to_json(&self) -> String {
        let out = TrustFileOut {
            schema: TRUST_SCHEMA,
            keys: self
                .keys
                .iter()
                .map(|k| TrustKeyOut {
                    keyid: &k.keyid,
                    roles: &k.roles,
                    public_key: public_key_pem(&k.key),
                    label: &k.label,
                    engines: &k.engines,
                })
                .collect(),
        };
        let mut s = serde_json::to_string_pretty(&out).expect("trust file serialises");
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_reduction_boundary() {
        assert!(!scalar_is_reduced(&ORDER_L));
        let mut below = ORDER_L;
        below[0] -= 1;
        assert!(scalar_is_reduced(&below));
        let mut above = ORDER_L;
        above[0] += 1;
        assert!(!scalar_is_reduced(&above));
        assert!(scalar_is_reduced(&[0u8; 32]));
        assert!(!scalar_is_reduced(&[0xff; 32]));
    }

    #[test]
    fn spki_matches_pkcs8_crate_encoding() {
        use ed25519_dalek::pkcs8::EncodePublicKey;
        let sk = SigningKey::from_bytes(&[7u8; 32]);
        let vk = sk.verifying_key();
        let doc = vk.to_public_key_der().unwrap();
        assert_eq!(doc.as_bytes(), spki_der(&vk).as_slice());
        let pem = public_key_pem(&vk);
        assert_eq!(parse_public_key_pem(&pem, "t").unwrap(), vk);
    }

    #[test]
    fn strict_check_accepts_own_signature_and_rejects_a_flip() {
        use ed25519_dalek::Signer;
        let sk = SigningKey::from_bytes(&[9u8; 32]);
        let sig = sk.sign(b"msg").to_bytes();
        let pk = sk.verifying_key().to_bytes();
        assert_eq!(verify_ed25519_strict(&pk, b"msg", &sig), Ok(()));
        assert_eq!(
            verify_ed25519_strict(&pk, b"msh", &sig),
            Err(SigError::Mismatch)
        );
        assert_eq!(
            verify_ed25519_strict(&pk, b"msg", &sig[..63]),
            Err(SigError::SignatureLength(63))
        );
        assert_eq!(
            verify_ed25519_strict(&pk[..31], b"msg", &sig),
            Err(SigError::PublicKeyLength(31))
        );
    }

    #[test]
    fn role_names_round_trip() {
        for r in [Role::Engine, Role::Release] {
            assert_eq!(r.to_string().parse::<Role>().unwrap(), r);
        }
        assert!("Engine".parse::<Role>().is_err());
    }
}
