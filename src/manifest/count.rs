//! Counting a canonical manifest's entries as its bytes stream by, without
//! holding it: every line is a file, and a line whose path ends in
//! `.safetensors` is a shard ("96 safetensors shards" is compared
//! with the shards, "102 files" with every file).

use std::collections::VecDeque;

/// The end of a canonical line that names a shard: the suffix, the `:`
/// and the 64 hex digits of its digest.
const SHARD_END: &[u8] = b".safetensors:";
const TAIL: usize = SHARD_END.len() + 64;

/// Files and shards of a canonical manifest, fed chunk by chunk.
#[derive(Debug, Default, Clone)]
pub struct EntryCounter {
    files: u64,
    shards: u64,
    /// The last bytes of the line being read (at most [`TAIL`]).
    tail: VecDeque<u8>,
}

impl EntryCounter {
    /// Counts the lines `chunk` ends.
    pub fn feed(&mut self, chunk: &[u8]) {
        for &b in chunk {
            if b == b'\n' {
                self.files += 1;
                if self.tail.len() == TAIL && self.ends_a_shard() {
                    self.shards += 1;
                }
                self.tail.clear();
            } else {
                if self.tail.len() == TAIL {
                    self.tail.pop_front();
                }
                self.tail.push_back(b);
            }
        }
    }

    fn ends_a_shard(&self) -> bool {
        self.tail.iter().zip(SHARD_END).all(|(a, b)| a == b)
            && self
                .tail
                .iter()
                .skip(SHARD_END.len())
                .all(u8::is_ascii_hexdigit)
    }

    /// Lines ended so far (one per file of a canonical manifest).
    pub fn files(&self) -> u64 {
        self.files
    }

    /// Lines whose path ends in `.safetensors`.
    pub fn shards(&self) -> u64 {
        self.shards
    }

    /// Counts of a whole manifest text.
    pub fn of(bytes: &[u8]) -> EntryCounter {
        let mut c = EntryCounter::default();
        c.feed(bytes);
        c
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_are_the_lines_naming_a_safetensors_file_in_any_chunking() {
        let h = "a".repeat(64);
        let text = format!(
            "config.json:{h}\nmodel-00001-of-00002.safetensors:{h}\nmodel-00002-of-00002.safetensors:{h}\nmodel.safetensors.index.json:{h}\nx.safetensors.bak:{h}\ntokenizer.json:{h}\n"
        );
        let whole = EntryCounter::of(text.as_bytes());
        assert_eq!((whole.files(), whole.shards()), (6, 2));
        for size in 1..9 {
            let mut c = EntryCounter::default();
            for chunk in text.as_bytes().chunks(size) {
                c.feed(chunk);
            }
            assert_eq!((c.files(), c.shards()), (6, 2), "chunks of {size}");
        }
        assert_eq!(EntryCounter::of(b"").files(), 0);
        // A path that is only the suffix is still a line with that suffix.
        assert_eq!(
            EntryCounter::of(format!(".safetensors:{h}\n").as_bytes()).shards(),
            1
        );
    }
}
