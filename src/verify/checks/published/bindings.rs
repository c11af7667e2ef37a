//! Statements the publisher binds to evidence (contract section 9.6):
//! `qualification.json` `statements`, each the text of a sentence or
//! clause of the write-up and one check of a closed set over a file of the
//! run. The text must occur exactly once in the rendered write-up, inside
//! one statement, or the verification cannot run (exit 2). The binding is
//! the publisher's choice (the check says `"source": "publisher"` and names
//! the file and pointer; the verdict counts it apart and `--require-all`
//! fails it); its result is computed from the sealed file.

use std::collections::HashMap;

use aho_corasick::AhoCorasick;
use serde_json::{json, Value};

use crate::publication::document::{squash, Block};
use crate::publication::{Decimal, Publication, Statement};
use crate::report::{Check, Reason};
use crate::run::qualification::{BindingCheck, Qualification, StatementBinding};
use crate::verify::checks::published::context::Context;
use crate::verify::checks::published::prose_facts::json_diff;
use crate::verify::checks::published::prose_found::json_file;

/// The bindings' texts (white space runs as one space), each once, as one
/// automaton: every occurrence of every text in one pass over a text, so
/// that tens of thousands of bindings cost one read of the write-up, not
/// one each.
pub struct Texts {
    /// The distinct texts' automaton (`None` without bindings).
    ac: Option<AhoCorasick>,
    /// For each distinct text, the bindings that have it.
    bindings: Vec<Vec<usize>>,
    /// The distinct texts.
    texts: Vec<String>,
}

impl Texts {
    /// The automaton of `q`'s bindings.
    pub fn new(q: &Qualification) -> Result<Texts, String> {
        let mut at: HashMap<String, usize> = HashMap::new();
        let mut texts = Vec::new();
        let mut bindings: Vec<Vec<usize>> = Vec::new();
        for (i, b) in q.statements.iter().enumerate() {
            let t = squash(&b.text);
            let k = *at.entry(t.clone()).or_insert_with(|| {
                texts.push(t);
                bindings.push(Vec::new());
                texts.len() - 1
            });
            bindings[k].push(i);
        }
        let ac = if texts.is_empty() {
            None
        } else {
            Some(AhoCorasick::new(&texts).map_err(|e| {
                format!("qualification.json statements: the bindings' texts cannot be searched for: {e}")
            })?)
        };
        Ok(Texts {
            ac,
            bindings,
            texts,
        })
    }

    /// Counts each distinct text's occurrences in `hay` (overlapping ones
    /// too) into `counts`; stops, returning the text's index, as soon as
    /// one occurs a second time (so the matches looked at are at most one
    /// more than the texts).
    fn count(&self, hay: &str, counts: &mut [usize]) -> Option<usize> {
        let ac = self.ac.as_ref()?;
        for m in ac.find_overlapping_iter(hay) {
            let k = m.pattern().as_usize();
            counts[k] += 1;
            if counts[k] > 1 {
                return Some(k);
            }
        }
        None
    }

