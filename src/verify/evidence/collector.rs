//! Access to a run's files, the same for a run directory and a bundle.
//!
//! Verification needs two kinds of files: small ones read whole (the
//! attestations, the manifests under `manifests/`) and large ones streamed
//! once (client records, journals). A [`Collector`] says which paths it
//! wants and consumes each as a reader; a run directory feeds it from disk
//! and a bundle feeds it from the verified tar stream, so the checks never
//! know which one they got. Every file is hashed while it is read, which is
//! what the pins with a `path` are compared against.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{self, Read};

use crate::digest::{Hasher, Sha256Digest};
use crate::run::deriver::{Comparing, DerivedPoint, IoGuard, RecordDeriver};
use crate::run::journal::{journal_ids_to_read, read_journal_limited, JournalSummary};
use crate::run::qualification::{Pins, Qualification};
use crate::run::records::{
    read_client_records_limited, read_records_ending, records_to_read, ClientSummary,
    MAX_RUN_REQUESTS,
};

/// Largest file read whole (an attestation, the benchmark plan): the
/// envelope limit of the attest layer.
pub const MAX_CAPTURED: u64 = 16 << 20;
/// Most bytes read whole over all files of a run: a run with many
/// engines cannot make verification hold more than this in memory.
pub const MAX_CAPTURED_TOTAL: u64 = 256 << 20;
/// Most undeclared records files named individually (the rest are counted).
pub const MAX_UNDECLARED_NAMED: usize = 100;

/// Which files of a run verification reads, and in what role.
#[derive(Debug, Clone)]
pub struct Plan {
    /// The qualification.
    pub q: Qualification,
    /// Client records path -> point index.
    pub clients: BTreeMap<String, usize>,
    /// Journal path -> names of the points reading it.
    pub journals: BTreeMap<String, Vec<String>>,
    /// Files read whole: attestations, host reports, and the qualified
    /// fleet and weights record the host reports are bound to.
    pub attestations: BTreeSet<String>,
    /// Paths named by pins.
    pub pin_paths: BTreeSet<String>,
    /// The benchmark plan, when the qualification names one.
    pub plan_file: Option<String>,
    /// Digests of pins with a file count: the manifests under `manifests/`
    /// whose lines are counted.
    pub counted_digests: BTreeSet<Sha256Digest>,
    /// Files facts name: read whole when a fact points into them (JSON),
    /// else only hashed.
    pub fact_files: BTreeMap<String, bool>,
    /// Result files the client records of a point are derived from
    /// (path -> point index).
    pub sources: BTreeMap<String, usize>,
    /// Router logs the journal of a point is derived from (path -> point
    /// index).
    pub journal_sources: BTreeMap<String, usize>,
}

impl Plan {
    /// The plan for a parsed qualification, optional pins and the digests
    /// whose manifests a publication counts.
    pub fn new(q: Qualification, pins: Option<&Pins>, counted: &[Sha256Digest]) -> Plan {
        let mut clients = BTreeMap::new();
        let mut journals: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut sources = BTreeMap::new();
        let mut journal_sources = BTreeMap::new();
        for (i, p) in q.points.iter().enumerate() {
            if let Some(js) = &p.journal_source {
                journal_sources.insert(js.file.clone(), i);
            }
            clients.insert(p.client_records.clone(), i);
            if let Some(j) = &p.journal {
                journals.entry(j.clone()).or_default().push(p.name.clone());
            }
            if let Some(src) = &p.source {
                sources.insert(src.file.clone(), i);
            }
        }
        // Attestations and host reports are envelopes, read whole; so are
        // the qualified fleet and the weights record the reports are bound
        // to.
        let attestations = q
            .engines
            .iter()
            .map(|e| e.attestation.clone())
            .chain(q.host_checks.iter().cloned())
            .chain(q.qualified_fleet.iter().cloned())
            .chain(q.weights_record.iter().cloned())
            .collect();
        let pin_paths = pins
            .map(|p| p.pins.iter().filter_map(|p| p.path.clone()).collect())
            .unwrap_or_default();
        let mut counted_digests: BTreeSet<Sha256Digest> = pins
            .map(|p| {
                p.pins
                    .iter()
                    .filter(|p| p.files.is_some() || p.shards.is_some())
                    .filter_map(|p| p.sha256)
                    .collect()
            })
            .unwrap_or_default();
        counted_digests.extend(counted.iter().copied());
        let mut fact_files: BTreeMap<String, bool> = BTreeMap::new();
        for f in &q.facts {
            *fact_files.entry(f.file.clone()).or_default() |= f.pointer.is_some();
        }
        Plan {
            plan_file: q.plan.clone(),
            q,
            clients,
            journals,
            attestations,
            pin_paths,
            counted_digests,
            fact_files,
            sources,
            journal_sources,
        }
    }

