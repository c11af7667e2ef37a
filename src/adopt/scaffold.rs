//! `run new`: a run directory, scaffolded before anything is measured.
//!
//! It holds `qualification.json` (the model, the SLO, the engines, the
//! points the plan declares, each point's client-records path, no claims),
//! the benchmark plan (the one given, byte for byte, or one written from
//! the flags, stamped `written_by` and `written_at` before any point was
//! imported; every import records the plan's digest, and `verify` fails a
//! point imported under another plan), and the folders the later steps
//! fill: `points/`, `attestations/`, `host-checks/`, `inputs/`,
//! `manifests/`. With hosts, it also writes the qualified fleet
//! (`inputs/fleet.json`, `{"hosts": [{"name": ...}]}`) and names it in
//! `qualified_fleet`: each host's launch-check report is made for that
//! fleet file (`host check --fleet`), and `verify` binds the reports to it
//! and to the weights record `manifests/weights.manifest.json`
//! (`weights_record`). A plan written from the flags states the
//! workload's lengths (`max_input_tokens`, `max_output_tokens`).

use std::fs;
use std::path::Path;

use serde_json::{json, Value};

use super::runfile::write_file;
use super::AdoptError;
use crate::manifest::validate_path;
use crate::run::plan::{Arrival, BenchmarkPlan, PlanPoint};
use crate::run::qualification::QUALIFICATION_FILE;
use crate::run::qualification::{Slo, QUALIFICATION_SCHEMA};

/// Where the plan is kept in a run.
pub const PLAN_FILE: &str = "inputs/benchmark-plan.json";
/// Where `run new --host` writes the qualified fleet.
pub const FLEET_FILE: &str = "inputs/fleet.json";
/// Where a run with hosts keeps the JSON record of the attested weights
/// (`manifest WEIGHTS --format json`), named by `weights_record`.
pub const WEIGHTS_RECORD_FILE: &str = "manifests/weights.manifest.json";
/// The folders `run new` makes.
pub const FOLDERS: [&str; 5] = [
    "points",
    "attestations",
    "host-checks",
    "inputs",
    "manifests",
];

/// The plan of a new run.
#[derive(Debug, Clone)]
pub enum PlanSource {
    /// A plan file the harness wrote: its bytes and where they came from.
    Given {
        /// The bytes, copied unchanged.
        bytes: Vec<u8>,
        /// Its path, for messages.
        origin: String,
    },
    /// A plan written from the flags.
    Points {
        /// The points, in order.
        points: Vec<PlanPoint>,
        /// How requests are sent.
        arrival: Arrival,
        /// The workload's lengths: the longest prompt and the `max_tokens`
        /// the client sent (`max_input_tokens`, `max_output_tokens`).
        lengths: (u64, u64),
    },
}

/// What `run new` is told.
#[derive(Debug, Clone)]
pub struct NewRun {
    /// The qualification's name (default: the directory's name).
    pub name: Option<String>,
    /// The model.
    pub model: String,
    /// The SLO.
    pub slo: Slo,
    /// The plan.
    pub plan: PlanSource,
    /// Engine ids (each's attestation goes to `attestations/<id>.dsse.json`).
    pub engines: Vec<String>,
    /// Hosts whose launch-check reports go to `host-checks/<host>.dsse.json`.
    pub hosts: Vec<String>,
    /// The time written into a plan written from flags (RFC 3339 UTC).
    pub now: String,
}

/// Parses `ttft=10,tpot=0.3,attainment=0.95`.
pub fn parse_slo(s: &str) -> Result<Slo, String> {
    let (mut ttft, mut tpot, mut att) = (None, None, None);
    for part in s.split(',') {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| format!("--slo {s:?}: {part:?} is not KEY=VALUE"))?;
        let v: f64 = v
            .trim()
            .parse()
            .map_err(|_| format!("--slo {s:?}: {v:?} is not a number"))?;
        let slot = match k.trim() {
            "ttft" => &mut ttft,
            "tpot" => &mut tpot,
            "attainment" => &mut att,
            other => {
                return Err(format!(
                    "--slo {s:?}: unknown key {other:?} (ttft, tpot, attainment)"
                ))
            }
        };
        if slot.replace(v).is_some() {
            return Err(format!("--slo {s:?}: {k} given twice"));
        }
    }
    let (Some(ttft_s), Some(tpot_s), Some(attainment)) = (ttft, tpot, att) else {
        return Err(format!(
            "--slo {s:?}: give ttft=SECONDS,tpot=SECONDS,attainment=SHARE"
        ));
    };
    if !(ttft_s > 0.0 && tpot_s > 0.0 && (0.0..=1.0).contains(&attainment)) {
        return Err(format!(
            "--slo {s:?}: needs ttft > 0, tpot > 0 and 0 <= attainment <= 1"
        ));
    }
    Ok(Slo {
        ttft_s,
        tpot_s,
        attainment,
    })
}

