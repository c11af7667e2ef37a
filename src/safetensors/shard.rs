//! One shard, checked rule by rule: the reference reader's order
//! (`SafeTensors::read_metadata` then `Metadata::validate`), one check per
//! rule so that a report says which rule a shard breaks, and every rule
//! whose input is missing reported "not checkable" instead of failed twice.

use std::io::Read;

use crate::digest::{Hasher, Sha256Digest};
use crate::report::Check;

use super::header::{self, shown, Dtype, Header};
use super::types::MAX_HEADER_BYTES;

/// How many offending tensors a check names before "and N more".
const NAMED: usize = 5;

/// The rules, in the order they run; each is a check `shard.<rule>:<path>`.
pub const RULES: &[&str] = &[
    "read",
    "length_prefix",
    "header_limit",
    "header_bounds",
    "header_utf8",
    "header_json",
    "dtype",
    "duplicate_names",
    "names",
    "offsets",
    "overlap",
    "gap",
    "shape",
    "truncated",
    "trailing",
];

/// The id of rule `rule` for the shard at `path`.
pub fn check_id(rule: &str, path: &str) -> String {
    format!("shard.{rule}:{path}")
}

/// What reading one shard found.
#[derive(Debug, Clone, Default)]
pub struct Inspected {
    /// One check per rule of [`RULES`], then `header_sha256` when expected.
    pub checks: Vec<Check>,
    /// The header length N, when the prefix was read.
    pub header_len: Option<u64>,
    /// SHA-256 of the first 8 + N bytes, when they were read.
    pub header_sha256: Option<Sha256Digest>,
    /// The parsed header, when it parsed.
    pub header: Option<Header>,
    /// Bytes read from the file (prefix and header).
    pub bytes_read: u64,
}

impl Inspected {
    /// True when every check passed.
    pub fn ok(&self) -> bool {
        self.checks.iter().all(Check::passed)
    }
}

/// Builds the checks of one shard, in rule order.
struct Checks<'a> {
    path: &'a str,
    out: Vec<Check>,
}

impl Checks<'_> {
    fn pass(&mut self, rule: &str, detail: impl Into<String>) {
        self.out
            .push(Check::pass(check_id(rule, self.path), detail));
    }
    fn fail(&mut self, rule: &str, detail: impl Into<String>) {
        self.out
            .push(Check::fail(check_id(rule, self.path), detail));
    }
    fn outcome(&mut self, rule: &str, ok: bool, pass: &str, fail: String) {
        if ok {
            self.pass(rule, pass);
        } else {
            self.fail(rule, fail);
        }
    }
    fn push(&mut self, c: Check) {
        self.out.push(c);
    }
    /// Every rule from `from` on is not checkable because of `why`.
    fn rest_not_checkable(&mut self, from: &str, why: &str) {
        let start = RULES.iter().position(|r| *r == from).unwrap_or(RULES.len());
        for rule in &RULES[start..] {
            self.out
                .push(Check::not_checkable(check_id(rule, self.path), why));
        }
    }
}

/// Names up to [`NAMED`] items, then how many more.
fn listed<T: AsRef<str>>(items: &[T]) -> String {
    let mut s = items
        .iter()
        .take(NAMED)
        .map(|x| x.as_ref().to_string())
        .collect::<Vec<_>>()
        .join("; ");
    if items.len() > NAMED {
        s.push_str(&format!("; and {} more", items.len() - NAMED));
    }
    s
}

/// Reads and checks one shard of `size` bytes from `src` (positioned at its
/// first byte). `path` names it in check ids; `expected_header` is the
/// header digest a manifest pinned, if any. Reads at most 8 + N bytes, and
/// allocates for the header only once N is within the limit and the file
/// holds 8 + N bytes.
pub fn inspect(
    path: &str,
    size: u64,
    src: &mut dyn Read,
    expected_header: Option<Sha256Digest>,
) -> Inspected {
    let mut c = Checks {
        path,
        out: Vec::with_capacity(RULES.len() + 1),
    };
    let mut found = Inspected::default();
    found.header = stages(&mut c, &mut found, size, src);
    push_digest_check(&mut c, &found, expected_header);
    found.checks = c.out;
    found
}

