//! A map from request id to what is kept of it, sized for millions of ids.
//!
//! The ids are kept once, end to end in one string with the end of each,
//! instead of one heap string per id (24 bytes of `String` and the
//! allocator's overhead each); the table holds 4-byte indexes, each with 32
//! bits of its id's hash, so growing the table never reads the ids again
//! (at a million ids, rehashing from the ids was a seventh of a
//! verification). Entries stay
//! in the order of their first insertion, which for the readers is file
//! order, so no check has to sort them by line. The hash is keyed per map
//! (std's `RandomState`), so ids chosen to collide cannot make it slow.

use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

use hashbrown::HashTable;

/// The most ids one map holds (the readers' limits stay far below it).
pub const MAX_IDS: usize = u32::MAX as usize;

/// Request id to `V`, in insertion order.
pub struct IdMap<V> {
    text: String,
    ends: Vec<u64>,
    values: Vec<V>,
    /// Index of the entry and the low 32 bits of its id's hash.
    table: HashTable<(u32, u32)>,
    state: RandomState,
}

/// The hash the table files an entry under: 32 bits of the id's keyed
/// hash, in both halves (the table takes its bucket from the low bits and a
/// 7-bit tag from the high ones).
fn spread(h32: u32) -> u64 {
    (h32 as u64) << 32 | h32 as u64
}

impl<V> Default for IdMap<V> {
    fn default() -> Self {
        IdMap {
            text: String::new(),
            ends: Vec::new(),
            values: Vec::new(),
            table: HashTable::new(),
            state: RandomState::new(),
        }
    }
}

impl<V: std::fmt::Debug> std::fmt::Debug for IdMap<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The id at `i`.
fn key<'a>(text: &'a str, ends: &[u64], i: usize) -> &'a str {
    let start = if i == 0 { 0 } else { ends[i - 1] as usize };
    &text[start..ends[i] as usize]
}

impl<V> IdMap<V> {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// Ids held.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when no id is held.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    fn hash32(&self, id: &str) -> u32 {
        self.state.hash_one(id) as u32
    }

    fn find_hashed(&self, id: &str, h32: u32) -> Option<usize> {
        let (text, ends) = (&self.text, &self.ends);
        self.table
            .find(spread(h32), |&(i, h)| {
                h == h32 && key(text, ends, i as usize) == id
            })
            .map(|&(i, _)| i as usize)
    }

    fn find(&self, id: &str) -> Option<usize> {
        self.find_hashed(id, self.hash32(id))
    }

    /// What is kept of `id`.
    pub fn get(&self, id: &str) -> Option<&V> {
        self.find(id).map(|i| &self.values[i])
    }

    /// The position of `id` in insertion order, with what is kept of it.
    pub fn entry_of(&self, id: &str) -> Option<(usize, &V)> {
        self.find(id).map(|i| (i, &self.values[i]))
    }

    /// True when `id` is held.
    pub fn contains_key(&self, id: &str) -> bool {
        self.find(id).is_some()
    }

    /// What is kept of `id`, inserted by `make` when absent; `None` only
    /// when the map holds [`MAX_IDS`] ids already.
    pub fn get_or_insert_with(&mut self, id: &str, make: impl FnOnce() -> V) -> Option<&mut V> {
        let h32 = self.hash32(id);
        if let Some(i) = self.find_hashed(id, h32) {
            return Some(&mut self.values[i]);
        }
        self.insert_new(id, h32, make())?;
        self.values.last_mut()
    }

    /// Inserts `id`, which the caller knows is absent; `None` when the map
    /// is full.
    fn insert_new(&mut self, id: &str, h32: u32, v: V) -> Option<()> {
        let i = self.values.len();
        if i >= MAX_IDS {
            return None;
        }
        self.text.push_str(id);
        self.ends.push(self.text.len() as u64);
        self.values.push(v);
        self.table
            .insert_unique(spread(h32), (i as u32, h32), |&(_, h)| spread(h));
        Some(())
    }

    /// Inserts `id` with `v` unless it is held; returns what was held
    /// before (and then keeps it, dropping `v`).
    pub fn insert_first(&mut self, id: &str, v: V) -> Option<&V> {
        let h32 = self.hash32(id);
        match self.find_hashed(id, h32) {
            Some(i) => Some(&self.values[i]),
            None => {
                let _ = self.insert_new(id, h32, v);
                None
            }
        }
    }

    /// Ids and values in insertion order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&str, &V)> + Clone + '_ {
        self.values
            .iter()
            .enumerate()
            .map(|(i, v)| (key(&self.text, &self.ends, i), v))
    }

    /// Values in insertion order.
    pub fn values(&self) -> std::slice::Iter<'_, V> {
        self.values.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[test]
    fn ids_keep_their_first_value_and_their_order() {
        let mut m = IdMap::new();
        assert!(m.insert_first("b", 1).is_none());
        assert!(m.insert_first("a", 2).is_none());
        assert_eq!(m.insert_first("b", 3), Some(&1));
        *m.get_or_insert_with("c", || 0).unwrap() += 5;
        *m.get_or_insert_with("a", || 0).unwrap() += 5;
        let all: Vec<(&str, &i32)> = m.iter().collect();
        assert_eq!(all, [("b", &1), ("a", &7), ("c", &5)]);
        assert!(m.contains_key("c") && !m.contains_key("") && !m.contains_key("ab"));
        assert_eq!(m.len(), 3);
    }

    proptest! {
        /// The map answers as a `HashMap` of the first value of each id,
        /// and lists the ids in the order they first came.
        #[test]
        fn it_answers_as_a_hash_map(ids in proptest::collection::vec("[ab\u{e9}]{0,3}", 0..200)) {
            let mut m = IdMap::new();
            let mut reference: HashMap<String, usize> = HashMap::new();
            let mut order = Vec::new();
            for (n, id) in ids.iter().enumerate() {
                m.insert_first(id, n);
                if !reference.contains_key(id) {
                    reference.insert(id.clone(), n);
                    order.push(id.clone());
                }
            }
            prop_assert_eq!(m.len(), reference.len());
            for (id, n) in &reference {
                prop_assert_eq!(m.get(id), Some(n));
            }
            let listed: Vec<String> = m.iter().map(|(k, _)| k.to_string()).collect();
            prop_assert_eq!(listed, order);
            prop_assert!(m.get("not an id").is_none());
        }
    }
}
