//! Deterministic parallel gzip (spec section 5): pigz's scheme.
//!
//! The input (the tar stream) is cut into blocks of [`DEFLATE_BLOCK`] bytes.
//! Each block is deflated on its own, on any core, by a compressor reset
//! for it and primed with the last 32 KiB of the block before it as a
//! preset dictionary, so that matches still reach back across the cut. A
//! block ends with a sync flush (an empty stored block: byte-aligned, not
//! final), the last one with the final block; joined in order the pieces
//! are one raw deflate stream, wrapped in one gzip member whose CRC-32 and
//! ISIZE cover the whole input (each block's CRC is combined in order).
//!
//! What a block's bytes depend on is its input, the 32 KiB before it, the
//! level and whether it is the last: never on which thread compressed it or
//! how many there are, so the output is the same for 1 thread or 64.
//!
//! The ratio limit of the reader (spec section 5.2) is checked here, block
//! by block in stream order, so that its verdict is as deterministic as the
//! bytes: before block `i`'s output counts, the bucket is refilled only by
//! the compressed bytes of the blocks before it, which a reader has
//! necessarily consumed before it decompresses any byte of block `i`.

use std::collections::VecDeque;
use std::io::{self, Write};
use std::sync::mpsc::{self, Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use flate2::{Compress, Compression, Crc, FlushCompress, Status};

use super::source::RatioBudget;

/// Bytes of tar stream per independently deflated block (part of the
/// reproducibility contract: another size gives other bytes).
pub const DEFLATE_BLOCK: usize = 128 << 10;

/// Bytes of the previous block given to a block as its preset dictionary
/// (deflate's whole window).
const DICTIONARY: usize = 32 << 10;

/// One block to compress.
struct Job {
    input: Vec<u8>,
    dictionary: Vec<u8>,
    last: bool,
    done: SyncSender<io::Result<Done>>,
}

/// One compressed block.
struct Done {
    deflated: Vec<u8>,
    crc: Crc,
}

/// Deflates one block: raw deflate, dictionary first, ending with a sync
/// flush or, for the last block, the final block.
///
/// Each block gets a new compressor. A reused one (`Compress::reset`) is
/// not enough: zlib-rs 0.6 lets bytes left in the window by earlier input
/// change which of two equal-length matches it picks (an upstream bug,
/// zlib-rs bug 459), so the bytes would depend on which thread compressed
/// which blocks before. A new compressor's state is the same every time.
fn deflate_block(
    level: Compression,
    dictionary: &[u8],
    input: &[u8],
    last: bool,
) -> io::Result<Vec<u8>> {
    let mut c = Compress::new(level, false);
    if !dictionary.is_empty() {
        c.set_dictionary(dictionary).map_err(io::Error::other)?;
    }
    let flush = if last {
        FlushCompress::Finish
    } else {
        FlushCompress::Sync
    };
    let mut out = Vec::with_capacity(input.len() + input.len() / 16 + 1024);
    let mut consumed = 0usize;
    loop {
        if out.len() == out.capacity() {
            out.reserve(out.capacity() / 2 + 1024);
        }
        let before = c.total_in();
        let status = c
            .compress_vec(&input[consumed..], &mut out, flush)
            .map_err(io::Error::other)?;
        consumed += (c.total_in() - before) as usize;
        match status {
            Status::StreamEnd => return Ok(out),
            // A sync flush is complete once all input is in and the
            // compressor left output space unused.
            _ if !last && consumed == input.len() && out.len() < out.capacity() => return Ok(out),
            _ => {}
        }
    }
}

/// Deflates one block and computes its CRC-32.
fn compress(level: Compression, dictionary: &[u8], input: &[u8], last: bool) -> io::Result<Done> {
    let deflated = deflate_block(level, dictionary, input, last)?;
    let mut crc = Crc::new();
    crc.update(input);
    Ok(Done { deflated, crc })
}

/// Worker threads that compress blocks.
struct Pool {
    jobs: Option<SyncSender<Job>>,
    workers: Vec<JoinHandle<()>>,
}

impl Pool {
    fn new(threads: usize, level: Compression) -> Self {
        let (tx, rx) = mpsc::sync_channel::<Job>(threads);
        let rx = Arc::new(Mutex::new(rx));
        let workers = (0..threads)
            .map(|_| {
                let rx = Arc::clone(&rx);
                std::thread::spawn(move || {
                    loop {
                        let job = match rx.lock() {
                            Ok(r) => r.recv(),
                            Err(_) => return,
                        };
                        let Ok(job) = job else { return };
                        let r = compress(level, &job.dictionary, &job.input, job.last);
                        // The writer may have gone (an error elsewhere).
                        let _ = job.done.send(r);
                    }
                })
            })
            .collect();
        Pool {
            jobs: Some(tx),
            workers,
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.jobs = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// Where the writer's ratio check failed: tar bytes through the block, and
/// compressed bytes before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RatioExceeded {
    pub tar: u64,
    pub compressed: u64,
}

/// A gzip writer that deflates blocks in parallel (see the module doc).
pub(crate) struct ParGz<W: Write> {
    out: W,
    block: Vec<u8>,
    dictionary: Vec<u8>,
    level: Compression,
    /// Worker threads; `None`: compress on the caller's thread.
    pool: Option<Pool>,
    pending: VecDeque<Receiver<io::Result<Done>>>,
    max_pending: usize,
    crc: Crc,
    /// Tar bytes taken in.
    tar_in: u64,
    /// Tar bytes whose compressed block was written.
    tar_out: u64,
    /// Compressed bytes written (gzip header included).
    compressed: u64,
    budget: RatioBudget,
    ratio: Option<RatioExceeded>,
}

/// The gzip header proofpack writes: no name, no comment, MTIME 0, XFL as
/// zlib sets it for the level, OS 255 (unknown).
fn gzip_header(level: u32) -> [u8; 10] {
    let xfl = match level {
        9.. => 2,
        0 | 1 => 4,
        _ => 0,
    };
    [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl, 255]
}

impl<W: Write> ParGz<W> {
    /// A writer at `level` (0..=9) compressing on `threads` threads (at
    /// least 1), checking the reader's ratio limit `max_ratio`.
    pub(crate) fn new(mut out: W, level: u32, threads: usize, max_ratio: u64) -> io::Result<Self> {
        let header = gzip_header(level);
        out.write_all(&header)?;
        let threads = threads.max(1);
        let level = Compression::new(level);
        let pool = (threads > 1).then(|| Pool::new(threads, level));
        Ok(ParGz {
            out,
            block: Vec::with_capacity(DEFLATE_BLOCK),
            dictionary: Vec::new(),
            level,
            pool,
            pending: VecDeque::new(),
            max_pending: 2 * threads,
            crc: Crc::new(),
            tar_in: 0,
            tar_out: 0,
            compressed: header.len() as u64,
            budget: RatioBudget::new(max_ratio),
            ratio: None,
        })
    }

    /// The first block past the reader's ratio allowance, if any so far.
    pub(crate) fn ratio_exceeded(&self) -> Option<RatioExceeded> {
        self.ratio
    }

    /// Writes one compressed block and checks the ratio.
    fn emit(&mut self, done: Done) -> io::Result<()> {
        let n = done.crc.amount() as u64;
        if !self.budget.take(self.compressed, n) && self.ratio.is_none() {
            self.ratio = Some(RatioExceeded {
                tar: self.tar_out + n,
                compressed: self.compressed,
            });
        }
        self.tar_out += n;
        self.out.write_all(&done.deflated)?;
        self.compressed += done.deflated.len() as u64;
        self.crc.combine(&done.crc);
        Ok(())
    }

    fn wait_one(&mut self) -> io::Result<()> {
        let rx = self.pending.pop_front().expect("a pending block");
        let done = rx
            .recv()
            .map_err(|_| io::Error::other("a compression thread stopped"))??;
        self.emit(done)
    }

    /// Hands the current block to a compressor.
    fn submit(&mut self, last: bool) -> io::Result<()> {
        let input = std::mem::replace(&mut self.block, Vec::with_capacity(DEFLATE_BLOCK));
        let tail = input.len().saturating_sub(DICTIONARY);
        let dictionary = std::mem::replace(&mut self.dictionary, input[tail..].to_vec());
        let Some(pool) = self.pool.as_ref() else {
            let done = compress(self.level, &dictionary, &input, last)?;
            return self.emit(done);
        };
        let jobs = pool.jobs.clone().expect("the pool is open");
        while self.pending.len() >= self.max_pending {
            self.wait_one()?;
        }
        let (tx, rx) = mpsc::sync_channel(1);
        let job = Job {
            input,
            dictionary,
            last,
            done: tx,
        };
        jobs.send(job)
            .map_err(|_| io::Error::other("the compression threads stopped"))?;
        self.pending.push_back(rx);
        Ok(())
    }

    /// Compresses what is left, writes the gzip trailer and returns the
    /// inner writer and the ratio verdict over the whole stream.
    pub(crate) fn finish(mut self) -> io::Result<(W, Option<RatioExceeded>)> {
        self.submit(true)?;
        while !self.pending.is_empty() {
            self.wait_one()?;
        }
        debug_assert_eq!(self.tar_out, self.tar_in);
        let mut trailer = [0u8; 8];
        trailer[..4].copy_from_slice(&self.crc.sum().to_le_bytes());
        trailer[4..].copy_from_slice(&(self.tar_in as u32).to_le_bytes());
        self.out.write_all(&trailer)?;
        self.compressed += trailer.len() as u64;
        self.pool = None;
        Ok((self.out, self.ratio))
    }
}

impl<W: Write> Write for ParGz<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        // A full block is handed on only once more input arrives, so that
        // the last block is known to be last.
        if self.block.len() == DEFLATE_BLOCK {
            self.submit(false)?;
        }
        let n = buf.len().min(DEFLATE_BLOCK - self.block.len());
        self.block.extend_from_slice(&buf[..n]);
        self.tar_in += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        // Blocks are cut by size only, never by a flush (that would make
        // the bytes depend on when callers flush).
        self.out.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// Text-like bytes that compress, with some repetition across blocks.
    fn sample(len: usize) -> Vec<u8> {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut v = Vec::with_capacity(len);
        while v.len() < len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let line = format!(
                "{{\"request_id\": \"{:016x}\", \"status\": \"ok\", \"tokens\": {}}}\n",
                x,
                x % 1000
            );
            v.extend_from_slice(line.as_bytes());
        }
        v.truncate(len);
        v
    }

    fn gz(data: &[u8], level: u32, threads: usize, chunk: usize) -> Vec<u8> {
        let mut w = ParGz::new(Vec::new(), level, threads, 100).unwrap();
        for c in data.chunks(chunk.max(1)) {
            w.write_all(c).unwrap();
        }
        w.finish().unwrap().0
    }

    #[test]
    fn same_bytes_for_any_thread_count_and_write_pattern() {
        for len in [
            0,
            1,
            DEFLATE_BLOCK - 1,
            DEFLATE_BLOCK,
            DEFLATE_BLOCK + 1,
            3 * DEFLATE_BLOCK + 77,
        ] {
            let data = sample(len);
            let one = gz(&data, 6, 1, 4096);
            for (threads, chunk) in [(2, 1000), (3, DEFLATE_BLOCK), (8, 1 << 20)] {
                assert_eq!(
                    gz(&data, 6, threads, chunk),
                    one,
                    "len {len}, {threads} threads"
                );
            }
            let mut back = Vec::new();
            flate2::read::GzDecoder::new(&one[..])
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(back, data, "len {len}");
            let n = one.len();
            let isize = u32::from_le_bytes(one[n - 4..].try_into().unwrap());
            assert_eq!(isize, len as u32);
            let mut crc = Crc::new();
            crc.update(&data);
            assert_eq!(
                u32::from_le_bytes(one[n - 8..n - 4].try_into().unwrap()),
                crc.sum()
            );
        }
    }

    #[test]
    fn every_level_reads_back() {
        let data = sample(2 * DEFLATE_BLOCK + 5);
        for level in 0..=9 {
            let out = gz(&data, level, 2, 10_000);
            let mut back = Vec::new();
            flate2::read::GzDecoder::new(&out[..])
                .read_to_end(&mut back)
                .unwrap();
            assert_eq!(back, data, "level {level}");
        }
    }

    #[test]
    fn the_dictionary_keeps_matches_across_blocks() {
        // 16 KiB of random bytes ending the first block and starting the
        // second: primed with the first block, the second is one match
        // 16 KiB back; without the dictionary it is incompressible.
        let mut x: u32 = 1;
        let part: Vec<u8> = (0..16 << 10)
            .map(|_| {
                x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
                (x >> 16) as u8
            })
            .collect();
        let mut data = vec![0u8; DEFLATE_BLOCK - part.len()];
        data.extend_from_slice(&part);
        data.extend_from_slice(&part);
        let out = gz(&data, 6, 2, 4096);
        assert!(
            out.len() < part.len() + part.len() / 4,
            "{} bytes: the second block did not use the first as its dictionary",
            out.len()
        );
    }

    #[test]
    fn ratio_is_checked_per_block_in_order() {
        let zeros = vec![0u8; 8 * DEFLATE_BLOCK];
        let mut w = ParGz::new(Vec::new(), 6, 2, 1).unwrap();
        w.budget = RatioBudget::with_burst(1, 3 * DEFLATE_BLOCK as u64);
        w.write_all(&zeros).unwrap();
        let (_, r) = w.finish().unwrap();
        let r = r.expect("zeros exceed a 1:1 ratio past a 3-block burst");
        // The fourth block drains the three-block burst: blocks of zeros
        // bring in a few hundred bytes of allowance each.
        assert_eq!(r.tar, 4 * DEFLATE_BLOCK as u64);
        let mut w = ParGz::new(Vec::new(), 6, 2, 1).unwrap();
        w.budget = RatioBudget::with_burst(1, 9 * DEFLATE_BLOCK as u64);
        w.write_all(&zeros).unwrap();
        assert_eq!(w.finish().unwrap().1, None);
    }

    /// Bytes of a three-letter alphabet: many matches of equal length at
    /// different distances, where a compressor's leftovers show.
    fn skewed(len: usize) -> Vec<u8> {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                [0x81, 0x81, 0x81, 0x00, 0xb0][(x % 5) as usize]
            })
            .collect()
    }

    /// Blocks compressed in any order, by any thread, after any other
    /// input, give the same bytes. A reused zlib-rs compressor does not:
    /// on this input 119 of 160 blocks came out otherwise after `reset`
    /// (and about 1% of the blocks of a 130 MB tar of JSON Lines).
    #[test]
    fn blocks_do_not_depend_on_what_was_compressed_before() {
        let data = skewed(24 * DEFLATE_BLOCK);
        let blocks: Vec<&[u8]> = data.chunks(DEFLATE_BLOCK).collect();
        let n = blocks.len();
        let dict = |i: usize| -> &[u8] {
            match i {
                0 => &[],
                _ => &blocks[i - 1][DEFLATE_BLOCK - DICTIONARY..],
            }
        };
        let lvl = Compression::new(6);
        let mut joined = Vec::new();
        for i in (0..n).rev() {
            // Other input first, as another thread would have.
            let j = (i * 7 + 3) % n;
            deflate_block(lvl, dict(j), blocks[j], false).unwrap();
            joined.push(deflate_block(lvl, dict(i), blocks[i], i == n - 1).unwrap());
        }
        joined.reverse();
        let mut w = ParGz::new(Vec::new(), 6, 1, 100).unwrap();
        w.write_all(&data).unwrap();
        let one = w.finish().unwrap().0;
        assert!(one[10..one.len() - 8] == joined.concat()[..]);
        assert!(gz(&data, 6, 3, 1 << 16) == one);
    }
}