    /// The bindings whose text lies in `text` (a statement's).
    pub fn within(&self, text: &str) -> Vec<usize> {
        let Some(ac) = &self.ac else {
            return Vec::new();
        };
        let mut out: Vec<usize> = ac
            .find_overlapping_iter(&squash(text))
            .flat_map(|m| self.bindings[m.pattern().as_usize()].iter().copied())
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Every binding's text occurs exactly once in the rendered write-up (its
/// prose and its table cells, white space runs as one space) and lies
/// inside one of its statements. `Err` says which binding and why (exit 2).
pub fn locate(q: &Qualification, p: &Publication) -> Result<(), String> {
    let texts = Texts::new(q)?;
    if texts.texts.is_empty() {
        return Ok(());
    }
    let named = |k: usize| {
        let i = texts.bindings[k][0];
        format!("qualification.json statements[{i}] ({:?})", texts.texts[k])
    };
    let mut counts = vec![0usize; texts.texts.len()];
    let mut twice = None;
    for blk in &p.document.blocks {
        match blk {
            Block::Prose(pr) => {
                twice = twice.or_else(|| texts.count(&squash(&pr.text), &mut counts))
            }
            Block::Table(t) => {
                for c in t
                    .header
                    .iter()
                    .chain(t.rows.iter().flat_map(|r| r.cells.iter()))
                {
                    twice = twice.or_else(|| texts.count(&c.text, &mut counts));
                }
            }
        }
        if let Some(k) = twice {
            return Err(format!(
                "{}: the text occurs more than once in the write-up {}; a binding names one sentence or clause",
                named(k),
                p.origin
            ));
        }
    }
    if let Some(k) = counts.iter().position(|n| *n == 0) {
        return Err(format!(
            "{}: the text is not in the write-up {}",
            named(k),
            p.origin
        ));
    }
    let mut inside = vec![false; texts.texts.len()];
    for s in &p.statements {
        if let Some(ac) = &texts.ac {
            for m in ac.find_overlapping_iter(&squash(&s.text)) {
                inside[m.pattern().as_usize()] = true;
            }
        }
    }
    if let Some(k) = inside.iter().position(|x| !x) {
        return Err(format!(
            "{}: the text is not inside one statement of the write-up {} (a sentence or clause of its prose)",
            named(k),
            p.origin
        ));
    }
    Ok(())
}

/// The bindings (index, binding) whose text lies in statement `s`.
pub fn bound<'q>(
    s: &Statement,
    q: &'q Qualification,
    texts: &Texts,
) -> Vec<(usize, &'q StatementBinding)> {
    texts
        .within(&s.text)
        .into_iter()
        .filter_map(|i| q.statements.get(i).map(|b| (i, b)))
        .collect()
}

/// A binding in one line: `statements[<i>]: <check> <file><pointer>` and
/// the arguments it compares.
fn describe(i: usize, b: &StatementBinding) -> String {
    let mut out = format!(
        "statements[{i}]: {} {}{}",
        b.check.as_str(),
        b.file.as_deref().unwrap_or(""),
        b.pointer.as_deref().unwrap_or("")
    );
    if let Some(v) = &b.value {
        out.push_str(&format!(" value {v}"));
    }
    if let (Some(lo), Some(hi)) = (&b.min, &b.max) {
        out.push_str(&format!(" from {lo} to {hi}"));
    }
    if let Some(a) = &b.against {
        out.push_str(&format!(" against {a}"));
    }
    if let Some(p) = &b.paths {
        out.push_str(&format!(" paths {}", p.join(", ")));
    }
    out
}

fn numbers(v: Option<&Value>) -> Option<Vec<f64>> {
    v?.as_array()?.iter().map(Value::as_f64).collect()
}

fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::String(x), Value::String(y)) => x.trim().eq_ignore_ascii_case(y.trim()),
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => false,
    }
}

/// The words of `text`, punctuation around them dropped.
fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '.' && c != '_' && c != '-')
                .trim_end_matches('.')
                .to_string()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// The value a binding compares with its file is one the sentence states:
/// a number as a word of the text (or a count word), a string or a key
/// path within it. Otherwise the publisher would bind a sentence to a
/// value it does not say.
fn stated_in_text(b: &StatementBinding, text: &str) -> Result<(), String> {
    let ws = words(text);
    let has_number = |want: &Decimal| {
        ws.iter()
            .filter_map(|w| Decimal::parse(w))
            .any(|d| d.value == want.value && d.decimals == want.decimals)
    };
    let has_count = |n: u64| {
        ws.iter().any(|w| {
            Decimal::parse(w).and_then(|d| d.as_u64()) == Some(n)
                || crate::publication::grammar::WORDS
                    .iter()
                    .position(|c| c.eq_ignore_ascii_case(w))
                    == Some(n as usize)
        })
    };
    let lower = text.to_lowercase();
    let missing = |what: String| {
        Err(format!(
            "the sentence does not state {what}, which the binding compares"
        ))
    };
    let as_decimal = |v: &Value| match v {
        Value::String(s) => Decimal::parse(s),
        Value::Number(n) => Decimal::parse(&n.to_string()),
        _ => None,
    };
    match b.check {
        BindingCheck::Equals | BindingCheck::Median => {
            let v = b.value.clone().unwrap_or(Value::Null);
            match (&v, as_decimal(&v)) {
                (_, Some(d)) if has_number(&d) => Ok(()),
                (Value::String(s), None) if lower.contains(&s.trim().to_lowercase()) => Ok(()),
                _ => missing(format!("the value {v}")),
            }
        }
        BindingCheck::Range => {
            for v in [&b.min, &b.max].into_iter().flatten() {
                if !Decimal::parse(v).is_some_and(|d| has_number(&d)) {
                    return missing(v.to_string());
                }
            }
            Ok(())
        }
        BindingCheck::Count => match b.value.as_ref().and_then(Value::as_u64) {
            Some(n) if has_count(n) => Ok(()),
            _ => missing(format!(
                "the count {}",
                b.value.clone().unwrap_or(Value::Null)
            )),
        },
        BindingCheck::JsonDiffOnly => {
            for p in b.paths.iter().flatten() {
                if !lower.contains(&p.to_lowercase()) {
                    return missing(format!("the key path {p}"));
                }
            }
            Ok(())
        }
        BindingCheck::AllPassed | BindingCheck::Present => Ok(()),
    }
}

