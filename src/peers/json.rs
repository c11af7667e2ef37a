//! Streaming JSON pieces shared by the peer readers: typed arrays read
//! straight into vectors (never sized from anything the file declares), a
//! strict "read and forget" for values proofpack does not use (repeated keys
//! refused at any depth, like [`crate::strictjson`]), and top-level scalars.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

use super::errors::{classify, RequestError};

/// A top-level value that is not one of the per-request arrays.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number; `integer` when it was written without fraction or exponent.
    Num {
        /// Its value.
        value: f64,
        /// Written as an integer.
        integer: bool,
    },
    /// A string.
    Str(String),
    /// An array (its element count) that proofpack does not read.
    Array(usize),
    /// An object that proofpack does not read.
    Object,
}

impl Scalar {
    /// The number, if this is one.
    pub fn num(&self) -> Option<f64> {
        match self {
            Scalar::Num { value, .. } => Some(*value),
            _ => None,
        }
    }
    /// What kind of value this is, for messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Scalar::Null => "null",
            Scalar::Bool(_) => "a boolean",
            Scalar::Num { .. } => "a number",
            Scalar::Str(_) => "a string",
            Scalar::Array(_) => "an array",
            Scalar::Object => "an object",
        }
    }
}

pub use crate::strictjson::{StrictIgnore, StrictIgnoreVisitor};

/// Reads a top-level value as a [`Scalar`] (arrays counted, objects checked
/// and forgotten).
pub struct ScalarSeed;

impl<'de> DeserializeSeed<'de> for ScalarSeed {
    type Value = Scalar;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Scalar, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Scalar, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Scalar, E> {
        Ok(Scalar::Num {
            value: v as f64,
            integer: true,
        })
    }
    fn visit_u64<E>(self, v: u64) -> Result<Scalar, E> {
        Ok(Scalar::Num {
            value: v as f64,
            integer: true,
        })
    }
    fn visit_f64<E>(self, v: f64) -> Result<Scalar, E> {
        Ok(Scalar::Num {
            value: v,
            integer: false,
        })
    }
    fn visit_str<E>(self, v: &str) -> Result<Scalar, E> {
        Ok(Scalar::Str(v.to_string()))
    }
    fn visit_unit<E>(self) -> Result<Scalar, E> {
        Ok(Scalar::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar, A::Error> {
        let mut n = 0usize;
        while seq.next_element_seed(StrictIgnore)?.is_some() {
            n += 1;
        }
        Ok(Scalar::Array(n))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Scalar, A::Error> {
        StrictIgnoreVisitor.visit_map(map)?;
        Ok(Scalar::Object)
    }
}

/// A shared budget of array elements, so that memory stays bounded whatever
/// the file holds.
pub struct Budget<'b> {
    /// Elements still allowed.
    pub left: &'b mut u64,
    /// The limit, for the message.
    pub limit: u64,
    /// The most entries of one per-request array (the requests a file may
    /// hold).
    pub rows: u64,
}

impl Budget<'_> {
    /// Takes one entry of a per-request array that holds `len` already.
    fn entry<E: serde::de::Error>(&mut self, what: &str, len: usize) -> Result<(), E> {
        if len as u64 >= self.rows {
            return Err(E::custom(format!(
                "{what}: more than {} requests in one file (the reading limit)",
                self.rows
            )));
        }
        self.take(what)
    }

    fn take<E: serde::de::Error>(&mut self, what: &str) -> Result<(), E> {
        if *self.left == 0 {
            return Err(E::custom(format!(
                "{what}: more than {} per-request values in one file (the reading limit); proofpack stops here instead of growing without bound",
                self.limit
            )));
        }
        *self.left -= 1;
        Ok(())
    }
}

/// What the elements of a typed array are.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Elem {
    /// Any finite number.
    Float,
    /// A non-negative integer (an integral float such as `12.0` too).
    Count,
}

/// Reads an array of numbers into a vector.
pub struct NumArray<'a, 'b> {
    /// The key, for messages.
    pub key: &'a str,
    /// Element type.
    pub elem: Elem,
    /// Shared element budget.
    pub budget: &'a mut Budget<'b>,
}

