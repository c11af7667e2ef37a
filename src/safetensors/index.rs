//! The Hugging Face shard index (`model.safetensors.index.json`), as
//! `transformers` writes it (`save_pretrained` through huggingface_hub's
//! `split_torch_state_dict_into_shards`, `json.dumps(index, indent=2,
//! sort_keys=True)`):
//!
//! ```json
//! {"metadata": {"total_size": <sum of tensor bytes>},
//!  "weight_map": {"<tensor name>": "<shard file name>", ...}}
//! ```
//!
//! and checked against the shards' own headers: the shard set, where every
//! tensor is, and the totals.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

use serde_json::Value;

use crate::report::Check;

use super::header::{shown, Header};
use super::SafetensorsError;

/// Largest index file read (real ones are kilobytes to a few megabytes).
pub const MAX_INDEX_BYTES: u64 = 64 << 20;

/// How many tensors a check names before "and N more".
const NAMED: usize = 5;

/// A shard index, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Index {
    /// `metadata.total_size`, as written (usually an integer).
    pub total_size: Option<Value>,
    /// `metadata.total_parameters`, as written (newer writers add it).
    pub total_parameters: Option<Value>,
    /// `weight_map`: tensor name and shard file name, sorted by tensor.
    pub weight_map: Vec<(String, String)>,
}

impl Index {
    /// Parses index bytes. `origin` names the file in errors. Strict JSON:
    /// a key written twice is an error (two readers could place a tensor in
    /// two shards).
    pub fn parse(bytes: &[u8], origin: &Path) -> Result<Index, SafetensorsError> {
        let err = |reason: String| SafetensorsError::Index {
            path: origin.to_path_buf(),
            reason,
        };
        crate::strictjson::reject_duplicate_json_keys(bytes).map_err(|e| err(e.to_string()))?;
        let v: Value = serde_json::from_slice(bytes).map_err(|e| err(e.to_string()))?;
        let obj = v
            .as_object()
            .ok_or_else(|| err("not a JSON object".into()))?;
        let wm = obj
            .get("weight_map")
            .ok_or_else(|| err("no \"weight_map\": not a safetensors shard index".into()))?
            .as_object()
            .ok_or_else(|| err("\"weight_map\" is not an object".into()))?;
        let mut weight_map = Vec::with_capacity(wm.len());
        for (tensor, shard) in wm {
            let shard = shard.as_str().ok_or_else(|| {
                err(format!(
                    "weight_map[{}] is not a file name (a string)",
                    shown(tensor)
                ))
            })?;
            weight_map.push((tensor.clone(), shard.to_string()));
        }
        weight_map.sort();
        let (mut total_size, mut total_parameters) = (None, None);
        match obj.get("metadata") {
            None | Some(Value::Null) => {}
            Some(Value::Object(m)) => {
                total_size = m.get("total_size").cloned();
                total_parameters = m.get("total_parameters").cloned();
            }
            Some(_) => return Err(err("\"metadata\" is not an object".into())),
        }
        Ok(Index {
            total_size,
            total_parameters,
            weight_map,
        })
    }

    /// Reads an index file (at most [`MAX_INDEX_BYTES`]).
    pub fn read(path: &Path) -> Result<Index, SafetensorsError> {
        use std::io::Read;
        let io = |source| SafetensorsError::Io {
            path: path.to_path_buf(),
            source,
        };
        let f = std::fs::File::open(path).map_err(io)?;
        let mut bytes = Vec::new();
        f.take(MAX_INDEX_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(io)?;
        if bytes.len() as u64 > MAX_INDEX_BYTES {
            return Err(SafetensorsError::TooLarge {
                path: path.to_path_buf(),
                limit: MAX_INDEX_BYTES,
            });
        }
        Index::parse(&bytes, path)
    }
}

/// One shard of the set the index is compared with.
#[derive(Debug)]
pub struct ShardState<'a> {
    /// Its path relative to ROOT.
    pub path: &'a str,
    /// True when it could be opened (`shard.read` passed).
    pub readable: bool,
    /// Its header, when it parsed.
    pub header: Option<&'a Header>,
}

/// Where the shard set came from, for the wording of failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetSource {
    /// The `.safetensors` files found under ROOT.
    Scanned,
    /// The `.safetensors` entries of a manifest.
    Manifest,
}

/// A weight-map file name resolved against the index's directory
/// (`dir`, relative to ROOT, "" for ROOT itself).
pub fn resolve(dir: &str, name: &str) -> Result<String, String> {
    if name.is_empty() {
        return Err("empty file name".into());
    }
    if name.starts_with('/') {
        return Err("an absolute path".into());
    }
    if name.contains('\0') {
        return Err("holds a NUL byte".into());
    }
    if name
        .split('/')
        .any(|c| c.is_empty() || c == "." || c == "..")
    {
        return Err("an empty, '.' or '..' path component (the shard must lie beside the index or below it)".into());
    }
    Ok(if dir.is_empty() {
        name.to_string()
    } else {
        format!("{dir}/{name}")
    })
}

