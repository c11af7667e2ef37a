//! The JSON header of a safetensors file, read the way the reference reader
//! reads it (huggingface/safetensors, `safetensors/src/tensor.rs`: serde_json
//! into `HashMetadata`, then `Metadata::validate`), but keeping what the
//! reference collapses or stops at, so that each rule can be its own check:
//! duplicate names are listed instead of silently keeping the last, an
//! unknown dtype is a value instead of a parse error, and a tensor whose
//! shape product overflows is marked instead of ending the parse.
//!
//! Memory: a tensor's shape is folded into its element count while it is
//! read (a header of 100 MB of dimensions allocates nothing per dimension);
//! what is kept per tensor is its name, its dtype and four integers.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// The reserved key of the free-form string map.
pub const METADATA_KEY: &str = "__metadata__";

/// The dtypes of the reference reader and their width in bits
/// (`Dtype::bitsize` in safetensors/src/tensor.rs).
pub const DTYPES: &[(&str, u32)] = &[
    ("BOOL", 8),
    ("F4", 4),
    ("F6_E2M3", 6),
    ("F6_E3M2", 6),
    ("U8", 8),
    ("I8", 8),
    ("F8_E5M2", 8),
    ("F8_E4M3", 8),
    ("F8_E8M0", 8),
    ("F8_E4M3FNUZ", 8),
    ("F8_E5M2FNUZ", 8),
    ("I16", 16),
    ("U16", 16),
    ("F16", 16),
    ("BF16", 16),
    ("I32", 32),
    ("U32", 32),
    ("F32", 32),
    ("C64", 64),
    ("F64", 64),
    ("I64", 64),
    ("U64", 64),
];

/// Longest unknown dtype string kept (the rest is cut off).
const MAX_SHOWN_DTYPE: usize = 64;

/// A tensor's element type as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dtype {
    /// One of [`DTYPES`].
    Known {
        /// Its name.
        name: &'static str,
        /// Its width in bits.
        bits: u32,
    },
    /// Anything else (the reference refuses it: "unknown variant").
    Unknown(String),
}

impl Dtype {
    fn from_str(s: &str) -> Dtype {
        match DTYPES.iter().find(|(n, _)| *n == s) {
            Some(&(name, bits)) => Dtype::Known { name, bits },
            None => Dtype::Unknown(s.chars().take(MAX_SHOWN_DTYPE).collect()),
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dtype::Known { name, .. } => f.write_str(name),
            Dtype::Unknown(s) => write!(f, "{s:?}"),
        }
    }
}

/// One tensor entry of a header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tensor {
    /// Its name (the JSON key).
    pub name: String,
    /// Its dtype.
    pub dtype: Dtype,
    /// The product of its shape, `None` when it overflows 64 bits.
    pub elements: Option<u64>,
    /// Number of dimensions.
    pub rank: usize,
    /// `data_offsets[0]`, relative to the start of the data.
    pub begin: u64,
    /// `data_offsets[1]` (one past the last byte).
    pub end: u64,
}

impl Tensor {
    /// The tensor's size in bits by its dtype and shape (`None` when the
    /// dtype is unknown or the product overflows 64 bits, as the
    /// reference's `checked_mul` does).
    pub fn bits(&self) -> Option<u64> {
        match self.dtype {
            Dtype::Known { bits, .. } => self.elements?.checked_mul(u64::from(bits)),
            Dtype::Unknown(_) => None,
        }
    }
}

/// A header that parsed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// Every tensor entry, in file order (duplicates included).
    pub tensors: Vec<Tensor>,
    /// Number of `__metadata__` entries (`None` when there is no map).
    pub metadata_entries: Option<usize>,
    /// Keys written twice: `__metadata__` itself, and keys inside it
    /// (tensor names written twice are found from `tensors`).
    pub repeated_keys: Vec<String>,
    /// Metadata keys or values holding a NUL byte.
    pub nul_metadata: Vec<String>,
}

impl Header {
    /// Tensor names that occur more than once, each once, sorted.
    pub fn duplicate_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.tensors.iter().map(|t| t.name.as_str()).collect();
        names.sort_unstable();
        let mut dups: Vec<&str> = names
            .windows(2)
            .filter(|w| w[0] == w[1])
            .map(|w| w[0])
            .collect();
        dups.dedup();
        dups
    }
}

/// Parses header text. `Err` is the reason it is not a safetensors header
/// (the reference's `InvalidHeaderDeserialization`), naming the tensor
/// whose entry was being read.
pub fn parse(text: &str) -> Result<Header, String> {
    let mut state = State::default();
    let mut de = serde_json::Deserializer::from_str(text);
    let result = (TopSeed { state: &mut state })
        .deserialize(&mut de)
        .and_then(|()| de.end());
    match result {
        Ok(()) => Ok(state.header),
        Err(e) => Err(match state.current.take() {
            Some(name) if name == METADATA_KEY => format!("{e} (in {METADATA_KEY})"),
            Some(name) => format!("{e} (in tensor {})", shown(&name)),
            None => e.to_string(),
        }),
    }
}