struct NumElem<'a> {
    key: &'a str,
    index: usize,
    elem: Elem,
}

impl<'de> DeserializeSeed<'de> for NumElem<'_> {
    type Value = f64;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<f64, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NumElem<'_> {
    type Value = f64;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.elem {
            Elem::Float => write!(f, "a number at {}[{}]", self.key, self.index),
            Elem::Count => write!(f, "a non-negative integer at {}[{}]", self.key, self.index),
        }
    }
    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<f64, E> {
        Ok(v as f64)
    }
    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<f64, E> {
        if self.elem == Elem::Count && v < 0 {
            return Err(E::custom(format!(
                "{}[{}] is {v}; expected a non-negative integer",
                self.key, self.index
            )));
        }
        Ok(v as f64)
    }
    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<f64, E> {
        if self.elem == Elem::Count && !(v >= 0.0 && v.fract() == 0.0 && v < 9.0e15) {
            return Err(E::custom(format!(
                "{}[{}] is {v}; expected a non-negative integer",
                self.key, self.index
            )));
        }
        Ok(v)
    }
}

impl<'de> DeserializeSeed<'de> for NumArray<'_, '_> {
    type Value = Vec<f64>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<f64>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for NumArray<'_, '_> {
    type Value = Vec<f64>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an array of numbers for {}", self.key)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<f64>, A::Error> {
        let mut out = Vec::new();
        loop {
            let el = NumElem {
                key: self.key,
                index: out.len(),
                elem: self.elem,
            };
            match seq.next_element_seed(el)? {
                Some(v) => {
                    self.budget.entry(self.key, out.len())?;
                    out.push(v);
                }
                None => return Ok(out),
            }
        }
    }
}

/// The most values of a [`Ragged`] kept one by one (16 MiB of them): past
/// it, each row keeps only its count, sum and sign, so a file of many
/// tokens costs memory by its requests, not by its tokens.
pub const RAGGED_KEPT_VALUES: usize = 2 << 20;

/// What a row of a [`Ragged`] always keeps: its count, its sum (added in
/// order from 0.0) and whether a value was negative.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
struct RowSum {
    sum: f64,
    count: u32,
    negative: bool,
}

/// A list of lists of numbers (vLLM's `itls`): each row's count, sum and
/// sign, and its values while the whole holds at most
/// [`RAGGED_KEPT_VALUES`].
#[derive(Debug, Clone, PartialEq)]
pub struct Ragged {
    /// Every value, request after request, while kept.
    values: Vec<f64>,
    /// `ends[i]` is the end of request `i`'s values in `values`, while
    /// kept.
    ends: Vec<usize>,
    rows: Vec<RowSum>,
    kept: bool,
}

impl Default for Ragged {
    fn default() -> Ragged {
        Ragged {
            values: Vec::new(),
            ends: Vec::new(),
            rows: Vec::new(),
            kept: true,
        }
    }
}

impl Ragged {
    /// Request `i`'s values, while the values are kept.
    pub fn row(&self, i: usize) -> Option<&[f64]> {
        if !self.kept {
            return None;
        }
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        Some(&self.values[start..self.ends[i]])
    }
    /// The sum of request `i`'s values, added in order from 0.0.
    pub fn sum(&self, i: usize) -> f64 {
        self.rows[i].sum
    }
    /// How many values request `i` has.
    pub fn count(&self, i: usize) -> usize {
        self.rows[i].count as usize
    }
    /// Whether request `i` has a negative value.
    pub fn has_negative(&self, i: usize) -> bool {
        self.rows[i].negative
    }
    /// Whether every value is kept (not only each row's sum).
    pub fn values_kept(&self) -> bool {
        self.kept
    }
    /// Number of requests.
    pub fn len(&self) -> usize {
        self.rows.len()
    }
    /// True when there are no requests.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
    /// Adds a value to the last row.
    fn push(&mut self, v: f64) {
        let r = self.rows.last_mut().expect("a row is open");
        r.sum += v;
        r.count = r.count.saturating_add(1);
        r.negative |= v < 0.0;
        if !self.kept {
            return;
        }
        if self.values.len() == RAGGED_KEPT_VALUES {
            self.kept = false;
            self.values = Vec::new();
            self.ends = Vec::new();
            return;
        }
        self.values.push(v);
    }
    /// Closes the last row.
    fn end_row(&mut self) {
        if self.kept {
            self.ends.push(self.values.len());
        }
    }
}