    /// Every file of the run the plan reads as evidence (manifests aside).
    pub fn wanted(&self) -> BTreeSet<String> {
        let mut w = BTreeSet::new();
        w.extend(self.clients.keys().cloned());
        w.extend(self.journals.keys().cloned());
        w.extend(self.attestations.iter().cloned());
        w.extend(self.pin_paths.iter().cloned());
        w.extend(self.plan_file.iter().cloned());
        w.extend(self.fact_files.keys().cloned());
        w.extend(self.sources.keys().cloned());
        w.extend(self.journal_sources.keys().cloned());
        w
    }
}

/// A JSON file of the run other than `qualification.json` and the
/// signed envelopes: one the evidence chain of a write-up's rows may name
/// (the plan's workload and fleet, the fleet's profile store), which only
/// the plan's content says. Read whole within the capture limits and
/// hashed; every line is still checked for undeclared records.
pub fn is_chain_candidate(rel: &str) -> bool {
    rel.ends_with(".json")
        && rel != crate::run::qualification::QUALIFICATION_FILE
        && !rel.ends_with(".dsse.json")
}

/// True for the files under `manifests/` (their lines are counted, for pins
/// with `files`).
pub fn is_manifest_file(rel: &str) -> bool {
    rel.starts_with("manifests/")
}

/// The counts of a manifest under `manifests/` (its shards too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ManifestCount {
    /// Its SHA-256.
    pub digest: Sha256Digest,
    /// Its lines: the files it lists.
    pub files: u64,
    /// The lines naming a `.safetensors` file.
    pub shards: u64,
}

/// What the pass over the evidence found.
#[derive(Debug, Default)]
pub struct Collected {
    /// Whole contents of the attestations and the benchmark plan.
    pub small: BTreeMap<String, Vec<u8>>,
    /// Files too large to keep whole, and why.
    pub too_large: BTreeMap<String, String>,
    /// Bytes kept in `small`.
    pub captured_bytes: u64,
    /// Entry counts of the files under `manifests/` whose digest a pin with
    /// `files` or `shards` names (or a row stating a count): path -> counts.
    pub manifest_lines: BTreeMap<String, ManifestCount>,
    /// SHA-256 of every file read.
    pub hashes: BTreeMap<String, Sha256Digest>,
    /// Point index -> its client records.
    pub clients: BTreeMap<usize, ClientSummary>,
    /// Journal path -> what it holds.
    pub journals: BTreeMap<String, JournalSummary>,
    /// Files that no point declares but that hold client records or
    /// journal events, with the first such line (at most
    /// [`MAX_UNDECLARED_NAMED`]).
    pub undeclared: BTreeMap<String, Found>,
    /// How many such files there were in all.
    pub undeclared_files: u64,
    /// Paths read as evidence or sniffed (every regular file offered).
    pub offered: u64,
    /// Point index -> what its source file derives to, or why it
    /// cannot be derived from.
    pub derived: BTreeMap<usize, Result<DerivedPoint, String>>,
    /// Point index -> the summary of the client-records file as read,
    /// for the points whose records are derived from a source (their
    /// `clients` entry is then the summary of the derived records).
    pub records_read: BTreeMap<usize, ClientSummary>,
    /// The summaries of the derived records until [`Collector::finish`].
    derived_clients: BTreeMap<usize, ClientSummary>,
    /// Point index -> the SHA-256 of the journal its router log derives
    /// to, or why it cannot be derived from.
    pub journal_derived: BTreeMap<usize, Result<Sha256Digest, String>>,
    /// Point index -> what its router log states of each successful
    /// request's answer: (request id, `completion_tokens` where stated,
    /// log line).
    pub journal_tokens: BTreeMap<usize, Vec<(String, Option<u64>, u64)>>,
}

pub use crate::run::sniff::records_point;
use crate::run::sniff::{Found, RecordSniffer};

