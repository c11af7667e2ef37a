//! The reference reader's acceptance rule, transcribed plainly: one pass
//! over a `serde_json::Value`, in the order of huggingface/safetensors
//! `SafeTensors::read_metadata` and `Metadata::validate` (with the NUL-byte
//! guard of its current source). It shares no code with the per-rule
//! checks of [`super::inspect`]; the fuzz target `safetensors_header`
//! asserts that the two agree on every input where they are meant to.

use serde_json::Value;

use super::header::{DTYPES, METADATA_KEY};
use super::types::MAX_HEADER_BYTES;

/// What the reference reader does with a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// It opens the file.
    Accepts,
    /// It refuses the file.
    Refuses,
    /// The file uses a construct where proofpack is deliberately stricter
    /// or the transcription cannot tell (named), so no comparison is made.
    NotCompared(&'static str),
}

/// The reference reader's verdict on the bytes of a whole file.
pub fn verdict(file: &[u8]) -> Verdict {
    let Some(prefix) = file.get(..8) else {
        return Verdict::Refuses; // HeaderTooSmall
    };
    let n = u64::from_le_bytes(prefix.try_into().expect("8 bytes"));
    if n > MAX_HEADER_BYTES {
        return Verdict::Refuses; // HeaderTooLarge
    }
    let Some(header) = file.get(8..8 + n as usize) else {
        return Verdict::Refuses; // InvalidHeaderLength
    };
    let Ok(text) = std::str::from_utf8(header) else {
        return Verdict::Refuses; // InvalidHeader
    };
    if crate::strictjson::reject_duplicate_json_keys(text.as_bytes()).is_err() {
        // Either not JSON (both refuse) or a repeated key, which the
        // reference keeps silently (the last one) and proofpack refuses
        // where it matters; a Value cannot tell which.
        return match serde_json::from_str::<Value>(text) {
            Err(_) => not_json(text),
            Ok(_) => Verdict::NotCompared("a key written twice"),
        };
    }
    let v: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(_) => return not_json(text),
    };
    let Some(obj) = v.as_object() else {
        return Verdict::Refuses;
    };
    let mut tensors: Vec<(u64, u64, Option<u64>, u32)> = Vec::new();
    for (name, entry) in obj {
        if name == METADATA_KEY {
            match entry {
                Value::Null => {}
                Value::Object(m) => {
                    for (k, v) in m {
                        match v.as_str() {
                            Some(s) if !k.contains('\0') && !s.contains('\0') => {}
                            _ => return Verdict::Refuses,
                        }
                    }
                }
                _ => return Verdict::Refuses,
            }
            continue;
        }
        if name.contains('\0') {
            return Verdict::Refuses; // InvalidTensorName
        }
        let Some(e) = entry.as_object() else {
            return if entry.is_array() {
                Verdict::NotCompared("a tensor entry written as an array")
            } else {
                Verdict::Refuses
            };
        };
        let Some(dtype) = e.get("dtype") else {
            return Verdict::Refuses;
        };
        let Some(dtype) = dtype.as_str() else {
            return if dtype.is_object() {
                Verdict::NotCompared("a dtype written as an object")
            } else {
                Verdict::Refuses
            };
        };
        let Some(&(_, bits)) = DTYPES.iter().find(|(d, _)| *d == dtype) else {
            return Verdict::Refuses;
        };
        let Some(shape) = e.get("shape").and_then(Value::as_array) else {
            return Verdict::Refuses;
        };
        let mut elements = Some(1u64);
        for d in shape {
            let Some(d) = d.as_u64() else {
                return Verdict::Refuses;
            };
            elements = elements.and_then(|x| x.checked_mul(d));
        }
        let Some(off) = e.get("data_offsets").and_then(Value::as_array) else {
            return Verdict::Refuses;
        };
        let (Some(b), Some(end), 2) = (
            off.first().and_then(Value::as_u64),
            off.get(1).and_then(Value::as_u64),
            off.len(),
        ) else {
            return Verdict::Refuses;
        };
        tensors.push((b, end, elements, bits));
    }
    tensors.sort_by_key(|t| (t.0, t.1));
    let mut start = 0u64;
    for (b, e, elements, bits) in tensors {
        if b != start || e < b {
            return Verdict::Refuses; // InvalidOffset
        }
        start = e;
        let Some(nbits) = elements.and_then(|x| x.checked_mul(u64::from(bits))) else {
            return Verdict::Refuses; // ValidationOverflow
        };
        if nbits % 8 != 0 || nbits / 8 != e - b {
            return Verdict::Refuses; // MisalignedSlice, TensorInvalidInfo
        }
    }
    if u128::from(start) + 8 + u128::from(n) != file.len() as u128 {
        return Verdict::Refuses; // MetadataIncompleteBuffer
    }
    Verdict::Accepts
}

/// A header serde_json refuses as a `Value`: refused by both, unless only
/// the nesting depth stopped it (serde_json's limit of 128 applies to a
/// `Value` but not to the fields a derived struct ignores).
fn not_json(text: &str) -> Verdict {
    match serde_json::from_str::<Value>(text) {
        Err(e) if e.to_string().contains("recursion limit") => {
            Verdict::NotCompared("nesting deeper than serde_json's limit")
        }
        _ => Verdict::Refuses,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(header: &str, data: usize) -> Vec<u8> {
        let mut f = (header.len() as u64).to_le_bytes().to_vec();
        f.extend_from_slice(header.as_bytes());
        f.resize(f.len() + data, 0);
        f
    }

    #[test]
    fn transcription_agrees_with_the_checks_on_the_basic_cases() {
        let good = r#"{"__metadata__":{"format":"pt"},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#;
        for (f, want) in [
            (file(good, 8), Verdict::Accepts),
            (file(good, 9), Verdict::Refuses),
            (file(good, 7), Verdict::Refuses),
            (file("{}", 0), Verdict::Accepts),
            (file("{", 0), Verdict::Refuses),
            (vec![1, 2, 3], Verdict::Refuses),
            (
                file(
                    r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
                    4,
                ),
                Verdict::NotCompared("a key written twice"),
            ),
            (
                file(r#"{"a":["F32",[1],[0,4]]}"#, 4),
                Verdict::NotCompared("a tensor entry written as an array"),
            ),
        ] {
            assert_eq!(verdict(&f), want);
            let ours = super::super::inspect_bytes("t", &f, None).ok();
            if want != Verdict::Accepts {
                assert!(!ours || matches!(want, Verdict::NotCompared(_)));
            } else {
                assert!(ours);
            }
        }
    }
}