/// Parses `NAME:rate=R,requests=N[,warmup=W]`.
pub fn parse_point(s: &str) -> Result<PlanPoint, String> {
    let (name, rest) = s
        .split_once(':')
        .ok_or_else(|| format!("--point {s:?}: expected NAME:rate=R,requests=N[,warmup=W]"))?;
    let (mut rate, mut requests, mut warmup) = (None, None, None);
    for part in rest.split(',') {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| format!("--point {s:?}: {part:?} is not KEY=VALUE"))?;
        match k.trim() {
            "rate" => {
                rate = Some(
                    v.parse::<f64>()
                        .ok()
                        .filter(|r| r.is_finite() && *r > 0.0)
                        .ok_or_else(|| format!("--point {s:?}: rate must be a number > 0"))?,
                )
            }
            "requests" => {
                requests =
                    Some(v.parse::<u64>().ok().filter(|n| *n > 0).ok_or_else(|| {
                        format!("--point {s:?}: requests must be a whole number > 0")
                    })?)
            }
            "warmup" => {
                warmup = Some(
                    v.parse::<u64>()
                        .map_err(|_| format!("--point {s:?}: warmup must be a whole number"))?,
                )
            }
            other => {
                return Err(format!(
                    "--point {s:?}: unknown key {other:?} (rate, requests, warmup)"
                ))
            }
        }
    }
    let (Some(offered_rate), Some(requests)) = (rate, requests) else {
        return Err(format!("--point {s:?}: rate and requests are required"));
    };
    Ok(PlanPoint {
        name: name.to_string(),
        offered_rate,
        requests,
        warmup: warmup.unwrap_or(0),
        collector: None,
    })
}

fn check_name(what: &str, name: &str) -> Result<(), AdoptError> {
    let ok = !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && name != "."
        && name != "..";
    if ok {
        Ok(())
    } else {
        Err(AdoptError::Usage(format!(
            "{what} {name:?}: use letters, digits, '-', '_' and '.' (it names files of the run)"
        )))
    }
}

fn plan_json(
    points: &[PlanPoint],
    arrival: Arrival,
    lengths: (u64, u64),
    slo: &Slo,
    now: &str,
) -> Value {
    let mut plan = json!({
        "written_by": format!("{} run new", crate::TOOL),
        "written_at": now,
        "note": "written by proofpack run new from its flags, before any point was imported",
        "points": points.iter().map(|p| json!({
            "name": p.name, "offered_rate": p.offered_rate,
            "requests": p.requests, "warmup": p.warmup})).collect::<Vec<_>>(),
        "slo": {"ttft_s": slo.ttft_s, "tpot_s": slo.tpot_s, "attainment": slo.attainment},
        "max_input_tokens": lengths.0,
        "max_output_tokens": lengths.1,
    });
    match arrival {
        Arrival::Poisson => plan["arrival"] = json!("poisson"),
        Arrival::Constant => plan["arrival"] = json!("constant"),
        Arrival::Gamma { burstiness } => {
            plan["arrival"] = json!("gamma");
            plan["burstiness"] = json!(burstiness);
        }
    }
    plan
}

/// What `run new` made.
#[derive(Debug, Clone)]
pub struct NewRunOutcome {
    /// The qualification's name.
    pub name: String,
    /// The plan's points.
    pub points: Vec<PlanPoint>,
    /// True when the plan was written from the flags.
    pub plan_written: bool,
}