/// Reads the files a [`Plan`] needs as they are offered.
pub struct Collector<'a> {
    plan: &'a Plan,
    /// The result so far.
    pub out: Collected,
    deriver: Option<&'a dyn RecordDeriver>,
    /// The reader hashes every file it offers and says the digest after it
    /// ([`Collector::digested`]), so the collector does not hash again.
    reader_hashes: bool,
    /// The file read last, waiting for its digest, with its entry counts.
    pending: Option<(String, crate::manifest::EntryCounter)>,
    /// Journals come before their points' client records are read: leave
    /// them for [`Collector::reread`] (see
    /// [`Collector::deferring_journals`]).
    defer_journals: bool,
    /// The journals to read again, in the order they came, and why.
    deferred: Vec<(String, Reread)>,
}

/// Why a journal is read again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reread {
    /// It came before the client records of a point it serves; it was
    /// only hashed.
    AfterRecords,
    /// More of its requests disagree with their client records than keep
    /// a full record ([`crate::run::journal::FULL_RECORDS`]): the lines and
    /// times its checks quote are read again.
    Details,
}

impl Reread {
    /// Why, in words.
    pub fn why(self) -> String {
        match self {
            Reread::AfterRecords => {
                "it comes before the client records it is judged against".into()
            }
            Reread::Details => format!(
                "for the lines and times its checks quote: the events of more than {} of a point's requests disagree with their client records",
                crate::run::journal::FULL_RECORDS
            ),
        }
    }
}

/// Hashes what is read through it and, for a file that is not a declared
/// client-records file or journal, looks at every line for records.
struct HashingReader<'r> {
    inner: &'r mut dyn Read,
    /// `None` when the digest comes from the reader underneath.
    hasher: Option<Hasher>,
    sniffer: Option<RecordSniffer>,
}

impl Read for HashingReader<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(h) = &mut self.hasher {
            h.update(&buf[..n]);
        }
        if let Some(s) = &mut self.sniffer {
            s.feed(&buf[..n]);
        }
        Ok(n)
    }
}

impl<'a> Collector<'a> {
    /// A collector for `plan`.
    pub fn new(plan: &'a Plan) -> Self {
        Collector {
            plan,
            out: Collected::default(),
            deriver: None,
            reader_hashes: false,
            pending: None,
            defer_journals: false,
            deferred: Vec::new(),
        }
    }

    /// The collector of a reader that can read the files again (a bundle):
    /// a journal offered before the client records of a
    /// point it serves is not read but left for [`Collector::reread`],
    /// once the records are in, so that its events are judged against them
    /// as they stream instead of kept per request id. It is hashed as
    /// usual.
    pub fn deferring_journals(mut self) -> Self {
        self.defer_journals = true;
        self
    }

    /// The journals to read again ([`Collector::reread`]), in the order
    /// they came, and why; taken, so that a reading can ask for another.
    pub fn take_deferred(&mut self) -> Vec<(String, Reread)> {
        std::mem::take(&mut self.deferred)
    }

    /// Journal `rel` could not be opened again (`what`): it is malformed,
    /// so that its checks fail rather than quote what was not read.
    pub fn not_read_again(&mut self, rel: &str, what: &str) {
        if let Some(s) = self.out.journals.get_mut(rel) {
            s.problems
                .push(format!("{rel}: could not be read again ({what}); verify a run directory that is not being written"));
        }
    }

    /// Reads journal `rel` again, for `why`. Its digest is the first
    /// reading's: other bytes make the journal malformed (a problem of its
    /// own, so that its checks fail), whatever the reader underneath says.
    pub fn reread(&mut self, rel: &str, why: Reread, content: &mut dyn Read) -> io::Result<()> {
        self.pending = None;
        let mut r = HashingReader {
            inner: content,
            hasher: Some(Hasher::new()),
            sniffer: None,
        };
        let plan: &Plan = self.plan;
        if let Some(names) = plan.journals.get(rel) {
            match why {
                Reread::AfterRecords => self.read_journal_entry(rel, names, &mut r)?,
                Reread::Details => {
                    let tol = plan.q.clock_tolerance();
                    let points = journal_points(plan, &self.out.clients, names);
                    if let Some(s) = self.out.journals.get_mut(rel) {
                        s.read_details(&mut r, rel, &points, tol)?;
                    }
                }
            }
        }
        io::copy(&mut r, &mut io::sink())?;
        let digest = r.hasher.take().map(|h| h.finish().0);
        if digest.is_some() && digest.as_ref() != self.out.hashes.get(rel) {
            if let Some(s) = self.out.journals.get_mut(rel) {
                s.problems.push(format!(
                    "{rel}: its bytes changed between its two readings; verify a copy that is not being written"
                ));
            }
        }
        Ok(())
    }

