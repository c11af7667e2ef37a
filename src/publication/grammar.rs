//! The closed grammars of the write-up's cells, as data: every form a
//! header cell, a pinned-inputs value or a measured cell may take is a row
//! of one of the tables below, and contract section 9 lists the same rows
//! (a test checks that it does). A cell is consumed completely by one form
//! or refused, naming the words that were not understood.
//!
//! A value is split into parts at `, ` and `; ` (a comma or semicolon
//! followed by white space; "8,192" stays one number). Each part must match
//! one part form of its row kind, each form at most once. A part form is a
//! sequence of tokens separated by spaces: a literal word (any case;
//! `a|b` is either), or a slot: `<int>` (digits, `,` thousands groups),
//! `<num>` (a decimal), `<count>` (digits or one to sixteen in words),
//! `<hex64>`, `<hex40>`, `<time>` (s or ms), `<word>` (one token),
//! `<version>` (one token starting with a digit), `<name>` (the rest of the
//! part, one word or more). A token may join slots and literals
//! (`<int>-token`, `sha256:<hex64>`, `<int>/<int>`).

use super::values::Decimal;

/// Units of the measured-points table: written form, dimension, factor to
/// proofpack's unit (requests/s, tokens/s, s for TTFT, ms for TPOT are
/// applied per metric: see [`time_factor`]).
pub const UNITS: &[(&str, Dim)] = &[
    ("request/s", Dim::Rate),
    ("requests/s", Dim::Rate),
    ("req/s", Dim::Rate),
    ("tokens/s", Dim::Tokens),
    ("token/s", Dim::Tokens),
    ("tok/s", Dim::Tokens),
    ("s", Dim::Seconds),
    ("ms", Dim::Millis),
];

/// What a unit measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dim {
    /// Requests per second.
    Rate,
    /// Tokens per second.
    Tokens,
    /// Seconds.
    Seconds,
    /// Milliseconds.
    Millis,
}

/// The dimension of a unit as written, if it is one.
pub fn unit(s: &str) -> Option<Dim> {
    UNITS
        .iter()
        .find(|(u, _)| u.eq_ignore_ascii_case(s.trim()))
        .map(|(_, d)| *d)
}

/// A time unit's factor to seconds (`s` 1, `ms` 0.001).
pub fn time_factor(d: Dim) -> Option<f64> {
    match d {
        Dim::Seconds => Some(1.0),
        Dim::Millis => Some(0.001),
        _ => None,
    }
}

/// The percentiles a TTFT or TPOT header may list, in hundredths.
pub const PERCENTILES: &[(&str, u16)] = &[
    ("p50", 5000),
    ("p90", 9000),
    ("p95", 9500),
    ("p99", 9900),
    ("p99.9", 9990),
    ("p99.99", 9999),
];

/// What a measured-points column is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    /// The point's name, as the run names it: the row's key where two
    /// points have one offered rate.
    Point,
    /// The offered rate (the row's key when there is no point column).
    Offered,
    /// The measured send rate.
    SentRate,
    /// Completed requests per second, including drain.
    CompletedRate,
    /// Output tokens per second, including drain.
    OutputThroughput,
    /// TTFT percentiles.
    Ttft,
    /// TPOT percentiles.
    Tpot,
    /// "n/m within limits[, k failed, ...]".
    Result,
}

/// A qualifier a header may carry after its words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Qualifier {
    /// "including drain": what proofpack computes anyway.
    IncludingDrain,
    /// "per GPU": divided by the attested GPUs of the fleet.
    PerGpu,
    /// "per engine": divided by the engines of the run.
    PerEngine,
}

/// Qualifiers as written.
pub const QUALIFIERS: &[(&str, Qualifier)] = &[
    ("including drain", Qualifier::IncludingDrain),
    ("per GPU", Qualifier::PerGpu),
    ("per engine", Qualifier::PerEngine),
];

/// One form of a measured-points header cell.
#[derive(Debug, Clone, Copy)]
pub struct ColumnForm {
    /// The words it starts with (any case).
    pub words: &'static str,
    /// What the column is.
    pub kind: ColumnKind,
    /// Whether a percentile list follows the words.
    pub percentiles: bool,
    /// The qualifiers it may carry.
    pub qualifiers: &'static [Qualifier],
    /// The dimensions of its unit (in the cell or in the header's
    /// parentheses).
    pub dims: &'static [Dim],
}