/// Scaffolds the run directory `dir` (which must not exist, or be empty).
pub fn new_run(dir: &Path, r: &NewRun) -> Result<NewRunOutcome, AdoptError> {
    if dir.exists() {
        let empty = fs::read_dir(dir)
            .map_err(|source| AdoptError::Io {
                path: dir.to_path_buf(),
                source,
            })?
            .next()
            .is_none();
        if !empty {
            return Err(AdoptError::Usage(format!(
                "{}: exists and is not empty; run new makes a new run directory",
                dir.display()
            )));
        }
    }
    let name = match &r.name {
        Some(n) => n.clone(),
        None => dir
            .file_name()
            .and_then(|n| n.to_str())
            .map(String::from)
            .ok_or_else(|| AdoptError::Usage("give the run a --name".into()))?,
    };
    check_name("run name", &name)?;
    let (plan_bytes, plan) = match &r.plan {
        PlanSource::Given { bytes, origin } => {
            let plan = BenchmarkPlan::parse(bytes, origin).map_err(AdoptError::Usage)?;
            if let Some(s) = &plan.slo {
                if *s != r.slo {
                    return Err(AdoptError::Usage(format!(
                        "{origin} states the SLO ttft={},tpot={},attainment={}; --slo says otherwise",
                        s.ttft_s, s.tpot_s, s.attainment
                    )));
                }
            }
            (bytes.clone(), plan)
        }
        PlanSource::Points {
            points,
            arrival,
            lengths,
        } => {
            if points.is_empty() {
                return Err(AdoptError::Usage(
                    "give the plan: --plan PLAN.json, or one --point NAME:rate=R,requests=N per point"
                        .into(),
                ));
            }
            let mut bytes =
                serde_json::to_vec_pretty(&plan_json(points, *arrival, *lengths, &r.slo, &r.now))
                    .expect("JSON values serialise");
            bytes.push(b'\n');
            let plan = BenchmarkPlan::parse(&bytes, PLAN_FILE).map_err(AdoptError::Usage)?;
            (bytes, plan)
        }
    };
    let mut seen = std::collections::BTreeSet::new();
    for p in &plan.points {
        check_name("point name", &p.name)?;
        if !seen.insert(p.name.as_str()) {
            return Err(AdoptError::Usage(format!(
                "point {:?} is planned twice",
                p.name
            )));
        }
    }
    let engines: Vec<String> = if r.engines.is_empty() {
        vec!["engine-0".into()]
    } else {
        r.engines.clone()
    };
    for e in &engines {
        check_name("engine id", e)?;
    }
    for h in &r.hosts {
        check_name("host", h)?;
    }
    let mut seen_hosts = std::collections::BTreeSet::new();
    for h in &r.hosts {
        if !seen_hosts.insert(h.as_str()) {
            return Err(AdoptError::Usage(format!("--host {h:?} is given twice")));
        }
    }
    let fleet_bytes = (!r.hosts.is_empty()).then(|| {
        let f = json!({"hosts": r.hosts.iter().map(|h| json!({"name": h})).collect::<Vec<_>>()});
        let mut b = serde_json::to_vec_pretty(&f).expect("JSON values serialise");
        b.push(b'\n');
        b
    });
    let fleet_files = fleet_bytes.is_some();
    let mut q = json!({
        "schema": QUALIFICATION_SCHEMA,
        "name": name,
        "model": r.model,
        "slo": {"ttft_s": r.slo.ttft_s, "tpot_s": r.slo.tpot_s, "attainment": r.slo.attainment},
        "engines": engines.iter().map(|e| json!({
            "id": e, "attestation": format!("attestations/{e}.dsse.json")})).collect::<Vec<_>>(),
        "required_subjects": [],
        "plan": PLAN_FILE,
        "points": plan.points.iter().map(|p| json!({
            "name": p.name, "offered_rate": p.offered_rate, "requests": p.requests,
            "warmup": p.warmup, "client_records": format!("points/{}/client.jsonl", p.name),
            "claims": {}})).collect::<Vec<_>>(),
        "host_checks": r.hosts.iter().map(|h| format!("host-checks/{h}.dsse.json")).collect::<Vec<_>>(),
    });
    if fleet_files {
        // The hosts' launch checks are held to the fleet they were made
        // for and to the record of the attested weights (its sizes and
        // shard headers), which the run keeps at WEIGHTS_RECORD_FILE.
        q["qualified_fleet"] = Value::String(FLEET_FILE.into());
        q["weights_record"] = Value::String(WEIGHTS_RECORD_FILE.into());
    }
    let mut qbytes = serde_json::to_vec_pretty(&q).expect("JSON values serialise");
    qbytes.push(b'\n');
    crate::run::qualification::Qualification::parse(&qbytes).map_err(AdoptError::Usage)?;
    for p in &plan.points {
        validate_path(&format!("points/{}/client.jsonl", p.name))
            .map_err(|why| AdoptError::Usage(format!("point {:?}: {why}", p.name)))?;
    }
    for f in FOLDERS {
        let d = dir.join(f);
        fs::create_dir_all(&d).map_err(|source| AdoptError::Io { path: d, source })?;
    }
    write_file(dir, PLAN_FILE, &plan_bytes)?;
    if let Some(b) = &fleet_bytes {
        crate::fleet::FleetHosts::parse(b, FLEET_FILE)
            .map_err(|e| AdoptError::Usage(e.to_string()))?;
        write_file(dir, FLEET_FILE, b)?;
    }
    write_file(dir, QUALIFICATION_FILE, &qbytes)?;
    Ok(NewRunOutcome {
        name,
        points: plan.points,
        plan_written: matches!(r.plan, PlanSource::Points { .. }),
    })
}