    /// The points `names` that a journal serves whose client records are
    /// read from their own file and have not been read yet.
    fn awaiting_records(&self, names: &[String]) -> bool {
        let q = &self.plan.q;
        names.iter().any(|name| {
            q.points
                .iter()
                .position(|p| &p.name == name)
                .is_some_and(|i| q.points[i].source.is_none() && !self.out.clients.contains_key(&i))
        })
    }

    /// Reads a journal serving the points `names`.
    fn read_journal_entry(
        &mut self,
        rel: &str,
        names: &[String],
        r: &mut dyn Read,
    ) -> io::Result<()> {
        let q = &self.plan.q;
        let points = journal_points(self.plan, &self.out.clients, names);
        let declared = names
            .iter()
            .filter_map(|name| q.points.iter().find(|p| &p.name == name))
            .fold(0u64, |t, p| t.saturating_add(p.declared_requests()));
        let s = read_journal_limited(
            r,
            rel,
            &points,
            q.clock_tolerance(),
            journal_ids_to_read(declared),
        )?;
        if s.needs_details() {
            self.deferred.push((rel.to_string(), Reread::Details));
        }
        self.out.journals.insert(rel.to_string(), s);
        Ok(())
    }

    /// The collector of a reader that hashes every file it offers and
    /// gives the digest to [`Collector::digested`] once the file is read
    /// (a bundle's: each entry is hashed once).
    pub fn hashed_by_reader(mut self) -> Self {
        self.reader_hashes = true;
        self
    }

    /// The SHA-256 of the file `rel` just offered, from the reader.
    pub fn digested(&mut self, rel: &str, digest: Sha256Digest) {
        if let Some((path, count)) = self.pending.take() {
            if path == rel {
                self.record_digest(rel, digest, &count);
            }
        }
    }

