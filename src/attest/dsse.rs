//! The DSSE envelope (spec section 4): pre-authentication encoding
//! ([`pae`]), the base64 the spec allows ([`decode_base64`]), the envelope
//! as it is read, and reading an envelope file with its size cap.

use std::io;
use std::path::Path;

use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;
use serde::Deserialize;

use super::types::ENVELOPE_MAX_BYTES;

/// DSSE pre-authentication encoding:
/// `"DSSEv1" SP LEN(type) SP type SP LEN(payload) SP payload`.
pub fn pae(payload_type: &str, payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(payload_type.len() + payload.len() + 32);
    out.extend_from_slice(b"DSSEv1 ");
    out.extend_from_slice(payload_type.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload_type.as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload.len().to_string().as_bytes());
    out.push(b' ');
    out.extend_from_slice(payload);
    out
}

const fn b64(alphabet: &base64::alphabet::Alphabet, padding: DecodePaddingMode) -> GeneralPurpose {
    GeneralPurpose::new(
        alphabet,
        GeneralPurposeConfig::new()
            .with_encode_padding(true)
            .with_decode_allow_trailing_bits(true)
            .with_decode_padding_mode(padding),
    )
}

const B64_STD_PAD: GeneralPurpose = b64(
    &base64::alphabet::STANDARD,
    DecodePaddingMode::RequireCanonical,
);
const B64_STD_NOPAD: GeneralPurpose =
    b64(&base64::alphabet::STANDARD, DecodePaddingMode::RequireNone);
const B64_URL_PAD: GeneralPurpose = b64(
    &base64::alphabet::URL_SAFE,
    DecodePaddingMode::RequireCanonical,
);
const B64_URL_NOPAD: GeneralPurpose =
    b64(&base64::alphabet::URL_SAFE, DecodePaddingMode::RequireNone);

/// Decodes base64 as the spec allows: standard or URL-safe alphabet (not
/// mixed), with full padding or none. Refuses partial padding and
/// whitespace. Non-zero unused bits in the last character are
/// accepted (they decode to the same bytes), as Python's `base64` and
/// securesystemslib accept them; signatures are checked over the decoded
/// bytes, so the spelling of the text never matters to a verdict.
pub fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let std_chars = text.bytes().any(|b| b == b'+' || b == b'/');
    let url_chars = text.bytes().any(|b| b == b'-' || b == b'_');
    if std_chars && url_chars {
        return Err("base64 mixes the standard (+/) and URL-safe (-_) alphabets".into());
    }
    let padded = text.contains('=');
    let engine = match (url_chars, padded) {
        (false, true) => &B64_STD_PAD,
        (false, false) => &B64_STD_NOPAD,
        (true, true) => &B64_URL_PAD,
        (true, false) => &B64_URL_NOPAD,
    };
    engine.decode(text).map_err(|e| match e {
        base64::DecodeError::InvalidLastSymbol(_, _) => {
            "non-canonical base64 (the unused bits of the last character are not zero)".to_string()
        }
        base64::DecodeError::InvalidPadding => {
            "malformed base64 padding (use full '=' padding or none)".into()
        }
        base64::DecodeError::InvalidLength(_) => "base64 text has an impossible length".into(),
        base64::DecodeError::InvalidByte(i, b) => {
            format!("invalid base64 character {:?} at offset {i}", b as char)
        }
    })
}

#[derive(Deserialize)]
pub(super) struct EnvelopeIn {
    #[serde(rename = "payloadType")]
    pub(super) payload_type: String,
    pub(super) payload: String,
    pub(super) signatures: Vec<SignatureIn>,
}

#[derive(Deserialize)]
pub(super) struct SignatureIn {
    #[serde(default)]
    pub(super) keyid: Option<String>,
    pub(super) sig: String,
}

/// Reads an envelope file, at most [`ENVELOPE_MAX_BYTES`] + 1 bytes (so that
/// an oversized file is reported by the verifier as too large).
pub fn read_envelope_file(path: &Path) -> io::Result<Vec<u8>> {
    let f = std::fs::File::open(path)?;
    if f.metadata()?.is_dir() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "is a directory, expected an envelope file",
        ));
    }
    crate::capped::read_past_cap(f, ENVELOPE_MAX_BYTES as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pae_matches_the_spec_example() {
        assert_eq!(
            pae("http://example.com/HelloWorld", b"hello world"),
            b"DSSEv1 29 http://example.com/HelloWorld 11 hello world".to_vec()
        );
        assert_eq!(pae("", b""), b"DSSEv1 0  0 ".to_vec());
    }

    #[test]
    fn base64_rules() {
        // "hi" = aGk= ; trailing bits of 'k' are zero, 'l' is not canonical.
        assert_eq!(decode_base64("aGk=").unwrap(), b"hi");
        assert_eq!(decode_base64("aGk").unwrap(), b"hi");
        assert_eq!(decode_base64("aGl=").unwrap(), b"hi");
        assert_eq!(decode_base64("aGl").unwrap(), b"hi");
        assert!(decode_base64("aGk==").is_err());
        assert!(decode_base64("aG k=").is_err());
        assert_eq!(decode_base64("-_8=").unwrap(), vec![0xfb, 0xff]);
        assert_eq!(decode_base64("+/8").unwrap(), vec![0xfb, 0xff]);
        assert!(decode_base64("+_8=").unwrap_err().contains("mixes"));
    }
}
