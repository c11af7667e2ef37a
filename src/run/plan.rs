//! The benchmark plan: what the benchmark client was told to run,
//! sealed with the run, against which the qualification's own declarations
//! are checked.
//!
//! Without the plan, `qualification.json` alone says how many requests a
//! point had, at what rate, with how many warmups: a publisher who drops
//! three failed requests and declares 197 instead of 200 gets a consistent
//! run. The plan is written before the run by the benchmark harness, so it
//! is read leniently (fields proofpack does not use are ignored), but the
//! fields it does use are strict: `points`, in order, each with `name`,
//! `offered_rate`, `requests` and `warmup`; optionally `arrival`
//! (`"poisson"`, the default; `"gamma"` with `burstiness`; `"constant"`)
//! and `slo` (compared with the qualification's when present); and
//! the files and revisions a write-up's rows are checked through:
//! `workload` and `fleet` (paths in the run of the workload the client
//! built its requests from and of the qualified fleet it ran against),
//! `client.revision` and `router.revision` (40-hex commits).

use serde_json::Value;

use crate::run::qualification::Slo;
use crate::strictjson::reject_duplicate_json_keys;

/// How requests were sent, which decides how far the measured send rate
/// may stray from the offered rate by chance alone.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Arrival {
    /// Exponential gaps (the default of vLLM, SGLang and most harnesses).
    Poisson,
    /// Gamma-distributed gaps with this shape (vLLM's `--burstiness`; 1 is
    /// Poisson, smaller is burstier).
    Gamma {
        /// The gamma shape parameter.
        burstiness: f64,
    },
    /// Evenly spaced sends.
    Constant,
}

impl Arrival {
    /// Coefficient of variation of one gap between sends.
    pub fn gap_cv(self) -> f64 {
        match self {
            Arrival::Poisson => 1.0,
            Arrival::Gamma { burstiness } => 1.0 / burstiness.sqrt(),
            Arrival::Constant => 0.0,
        }
    }

    /// The name as written in a plan.
    pub fn describe(self) -> String {
        match self {
            Arrival::Poisson => "poisson".into(),
            Arrival::Gamma { burstiness } => format!("gamma (burstiness {burstiness})"),
            Arrival::Constant => "constant".into(),
        }
    }
}

/// One point of the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanPoint {
    /// Point name.
    pub name: String,
    /// Offered rate, requests/s.
    pub offered_rate: f64,
    /// Measured requests.
    pub requests: u64,
    /// Warmup requests.
    pub warmup: u64,
    /// The point's collector report (a path in the run), when named.
    pub collector: Option<String>,
}

/// The fields of a benchmark plan that proofpack reads.
#[derive(Debug, Clone, PartialEq)]
pub struct BenchmarkPlan {
    /// Points in the order they were run.
    pub points: Vec<PlanPoint>,
    /// The arrival process.
    pub arrival: Arrival,
    /// The SLO the plan was written for, when it states one.
    pub slo: Option<Slo>,
    /// The longest prompt of the workload, in tokens.
    pub max_input_tokens: Option<u64>,
    /// The most output tokens a request was allowed (`max_tokens`).
    pub max_output_tokens: Option<u64>,
    /// The workload file (a path in the run), when named.
    pub workload: Option<String>,
    /// The qualified fleet file (a path in the run), when named.
    pub fleet: Option<String>,
    /// The benchmark client's revision, when stated.
    pub client_revision: Option<String>,
    /// The router's revision, when stated.
    pub router_revision: Option<String>,
    /// The fleet as packaged, before the qualified copy was derived
    /// from it (a path in the run), when named.
    pub packaged_fleet: Option<String>,
    /// The preflight report (a path in the run), when named.
    pub preflight: Option<String>,
    /// The options the benchmark client ran every point with
    /// (`client.args`), when recorded.
    pub client_args: Option<Vec<String>>,
    /// The direct probes' report (a path in the run), when named.
    pub probes: Option<String>,
    /// The post-load check's report (a path in the run), when named.
    pub post_load: Option<String>,
    /// Earlier full checkpoint manifests (manifest records, paths in
    /// the run), when named.
    pub full_manifests: Vec<String>,
}