fn listed(items: &[String]) -> String {
    let mut s = items
        .iter()
        .take(NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if items.len() > NAMED {
        s.push_str(&format!(", and {} more", items.len() - NAMED));
    }
    s
}

/// A JSON number that is a non-negative integer (an integral float such
/// as `6965007360.0` counts), as u128.
fn as_count(v: &Value) -> Option<u128> {
    if let Some(u) = v.as_u64() {
        return Some(u128::from(u));
    }
    let f = v.as_f64()?;
    (f >= 0.0 && f.fract() == 0.0 && f < 1e30).then_some(f as u128)
}

/// Checks an index against the shard set. `dir` is the index's directory
/// relative to ROOT; `in_dir` are the shards of the set in that directory
/// (the ones a loader of this index would see beside it); `on_disk` says
/// whether a path the set does not hold is a file under ROOT.
pub fn check(
    index: &Index,
    dir: &str,
    shards: &[ShardState<'_>],
    source: SetSource,
    on_disk: &dyn Fn(&str) -> bool,
) -> Vec<Check> {
    let mut out = Vec::new();
    let by_path: BTreeMap<&str, &ShardState<'_>> = shards.iter().map(|s| (s.path, s)).collect();
    // The weight map, resolved: tensor -> shard path.
    let mut placed: HashMap<&str, String> = HashMap::with_capacity(index.weight_map.len());
    let mut named: BTreeMap<String, (usize, Option<String>)> = BTreeMap::new();
    for (tensor, file) in &index.weight_map {
        match resolve(dir, file) {
            Ok(p) => {
                named.entry(p.clone()).or_insert((0, None)).0 += 1;
                placed.insert(tensor.as_str(), p);
            }
            Err(why) => {
                let e = named.entry(file.clone()).or_insert((0, Some(why)));
                e.0 += 1;
            }
        }
    }
    // Which shard headers hold each tensor.
    let mut holders: HashMap<&str, Vec<&str>> = HashMap::new();
    for s in shards {
        if let Some(h) = s.header {
            for t in &h.tensors {
                holders.entry(t.name.as_str()).or_default().push(s.path);
            }
        }
    }
    let set_word = match source {
        SetSource::Scanned => "under ROOT",
        SetSource::Manifest => "in the manifest",
    };
    for (p, (count, bad)) in &named {
        let id = format!("index.shard_present:{p}");
        let c = if let Some(why) = bad {
            Check::fail(
                id,
                format!(
                    "the weight map names {} for {count} tensors, which is not a shard path: {why}",
                    shown(p)
                ),
            )
        } else {
            match by_path.get(p.as_str()) {
                Some(s) if s.readable => Check::pass(id, format!("named for {count} tensors, present")),
                Some(_) => Check::fail(id, format!("named for {count} tensors, listed {set_word} but it cannot be read (see shard.read:{p})")),
                None if source == SetSource::Manifest && on_disk(p) => Check::fail(
                    id,
                    format!("named for {count} tensors, present under ROOT but not listed in the manifest"),
                ),
                None => Check::fail(id, format!("named for {count} tensors, but no such shard is {set_word}")),
            }
        };
        out.push(c);
    }
    let in_dir: Vec<&ShardState<'_>> = shards
        .iter()
        .filter(|s| match s.path.rsplit_once('/') {
            Some((d, _)) => d == dir,
            None => dir.is_empty(),
        })
        .collect();
    for s in &in_dir {
        let id = format!("index.shard_indexed:{}", s.path);
        out.push(if named.contains_key(s.path) {
            Check::pass(id, "named by the weight map")
        } else {
            let n = s.header.map(|h| h.tensors.len());
            Check::fail(
                id,
                format!(
                    "the weight map names no tensor in this shard{}: a loader of this index never reads it",
                    n.map(|n| format!(" ({n} tensors)")).unwrap_or_default()
                ),
            )
        });
    }
    // Per shard: the weight map's tensors are in it; its tensors are placed in it.
    let mut expected_in: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (t, p) in &placed {
        expected_in.entry(p.as_str()).or_default().push(t);
    }
    let compared: BTreeSet<&str> = in_dir
        .iter()
        .map(|s| s.path)
        .chain(
            named
                .keys()
                .map(String::as_str)
                .filter(|p| by_path.contains_key(p)),
        )
        .collect();
    for p in compared {
        let s = by_path[p];
        let Some(h) = s.header else {
            for rule in ["tensors", "misplaced", "unmapped"] {
                out.push(Check::not_checkable(
                    format!("index.{rule}:{p}"),
                    format!("the shard's header was not read (see the shard.* checks of {p})"),
                ));
            }
            continue;
        };
        let own: BTreeSet<&str> = h.tensors.iter().map(|t| t.name.as_str()).collect();
        let mut missing: Vec<String> = Vec::new();
        let mut wanted = expected_in.get(p).cloned().unwrap_or_default();
        wanted.sort_unstable();
        for t in &wanted {
            if !own.contains(t) {
                let elsewhere = holders.get(t).map(|v| v.join(", "));
                missing.push(match elsewhere {
                    Some(w) => format!("{} (it is in {w})", shown(t)),
                    None => format!("{} (in no shard)", shown(t)),
                });
            }
        }
        out.push(if missing.is_empty() {
            Check::pass(
                format!("index.tensors:{p}"),
                format!(
                    "all {} tensors the weight map places here are in the header",
                    wanted.len()
                ),
            )
        } else {
            Check::fail(
                format!("index.tensors:{p}"),
                format!(
                    "{} of the {} tensors the weight map places here are not in its header: {}",
                    missing.len(),
                    wanted.len(),
                    listed(&missing)
                ),
            )
        });
        let mut misplaced = Vec::new();
        let mut unmapped = Vec::new();
        for t in &own {
            match placed.get(t) {
                Some(q) if q != p => {
                    misplaced.push(format!("{} (the weight map places it in {q})", shown(t)))
                }
                Some(_) => {}
                None => unmapped.push(shown(t)),
            }
        }
        out.push(if misplaced.is_empty() {
            Check::pass(
                format!("index.misplaced:{p}"),
                "no tensor of this shard is placed in another one",
            )
        } else {
            Check::fail(
                format!("index.misplaced:{p}"),
                format!(
                    "{} tensors of this shard are in the wrong shard by the weight map: {}",
                    misplaced.len(),
                    listed(&misplaced)
                ),
            )
        });
        out.push(if unmapped.is_empty() {
            Check::pass(
                format!("index.unmapped:{p}"),
                "every tensor of this shard is in the weight map",
            )
        } else {
            Check::fail(
                format!("index.unmapped:{p}"),
                format!(
                    "{} tensors of this shard are not in the weight map: {}",
                    unmapped.len(),
                    listed(&unmapped)
                ),
            )
        });
    }
    let mut dup: Vec<String> = holders
        .iter()
        .filter(|(_, v)| v.len() > 1)
        .map(|(t, v)| format!("{} is in {}", shown(t), v.join(", ")))
        .collect();
    dup.sort();
    out.push(if dup.is_empty() {
        Check::pass("index.duplicate_tensors", "no tensor is in two shards")
    } else {
        Check::fail(
            "index.duplicate_tensors",
            format!(
                "{} tensors are in more than one shard: {}",
                dup.len(),
                listed(&dup)
            ),
        )
    });
    out.extend(totals(index, &named, &by_path));
    out
}

/// `index.total_size` and `index.total_parameters` against the headers of
/// the shards the index names.
fn totals(
    index: &Index,
    named: &BTreeMap<String, (usize, Option<String>)>,
    by_path: &BTreeMap<&str, &ShardState<'_>>,
) -> Vec<Check> {
    let mut bytes = 0u128;
    let mut params = 0u128;
    let mut unread = Vec::new();
    for p in named.keys() {
        match by_path.get(p.as_str()).and_then(|s| s.header) {
            Some(h) => {
                for t in &h.tensors {
                    bytes += u128::from(t.end.saturating_sub(t.begin));
                    params += u128::from(t.elements.unwrap_or(0));
                }
            }
            None => unread.push(p.clone()),
        }
    }
    let mut out = Vec::new();
    for (key, sum, what) in [
        ("total_size", bytes, "bytes of tensor data"),
        ("total_parameters", params, "tensor elements"),
    ] {
        let id = format!("index.{key}");
        let value = if key == "total_size" {
            &index.total_size
        } else {
            &index.total_parameters
        };
        let Some(v) = value else {
            if key == "total_size" {
                out.push(Check::skip(id, "the index states no metadata.total_size"));
            }
            continue;
        };
        let c = if !unread.is_empty() {
            Check::not_checkable(
                id,
                format!(
                    "the headers of {} shards the index names were not read: {}",
                    unread.len(),
                    listed(&unread)
                ),
            )
        } else {
            match as_count(v) {
                None => Check::fail(
                    id,
                    format!("metadata.{key} is {v}, not a non-negative integer"),
                ),
                Some(n) if n == sum => Check::pass(
                    id,
                    format!("metadata.{key} {n} equals the {what} of the shards it names"),
                ),
                Some(n) => Check::fail(
                    id,
                    format!("metadata.{key} says {n}, but the shards it names hold {sum} {what}"),
                )
                .with_values(n.to_string(), sum.to_string()),
            }
        };
        out.push(c);
    }
    out
}