/// A name as reports show it: quoted and escaped, cut after 200 characters.
pub fn shown(name: &str) -> String {
    const MAX: usize = 200;
    if name.chars().count() <= MAX {
        format!("{name:?}")
    } else {
        let cut: String = name.chars().take(MAX).collect();
        format!("{cut:?}… ({} bytes)", name.len())
    }
}

#[derive(Default)]
struct State {
    header: Header,
    /// The key whose value is being read, for error messages.
    current: Option<String>,
}

struct TopSeed<'a> {
    state: &'a mut State,
}

impl<'de> DeserializeSeed<'de> for TopSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TopSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object of tensors (and an optional __metadata__)")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen_metadata = false;
        while let Some(key) = map.next_key::<String>()? {
            if key == METADATA_KEY {
                if seen_metadata {
                    self.state.header.repeated_keys.push(METADATA_KEY.into());
                }
                seen_metadata = true;
                self.state.current = Some(key);
                let entries = map.next_value_seed(MetadataSeed {
                    header: &mut self.state.header,
                })?;
                if let Some(n) = entries {
                    *self.state.header.metadata_entries.get_or_insert(0) += n;
                }
            } else {
                self.state.current = Some(key);
                let t = map.next_value_seed(TensorSeed)?;
                let name = self.state.current.take().unwrap_or_default();
                self.state.header.tensors.push(Tensor { name, ..t });
            }
            self.state.current = None;
        }
        Ok(())
    }
}

/// `__metadata__`: null, or an object whose values are strings.
struct MetadataSeed<'a> {
    header: &'a mut Header,
}

impl<'de> DeserializeSeed<'de> for MetadataSeed<'_> {
    type Value = Option<usize>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for MetadataSeed<'_> {
    type Value = Option<usize>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("__metadata__ as an object of strings (or null)")
    }
    fn visit_unit<E>(self) -> Result<Option<usize>, E> {
        Ok(None)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<usize>, A::Error> {
        let mut keys: Vec<String> = Vec::new();
        while let Some(k) = map.next_key::<String>()? {
            let v: String = map.next_value()?;
            if k.contains('\0') || v.contains('\0') {
                let bad = if k.contains('\0') { &k } else { &v };
                self.header.nul_metadata.push(bad.clone());
            }
            keys.push(k);
        }
        let n = keys.len();
        keys.sort_unstable();
        for w in keys.windows(2) {
            if w[0] == w[1] && self.header.repeated_keys.last() != Some(&w[0]) {
                self.header.repeated_keys.push(w[0].clone());
            }
        }
        Ok(Some(n))
    }
}

/// One tensor entry: `{"dtype": ..., "shape": [...], "data_offsets": [b, e]}`;
/// other fields are ignored, as serde's derived `TensorInfo` ignores them.
struct TensorSeed;

