//! Key files: reading a small key or trust file, loading a private or
//! public key from one, and generating a key pair on disk.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use ed25519_dalek::{SigningKey, VerifyingKey};

use crate::atomic::{AtomicError, AtomicFile};

use super::error::{KeyError, KEY_FILE_MAX_BYTES};
use super::keyid::key_id;
use super::pem::{
    bad_pem, parse_public_key_pem, parse_signing_key_pem, private_key_pem, public_key_pem, Wiped,
};

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
    crate::capped::read_to_cap(f, KEY_FILE_MAX_BYTES)
        .map_err(io_err(path))?
        .ok_or_else(|| KeyError::TooLarge {
            path: path.to_path_buf(),
        })
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