/// `client.args`, a list of strings, when the plan records it.
fn client_args(obj: &serde_json::Map<String, Value>) -> Result<Option<Vec<String>>, String> {
    let Some(client) = obj.get("client") else {
        return Ok(None);
    };
    match client.as_object().and_then(|c| c.get("args")) {
        None => Ok(None),
        Some(Value::Array(a)) => a
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or_else(|| format!("client.args must be strings, found {v}"))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(other) => Err(format!(
            "client.args must be an array of strings, found {other}"
        )),
    }
}

/// `full_manifests`, paths in the run.
fn paths(obj: &serde_json::Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    match obj.get(key) {
        None => Ok(Vec::new()),
        Some(Value::Array(a)) => {
            let mut out = Vec::new();
            for (i, v) in a.iter().enumerate() {
                let one = serde_json::Map::from_iter([(key.to_string(), v.clone())]);
                out.extend(opt_path(&one, key).map_err(|e| format!("{e} (item {i})"))?);
            }
            Ok(out)
        }
        Some(other) => Err(format!("{key} must be an array of paths, found {other}")),
    }
}

fn opt_path(obj: &serde_json::Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match obj.get(key) {
        None => Ok(None),
        Some(Value::String(s))
            if !s.is_empty() && !s.starts_with('/') && !s.split('/').any(|c| c == "..") =>
        {
            Ok(Some(s.clone()))
        }
        Some(other) => Err(format!(
            "{key} must name a file of the run (a relative path), found {other}"
        )),
    }
}

fn opt_revision(obj: &serde_json::Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    let Some(o) = obj.get(key) else {
        return Ok(None);
    };
    let r = o
        .as_object()
        .ok_or_else(|| format!("{key} must be an object"))?
        .get("revision");
    match r {
        None => Ok(None),
        Some(Value::String(s)) if s.len() == 40 && s.bytes().all(|b| b.is_ascii_hexdigit()) => {
            Ok(Some(s.to_ascii_lowercase()))
        }
        Some(other) => Err(format!(
            "{key}.revision must be a 40-hex commit, found {other}"
        )),
    }
}

/// The workload's token limits as the plan states them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lengths {
    /// Most prompt tokens of a request.
    pub max_input_tokens: u64,
    /// Most output tokens of a request.
    pub max_output_tokens: u64,
}

fn uint(v: &Value, what: &str) -> Result<u64, String> {
    // An integer, or a float with no fractional part (as protobuf JSON
    // writers emit): the same count either way.
    if let Some(n) = v.as_u64() {
        return Ok(n);
    }
    match v.as_f64() {
        Some(f) if f >= 0.0 && f.fract() == 0.0 && f < 9.0e15 => Ok(f as u64),
        _ => Err(format!("{what} must be a non-negative integer, found {v}")),
    }
}

fn positive(v: &Value, what: &str) -> Result<f64, String> {
    match v.as_f64() {
        Some(f) if f.is_finite() && f > 0.0 => Ok(f),
        _ => Err(format!("{what} must be a number > 0, found {v}")),
    }
}

fn field<'a>(
    obj: &'a serde_json::Map<String, Value>,
    key: &str,
    at: &str,
) -> Result<&'a Value, String> {
    obj.get(key).ok_or_else(|| format!("{at} has no {key:?}"))
}

