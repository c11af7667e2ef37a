//! Strict JSON: documents with a repeated object key are refused.
//!
//! serde's derived structs reject a repeated *known* field, but a map, an
//! ignored extra field or a `Value` silently keeps one of two equal keys. Two
//! verifiers could then read the same bytes differently, so every JSON that
//! proofpack signs, trusts or verifies (envelopes, Statements, trust files,
//! qualification files) passes through [`reject_duplicate_json_keys`]
//! first; client records and journal events refuse a repeated key as they
//! are read, in one parse (`run::record`).

use std::collections::BTreeSet;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, Error as _, MapAccess, SeqAccess, Visitor};

/// Reads any JSON value and forgets it, refusing an object with a repeated
/// key at any depth: [`reject_duplicate_json_keys`] over a whole document,
/// and the streaming readers (peers) inside a value being read.
pub struct StrictIgnore;

impl<'de> DeserializeSeed<'de> for StrictIgnore {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(StrictIgnoreVisitor)
    }
}

/// The visitor of [`StrictIgnore`] (for a reader that has a map or a
/// sequence in hand).
pub struct StrictIgnoreVisitor;

impl<'de> Visitor<'de> for StrictIgnoreVisitor {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("JSON")
    }
    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(StrictIgnore)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = BTreeSet::new();
        while let Some(k) = map.next_key::<String>()? {
            if !seen.insert(k.clone()) {
                return Err(A::Error::custom(format!(
                    "duplicate key {k:?} in a JSON object"
                )));
            }
            map.next_value_seed(StrictIgnore)?;
        }
        Ok(())
    }
}

/// Checks that JSON text has no object with a repeated key, at any depth.
///
/// serde_json keeps the last of two equal keys in a map and rejects them
/// only in derived structs; a signed document with two `"sha256"` values
/// could be read differently by two verifiers, so proofpack refuses such
/// text before looking at it.
pub fn reject_duplicate_json_keys(bytes: &[u8]) -> Result<(), serde_json::Error> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    StrictIgnore.deserialize(&mut de)?;
    de.end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_keys_at_any_depth_are_refused() {
        assert!(reject_duplicate_json_keys(br#"{"a":1,"b":[{"c":1}]}"#).is_ok());
        assert!(reject_duplicate_json_keys(br#"{"a":1,"a":1}"#).is_err());
        assert!(reject_duplicate_json_keys(br#"{"a":{"x":[{"y":1,"y":2}]}}"#).is_err());
        assert!(reject_duplicate_json_keys(br#"{"a":1} trailing"#).is_err());
    }
}
