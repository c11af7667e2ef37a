//! The streaming input under the tar parser: from the bundle file to
//! decompressed bytes, with the byte limits enforced on every refill.
//!
//! Layers, from the file up: [`RawIn`] hashes every byte read from the file
//! (the bundle's SHA-256) and notes I/O errors so that they are not mistaken
//! for a malformed bundle; [`Counted`] counts the compressed bytes the
//! decoder consumed (for the ratio limit); flate2's single-member
//! `bufread::GzDecoder` inflates and checks CRC and length; [`Source`] keeps a
//! window of decompressed bytes and enforces the total and ratio limits on
//! every refill. [`Source::finish`] reads what follows the gzip member (which
//! must be nothing) to complete the bundle's digest; [`EntryReader`] hands one
//! entry's content to a sink, hashed as it is read.

use std::io::{self, BufRead, BufReader, Read};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::thread::{Scope, ScopedJoinHandle};

use flate2::bufread::GzDecoder;

use super::limits::{Limits, RATIO_BURST_BYTES, TRAILING_READ_LIMIT};
use super::tar::BLOCK;
use crate::digest::{Hasher, Sha256Digest};
use crate::progress::Progress;

/// Decompressed bytes kept at a time.
const WINDOW: usize = 1 << 17;

/// Hashes and counts every byte read from the raw file; remembers I/O errors.
struct RawIn<'p, R> {
    inner: R,
    hasher: Hasher,
    io_error: Option<io::ErrorKind>,
    progress: &'p dyn Progress,
}

impl<R: Read> Read for RawIn<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.inner.read(buf) {
                Ok(n) => {
                    self.hasher.update(&buf[..n]);
                    self.progress.advance(n as u64);
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.io_error = Some(e.kind());
                    return Err(e);
                }
            }
        }
    }
}

/// Counts bytes consumed by the decoder.
struct Counted<B> {
    inner: B,
    consumed: u64,
}

impl<B: BufRead> Read for Counted<B> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.consumed += n as u64;
        Ok(n)
    }
}

impl<B: BufRead> BufRead for Counted<B> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }
    fn consume(&mut self, amt: usize) {
        self.consumed += amt as u64;
        self.inner.consume(amt)
    }
}

type Decoder<'p, R> = GzDecoder<Counted<BufReader<RawIn<'p, R>>>>;

/// Why reading the decompressed stream stopped for good.
#[derive(Debug)]
enum Stop {
    /// The underlying file could not be read (the tool cannot run).
    RawIo(io::Error),
    /// The gzip stream is corrupt or truncated.
    Gzip(String),
    /// A limit was exceeded.
    Limit(&'static str, String),
}

/// How the stream ended, for the report.
#[derive(Default)]
pub(crate) struct StreamEnd {
    /// A limit of the stream (`total_bytes`, `ratio`) stopped reading.
    pub limit_stop: Option<(&'static str, String)>,
    /// The gzip stream is corrupt or truncated.
    pub gzip_error: Option<String>,
    /// The gzip member ended (CRC and length checked).
    pub member_end: bool,
    /// Bytes after the member.
    pub trailing: u64,
    /// Those bytes start like a gzip member.
    pub second_member: bool,
    /// SHA-256 of the whole file, when it was read to its end.
    pub bundle_sha256: Option<Sha256Digest>,
    /// Decompressed bytes produced.
    pub out_total: u64,
    /// Compressed bytes the decoder consumed.
    pub consumed: u64,
    /// The least ratio allowance left (see [`RatioBudget`]).
    pub ratio_least: i128,
    /// Reading stopped [`TRAILING_READ_LIMIT`] bytes after the member (or
    /// the gzip error) before the end of the file.
    pub trailing_capped: bool,
}

/// The ratio limit, a token bucket: every compressed byte read adds
/// `rate` bytes of allowance, up to `burst`; every decompressed byte takes
/// one. Equivalently, over any stretch of the stream the output is at most
/// `burst` plus `rate` times the input of that stretch. The writer keeps one
/// too, to refuse sealing what the reader would refuse.
pub(crate) struct RatioBudget {
    rate: u64,
    burst: i128,
    tokens: i128,
    input: u64,
    /// The least allowance left so far.
    pub least: i128,
}

impl RatioBudget {
    pub(crate) fn new(rate: u64) -> Self {
        Self::with_burst(rate, RATIO_BURST_BYTES)
    }

    /// A bucket with another burst (tests at small sizes).
    pub(crate) fn with_burst(rate: u64, burst: u64) -> Self {
        let burst = burst as i128;
        RatioBudget {
            rate,
            burst,
            tokens: burst,
            input: 0,
            least: burst,
        }
    }