/// The rules in order; returns the header when it parsed. Each early return
/// leaves the rules it did not reach "not checkable".
fn stages(
    c: &mut Checks<'_>,
    found: &mut Inspected,
    size: u64,
    src: &mut dyn Read,
) -> Option<Header> {
    c.pass("read", format!("{size} bytes"));
    let mut prefix = [0u8; 8];
    let got = match read_up_to(src, &mut prefix) {
        Ok(got) => got,
        Err(e) => {
            c.fail(
                "length_prefix",
                format!("cannot read the 8-byte header length: {e}"),
            );
            c.rest_not_checkable(
                "header_limit",
                "no header length (shard.length_prefix failed)",
            );
            return None;
        }
    };
    found.bytes_read = got as u64;
    if got < 8 {
        c.fail(
            "length_prefix",
            format!("the file has {got} bytes, fewer than the 8-byte header length (the reference: HeaderTooSmall)"),
        );
        c.rest_not_checkable(
            "header_limit",
            "no header length (shard.length_prefix failed)",
        );
        return None;
    }
    c.pass("length_prefix", "8-byte header length read");
    let n = u64::from_le_bytes(prefix);
    found.header_len = Some(n);
    let within_limit = n <= MAX_HEADER_BYTES;
    c.outcome(
        "header_limit",
        within_limit,
        &format!("header length {n} bytes (limit {MAX_HEADER_BYTES})"),
        format!("header length {n} bytes is above the reference reader's limit of {MAX_HEADER_BYTES} bytes (HeaderTooLarge); the header was not read"),
    );
    let in_file = n.checked_add(8).is_some_and(|end| end <= size);
    c.outcome(
        "header_bounds",
        in_file,
        &format!("8 + {n} header bytes lie in the {size}-byte file"),
        format!("the header length says {n} bytes, but the file has only {} after the 8-byte length (InvalidHeaderLength); the header was not read", size.saturating_sub(8)),
    );
    if !(within_limit && in_file) {
        let failed = if within_limit {
            "header_bounds"
        } else {
            "header_limit"
        };
        c.rest_not_checkable(
            "header_utf8",
            &format!("header not read (shard.{failed} failed)"),
        );
        return None;
    }
    // Checked above: n <= 100,000,000 and the file holds 8 + n bytes.
    let mut bytes = Vec::with_capacity(n as usize);
    let read = src.take(n).read_to_end(&mut bytes);
    found.bytes_read += bytes.len() as u64;
    let short = match read {
        Err(e) => Some(format!("cannot read the {n}-byte header: {e}")),
        Ok(k) if (k as u64) < n => Some(format!(
            "the file ended after {k} of the {n} header bytes (it shrank while it was read?)"
        )),
        Ok(_) => None,
    };
    if let Some(why) = short {
        let last = c.out.pop().expect("header_bounds was pushed");
        c.push(Check::fail(last.id, why));
        c.rest_not_checkable(
            "header_utf8",
            "header not read (shard.header_bounds failed)",
        );
        return None;
    }
    let mut h = Hasher::new();
    h.update(&prefix);
    h.update(&bytes);
    found.header_sha256 = Some(h.finish().0);
    let text = match std::str::from_utf8(&bytes) {
        Ok(t) => t,
        Err(e) => {
            c.fail(
                "header_utf8",
                format!("header is not UTF-8: {e} (InvalidHeader)"),
            );
            c.rest_not_checkable("header_json", "header not UTF-8 (shard.header_utf8 failed)");
            return None;
        }
    };
    c.pass("header_utf8", "header is UTF-8");
    let parsed = match header::parse(text) {
        Ok(p) => p,
        Err(e) => {
            c.fail(
                "header_json",
                format!("header is not a safetensors header: {e} (InvalidHeaderDeserialization)"),
            );
            c.rest_not_checkable("dtype", "header not parsed (shard.header_json failed)");
            return None;
        }
    };
    let meta = match parsed.metadata_entries {
        Some(m) => format!(", {m} __metadata__ entries"),
        None => String::new(),
    };
    c.pass(
        "header_json",
        format!("{} tensors{meta}", parsed.tensors.len()),
    );
    rules_on_header(c, &parsed, n, size);
    Some(parsed)
}