    /// The plan it collects for.
    pub fn plan(&self) -> &'a Plan {
        self.plan
    }

    /// The collector with `deriver` re-deriving client records from the
    /// points' source files.
    pub fn with_deriver(mut self, deriver: Option<&'a dyn RecordDeriver>) -> Self {
        self.deriver = deriver;
        self
    }

    /// What the pass found. A point whose records derive from its source
    /// has the derived records' summary as its `clients` entry (the raw
    /// file is the evidence); the records file's own is in `records_read`.
    pub fn finish(mut self) -> Collected {
        // A journal asked to be read again and was not: its checks must not
        // quote what was not read.
        for (rel, _) in self.take_deferred() {
            self.not_read_again(&rel, "it was not read again");
        }
        let derived = std::mem::take(&mut self.out.derived_clients);
        for (i, s) in derived {
            if let Some(read) = self.out.clients.insert(i, s) {
                self.out.records_read.insert(i, read);
            }
        }
        for d in self.out.derived.values_mut().flatten() {
            d.bytes = None;
        }
        self.out
    }

    /// True if verification reads `rel` as evidence (every other file is
    /// only sniffed for undeclared records, see [`Collector::sniff`]).
    pub fn wants(&self, rel: &str) -> bool {
        self.plan.clients.contains_key(rel)
            || self.plan.journals.contains_key(rel)
            || self.plan.attestations.contains(rel)
            || self.plan.pin_paths.contains(rel)
            || self.plan.plan_file.as_deref() == Some(rel)
            || self.plan.fact_files.contains_key(rel)
            || self.plan.sources.contains_key(rel)
            || self.plan.journal_sources.contains_key(rel)
            || is_manifest_file(rel)
            || is_chain_candidate(rel)
    }

    /// Reads every line of a file verification does not otherwise read
    /// and notes it when one holds a client record or a journal event:
    /// records of a point that `qualification.json` does not declare (or a
    /// second file for a declared one) are evidence left out of the table.
    pub fn sniff(&mut self, rel: &str, content: &mut dyn Read) -> io::Result<()> {
        self.out.offered += 1;
        if rel == crate::run::qualification::QUALIFICATION_FILE {
            return Ok(());
        }
        let mut sniffer = RecordSniffer::new();
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            let n = content.read(&mut chunk)?;
            if n == 0 {
                break;
            }
            if !sniffer.done() {
                sniffer.feed(&chunk[..n]);
            }
        }
        self.note_sniffed(rel, sniffer.finish());
        Ok(())
    }

    fn note_sniffed(&mut self, rel: &str, found: Option<Found>) {
        if let Some(f) = found {
            self.out.undeclared_files += 1;
            if self.out.undeclared.len() < MAX_UNDECLARED_NAMED {
                self.out.undeclared.insert(rel.to_string(), f);
            }
        }
    }

    /// Offers one file: read as evidence when [`Collector::wants`] it,
    /// sniffed otherwise.
    pub fn offer(&mut self, rel: &str, content: &mut dyn Read) -> io::Result<()> {
        if self.wants(rel) {
            self.out.offered += 1;
            self.visit(rel, content)
        } else {
            self.sniff(rel, content)
        }
    }

    /// Consumes one file. `Err` only on I/O errors; malformed content is
    /// recorded for the checks.
    pub fn visit(&mut self, rel: &str, content: &mut dyn Read) -> io::Result<()> {
        let declared = self.plan.clients.contains_key(rel) || self.plan.journals.contains_key(rel);
        self.pending = None;
        let mut r = HashingReader {
            inner: content,
            hasher: (!self.reader_hashes).then(Hasher::new),
            // Every other file the run reads (fact and pin files, the plan,
            // manifests) is looked at for records too: a second copy of a
            // point's records named as a fact is still left out of the table.
            sniffer: (!declared).then(RecordSniffer::new),
        };
        if let Some(&i) = self.plan.clients.get(rel) {
            let p = &self.plan.q.points[i];
            let (ttft, tpot) = (self.plan.q.slo.ttft_s, self.plan.q.slo.tpot_s);
            let limit = records_to_read(p.requests, p.warmup);
            let expected = self
                .out
                .derived
                .get_mut(&i)
                .and_then(|d| d.as_mut().ok())
                .and_then(|d| d.bytes.take().map(|b| (d, b)));
            let s = match expected {
                Some((d, bytes)) => {
                    let mut cmp = Comparing::new(&mut r, &bytes);
                    let s = read_client_records_limited(&mut cmp, rel, &p.name, ttft, tpot, limit)?;
                    d.difference = cmp.difference();
                    s
                }
                None => read_client_records_limited(&mut r, rel, &p.name, ttft, tpot, limit)?,
            };
            self.out.clients.insert(i, s);
        } else if let Some(&i) = self.plan.sources.get(rel) {
            self.derive(i, rel, &mut r)?;
        } else if let Some(&i) = self.plan.journal_sources.get(rel) {
            self.derive_journal(i, rel, &mut r)?;
        } else if let Some(names) = self.plan.journals.get(rel) {
            if self.defer_journals && self.awaiting_records(names) {
                // Hashed below; read again once the records are in.
                self.deferred.push((rel.to_string(), Reread::AfterRecords));
            } else {
                self.read_journal_entry(rel, names, &mut r)?;
            }
        } else if self.plan.attestations.contains(rel)
            || self.plan.plan_file.as_deref() == Some(rel)
            || self.plan.fact_files.get(rel) == Some(&true)
            || is_chain_candidate(rel)
        {
            let room = MAX_CAPTURED_TOTAL.saturating_sub(self.out.captured_bytes);
            let cap = MAX_CAPTURED.min(room);
            match crate::capped::read_to_cap(&mut r, cap)? {
                None => {
                    let why = if cap < MAX_CAPTURED {
                        format!(
                        "the files read whole (attestations, plan) exceed {MAX_CAPTURED_TOTAL} bytes in all"
                    )
                    } else {
                        format!("larger than {MAX_CAPTURED} bytes")
                    };
                    self.out.too_large.insert(rel.to_string(), why);
                }
                Some(buf) => {
                    // Its lines went through the reader's sniffer, as every
                    // other file's do.
                    self.out.captured_bytes += buf.len() as u64;
                    self.out.small.insert(rel.to_string(), buf);
                }
            }
        }
        let mut count = crate::manifest::EntryCounter::default();
        let mut chunk = [0u8; 1 << 16];
        loop {
            let n = r.read(&mut chunk)?;
            if n == 0 {
                break;
            }
            if is_manifest_file(rel) {
                count.feed(&chunk[..n]);
            }
        }
        if let Some(sn) = r.sniffer.take() {
            let found = sn.finish();
            self.note_sniffed(rel, found);
        }
        match r.hasher.take() {
            Some(h) => self.record_digest(rel, h.finish().0, &count),
            None => self.pending = Some((rel.to_string(), count)),
        }
        Ok(())
    }

    /// Keeps the digest of file `rel`, and its entry counts when it is a
    /// manifest a pin counts.
    fn record_digest(
        &mut self,
        rel: &str,
        digest: Sha256Digest,
        count: &crate::manifest::EntryCounter,
    ) {
        if is_manifest_file(rel) && self.plan.counted_digests.contains(&digest) {
            // Counted only when a pin asks: a bundle of a million manifest
            // files does not make a million-entry map.
            self.out.manifest_lines.insert(
                rel.to_string(),
                ManifestCount {
                    digest,
                    files: count.files(),
                    shards: count.shards(),
                },
            );
        }
        if !is_manifest_file(rel) || self.plan.counted_digests.contains(&digest) {
            self.out.hashes.insert(rel.to_string(), digest);
        }
    }
}