impl<'de> DeserializeSeed<'de> for TensorSeed {
    type Value = Tensor;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Tensor, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for TensorSeed {
    type Value = Tensor;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tensor entry: an object with dtype, shape and data_offsets")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tensor, A::Error> {
        let mut dtype: Option<Dtype> = None;
        let mut shape: Option<(Option<u64>, usize)> = None;
        let mut offsets: Option<(u64, u64)> = None;
        while let Some(k) = map.next_key::<String>()? {
            match k.as_str() {
                "dtype" => {
                    if dtype.is_some() {
                        return Err(de::Error::duplicate_field("dtype"));
                    }
                    dtype = Some(map.next_value_seed(DtypeSeed)?);
                }
                "shape" => {
                    if shape.is_some() {
                        return Err(de::Error::duplicate_field("shape"));
                    }
                    shape = Some(map.next_value_seed(ShapeSeed)?);
                }
                "data_offsets" => {
                    if offsets.is_some() {
                        return Err(de::Error::duplicate_field("data_offsets"));
                    }
                    offsets = Some(map.next_value_seed(OffsetsSeed)?);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let dtype = dtype.ok_or_else(|| de::Error::missing_field("dtype"))?;
        let (elements, rank) = shape.ok_or_else(|| de::Error::missing_field("shape"))?;
        let (begin, end) = offsets.ok_or_else(|| de::Error::missing_field("data_offsets"))?;
        Ok(Tensor {
            name: String::new(),
            dtype,
            elements,
            rank,
            begin,
            end,
        })
    }
}

struct DtypeSeed;

impl<'de> DeserializeSeed<'de> for DtypeSeed {
    type Value = Dtype;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Dtype, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> Visitor<'de> for DtypeSeed {
    type Value = Dtype;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a dtype string")
    }
    fn visit_str<E: de::Error>(self, s: &str) -> Result<Dtype, E> {
        Ok(Dtype::from_str(s))
    }
}

/// A shape: an array of unsigned integers, folded into (element count, rank).
struct ShapeSeed;

impl<'de> DeserializeSeed<'de> for ShapeSeed {
    type Value = (Option<u64>, usize);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ShapeSeed {
    type Value = (Option<u64>, usize);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a shape: an array of unsigned integers")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut product = Some(1u64);
        let mut rank = 0usize;
        while let Some(dim) = seq.next_element::<u64>()? {
            product = product.and_then(|p| p.checked_mul(dim));
            rank += 1;
        }
        Ok((product, rank))
    }
}

/// `data_offsets`: exactly two unsigned integers.
struct OffsetsSeed;

impl<'de> DeserializeSeed<'de> for OffsetsSeed {
    type Value = (u64, u64);
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for OffsetsSeed {
    type Value = (u64, u64);
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("data_offsets as [begin, end]")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let begin: u64 = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(0, &self))?;
        let end: u64 = seq
            .next_element()?
            .ok_or_else(|| de::Error::invalid_length(1, &self))?;
        if seq.next_element::<IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(3, &self));
        }
        Ok((begin, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: &str = r#"{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}"#;

    #[test]
    fn reads_tensors_and_metadata() {
        let h = parse(&format!(
            r#"{{"__metadata__":{{"format":"pt"}},"a":{T},"b":{{"dtype":"F4","shape":[],"data_offsets":[16,17],"extra":[1,{{"x":2}}]}}}}   "#
        ))
        .unwrap();
        assert_eq!(h.metadata_entries, Some(1));
        assert_eq!(h.tensors.len(), 2);
        assert_eq!(h.tensors[0].name, "a");
        assert_eq!(h.tensors[0].elements, Some(4));
        assert_eq!(h.tensors[0].bits(), Some(128));
        assert_eq!(h.tensors[1].rank, 0);
        assert_eq!(h.tensors[1].elements, Some(1));
        assert_eq!((h.tensors[1].begin, h.tensors[1].end), (16, 17));
        assert!(parse("{}").unwrap().tensors.is_empty());
        assert_eq!(
            parse(r#"{"__metadata__":null}"#).unwrap().metadata_entries,
            None
        );
    }

    #[test]
    fn keeps_what_the_reference_collapses() {
        let h = parse(&format!(r#"{{"a":{T},"a":{T},"c":{T}}}"#)).unwrap();
        assert_eq!(h.duplicate_names(), ["a"]);
        let h = parse(r#"{"__metadata__":{"k":"v","k":"w"},"__metadata__":{}}"#).unwrap();
        assert_eq!(h.repeated_keys, ["k", "__metadata__"]);
        let h = parse(r#"{"x":{"dtype":"f32","shape":[1],"data_offsets":[0,4]}}"#).unwrap();
        assert_eq!(h.tensors[0].dtype, Dtype::Unknown("f32".into()));
        assert_eq!(h.tensors[0].bits(), None);
        let h = parse(&format!(
            r#"{{"x":{{"dtype":"U8","shape":[{m},{m}],"data_offsets":[0,4]}}}}"#,
            m = u64::MAX
        ))
        .unwrap();
        assert_eq!(h.tensors[0].elements, None);
        let h = parse(r#"{"__metadata__":{"k\u0000":"v"}}"#).unwrap();
        assert_eq!(h.nul_metadata, ["k\0"]);
    }

    #[test]
    fn refuses_what_the_reference_refuses() {
        for (bad, why) in [
            ("", "EOF"),
            ("[]", "expected a JSON object"),
            ("{} x", "trailing"),
            (r#"{"a":1}"#, "in tensor \"a\""),
            (
                r#"{"a":{"dtype":"F32","shape":[1]}}"#,
                "missing field `data_offsets`",
            ),
            (
                r#"{"a":{"dtype":"F32","shape":[1.0],"data_offsets":[0,4]}}"#,
                "floating point",
            ),
            (
                r#"{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}}"#,
                "-1",
            ),
            (
                r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4,4]}}"#,
                "invalid length 3",
            ),
            (
                r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}}"#,
                "invalid length 1",
            ),
            (
                r#"{"a":{"dtype":1,"shape":[1],"data_offsets":[0,4]}}"#,
                "dtype string",
            ),
            (
                r#"{"a":{"dtype":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]}}"#,
                "duplicate field `dtype`",
            ),
            (r#"{"__metadata__":{"k":1}}"#, "in __metadata__"),
            (r#"{"__metadata__":[]}"#, "__metadata__ as an object"),
            (
                r#"{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,18446744073709551616]}}"#,
                "expected u64",
            ),
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn long_names_are_cut() {
        let s = shown(&"x".repeat(1000));
        assert!(s.len() < 230 && s.ends_with("(1000 bytes)"), "{s}");
        assert_eq!(shown("a\nb"), "\"a\\nb\"");
    }
}