/// Reads a list of lists of numbers into a [`Ragged`].
pub struct RaggedArray<'a, 'b> {
    /// The key, for messages.
    pub key: &'a str,
    /// Shared element budget.
    pub budget: &'a mut Budget<'b>,
}

struct Row<'a, 'b, 'c> {
    key: &'a str,
    index: usize,
    out: &'c mut Ragged,
    budget: &'c mut Budget<'b>,
}

impl<'de> DeserializeSeed<'de> for Row<'_, '_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Row<'_, '_, '_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an array of numbers at {}[{}]", self.key, self.index)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.out.rows.push(RowSum::default());
        loop {
            let el = NumElem {
                key: self.key,
                index: self.index,
                elem: Elem::Float,
            };
            match seq.next_element_seed(el)? {
                Some(v) => {
                    self.budget.take(self.key)?;
                    self.out.push(v);
                }
                None => {
                    self.out.end_row();
                    return Ok(());
                }
            }
        }
    }
}

impl<'de> DeserializeSeed<'de> for RaggedArray<'_, '_> {
    type Value = Ragged;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Ragged, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RaggedArray<'_, '_> {
    type Value = Ragged;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an array of arrays of numbers for {}", self.key)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Ragged, A::Error> {
        let mut r = Ragged::default();
        loop {
            let row = Row {
                key: self.key,
                index: r.len(),
                out: &mut r,
                budget: self.budget,
            };
            match seq.next_element_seed(row)? {
                Some(()) => {
                    self.budget.entry(self.key, r.len() - 1)?;
                }
                None => return Ok(r),
            }
        }
    }
}

/// Reads the `errors` array: per request, what its entry says (an empty
/// string or `null` is success; any other string is the failure's text,
/// classified by [`super::errors::classify`]).
pub struct ErrorsArray<'a, 'b> {
    /// Shared element budget.
    pub budget: &'a mut Budget<'b>,
}

struct ErrElem(usize);

impl<'de> DeserializeSeed<'de> for ErrElem {
    type Value = RequestError;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<RequestError, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ErrElem {
    type Value = RequestError;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a string or null at errors[{}]", self.0)
    }
    fn visit_str<E>(self, v: &str) -> Result<RequestError, E> {
        Ok(classify(v))
    }
    fn visit_unit<E>(self) -> Result<RequestError, E> {
        Ok(RequestError::None)
    }
}

impl<'de> DeserializeSeed<'de> for ErrorsArray<'_, '_> {
    type Value = Vec<RequestError>;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Vec<RequestError>, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ErrorsArray<'_, '_> {
    type Value = Vec<RequestError>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of strings for errors")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<RequestError>, A::Error> {
        let mut out = Vec::new();
        while let Some(e) = seq.next_element_seed(ErrElem(out.len()))? {
            self.budget.entry("errors", out.len())?;
            out.push(e);
        }
        Ok(out)
    }
}

/// Counts the elements of an array whose values proofpack does not use
/// (`generated_texts`), checking each strictly.
pub struct CountArray<'a, 'b> {
    /// The key, for messages.
    pub key: &'a str,
    /// Shared element budget.
    pub budget: &'a mut Budget<'b>,
}

impl<'de> DeserializeSeed<'de> for CountArray<'_, '_> {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for CountArray<'_, '_> {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "an array for {}", self.key)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<usize, A::Error> {
        let mut n = 0usize;
        while seq.next_element_seed(StrictIgnore)?.is_some() {
            self.budget.entry(self.key, n)?;
            n += 1;
        }
        Ok(n)
    }
}
