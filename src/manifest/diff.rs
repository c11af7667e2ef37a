//! Comparing two manifests path by path ([`diff`], [`diff_streamed`]) and
//! reporting the difference ([`Diff::to_report`]).
//!
//! The comparison is a merge of two sequences in path order, so two
//! streamed manifests are compared holding one entry of each; only what
//! drifted leaves, as [`DiffRow`]s in path order.

use std::sync::Arc;

use crate::digest::Sha256Digest;
use crate::report::{Check, Report};

use super::stream::{with_streams, EntryStream, ManifestSource, Stopped, Totals};
use super::types::{Entry, Manifest};

/// The difference between two manifests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diff {
    /// In the new set only.
    pub added: Vec<Entry>,
    /// In the old set only.
    pub removed: Vec<Entry>,
    /// In both, with different content (old, new).
    pub changed: Vec<(Entry, Entry)>,
    /// In both and equal.
    pub unchanged: usize,
}

/// One path that drifted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffRow {
    /// In the new set only.
    Added(Entry),
    /// In the old set only.
    Removed(Entry),
    /// In both, with different content (old, new).
    Changed(Entry, Entry),
}

impl DiffRow {
    /// `added`, `removed` or `changed`.
    pub fn kind(&self) -> &'static str {
        match self {
            DiffRow::Added(_) => "added",
            DiffRow::Removed(_) => "removed",
            DiffRow::Changed(..) => "changed",
        }
    }

    /// The failed check `diff:<path>` of the row.
    pub fn check(&self) -> Check {
        match self {
            DiffRow::Added(e) => Check::fail(format!("diff:{}", e.path), "added")
                .with_values(serde_json::Value::Null, e.sha256.to_hex()),
            DiffRow::Removed(e) => Check::fail(format!("diff:{}", e.path), "removed")
                .with_values(e.sha256.to_hex(), serde_json::Value::Null),
            DiffRow::Changed(o, n) => {
                let detail = match (o.size, n.size) {
                    (Some(a), Some(b)) if a != b => format!("changed (size {a} -> {b})"),
                    _ => "changed".to_string(),
                };
                Check::fail(format!("diff:{}", o.path), detail)
                    .with_values(o.sha256.to_hex(), n.sha256.to_hex())
            }
        }
    }
}

/// How many paths were added, removed, changed and left alone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiffCounts {
    /// In the new set only.
    pub added: usize,
    /// In the old set only.
    pub removed: usize,
    /// In both, different.
    pub changed: usize,
    /// In both, equal.
    pub unchanged: usize,
}

impl DiffCounts {
    /// True when nothing drifted.
    pub fn is_empty(&self) -> bool {
        self.added == 0 && self.removed == 0 && self.changed == 0
    }

    /// The check comparing the two manifest digests (the first of a diff
    /// report), with the counts as its detail.
    pub fn digest_check(&self, old: &Sha256Digest, new: &Sha256Digest) -> Check {
        Check::outcome(
            "manifest.digest",
            old == new,
            format!(
                "{} unchanged, {} added, {} removed, {} changed",
                self.unchanged, self.added, self.removed, self.changed
            ),
        )
        .with_values(old.prefixed(), new.prefixed())
    }
}

/// What [`diff_streamed`] found besides its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Diffed {
    /// The counts.
    pub counts: DiffCounts,
    /// The old manifest's digest, count and bytes.
    pub old: Totals,
    /// The new manifest's.
    pub new: Totals,
}

impl Diff {
    /// True when nothing drifted.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }

    fn counts(&self) -> DiffCounts {
        DiffCounts {
            added: self.added.len(),
            removed: self.removed.len(),
            changed: self.changed.len(),
            unchanged: self.unchanged,
        }
    }

    /// The diff as a report: one check comparing the manifest digests and
    /// one failed check per drifted path (`diff:<path>`), in path order.
    pub fn to_report(&self, target: &str, old: &Manifest, new: &Manifest) -> Report {
        let mut r = Report::new(target);
        r.push(self.counts().digest_check(&old.digest(), &new.digest()));
        let mut rows: Vec<DiffRow> = Vec::new();
        rows.extend(self.added.iter().cloned().map(DiffRow::Added));
        rows.extend(self.removed.iter().cloned().map(DiffRow::Removed));
        rows.extend(
            self.changed
                .iter()
                .cloned()
                .map(|(o, n)| DiffRow::Changed(o, n)),
        );
        rows.sort_by(|a, b| row_path(a).as_bytes().cmp(row_path(b).as_bytes()));
        for row in rows {
            r.push(row.check());
        }
        r
    }
}