/// One binding's check: holds, or why not; and what the file gives.
fn evaluate(b: &StatementBinding, ctx: &Context<'_>) -> (Result<(), String>, Value) {
    let file = b.file.as_deref().unwrap_or("");
    if b.check == BindingCheck::Present {
        let there = ctx.collected.hashes.contains_key(file);
        return (
            if there {
                Ok(())
            } else {
                Err(format!("{file} is not a file of the run"))
            },
            json!(there),
        );
    }
    let doc = match json_file(ctx, file) {
        Ok(v) => v,
        Err(e) => return (Err(e), Value::Null),
    };
    let pointer = b.pointer.as_deref().unwrap_or("");
    let at = doc.pointer(pointer);
    let dec = |s: Option<&str>| s.and_then(Decimal::parse);
    match b.check {
        BindingCheck::Equals => {
            let want = b.value.clone().unwrap_or(Value::Null);
            let ok = at.is_some_and(|v| same(v, &want));
            (
                if ok {
                    Ok(())
                } else {
                    Err(format!(
                        "{file}{pointer} is {}",
                        at.map_or("absent".into(), Value::to_string)
                    ))
                },
                at.cloned().unwrap_or(Value::Null),
            )
        }
        BindingCheck::Range => match (numbers(at), dec(b.min.as_deref()), dec(b.max.as_deref())) {
            (Some(v), Some(lo), Some(hi)) if !v.is_empty() => {
                let a = v.iter().copied().fold(f64::INFINITY, f64::min);
                let z = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                (
                    if lo.holds(a) && hi.holds(z) {
                        Ok(())
                    } else {
                        Err(format!("{file}{pointer} ranges from {a} to {z}"))
                    },
                    json!({"min": a, "max": z}),
                )
            }
            _ => (
                Err(format!(
                    "{file}{pointer} is not a non-empty array of numbers"
                )),
                Value::Null,
            ),
        },
        BindingCheck::Median => match (
            numbers(at).and_then(|v| crate::numpy::percentile(&v, 50.0)),
            dec(b.value.as_ref().and_then(Value::as_str)),
        ) {
            (Some(m), Some(want)) => (
                if want.holds(m) {
                    Ok(())
                } else {
                    Err(format!("the median of {file}{pointer} is {m}"))
                },
                json!(m),
            ),
            _ => (
                Err(format!(
                    "{file}{pointer} is not a non-empty array of numbers"
                )),
                Value::Null,
            ),
        },
        BindingCheck::AllPassed => match at.and_then(Value::as_array) {
            Some(a) if !a.is_empty() => {
                let failed: Vec<String> = a
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c["ok"] != true)
                    .map(|(i, c)| c["name"].as_str().map_or(format!("#{i}"), str::to_string))
                    .collect();
                (
                    if failed.is_empty() {
                        Ok(())
                    } else {
                        Err(format!(
                            "{file}{pointer}: not passed: {}",
                            failed.join(", ")
                        ))
                    },
                    json!({"checks": a.len(), "failed": failed}),
                )
            }
            _ => (
                Err(format!("{file}{pointer} is not a non-empty array")),
                Value::Null,
            ),
        },
        BindingCheck::Count => match at.and_then(Value::as_array) {
            Some(a) => {
                let want = b.value.as_ref().and_then(Value::as_u64);
                (
                    if want == Some(a.len() as u64) {
                        Ok(())
                    } else {
                        Err(format!("{file}{pointer} has {} items", a.len()))
                    },
                    json!(a.len()),
                )
            }
            None => (Err(format!("{file}{pointer} is not an array")), Value::Null),
        },
        BindingCheck::JsonDiffOnly => {
            let against = b.against.as_deref().unwrap_or("");
            match json_file(ctx, against) {
                Err(e) => (Err(e), Value::Null),
                Ok(base) => {
                    let mut got = json_diff(&base, &doc);
                    got.sort();
                    let mut want = b.paths.clone().unwrap_or_default();
                    want.sort();
                    (
                        if got == want {
                            Ok(())
                        } else {
                            Err(format!(
                                "{against} and {file} differ in {}",
                                if got.is_empty() {
                                    "nothing".into()
                                } else {
                                    got.join(", ")
                                }
                            ))
                        },
                        json!(got),
                    )
                }
            }
        }
        BindingCheck::Present => (Ok(()), Value::Null),
    }
}

