//! PEM texts of keys: writing the SPKI public key and the PKCS#8 v1 private
//! key ([`SecretText`], wiped on drop), and reading them back with messages
//! that name what was found instead (another algorithm, the other half of
//! the pair, an encrypted key).

use ed25519_dalek::pkcs8::{DecodePrivateKey, ObjectIdentifier};
use ed25519_dalek::{SigningKey, VerifyingKey};

use super::error::KeyError;
use super::keyid::spki_der;
use super::verify::check_public_key_bytes;

/// OID of Ed25519 (RFC 8410).
const OID_ED25519: &str = "1.3.101.112";

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

pub(super) fn bad_pem(origin: &str, reason: impl Into<String>) -> KeyError {
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
pub(super) struct Wiped(pub(super) Vec<u8>);
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