impl BenchmarkPlan {
    /// Parses plan bytes; `origin` names the file in errors.
    pub fn parse(bytes: &[u8], origin: &str) -> Result<BenchmarkPlan, String> {
        let err = |e: String| format!("{origin}: {e}");
        reject_duplicate_json_keys(bytes).map_err(|e| err(e.to_string()))?;
        let v: Value = serde_json::from_slice(bytes).map_err(|e| err(e.to_string()))?;
        let obj = v
            .as_object()
            .ok_or_else(|| err("a benchmark plan is a JSON object".into()))?;
        let points = field(obj, "points", "the plan")
            .map_err(err)?
            .as_array()
            .ok_or_else(|| err("\"points\" must be an array".into()))?;
        if points.is_empty() {
            return Err(err("\"points\" is empty".into()));
        }
        let mut out = Vec::with_capacity(points.len().min(1024));
        for (i, p) in points.iter().enumerate() {
            let at = format!("points[{i}]");
            let o = p
                .as_object()
                .ok_or_else(|| err(format!("{at} must be an object")))?;
            let name = field(o, "name", &at)
                .map_err(err)?
                .as_str()
                .filter(|s| !s.is_empty())
                .ok_or_else(|| err(format!("{at}.name must be a non-empty string")))?
                .to_string();
            let at = format!("point {name:?}");
            out.push(PlanPoint {
                offered_rate: positive(
                    field(o, "offered_rate", &at).map_err(err)?,
                    &format!("{at}: offered_rate"),
                )
                .map_err(err)?,
                requests: uint(
                    field(o, "requests", &at).map_err(err)?,
                    &format!("{at}: requests"),
                )
                .map_err(err)?,
                warmup: uint(
                    field(o, "warmup", &at).map_err(err)?,
                    &format!("{at}: warmup"),
                )
                .map_err(err)?,
                collector: opt_path(o, "collector").map_err(|e| err(format!("{at}: {e}")))?,
                name,
            });
        }
        let arrival = match obj.get("arrival") {
            None => Arrival::Poisson,
            Some(Value::String(s)) if s == "poisson" => Arrival::Poisson,
            Some(Value::String(s)) if s == "constant" => Arrival::Constant,
            Some(Value::String(s)) if s == "gamma" => {
                let b = obj
                    .get("burstiness")
                    .ok_or_else(|| err("arrival \"gamma\" needs \"burstiness\"".into()))?;
                Arrival::Gamma {
                    burstiness: positive(b, "burstiness").map_err(err)?,
                }
            }
            Some(other) => {
                return Err(err(format!(
                    "arrival is {other}; proofpack knows \"poisson\", \"gamma\" (with \"burstiness\") and \"constant\""
                )))
            }
        };
        let slo = match obj.get("slo") {
            None => None,
            Some(s) => {
                let o = s
                    .as_object()
                    .ok_or_else(|| err("slo must be an object".into()))?;
                let num = |k: &str| -> Result<f64, String> {
                    field(o, k, "slo")
                        .map_err(err)?
                        .as_f64()
                        .ok_or_else(|| err(format!("slo.{k} must be a number")))
                };
                Some(Slo {
                    ttft_s: num("ttft_s")?,
                    tpot_s: num("tpot_s")?,
                    attainment: num("attainment")?,
                })
            }
        };
        let length = |k: &str| -> Result<Option<u64>, String> {
            match obj.get(k) {
                None => Ok(None),
                Some(v) => match uint(v, k).map_err(err)? {
                    0 => Err(err(format!("{k} must be at least 1"))),
                    n => Ok(Some(n)),
                },
            }
        };
        Ok(BenchmarkPlan {
            points: out,
            arrival,
            slo,
            max_input_tokens: length("max_input_tokens")?,
            max_output_tokens: length("max_output_tokens")?,
            workload: opt_path(obj, "workload").map_err(err)?,
            fleet: opt_path(obj, "fleet").map_err(err)?,
            client_revision: opt_revision(obj, "client").map_err(err)?,
            router_revision: opt_revision(obj, "router").map_err(err)?,
            packaged_fleet: opt_path(obj, "packaged_fleet").map_err(err)?,
            preflight: opt_path(obj, "preflight").map_err(err)?,
            client_args: client_args(obj).map_err(err)?,
            probes: opt_path(obj, "probes").map_err(err)?,
            post_load: opt_path(obj, "post_load").map_err(err)?,
            full_manifests: paths(obj, "full_manifests").map_err(err)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_fields_it_uses_and_ignores_the_rest() {
        let p = BenchmarkPlan::parse(
            br#"{"plan":"x","seed":1,"points":[{"name":"a","offered_rate":0.5,"requests":200,"warmup":1.0,"extra":true}]}"#,
            "plan.json",
        )
        .unwrap();
        assert_eq!(p.points[0].warmup, 1);
        assert_eq!(p.arrival, Arrival::Poisson);
        for bad in [
            &br#"{"points":[]}"#[..],
            br#"{"points":[{"name":"a","offered_rate":0,"requests":1,"warmup":0}]}"#,
            br#"{"points":[{"name":"a","offered_rate":1,"requests":1.5,"warmup":0}]}"#,
            br#"{"points":[{"name":"a","offered_rate":1,"requests":1}]}"#,
            br#"{"points":[{"name":"a","offered_rate":1,"requests":1,"warmup":0}],"arrival":"bursty"}"#,
            br#"{"points":[],"points":[]}"#,
        ] {
            assert!(BenchmarkPlan::parse(bad, "p").is_err(), "{}", String::from_utf8_lossy(bad));
        }
    }
}