/// The rules that look at a parsed header: dtypes, names, offsets, shapes,
/// and where the data ends.
fn rules_on_header(c: &mut Checks<'_>, h: &Header, n: u64, size: u64) {
    let unknown: Vec<String> = h
        .tensors
        .iter()
        .filter(|t| matches!(t.dtype, Dtype::Unknown(_)))
        .map(|t| format!("tensor {} has dtype {}", shown(&t.name), t.dtype))
        .collect();
    c.outcome(
        "dtype",
        unknown.is_empty(),
        "every dtype is one the reference reader knows",
        format!(
            "unknown dtype: {} (the reference: unknown variant)",
            listed(&unknown)
        ),
    );
    let mut dups: Vec<String> = h
        .duplicate_names()
        .into_iter()
        .map(|n| format!("tensor {} is written more than once", shown(n)))
        .collect();
    dups.extend(h.repeated_keys.iter().map(|k| {
        if k == header::METADATA_KEY {
            "__metadata__ is written more than once".to_string()
        } else {
            format!("__metadata__ key {} is written more than once", shown(k))
        }
    }));
    c.outcome(
        "duplicate_names",
        dups.is_empty(),
        "every tensor name and metadata key once",
        format!("{} (readers disagree on which one counts)", listed(&dups)),
    );
    let mut nul: Vec<String> = h
        .tensors
        .iter()
        .filter(|t| t.name.contains('\0'))
        .map(|t| format!("tensor name {} holds a NUL byte", shown(&t.name)))
        .collect();
    nul.extend(
        h.nul_metadata
            .iter()
            .map(|s| format!("__metadata__ {} holds a NUL byte", shown(s))),
    );
    c.outcome(
        "names",
        nul.is_empty(),
        "no NUL byte in names or metadata",
        format!(
            "{} (the reference: InvalidTensorName/InvalidMetadata)",
            listed(&nul)
        ),
    );
    let reversed: Vec<String> = h
        .tensors
        .iter()
        .filter(|t| t.end < t.begin)
        .map(|t| {
            format!(
                "tensor {} has data_offsets [{}, {}], end before begin",
                shown(&t.name),
                t.begin,
                t.end
            )
        })
        .collect();
    c.outcome(
        "offsets",
        reversed.is_empty(),
        "every tensor's data_offsets are [begin, end] with begin <= end",
        format!("{} (InvalidOffset)", listed(&reversed)),
    );
    if !reversed.is_empty() {
        for rule in ["overlap", "gap"] {
            c.push(Check::not_checkable(
                check_id(rule, c.path),
                "data_offsets not well formed (shard.offsets failed)",
            ));
        }
        shape_rule(c, h);
        for rule in ["truncated", "trailing"] {
            c.push(Check::not_checkable(
                check_id(rule, c.path),
                "where the data ends is not known (shard.offsets failed)",
            ));
        }
        return;
    }
    layout_rules(c, h);
    shape_rule(c, h);
    let data_end = h.tensors.iter().map(|t| t.end).max().unwrap_or(0);
    let expected = 8u128 + u128::from(n) + u128::from(data_end);
    let size128 = u128::from(size);
    let last = h
        .tensors
        .iter()
        .max_by_key(|t| t.end)
        .map(|t| format!(" (tensor {} ends at {})", shown(&t.name), t.end))
        .unwrap_or_default();
    let id = check_id("truncated", c.path);
    c.push(if size128 >= expected {
        Check::pass(id, format!("the file holds the {data_end} data bytes the header describes"))
    } else {
        Check::fail(
            id,
            format!(
                "truncated: the header describes {data_end} data bytes{last}, so the file should have 8 + {n} + {data_end} = {expected} bytes, but it has {size} (MetadataIncompleteBuffer)"
            ),
        )
        .with_values(expected.to_string(), size)
    });
    let id = check_id("trailing", c.path);
    c.push(if size128 <= expected {
        Check::pass(id, "the data ends exactly at the end of the file")
    } else {
        Check::fail(
            id,
            format!(
                "{} bytes after the end of the last tensor{last}: the file should have 8 + {n} + {data_end} = {expected} bytes, but it has {size} (MetadataIncompleteBuffer)",
                size128 - expected
            ),
        )
        .with_values(expected.to_string(), size)
    });
}