    /// Records that `input_total` compressed bytes have been read in all and
    /// `output` more bytes produced; false once the allowance is exceeded.
    pub(crate) fn take(&mut self, input_total: u64, output: u64) -> bool {
        let new_input = input_total.saturating_sub(self.input);
        self.input = self.input.max(input_total);
        self.tokens = (self.tokens + new_input as i128 * self.rate as i128).min(self.burst);
        self.tokens -= output as i128;
        self.least = self.least.min(self.tokens);
        self.tokens >= 0
    }
}

/// The decompressing half of the reader: it runs on its own
/// thread, inflates into windows and enforces the total and ratio limits as
/// it goes; the tar parser, the entry hashes and the evidence checks run on
/// the calling thread, a few windows behind it.
struct Inflater<'p, R> {
    dec: Decoder<'p, R>,
    /// Decompressed bytes produced so far.
    out_total: u64,
    limits: Limits,
    ratio: RatioBudget,
}

/// What the decompressing thread hands over.
enum Msg {
    /// A window of `n` decompressed bytes (the vector is `WINDOW` long).
    Data(Vec<u8>, usize),
    /// The gzip member ended (CRC and length checked).
    End,
    /// Reading stopped for good.
    Stop(Stop),
}

/// Windows decompressed ahead of the parser.
const AHEAD: usize = 3;

/// What the parser tells the decompressing thread once the member is read
/// (or reading stopped).
#[derive(Clone, Copy)]
enum Rest {
    /// Read nothing more (a limit stopped reading, or the parser stopped
    /// before the member ended).
    Skip,
    /// Read what follows, for the bundle's digest; after a complete member
    /// it must be nothing, and is counted.
    Read { member_end: bool },
}

impl<'p, R: Read> Inflater<'p, R> {
    /// Fills `win` with the next decompressed bytes; `Ok(0)` at the end of
    /// the member.
    fn next(&mut self, win: &mut [u8]) -> Result<usize, Stop> {
        loop {
            match self.dec.read(win) {
                Ok(0) => return Ok(0),
                Ok(n) => {
                    self.out_total += n as u64;
                    if self.out_total > self.limits.max_total_bytes {
                        return Err(Stop::Limit(
                            "total_bytes",
                            format!(
                                "the archive decompresses to more than {} bytes; raise --max-total-bytes if this bundle is expected to be that large",
                                self.limits.max_total_bytes
                            ),
                        ));
                    }
                    let consumed = self.dec.get_ref().consumed;
                    if !self.ratio.take(consumed, n as u64) {
                        return Err(Stop::Limit(
                            "ratio",
                            format!(
                                "{} compressed bytes decompress to {}: more than {} bytes beyond {}:1 in one stretch, a decompression bomb; raise --max-ratio if this is expected",
                                consumed, self.out_total, RATIO_BURST_BYTES, self.limits.max_ratio
                            ),
                        ));
                    }
                    return Ok(n);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    let raw = self.dec.get_ref().inner.get_ref().io_error;
                    // Where reading stopped: the archive's bytes
                    // read good, and how far into the file the decoder
                    // had read (the damage is at or before that byte).
                    let at = format!(
                        "reading stopped after {} bytes of the archive, within the first {} bytes of the file; nothing after that point was read",
                        self.out_total,
                        self.dec.get_ref().consumed
                    );
                    return Err(match raw {
                        Some(_) => Stop::RawIo(e),
                        None if e.kind() == io::ErrorKind::UnexpectedEof => Stop::Gzip(format!(
                            "the gzip stream ends early: the file is truncated; {at}"
                        )),
                        None => Stop::Gzip(format!("the gzip stream is corrupt: {e}; {at}")),
                    });
                }
            }
        }
    }

    /// The thread's body: windows to `tx` until the member ends or reading
    /// stops (or the parser hung up), then what `rest` says. Returns the
    /// stream's end as far as this thread knows it.
    fn run(
        mut self,
        tx: SyncSender<Msg>,
        back: Receiver<Vec<u8>>,
        rest: Receiver<Rest>,
    ) -> io::Result<StreamEnd> {
        loop {
            let mut win = back.try_recv().unwrap_or_else(|_| vec![0u8; WINDOW]);
            let msg = match self.next(&mut win) {
                Ok(0) => Msg::End,
                Ok(n) => Msg::Data(win, n),
                Err(stop) => Msg::Stop(stop),
            };
            let last = !matches!(msg, Msg::Data(..));
            if tx.send(msg).is_err() {
                // The parser stopped reading: nothing after this is read.
                return self.tail(Rest::Skip);
            }
            if last {
                break;
            }
        }
        drop(tx);
        let rest = rest.recv().unwrap_or(Rest::Skip);
        self.tail(rest)
    }