/// Every measured-points header form. A header is `<words>`, then a
/// percentile list (`p50 / p95 / p99`, in any order, `/`-separated) where
/// the form has one, then at most one qualifier, then optionally
/// `(<unit>)`; nothing else.
pub const COLUMN_FORMS: &[ColumnForm] = &[
    ColumnForm {
        words: "Point",
        kind: ColumnKind::Point,
        percentiles: false,
        qualifiers: &[],
        dims: &[],
    },
    ColumnForm {
        words: "Offered rate",
        kind: ColumnKind::Offered,
        percentiles: false,
        qualifiers: &[],
        dims: &[Dim::Rate],
    },
    ColumnForm {
        words: "Sent rate",
        kind: ColumnKind::SentRate,
        percentiles: false,
        qualifiers: &[],
        dims: &[Dim::Rate],
    },
    ColumnForm {
        words: "Completed rate",
        kind: ColumnKind::CompletedRate,
        percentiles: false,
        qualifiers: &[
            Qualifier::IncludingDrain,
            Qualifier::PerGpu,
            Qualifier::PerEngine,
        ],
        dims: &[Dim::Rate],
    },
    ColumnForm {
        words: "Output throughput",
        kind: ColumnKind::OutputThroughput,
        percentiles: false,
        qualifiers: &[
            Qualifier::IncludingDrain,
            Qualifier::PerGpu,
            Qualifier::PerEngine,
        ],
        dims: &[Dim::Tokens],
    },
    ColumnForm {
        words: "TTFT",
        kind: ColumnKind::Ttft,
        percentiles: true,
        qualifiers: &[],
        dims: &[Dim::Seconds, Dim::Millis],
    },
    ColumnForm {
        words: "TPOT",
        kind: ColumnKind::Tpot,
        percentiles: true,
        qualifiers: &[],
        dims: &[Dim::Seconds, Dim::Millis],
    },
    ColumnForm {
        words: "Result",
        kind: ColumnKind::Result,
        percentiles: false,
        qualifiers: &[],
        dims: &[],
    },
];

/// The first words of a header cell that make its table a measured-points
/// table even when the cell itself does not parse (it is then refused).
pub const MEASURED_MARKERS: &[&str] = &["offered", "ttft", "tpot", "itl", "e2el"];

/// A header cell, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Header {
    /// What the column is.
    pub kind: ColumnKind,
    /// Its percentiles in the order written (hundredths), if any.
    pub percentiles: Vec<u16>,
    /// Its qualifier, if any.
    pub qualifier: Option<Qualifier>,
    /// The unit in its parentheses, if any.
    pub unit: Option<(String, Dim)>,
}

fn norm(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn strip_words<'a>(s: &'a str, words: &str) -> Option<&'a str> {
    let head = s.get(..words.len())?;
    let rest = &s[words.len()..];
    (head.eq_ignore_ascii_case(words) && (rest.is_empty() || rest.starts_with(' ')))
        .then(|| rest.trim_start())
}

/// Reads a measured-points header cell; `Err` names what was not
/// understood.
pub fn header(cell: &str) -> Result<Header, String> {
    let h = norm(cell);
    let (body, unit) = match h
        .strip_suffix(')')
        .and_then(|b| b.rfind('(').map(|i| (b, i)))
    {
        Some((b, i)) => {
            let inner = b[i + 1..].trim();
            let d = self::unit(inner).ok_or_else(|| {
                format!("\"({inner})\" is not a unit (request/s, tokens/s, s, ms); a header carries no other parenthesis")
            })?;
            (b[..i].trim_end().to_string(), Some((inner.to_string(), d)))
        }
        None => (h.clone(), None),
    };
    let form = COLUMN_FORMS
        .iter()
        .find_map(|f| strip_words(&body, f.words).map(|rest| (f, rest)));
    let Some((form, mut rest)) = form else {
        return Err(format!(
            "{body:?} is not a measured-points column ({})",
            COLUMN_FORMS
                .iter()
                .map(|f| f.words)
                .collect::<Vec<_>>()
                .join(", ")
        ));
    };
    let mut percentiles = Vec::new();
    if form.percentiles {
        let end = rest
            .split(' ')
            .take_while(|t| *t == "/" || t.starts_with(['p', 'P']) || t.starts_with('/'))
            .map(|t| t.len() + 1)
            .sum::<usize>()
            .min(rest.len());
        let list: String = rest[..end].chars().filter(|c| !c.is_whitespace()).collect();
        for p in list.split('/') {
            let found = PERCENTILES
                .iter()
                .find(|(w, _)| w.eq_ignore_ascii_case(p))
                .ok_or_else(|| {
                    format!(
                        "{p:?} is not a percentile proofpack computes ({})",
                        PERCENTILES
                            .iter()
                            .map(|p| p.0)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                })?;
            if percentiles.contains(&found.1) {
                return Err(format!("{p} is listed twice"));
            }
            percentiles.push(found.1);
        }
        rest = rest[end..].trim_start();
    }
    let qualifier = if rest.is_empty() {
        None
    } else {
        let q = QUALIFIERS
            .iter()
            .find(|(w, _)| w.eq_ignore_ascii_case(rest))
            .map(|(_, q)| *q)
            .filter(|q| form.qualifiers.contains(q));
        match q {
            Some(q) => Some(q),
            None => {
                return Err(format!(
                    "{rest:?} after \"{}\" is not understood{}",
                    form.words,
                    if form.qualifiers.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " (its qualifiers: {})",
                            QUALIFIERS
                                .iter()
                                .filter(|(_, q)| form.qualifiers.contains(q))
                                .map(|(w, _)| *w)
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    }
                ))
            }
        }
    };
    if let Some((u, d)) = &unit {
        if !form.dims.contains(d) {
            return Err(format!("the unit ({u}) does not fit \"{}\"", form.words));
        }
    }
    Ok(Header {
        kind: form.kind,
        percentiles,
        qualifier,
        unit,
    })
}

