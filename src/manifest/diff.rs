//! Comparing two manifests path by path ([`diff`]) and reporting the
//! difference ([`Diff::to_report`]).

use crate::report::{Check, Report};

use super::{Entry, Manifest};

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

impl Diff {
    /// True when nothing drifted.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.removed.is_empty() && self.changed.is_empty()
    }

    /// The diff as a report: one check comparing the manifest digests and
    /// one failed check per drifted path (`diff:<path>`), in path order.
    pub fn to_report(&self, target: &str, old: &Manifest, new: &Manifest) -> Report {
        let mut r = Report::new(target);
        let (od, nd) = (old.digest(), new.digest());
        r.push(
            Check::outcome(
                "manifest.digest",
                od == nd,
                format!(
                    "{} unchanged, {} added, {} removed, {} changed",
                    self.unchanged,
                    self.added.len(),
                    self.removed.len(),
                    self.changed.len()
                ),
            )
            .with_values(od.prefixed(), nd.prefixed()),
        );
        let mut rows: Vec<(&str, Check)> = Vec::new();
        for e in &self.added {
            rows.push((
                &e.path,
                Check::fail(format!("diff:{}", e.path), "added")
                    .with_values(serde_json::Value::Null, e.sha256.to_hex()),
            ));
        }
        for e in &self.removed {
            rows.push((
                &e.path,
                Check::fail(format!("diff:{}", e.path), "removed")
                    .with_values(e.sha256.to_hex(), serde_json::Value::Null),
            ));
        }
        for (o, n) in &self.changed {
            let detail = match (o.size, n.size) {
                (Some(a), Some(b)) if a != b => format!("changed (size {a} -> {b})"),
                _ => "changed".to_string(),
            };
            rows.push((
                &o.path,
                Check::fail(format!("diff:{}", o.path), detail)
                    .with_values(o.sha256.to_hex(), n.sha256.to_hex()),
            ));
        }
        rows.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
        for (_, c) in rows {
            r.push(c);
        }
        r
    }
}

/// Compares two manifests path by path.
pub fn diff(old: &Manifest, new: &Manifest) -> Diff {
    let mut d = Diff::default();
    let (mut i, mut j) = (0, 0);
    let (a, b) = (old.entries(), new.entries());
    while i < a.len() || j < b.len() {
        let ord = match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) => x.path.as_bytes().cmp(y.path.as_bytes()),
            (Some(_), None) => std::cmp::Ordering::Less,
            _ => std::cmp::Ordering::Greater,
        };
        match ord {
            std::cmp::Ordering::Less => {
                d.removed.push(a[i].clone());
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                d.added.push(b[j].clone());
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                let size_differs = matches!((a[i].size, b[j].size), (Some(x), Some(y)) if x != y);
                if a[i].sha256 != b[j].sha256 || size_differs {
                    d.changed.push((a[i].clone(), b[j].clone()));
                } else {
                    d.unchanged += 1;
                }
                i += 1;
                j += 1;
            }
        }
    }
    d
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