    /// Ends reading; with [`Rest::Read`], reads what follows the member or
    /// the gzip error, not without bound, and completes the file's digest.
    fn tail(self, rest: Rest) -> io::Result<StreamEnd> {
        let ratio_least = self.ratio.least;
        let counted = self.dec.into_inner();
        let mut t = StreamEnd {
            consumed: counted.consumed,
            ratio_least,
            ..StreamEnd::default()
        };
        let Rest::Read { member_end } = rest else {
            return Ok(t);
        };
        let mut buffered = counted.inner;
        let mut after: u64 = 0;
        loop {
            if after > TRAILING_READ_LIMIT {
                t.trailing_capped = true;
                return Ok(t);
            }
            let chunk = match buffered.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if chunk.is_empty() {
                break;
            }
            if member_end && t.trailing == 0 && chunk.len() >= 2 && chunk[..2] == [0x1f, 0x8b] {
                t.second_member = true;
            }
            let n = chunk.len();
            after += n as u64;
            if member_end {
                t.trailing += n as u64;
            }
            buffered.consume(n);
        }
        t.bundle_sha256 = Some(buffered.into_inner().hasher.finish().0);
        Ok(t)
    }
}

/// Decompressed bytes with limits enforced on every refill, from the
/// decompressing thread.
pub(crate) struct Source<'s> {
    rx: Receiver<Msg>,
    back: Sender<Vec<u8>>,
    rest: SyncSender<Rest>,
    inflater: ScopedJoinHandle<'s, io::Result<StreamEnd>>,
    win: Vec<u8>,
    pos: usize,
    len: usize,
    /// Decompressed bytes received so far.
    out_total: u64,
    /// The gzip member ended (CRC and length checked).
    member_end: bool,
    stop: Option<Stop>,
}

impl<'s> Source<'s> {
    /// Starts the decompressing thread in `scope` on `reader`.
    pub(crate) fn spawn<'env, R: Read + Send + 's>(
        scope: &'s Scope<'s, 'env>,
        reader: R,
        limits: &Limits,
        progress: &'s dyn Progress,
    ) -> Self {
        let raw = RawIn {
            inner: reader,
            hasher: Hasher::new(),
            io_error: None,
            progress,
        };
        let counted = Counted {
            inner: BufReader::with_capacity(1 << 16, raw),
            consumed: 0,
        };
        let inflater = Inflater {
            dec: GzDecoder::new(counted),
            out_total: 0,
            limits: *limits,
            ratio: RatioBudget::new(limits.max_ratio),
        };
        let (tx, rx) = sync_channel(AHEAD);
        let (back, back_rx) = channel();
        let (rest, rest_rx) = sync_channel(1);
        let inflater = scope.spawn(move || inflater.run(tx, back_rx, rest_rx));
        Source {
            rx,
            back,
            rest,
            inflater,
            win: Vec::new(),
            pos: 0,
            len: 0,
            out_total: 0,
            member_end: false,
            stop: None,
        }
    }

    /// Ensures decompressed bytes are available; returns how many (0 at the
    /// end of the member). `Err(())` means reading stopped; see `self.stop`.
    pub(crate) fn fill(&mut self) -> Result<usize, ()> {
        if self.pos < self.len {
            return Ok(self.len - self.pos);
        }
        if self.stop.is_some() {
            return Err(());
        }
        if self.member_end {
            return Ok(0);
        }
        match self.rx.recv().ok() {
            Some(Msg::Data(win, n)) => {
                let old = std::mem::replace(&mut self.win, win);
                if !old.is_empty() {
                    let _ = self.back.send(old);
                }
                self.pos = 0;
                self.len = n;
                self.out_total += n as u64;
                Ok(n)
            }
            Some(Msg::End) => {
                self.member_end = true;
                self.pos = 0;
                self.len = 0;
                Ok(0)
            }
            Some(Msg::Stop(stop)) => {
                self.stop = Some(stop);
                Err(())
            }
            None => {
                self.stop = Some(Stop::RawIo(io::Error::other(
                    "the decompressing thread ended before the gzip member did",
                )));
                Err(())
            }
        }
    }
    /// Offset in the decompressed stream of the next byte to be consumed.
    pub(crate) fn offset(&self) -> u64 {
        self.out_total - (self.len - self.pos) as u64
    }

    pub(crate) fn avail(&self) -> &[u8] {
        &self.win[self.pos..self.len]
    }

    pub(crate) fn consume(&mut self, n: usize) {
        self.pos += n;
    }

    /// Reads one block. `Ok(n)` with n < 512 means the stream ended after n bytes.
    pub(crate) fn block(&mut self, out: &mut [u8; BLOCK]) -> Result<usize, ()> {
        let mut got = 0;
        while got < BLOCK {
            let n = self.fill()?;
            if n == 0 {
                return Ok(got);
            }
            let take = n.min(BLOCK - got);
            out[got..got + take].copy_from_slice(&self.avail()[..take]);
            self.consume(take);
            got += take;
        }
        Ok(got)
    }