// ------------------------------------------------------------ part forms

/// A slot's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Slot {
    /// A number as written.
    Num(Decimal),
    /// A count and the word it was written as.
    Count(u64, String),
    /// A digest or commit, lower case.
    Hex(String),
    /// A time: the decimal and its factor to seconds.
    Time(f64),
    /// Text (`<word>`, `<version>`, `<name>`, or the alternative of a
    /// literal `a|b` that matched).
    Text(String),
}

/// A part that matched: which form (its index in the table) and its slots
/// in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// Index of the form.
    pub form: usize,
    /// The slot values.
    pub slots: Vec<Slot>,
}

/// Splits a value into its parts at `, ` and `; `.
pub fn parts(value: &str) -> Vec<String> {
    let norm = norm(value);
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut it = norm.chars().peekable();
    while let Some(c) = it.next() {
        if (c == ',' || c == ';') && it.peek() == Some(&' ') {
            out.push(std::mem::take(&mut cur));
            it.next();
            continue;
        }
        cur.push(c);
    }
    out.push(cur);
    out.into_iter().map(|p| p.trim().to_string()).collect()
}

/// Count words, by value ("zero" is 0).
pub const WORDS: [&str; 17] = [
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen",
];

/// "8K", "1.5M": an abbreviated number, refused with its spelled-out hint.
pub fn abbreviated(tok: &str) -> Option<String> {
    let (at, _) = tok.char_indices().last()?;
    let (num, suffix) = tok.split_at(at);
    let mult = match suffix {
        "k" | "K" => 1024.0,
        "M" | "m" => 1_048_576.0,
        "B" | "G" => 1e9,
        _ => return None,
    };
    let d = Decimal::parse(num)?;
    let n = (d.value * mult) as u64;
    Some(format!(
        "{tok:?} is an abbreviation; write the number in full (e.g. {})",
        group(n)
    ))
}

fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn slot(kind: &str, s: &str) -> Option<Slot> {
    let hex = |n: usize| {
        (s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit()))
            .then(|| Slot::Hex(s.to_ascii_lowercase()))
    };
    match kind {
        "int" => Decimal::parse(s)
            .filter(|d| d.as_u64().is_some())
            .map(Slot::Num),
        "num" => Decimal::parse(s).map(Slot::Num),
        "count" => {
            if let Some(i) = WORDS.iter().position(|w| w.eq_ignore_ascii_case(s)) {
                return Some(Slot::Count(i as u64, s.to_string()));
            }
            Decimal::parse(s)
                .and_then(|d| d.as_u64())
                .map(|n| Slot::Count(n, s.to_string()))
        }
        "hex64" => hex(64),
        "hex40" => hex(40),
        "time" => unit(s).and_then(time_factor).map(Slot::Time),
        "word" => (!s.is_empty()).then(|| Slot::Text(s.to_string())),
        "version" => s
            .starts_with(|c: char| c.is_ascii_digit())
            .then(|| Slot::Text(s.to_string())),
        _ => None,
    }
}