/// The points `names` a journal serves, each with its client records when
/// they were read already and are the ones its checks use (not derived
/// from a source): their events are judged against them as they
/// stream.
fn journal_points<'p>(
    plan: &'p Plan,
    clients: &'p BTreeMap<usize, ClientSummary>,
    names: &'p [String],
) -> Vec<(&'p str, Option<&'p ClientSummary>)> {
    let q = &plan.q;
    names
        .iter()
        .map(|name| {
            let i = q.points.iter().position(|p| &p.name == name);
            let read = i
                .filter(|&i| q.points[i].source.is_none())
                .and_then(|i| clients.get(&i));
            (name.as_str(), read)
        })
        .collect()
}

impl Collector<'_> {
    /// Derives point `i`'s journal from its router log `rel`: the digest
    /// of what it derives to, compared with the journal's own.
    fn derive_journal(&mut self, i: usize, rel: &str, r: &mut dyn Read) -> io::Result<()> {
        let p = &self.plan.q.points[i];
        let Some(deriver) = self.deriver else {
            let why = format!("this verifier cannot derive a journal from {rel} (it was built without a record deriver)");
            self.out.journal_derived.insert(i, Err(why));
            return Ok(());
        };
        let mut guard = IoGuard::new(r);
        let result = deriver.derive_journal(p, rel, &mut guard);
        if let Some(e) = guard.error.take() {
            return Err(e);
        }
        let d = result.map(|j| {
            self.out.journal_tokens.insert(i, j.completion_tokens);
            Sha256Digest::of_bytes(&j.events)
        });
        self.out.journal_derived.insert(i, d);
        Ok(())
    }

    /// Derives point `i`'s records from its source file `rel`.
    fn derive(&mut self, i: usize, rel: &str, r: &mut dyn Read) -> io::Result<()> {
        let p = &self.plan.q.points[i];
        let Some(src) = &p.source else {
            return Ok(());
        };
        let Some(deriver) = self.deriver else {
            self.out.derived.insert(
                i,
                Err(format!(
                    "this verifier cannot re-derive client records from a result file (it was built without a record deriver), so {} was not checked against {rel}",
                    p.client_records
                )),
            );
            return Ok(());
        };
        let mut guard = IoGuard::new(r);
        let result = deriver.derive(p, src, rel, &mut guard);
        if let Some(e) = guard.error.take() {
            return Err(e);
        }
        let d = match result {
            Ok(d) => d,
            Err(why) => {
                self.out.derived.insert(i, Err(why));
                return Ok(());
            }
        };
        let file = format!("{} (as derived from {rel})", p.client_records);
        let (ttft, tpot) = (self.plan.q.slo.ttft_s, self.plan.q.slo.tpot_s);
        let limit = records_to_read(p.requests, p.warmup);
        let s = read_records_ending(
            &mut d.records.as_slice(),
            &file,
            &p.name,
            (ttft, tpot),
            limit,
            d.window_end,
        )?;
        self.out.derived_clients.insert(i, s);
        self.out.derived.insert(i, Ok(DerivedPoint::of(d)));
        Ok(())
    }
}

/// The requests the run declares over all its points
/// (measured and warmup) are at most [`MAX_RUN_REQUESTS`]; `Err` says how
/// many it declares (exit 2, before any record is read).
pub fn declared_requests_fit(q: &crate::run::qualification::Qualification) -> Result<(), String> {
    let total = q
        .points
        .iter()
        .fold(0u64, |t, p| t.saturating_add(p.declared_requests()));
    if total > MAX_RUN_REQUESTS {
        return Err(format!(
            "qualification.json declares {total} requests over its {} points (warmups included); proofpack verifies at most {MAX_RUN_REQUESTS} per run (a limit that bounds its memory), so nothing was read",
            q.points.len()
        ));
    }
    Ok(())
}
