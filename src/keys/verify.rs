//! Strict Ed25519: the one signature check of proofpack
//! ([`verify_ed25519_strict`]), the public key check every trusted or written
//! key passes, and [`SigError`], why a check rejected.

use ed25519_dalek::{Signature, VerifyingKey};

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

#[cfg(test)]
mod tests {
    use super::*;
    use ed25519_dalek::SigningKey;

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
}