    /// Feeds the next `n` bytes to `f`. `Ok(false)` if the stream ended first.
    pub(crate) fn data(&mut self, mut n: u64, mut f: impl FnMut(&[u8])) -> Result<bool, ()> {
        while n > 0 {
            let a = self.fill()?;
            if a == 0 {
                return Ok(false);
            }
            let take = (a as u64).min(n) as usize;
            f(&self.avail()[..take]);
            self.consume(take);
            n -= take as u64;
        }
        Ok(true)
    }

    /// Skips the padding after `size` data bytes.
    pub(crate) fn pad(&mut self, size: u64) -> Result<bool, ()> {
        let rem = size % BLOCK as u64;
        if rem == 0 {
            Ok(true)
        } else {
            self.data(BLOCK as u64 - rem, |_| {})
        }
    }

    /// True once reading stopped (a gzip error, a limit, an I/O error).
    pub(crate) fn stopped(&self) -> bool {
        self.stop.is_some()
    }

    /// Decompresses the rest of the member; returns how many of those bytes
    /// were not zero.
    pub(crate) fn drain(&mut self) -> u64 {
        let mut nonzero = 0;
        loop {
            match self.fill() {
                Ok(0) | Err(()) => return nonzero,
                Ok(n) => {
                    nonzero += self.avail().iter().filter(|b| **b != 0).count() as u64;
                    self.consume(n);
                }
            }
        }
    }

    /// Ends reading: how the stream ended, and (unless a limit stopped
    /// reading, `limit_stopped` included) the bytes after the gzip member and
    /// the digest of the whole file. `Err` only for an I/O error on the file.
    pub(crate) fn finish(self, limit_stopped: bool) -> io::Result<StreamEnd> {
        let Source {
            rx,
            rest,
            inflater,
            out_total,
            member_end,
            stop,
            ..
        } = self;
        let (mut limit_stop, mut gzip_error, mut raw_io) = (None, None, None);
        match stop {
            Some(Stop::Limit(name, detail)) => limit_stop = Some((name, detail)),
            Some(Stop::RawIo(e)) => raw_io = Some(e),
            Some(Stop::Gzip(s)) => gzip_error = Some(s),
            None => {}
        }
        // After the member: nothing may follow. The rest of the file is read
        // for the bundle's digest (unless a limit stopped us), but not
        // without bound.
        let reached_end = member_end || gzip_error.is_some();
        let read_rest = !limit_stopped && limit_stop.is_none() && reached_end && raw_io.is_none();
        // Hang up first, so that a thread blocked on a full channel ends.
        drop(rx);
        let _ = rest.send(if read_rest {
            Rest::Read { member_end }
        } else {
            Rest::Skip
        });
        let tail = match inflater.join() {
            Ok(t) => t,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        if let Some(e) = raw_io {
            return Err(e);
        }
        Ok(StreamEnd {
            limit_stop,
            gzip_error,
            member_end,
            out_total,
            ..tail?
        })
    }
}

/// An entry's content as a reader, hashed as it is read.
pub(crate) struct EntryReader<'a, 's> {
    src: &'a mut Source<'s>,
    left: u64,
    hasher: Hasher,
    /// The archive ended inside the entry.
    pub truncated: bool,
    /// Reading stopped (gzip error, limit) inside the entry.
    pub stopped: bool,
}

impl<'a, 's> EntryReader<'a, 's> {
    pub(crate) fn new(src: &'a mut Source<'s>, size: u64) -> Self {
        EntryReader {
            src,
            left: size,
            hasher: Hasher::new(),
            truncated: false,
            stopped: false,
        }
    }

    /// Reads and hashes whatever the sink left of the entry.
    pub(crate) fn drain(&mut self) {
        let mut buf = [0u8; 8192];
        while self.left > 0 && !self.truncated && !self.stopped {
            let _ = self.read(&mut buf);
        }
    }

    /// The digest of what was read.
    pub(crate) fn digest(self) -> Sha256Digest {
        self.hasher.finish().0
    }
}

impl Read for EntryReader<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 || buf.is_empty() {
            return Ok(0);
        }
        let a = match self.src.fill() {
            Ok(a) => a,
            Err(()) => {
                self.stopped = true;
                return Err(io::Error::other("reading the bundle stopped"));
            }
        };
        if a == 0 {
            self.truncated = true;
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the archive ends inside this entry",
            ));
        }
        let n = (a as u64).min(self.left).min(buf.len() as u64) as usize;
        buf[..n].copy_from_slice(&self.src.avail()[..n]);
        self.hasher.update(&buf[..n]);
        self.src.consume(n);
        self.left -= n as u64;
        Ok(n)
    }
}