/// Matches one token against one pattern token (slots joined by literals).
fn token(pat: &str, tok: &str, out: &mut Vec<Slot>) -> bool {
    // Split the pattern into literal and slot segments.
    let mut segs: Vec<(bool, &str)> = Vec::new();
    let mut rest = pat;
    while !rest.is_empty() {
        if let Some(r) = rest.strip_prefix('<') {
            let end = r.find('>').unwrap_or(r.len());
            segs.push((true, &r[..end]));
            rest = r.get(end + 1..).unwrap_or("");
        } else {
            let end = rest.find('<').unwrap_or(rest.len());
            segs.push((false, &rest[..end]));
            rest = &rest[end..];
        }
    }
    if segs.len() == 1 && !segs[0].0 {
        let alts: Vec<&str> = segs[0].1.split('|').collect();
        return match alts.iter().find(|a| a.eq_ignore_ascii_case(tok)) {
            Some(_) if alts.len() > 1 => {
                out.push(Slot::Text(tok.to_ascii_lowercase()));
                true
            }
            Some(_) => true,
            None => false,
        };
    }
    let mut t = tok;
    let mut got = Vec::new();
    for (i, (is_slot, s)) in segs.iter().enumerate() {
        if !is_slot {
            match t.get(..s.len()) {
                Some(h) if h.eq_ignore_ascii_case(s) => t = &t[s.len()..],
                _ => return false,
            }
            continue;
        }
        let value = match segs.get(i + 1) {
            Some((false, lit)) => match t.find(lit) {
                Some(at) if at > 0 => {
                    let v = &t[..at];
                    t = &t[at..];
                    v
                }
                _ => return false,
            },
            _ => std::mem::take(&mut t),
        };
        match slot(s, value) {
            Some(v) => got.push(v),
            None => return false,
        }
    }
    if !t.is_empty() {
        return false;
    }
    out.extend(got);
    true
}

/// Matches a whole statement (its final `.` dropped) against a form; the
/// slots, or `None`.
pub fn statement_matches(form: &str, text: &str) -> Option<Vec<Slot>> {
    let t = norm(text);
    part_matches(form, t.strip_suffix('.').unwrap_or(&t))
}

/// Matches a part against a form: its tokens one by one, `<name>` taking
/// the rest.
fn part_matches(form: &str, part: &str) -> Option<Vec<Slot>> {
    let pat: Vec<&str> = form.split(' ').collect();
    let toks: Vec<&str> = part.split(' ').filter(|t| !t.is_empty()).collect();
    let mut slots = Vec::new();
    for (i, p) in pat.iter().enumerate() {
        if *p == "<name>" {
            if i + 1 != pat.len() || toks.len() <= i {
                return None;
            }
            slots.push(Slot::Text(toks[i..].join(" ")));
            return Some(slots);
        }
        let t = toks.get(i)?;
        if !token(p, t, &mut slots) {
            return None;
        }
    }
    (toks.len() == pat.len()).then_some(slots)
}

/// Reads a value as parts of `forms` (each form at most once); `first`
/// forms must match the first part (and only it). `Err` names the part not
/// understood and the forms it could have been.
pub fn read_parts(
    value: &str,
    first: &[&str],
    rest: &[&str],
) -> Result<(Option<Vec<Slot>>, Vec<Part>), String> {
    let mut out = Vec::new();
    let mut lead = None;
    for (i, p) in parts(value).iter().enumerate() {
        if p.is_empty() {
            return Err("an empty part (two separators in a row, or one at the end)".into());
        }
        if i == 0 && !first.is_empty() {
            match first.iter().find_map(|f| part_matches(f, p)) {
                Some(s) => {
                    lead = Some(s);
                    continue;
                }
                None => return Err(not_understood(p, first)),
            }
        }
        let found = rest
            .iter()
            .enumerate()
            .find_map(|(k, f)| part_matches(f, p).map(|s| (k, s)));
        match found {
            Some((k, _)) if out.iter().any(|x: &Part| x.form == k) => {
                return Err(format!("{p:?} states a value already stated in this cell"))
            }
            Some((k, slots)) => out.push(Part { form: k, slots }),
            None => return Err(not_understood(p, rest)),
        }
    }
    Ok((lead, out))
}

