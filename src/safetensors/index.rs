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

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::path::Path;

use serde_json::Value;

use crate::report::Check;

use super::header::{shown, Header};
use super::types::SafetensorsError;

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
        let io = |source| SafetensorsError::Io {
            path: path.to_path_buf(),
            source,
        };
        let f = std::fs::File::open(path).map_err(io)?;
        let bytes = crate::capped::read_to_cap(f, MAX_INDEX_BYTES)
            .map_err(io)?
            .ok_or_else(|| SafetensorsError::TooLarge {
                path: path.to_path_buf(),
                limit: MAX_INDEX_BYTES,
            })?;
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
/// relative to ROOT; the shards of the set in that directory are those a
/// loader of this index sees beside it; `on_disk` says whether a path the
/// set does not hold is a file under ROOT. Shard paths are interned once
/// (a weight map names a few shards for up to millions of tensors).
pub fn check(
    index: &Index,
    dir: &str,
    shards: &[ShardState<'_>],
    source: SetSource,
    on_disk: &dyn Fn(&str) -> bool,
) -> Vec<Check> {
    let mut out = Vec::new();
    let set: HashMap<&str, usize> = shards
        .iter()
        .enumerate()
        .map(|(i, s)| (s.path, i))
        .collect();
    // The shards the weight map names ("targets"), each resolved once.
    let mut targets: Vec<Target> = Vec::new();
    let mut target_of_file: HashMap<&str, usize> = HashMap::new();
    let mut placed: HashMap<&str, usize> = HashMap::with_capacity(index.weight_map.len());
    for (tensor, file) in &index.weight_map {
        let t = *target_of_file.entry(file.as_str()).or_insert_with(|| {
            let (path, bad) = match resolve(dir, file) {
                Ok(p) => (p, None),
                Err(why) => (file.clone(), Some(why)),
            };
            let shard = if bad.is_none() {
                set.get(path.as_str()).copied()
            } else {
                None
            };
            targets.push(Target {
                path,
                bad,
                shard,
                tensors: Vec::new(),
            });
            targets.len() - 1
        });
        targets[t].tensors.push(tensor.as_str());
        placed.insert(tensor.as_str(), t);
    }
    // Which shard headers hold each tensor: the first, and any others
    // (a name twice in one header is shard.duplicate_names', not this).
    let mut first: HashMap<&str, usize> = HashMap::new();
    let mut more: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, s) in shards.iter().enumerate() {
        for t in s.header.iter().flat_map(|h| &h.tensors) {
            match first.entry(t.name.as_str()) {
                Entry::Vacant(e) => {
                    e.insert(i);
                }
                Entry::Occupied(e) if *e.get() != i => {
                    let v = more.entry(t.name.as_str()).or_default();
                    if !v.contains(&i) {
                        v.push(i);
                    }
                }
                Entry::Occupied(_) => {}
            }
        }
    }
    let holders = |t: &str| -> Vec<usize> {
        let mut v: Vec<usize> = first.get(t).copied().into_iter().collect();
        v.extend(more.get(t).into_iter().flatten().copied());
        v
    };
    let set_word = match source {
        SetSource::Scanned => "under ROOT",
        SetSource::Manifest => "in the manifest",
    };
    let mut by_name: Vec<usize> = (0..targets.len()).collect();
    by_name.sort_by(|&x, &y| targets[x].path.cmp(&targets[y].path));
    for &ti in &by_name {
        let t = &targets[ti];
        let (p, count) = (&t.path, t.tensors.len());
        let id = format!("index.shard_present:{p}");
        out.push(match (&t.bad, t.shard) {
            (Some(why), _) => Check::fail(
                id,
                format!("the weight map names {} for {count} tensors, which is not a shard path: {why}", shown(p)),
            ),
            (None, Some(i)) if shards[i].readable => {
                Check::pass(id, format!("named for {count} tensors, present"))
            }
            (None, Some(_)) => Check::fail(
                id,
                format!("named for {count} tensors, listed {set_word} but it cannot be read (see shard.read:{p})"),
            ),
            (None, None) if source == SetSource::Manifest && on_disk(p) => Check::fail(
                id,
                format!("named for {count} tensors, present under ROOT but not listed in the manifest"),
            ),
            (None, None) => Check::fail(
                id,
                format!("named for {count} tensors, but no such shard is {set_word}"),
            ),
        });
    }
    let target_of_shard: HashMap<usize, usize> = targets
        .iter()
        .enumerate()
        .filter_map(|(ti, t)| t.shard.map(|i| (i, ti)))
        .collect();
    let beside = |s: &ShardState<'_>| match s.path.rsplit_once('/') {
        Some((d, _)) => d == dir,
        None => dir.is_empty(),
    };
    for (i, s) in shards.iter().enumerate().filter(|(_, s)| beside(s)) {
        let id = format!("index.shard_indexed:{}", s.path);
        out.push(if target_of_shard.contains_key(&i) {
            Check::pass(id, "named by the weight map")
        } else {
            let n = s.header.map(|h| format!(" ({} tensors)", h.tensors.len()));
            Check::fail(
                id,
                format!(
                    "the weight map names no tensor in this shard{}: a loader of this index never reads it",
                    n.unwrap_or_default()
                ),
            )
        });
    }
    // Per shard (beside the index, or named by it): the weight map's
    // tensors are in it, and its tensors are placed in it.
    let mut compared: Vec<usize> = (0..shards.len())
        .filter(|i| beside(&shards[*i]) || target_of_shard.contains_key(i))
        .collect();
    compared.sort_by(|&x, &y| shards[x].path.cmp(shards[y].path));
    let place = |i: usize| shards[i].path;
    for i in compared {
        let p = shards[i].path;
        let Some(h) = shards[i].header else {
            for rule in ["tensors", "misplaced", "unmapped"] {
                out.push(Check::not_checkable(
                    format!("index.{rule}:{p}"),
                    format!("the shard's header was not read (see the shard.* checks of {p})"),
                ));
            }
            continue;
        };
        let wanted: &[&str] = target_of_shard
            .get(&i)
            .map(|&ti| targets[ti].tensors.as_slice())
            .unwrap_or(&[]);
        let mut missing: Vec<String> = Vec::new();
        for t in wanted {
            let at = holders(t);
            if !at.contains(&i) {
                missing.push(if at.is_empty() {
                    format!("{} (in no shard)", shown(t))
                } else {
                    let w: Vec<&str> = at.iter().map(|&j| place(j)).collect();
                    format!("{} (it is in {})", shown(t), w.join(", "))
                });
            }
        }
        missing.sort();
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
        for t in &h.tensors {
            match placed.get(t.name.as_str()) {
                Some(&ti) if targets[ti].shard != Some(i) => misplaced.push(format!(
                    "{} (the weight map places it in {})",
                    shown(&t.name),
                    targets[ti].path
                )),
                Some(_) => {}
                None => unmapped.push(shown(&t.name)),
            }
        }
        misplaced.sort();
        unmapped.sort();
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
    let mut dup: Vec<String> = more
        .keys()
        .map(|t| {
            let w: Vec<&str> = holders(t).into_iter().map(place).collect();
            format!("{} is in {}", shown(t), w.join(", "))
        })
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
    out.extend(totals(index, &targets, shards));
    out
}

/// A shard the weight map names.
struct Target<'a> {
    /// Its path relative to ROOT (or the name as written, when it is not a path).
    path: String,
    /// Why the name is not a shard path.
    bad: Option<String>,
    /// The shard of the set it is, if any.
    shard: Option<usize>,
    /// The tensors the weight map places in it.
    tensors: Vec<&'a str>,
}

/// `index.total_size` and `index.total_parameters` against the headers of
/// the shards the index names.
fn totals(index: &Index, targets: &[Target<'_>], shards: &[ShardState<'_>]) -> Vec<Check> {
    let mut bytes = 0u128;
    let mut params = 0u128;
    let mut unread = Vec::new();
    for t in targets {
        match t.shard.and_then(|i| shards[i].header) {
            Some(h) => {
                for t in &h.tensors {
                    bytes += u128::from(t.end.saturating_sub(t.begin));
                    params += u128::from(t.elements.unwrap_or(0));
                }
            }
            None => unread.push(t.path.clone()),
        }
    }
    unread.sort();
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