fn row_path(r: &DiffRow) -> &str {
    match r {
        DiffRow::Added(e) | DiffRow::Removed(e) | DiffRow::Changed(e, _) => &e.path,
    }
}

/// Compares two manifests path by path.
pub fn diff(old: &Manifest, new: &Manifest) -> Diff {
    let mut d = Diff::default();
    let mut sources = [
        ManifestSource::Loaded(Arc::new(old.clone())),
        ManifestSource::Loaded(Arc::new(new.clone())),
    ];
    let done = with_streams(&mut sources, |s| {
        let (a, b) = s.split_at_mut(1);
        diff_streamed(&mut a[0], &mut b[0], &mut |row| match row {
            DiffRow::Added(e) => d.added.push(e),
            DiffRow::Removed(e) => d.removed.push(e),
            DiffRow::Changed(o, n) => d.changed.push((o, n)),
        })
    })
    .expect("manifests in memory are read without error");
    d.unchanged = done.counts.unchanged;
    d
}

/// Compares two streamed manifests path by path; the drifted paths go to
/// `sink` in path order (`Err(Stopped::ReadWhole(i))` when stream `i`, 0
/// old or 1 new, gave up: see [`with_streams`]).
pub fn diff_streamed(
    old: &mut EntryStream,
    new: &mut EntryStream,
    sink: &mut dyn FnMut(DiffRow),
) -> Result<Diffed, Stopped> {
    let (o_whole, n_whole) = (|_| Stopped::ReadWhole(0), |_| Stopped::ReadWhole(1));
    let mut c = DiffCounts::default();
    let (mut a, mut b) = (
        old.next_entry().map_err(o_whole)?,
        new.next_entry().map_err(n_whole)?,
    );
    loop {
        use std::cmp::Ordering::*;
        let ord = match (&a, &b) {
            (None, None) => break,
            (Some(_), None) => Less,
            (None, Some(_)) => Greater,
            (Some(x), Some(y)) => x.entry.path.as_bytes().cmp(y.entry.path.as_bytes()),
        };
        match ord {
            Less => {
                c.removed += 1;
                sink(DiffRow::Removed(a.take().expect("an old entry").entry));
                a = old.next_entry().map_err(o_whole)?;
            }
            Greater => {
                c.added += 1;
                sink(DiffRow::Added(b.take().expect("a new entry").entry));
                b = new.next_entry().map_err(n_whole)?;
            }
            Equal => {
                let (x, y) = (a.take().expect("old").entry, b.take().expect("new").entry);
                let size_differs = matches!((x.size, y.size), (Some(p), Some(q)) if p != q);
                if x.sha256 != y.sha256 || size_differs {
                    c.changed += 1;
                    sink(DiffRow::Changed(x, y));
                } else {
                    c.unchanged += 1;
                }
                a = old.next_entry().map_err(o_whole)?;
                b = new.next_entry().map_err(n_whole)?;
            }
        }
    }
    Ok(Diffed {
        counts: c,
        old: old.finish().map_err(o_whole)?,
        new: new.finish().map_err(n_whole)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::tests::e;

    #[test]
    fn diff_kinds() {
        let old =
            Manifest::from_entries(vec![e("a", b"1"), e("b", b"2"), e("c", b"3")], "o").unwrap();
        let new =
            Manifest::from_entries(vec![e("a", b"1"), e("b", b"X"), e("d", b"4")], "n").unwrap();
        let d = diff(&old, &new);
        assert_eq!(d.unchanged, 1);
        assert_eq!(d.added.iter().map(|e| &e.path).collect::<Vec<_>>(), ["d"]);
        assert_eq!(d.removed.iter().map(|e| &e.path).collect::<Vec<_>>(), ["c"]);
        assert_eq!(d.changed.len(), 1);
        let r = d.to_report("t", &old, &new);
        assert_eq!(r.summary().failed, 4);
        assert!(diff(&old, &old).is_empty());
    }
}