fn not_understood(part: &str, forms: &[&str]) -> String {
    if let Some(hint) = part.split(' ').find_map(abbreviated) {
        return hint;
    }
    format!(
        "{part:?} is not understood (the forms read here: {})",
        forms
            .iter()
            .map(|f| format!("\"{f}\""))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

// --------------------------------------------- pinned-inputs value forms

/// The part forms of a "Workload" value.
pub const WORKLOAD_FORMS: &[&str] = &[
    "<int> input tokens",
    "<int> output tokens",
    "seed <int>",
    "temperature <num>",
    "prefix caching enabled|disabled",
    "<int> distinct IDs in a <int>-token pool",
];

/// The part forms of a "... latency budgets" value.
pub const BUDGET_FORMS: &[&str] = &[
    "<num> <time> TTFT",
    "TTFT <num> <time>",
    "<num> <time> TPOT",
    "TPOT <num> <time>",
    "first-token deadline <num> <time>",
];

/// The first part of an "Engine" value.
pub const ENGINE_FIRST: &[&str] = &["<word> <version>"];
/// The further parts of an "Engine" value.
pub const ENGINE_FORMS: &[&str] = &["image sha256:<hex64>"];

/// The first part of an "Accelerator per engine" value.
pub const ACCELERATOR_FIRST: &[&str] = &["<name>"];
/// The further parts of an "Accelerator per engine" value.
pub const ACCELERATOR_FORMS: &[&str] = &["<count> GPUs", "tensor parallelism <int>", "<count> GPU"];

/// The parts of a "Checkpoint weights" value.
pub const WEIGHTS_FORMS: &[&str] = &[
    "<int> safetensors shards",
    "SHA-256 of the sorted path:sha256 manifest is <hex64>",
    // Every file the manifest lists (shards, config, tokenizer, ...).
    "<int> files",
];

/// A digest row's value.
pub const DIGEST_FORMS: &[&str] = &["<hex64>", "sha256:<hex64>"];
/// A source row's value.
pub const COMMIT_FORMS: &[&str] = &["<hex40>"];
/// A "Model" value.
pub const MODEL_FORMS: &[&str] = &["<word>"];

/// The "Result" cell: its first part, then its further parts.
pub const RESULT_FIRST: &[&str] = &["<int>/<int> within limits"];
/// The further parts of a "Result" cell.
pub const RESULT_FORMS: &[&str] = &["<int> failed", "<int> timed out", "<int> cancelled"];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_read_in_the_order_written_or_refused() {
        let h = header("TTFT p99 / p95 / p50 (s)").unwrap();
        assert_eq!(h.percentiles, [9900, 9500, 5000]);
        assert_eq!(header("TTFT p99.9").unwrap().percentiles, [9990]);
        assert_eq!(
            header("Output throughput per GPU").unwrap().qualifier,
            Some(Qualifier::PerGpu)
        );
        for (bad, why) in [
            (
                "TTFT p50 / p95 / p99 (cold start, first request of each session)",
                "not a unit",
            ),
            ("TTFT p50 (cold start)", "not a unit"),
            ("TTFT p50 cold start", "after \"TTFT\""),
            ("TTFT p98", "not a percentile"),
            ("TPOT per GPU", "not a percentile"),
            ("Latency", "not a measured-points column"),
            ("TTFT p50 (tokens/s)", "does not fit"),
        ] {
            let e = header(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn parts_bind_each_number_to_its_words() {
        let (_, p) = read_parts("TTFT 0.3 s, 50 ms TPOT", &[], BUDGET_FORMS).unwrap();
        assert_eq!(p[0].form, 1);
        assert_eq!(p[1].form, 2);
        for bad in [
            "TTFT \u{2264} 0.3 s, TPOT \u{2264} 50 ms",
            "10 s TTFT 0.3 s",
            "10 s TTFT, 12 s TTFT",
        ] {
            assert!(read_parts(bad, &[], BUDGET_FORMS).is_err(), "{bad}");
        }
        let e = read_parts("8K input tokens", &[], WORKLOAD_FORMS).unwrap_err();
        assert!(e.contains("write the number in full (e.g. 8,192)"), "{e}");
        let (_, w) = read_parts(
            "8,192 input tokens, 128 output tokens, seed 1729, temperature 0, prefix caching disabled; 20 distinct IDs in a 28-token pool",
            &[],
            WORKLOAD_FORMS,
        )
        .unwrap();
        assert_eq!(w.len(), 6);
        let (lead, rest) = read_parts(
            "197/200 within limits, 1 timed out, 2 failed",
            RESULT_FIRST,
            RESULT_FORMS,
        )
        .unwrap();
        assert_eq!(lead.unwrap().len(), 2);
        assert_eq!((rest[0].form, rest[1].form), (1, 0));
        assert!(read_parts("0 errors, 0 timeouts", RESULT_FIRST, RESULT_FORMS).is_err());
        assert!(read_parts(
            "AMD Instinct MI355X, eight GPUs per node x 2 nodes",
            ACCELERATOR_FIRST,
            ACCELERATOR_FORMS
        )
        .is_err());
        assert!(read_parts(
            "vLLM 0.11.2+rocm7.0 with EAGLE-3 speculative decoding",
            ENGINE_FIRST,
            ENGINE_FORMS
        )
        .is_err());
    }
}