/// The check of a statement the publisher bound (`bindings` non-empty):
/// every binding holds; labelled as the publisher's; under `--require-all`
/// it fails like every row backed only by the publisher's files.
pub fn check(
    id: String,
    at: &str,
    text: &str,
    bindings: &[(usize, &StatementBinding)],
    ctx: &Context<'_>,
) -> Check {
    let mut why = Vec::new();
    let mut found = Vec::new();
    for (i, b) in bindings {
        let (ok, got) = match stated_in_text(b, text) {
            Err(e) => (Err(e), Value::Null),
            Ok(()) => evaluate(b, ctx),
        };
        if let Err(e) = ok {
            why.push(format!("statements[{i}] ({}): {e}", b.check.as_str()));
        }
        found.push(got);
    }
    let Some(&(i, first)) = bindings.first() else {
        return Check::fail(id, format!("{at}: no binding"));
    };
    let tail = format!(
        "bound by the publisher: qualification.json statements[{i}], check {} of {}{}; no grammar of proofpack reads this statement",
        first.check.as_str(),
        first.file.as_deref().unwrap_or(""),
        first.pointer.as_deref().unwrap_or("")
    );
    // A binding of a fragment checks the fragment: the rest of the
    // statement, true or not, is not checked.
    let whole = |t: &str| squash(t).trim_end_matches('.').to_string();
    let covered = bindings.iter().any(|(_, b)| whole(&b.text) == whole(text));
    let c = if !why.is_empty() {
        Check::fail(id, format!("{at}: {} ({tail})", why.join("; ")))
    } else if !covered {
        let parts: Vec<String> = bindings
            .iter()
            .map(|(_, b)| format!("{:?}", squash(&b.text)))
            .collect();
        let why = format!(
            "{at}: the publisher's binding covers only {} of the statement {:?}: the rest of it is not checked ({tail})",
            parts.join(", "),
            squash(text)
        );
        Check::not_checked(id, Reason::NotRead, format!("not checked: {why}"))
            .or_fail(format!("{why}; --require-all"))
    } else {
        Check::pass(id, format!("{at}: holds ({tail})")).or_fail(format!(
            "{at}: holds only by the publisher's binding ({tail}); --require-all"
        ))
    };
    // What each binding compared and found, where the statement was
    // checked by them (a statement bound only in part was not: its
    // bindings are named in the detail, and a report of tens of thousands
    // of them stays small).
    let c = if covered || !why.is_empty() {
        // One line a binding, and what each found, in the same order: a
        // report of tens of thousands of bindings stays small.
        let expected: Vec<Value> = bindings
            .iter()
            .map(|(i, b)| Value::String(describe(*i, b)))
            .collect();
        c.with_values(expected, found)
    } else {
        c
    };
    c.stated_by_publisher(
        &format!("statements[{i}]"),
        first.file.as_deref().unwrap_or(""),
        first.pointer.as_deref(),
    )
}