/// Overlaps and gaps, walking the tensors sorted by (begin, end) from byte
/// 0, as `Metadata::validate` does after `HashMetadata` is sorted.
fn layout_rules(c: &mut Checks<'_>, h: &Header) {
    let mut order: Vec<usize> = (0..h.tensors.len()).collect();
    order.sort_by_key(|&i| (h.tensors[i].begin, h.tensors[i].end));
    let mut overlaps = Vec::new();
    let mut gaps = Vec::new();
    let mut start = 0u64;
    let mut prev: Option<usize> = None;
    for &i in &order {
        let t = &h.tensors[i];
        let after = match prev {
            Some(p) => format!("tensor {} (ends at {start})", shown(&h.tensors[p].name)),
            None => "the start of the data".to_string(),
        };
        if t.begin > start {
            gaps.push(format!(
                "{} bytes between {after} and tensor {} (begins at {})",
                t.begin - start,
                shown(&t.name),
                t.begin
            ));
        } else if t.begin < start {
            overlaps.push(format!(
                "tensor {} [{}, {}] overlaps {after}",
                shown(&t.name),
                t.begin,
                t.end
            ));
        }
        if t.end >= start {
            start = t.end;
            prev = Some(i);
        }
    }
    c.outcome(
        "overlap",
        overlaps.is_empty(),
        "no two tensors share a byte",
        format!("{} (InvalidOffset)", listed(&overlaps)),
    );
    c.outcome(
        "gap",
        gaps.is_empty(),
        "the tensors cover the data from byte 0 without a gap",
        format!("{} (InvalidOffset)", listed(&gaps)),
    );
}

/// Each tensor's byte range holds exactly its element count times its
/// dtype width: `Metadata::validate`'s checked product, whole bytes, equal.
fn shape_rule(c: &mut Checks<'_>, h: &Header) {
    let mut bad = Vec::new();
    let mut unknown = 0usize;
    for t in &h.tensors {
        if matches!(t.dtype, Dtype::Unknown(_)) {
            unknown += 1;
            continue;
        }
        let range = t.end.saturating_sub(t.begin);
        match t.bits() {
            None => bad.push(format!(
                "tensor {}: its {}-dimensional shape overflows 64 bits (ValidationOverflow)",
                shown(&t.name),
                t.rank
            )),
            Some(bits) if bits % 8 != 0 => bad.push(format!(
                "tensor {}: {} elements of {} are {bits} bits, not a whole number of bytes (MisalignedSlice)",
                shown(&t.name),
                t.elements.unwrap_or(0),
                t.dtype
            )),
            Some(bits) if bits / 8 != range => bad.push(format!(
                "tensor {}: {} elements of {} need {} bytes, its data_offsets [{}, {}] hold {range} (TensorInvalidInfo)",
                shown(&t.name),
                t.elements.unwrap_or(0),
                t.dtype,
                bits / 8,
                t.begin,
                t.end
            )),
            Some(_) => {}
        }
    }
    if bad.is_empty() && unknown > 0 {
        c.push(Check::not_checkable(
            check_id("shape", c.path),
            format!("{unknown} tensors have an unknown dtype (shard.dtype failed)"),
        ));
    } else {
        c.outcome(
            "shape",
            bad.is_empty(),
            "every tensor's shape and dtype match its byte range",
            listed(&bad),
        );
    }
}

/// `shard.header_sha256:<path>` when the manifest pins a header digest.
fn push_digest_check(c: &mut Checks<'_>, found: &Inspected, expected: Option<Sha256Digest>) {
    let Some(want) = expected else { return };
    let id = check_id("header_sha256", c.path);
    c.push(match found.header_sha256 {
        None => Check::not_checkable(id, "the header could not be read"),
        Some(got) if got == want => Check::pass(id, "header digest matches the manifest"),
        Some(got) => Check::fail(
            id,
            "header differs from the one the manifest pins: another shard's header, or a rewritten one",
        )
        .with_values(want.to_hex(), got.to_hex()),
    });
}

/// Reads until `buf` is full or the input ends; returns the bytes read.
fn read_up_to(src: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match src.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(k) => got += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}
