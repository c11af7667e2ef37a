//! `results check RAW --row ROWS` on the InferenceX-app database layout
//! (a list of rows, the numbers under `metrics`), through the binary: the
//! app's real published row file (testdata/peers/inferencex-app, see the
//! README there) with a raw client file generated to match its
//! concurrency-8 row (testdata/peers/generated; no real raw file of that
//! run is published); forged rows fail naming the metric; an unknown layout
//! is exit 2 naming the known layouts, never a list of failed fields.

mod common;

use std::path::{Path, PathBuf};

use common::proofpack_out as proofpack;
use serde_json::{json, Value};

fn data(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/peers")
        .join(p)
}

fn rows() -> PathBuf {
    data("inferencex-app/supplemental-bmk.json")
}

fn raw() -> PathBuf {
    data("generated/inferencex-app-raw-conc8.json")
}

fn check(raw: &Path, rows: &Path, extra: &[&str]) -> (i32, Value, String) {
    let mut args = vec![
        "results".to_string(),
        "check".into(),
        "--json".into(),
        raw.display().to_string(),
        "--row".into(),
        rows.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    let (code, out, err) = proofpack(&args);
    let v = serde_json::from_str(&out).unwrap_or(Value::Null);
    (code, v, err)
}

fn get<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == id)
        .unwrap_or_else(|| panic!("no check {id}: {v}"))
}

fn ids_with(v: &Value, ok: &Value) -> Vec<String> {
    v["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["id"].as_str().unwrap().starts_with("row.") && &c["ok"] == ok)
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect()
}

fn the_row(file: &Value, conc: u64) -> Value {
    file.as_array()
        .unwrap()
        .iter()
        .find(|r| r["conc"] == conc)
        .unwrap()
        .clone()
}

fn write(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec_pretty(v).unwrap()).unwrap();
    p
}

#[test]
fn the_real_app_rows_hold_for_their_raw_file_every_published_metric_compared() {
    let (code, v, err) = check(&raw(), &rows(), &["--gpus", "8"]);
    assert_eq!(code, 0, "{v}{err}");
    assert!(
        v["verdict"].as_str().unwrap().starts_with("VERIFIED"),
        "{v}"
    );
    let file: Value = serde_json::from_slice(&std::fs::read(rows()).unwrap()).unwrap();
    let row = the_row(&file, 8);
    let metrics = row["metrics"].as_object().unwrap();
    assert_eq!(metrics.len(), 14);
    let passed = ids_with(&v, &Value::Bool(true));
    for k in metrics.keys() {
        assert!(
            passed.contains(&format!("row.{k}")),
            "row.{k} not compared: {passed:?}"
        );
    }
    // Only the published metrics, the GPU count, conc and model: a value
    // the raw file gives but the row does not publish (std_ttft, e2el) is
    // not compared, and nothing is reported failed.
    assert_eq!(passed.len(), metrics.len() + 3, "{passed:?}");
    assert!(ids_with(&v, &Value::Bool(false)).is_empty());
    assert!(get(&v, "row.model")["detail"]
        .as_str()
        .unwrap()
        .contains("element 4 of 8, InferenceX-app database row"));
    let env = get(&v, "row.environment")["detail"].as_str().unwrap();
    for k in ["hw", "framework", "precision", "tp", "isl", "osl", "date"] {
        assert!(env.contains(k), "{env}");
    }
    assert!(!env.contains("metrics"), "{env}");
    // Without --gpus the row's own tp (8) is used, and said so.
    let (code, v, _) = check(&raw(), &rows(), &[]);
    assert_eq!(code, 0);
    assert!(get(&v, "row.gpus")["detail"]
        .as_str()
        .unwrap()
        .contains("the row's own tp (8)"));
}

#[test]
fn a_changed_published_number_fails_naming_the_metric_and_both_values() {
    let tmp = tempfile::tempdir().unwrap();
    let file: Value = serde_json::from_slice(&std::fs::read(rows()).unwrap()).unwrap();
    for (key, forged, formula) in [
        (
            "tput_per_gpu",
            json!(38.53),
            "total_token_throughput / gpus",
        ),
        ("p99_ttft", json!(0.76877), "p99_ttft_ms / 1000"),
        ("mean_intvty", json!(17.69), "1000 / (mean_tpot_ms + 1e-8)"),
        // Rounded one unit past the shown digit: outside half a unit.
        ("input_tput_per_gpu", json!(21.74), "/ gpus"),
    ] {
        let mut f = file.clone();
        for r in f.as_array_mut().unwrap() {
            if r["conc"] == 8 {
                r["metrics"][key] = forged.clone();
            }
        }
        let p = write(tmp.path(), "rows.json", &f);
        let (code, v, err) = check(&raw(), &p, &["--gpus", "8"]);
        assert_eq!(code, 1, "{key}: {v}{err}");
        assert_eq!(
            ids_with(&v, &Value::Bool(false)),
            vec![format!("row.{key}")]
        );
        let d = get(&v, &format!("row.{key}"))["detail"].as_str().unwrap();
        assert!(d.contains(formula) && d.contains("but the row has"), "{d}");
        assert!(v["verdict"]
            .as_str()
            .unwrap()
            .contains(&format!("row.{key}")));
    }
    // The wrong GPU count fails all three per-GPU throughputs.
    let (code, v, _) = check(&raw(), &rows(), &["--gpus", "4"]);
    assert_eq!(code, 1);
    assert_eq!(
        ids_with(&v, &Value::Bool(false)),
        [
            "row.tput_per_gpu",
            "row.output_tput_per_gpu",
            "row.input_tput_per_gpu"
        ]
    );
}

#[test]
fn a_published_metric_the_raw_file_cannot_give_is_its_own_check_never_passed() {
    let tmp = tempfile::tempdir().unwrap();
    let file: Value = serde_json::from_slice(&std::fs::read(rows()).unwrap()).unwrap();
    let mut f = file.clone();
    for r in f.as_array_mut().unwrap() {
        if r["conc"] == 8 {
            r["metrics"]["p90_ttft"] = json!(0.5);
            r["metrics"]["goodput_per_gpu"] = json!(12.0);
            r["metrics"]["median_e2el"] = json!("fast");
        }
    }
    let p = write(tmp.path(), "rows.json", &f);
    let (code, v, _) = check(&raw(), &p, &["--gpus", "8"]);
    // A string where a number belongs fails; the two numbers no rule
    // derives from the raw file are not checkable, each named.
    assert_eq!(code, 1, "{v}");
    assert_eq!(ids_with(&v, &Value::Bool(false)), vec!["row.median_e2el"]);
    let null = ids_with(&v, &Value::Null);
    for id in ["row.p90_ttft", "row.goodput_per_gpu"] {
        assert!(null.contains(&id.to_string()), "{null:?}");
        assert!(get(&v, id)["detail"]
            .as_str()
            .unwrap()
            .contains("no field the rules derive it from"));
    }
}

#[test]
fn several_rows_for_the_model_and_concurrency_are_told_apart_by_isl_and_osl() {
    let tmp = tempfile::tempdir().unwrap();
    let mut file: Value = serde_json::from_slice(&std::fs::read(rows()).unwrap()).unwrap();
    // The same configuration at 8k/1k, published with other numbers.
    let mut long = the_row(&file, 8);
    long["isl"] = json!(8192);
    long["metrics"]["tput_per_gpu"] = json!(140.1);
    file.as_array_mut().unwrap().push(long);
    let p = write(tmp.path(), "rows.json", &file);
    let (code, v, err) = check(&raw(), &p, &["--gpus", "8"]);
    assert_eq!(code, 2, "{v}{err}");
    assert_eq!(v, Value::Null, "no report is printed");
    assert!(
        err.contains("2 rows have conc 8, model \"zai-org/GLM-4.7\"")
            && err.contains("element 4: isl 1024")
            && err.contains("element 9: isl 8192")
            && err.contains("pass --isl and --osl"),
        "{err}"
    );
    let (code, v, _) = check(
        &raw(),
        &p,
        &["--gpus", "8", "--isl", "1024", "--osl", "1024"],
    );
    assert_eq!(code, 0, "{v}");
    assert!(get(&v, "row.model")["detail"]
        .as_str()
        .unwrap()
        .contains("element 4 of 9"));
    // The other row is not what the raw file measured.
    let (code, v, _) = check(&raw(), &p, &["--gpus", "8", "--isl", "8192"]);
    assert_eq!(code, 1);
    assert_eq!(ids_with(&v, &Value::Bool(false)), vec!["row.tput_per_gpu"]);
    // --isl/--osl, when given, must hold.
    let (code, _, err) = check(&raw(), &rows(), &["--isl", "2048"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no row of the 8 has conc 8") && err.contains("isl 2048"),
        "{err}"
    );
}

#[test]
fn a_raw_file_of_another_model_or_concurrency_has_no_row() {
    let tmp = tempfile::tempdir().unwrap();
    let raw_v: Value = serde_json::from_slice(&std::fs::read(raw()).unwrap()).unwrap();
    for (key, val, says) in [
        (
            "model_id",
            json!("zai-org/GLM-4.6"),
            "model \"zai-org/GLM-4.6\"",
        ),
        ("max_concurrency", json!(12), "conc 12"),
    ] {
        let mut r = raw_v.clone();
        r[key] = val;
        let p = write(tmp.path(), "raw.json", &r);
        let (code, v, err) = check(&p, &rows(), &[]);
        assert_eq!(code, 2, "{key}: {v}");
        assert!(
            err.contains("no row of the 8 has") && err.contains(says),
            "{err}"
        );
    }
    let mut r = raw_v.clone();
    r.as_object_mut().unwrap().remove("model_id");
    let p = write(tmp.path(), "raw.json", &r);
    let (code, _, err) = check(&p, &rows(), &[]);
    assert_eq!(code, 2);
    assert!(err.contains("no model_id to choose by"), "{err}");
}

#[test]
fn an_unknown_layout_is_exit_2_naming_the_known_layouts_not_a_list_of_failures() {
    let tmp = tempfile::tempdir().unwrap();
    let file: Value = serde_json::from_slice(&std::fs::read(rows()).unwrap()).unwrap();
    let row8 = the_row(&file, 8);
    let mut renamed = row8.clone();
    let m = renamed.as_object_mut().unwrap().remove("metrics").unwrap();
    renamed["results"] = m;
    let mut flat = row8.clone();
    flat.as_object_mut().unwrap().remove("metrics");
    flat["tput_per_gpu"] = json!(37.53);
    for (name, v, says) in [
        ("renamed", json!([renamed]), "element 1: an object with neither"),
        ("wrapped", json!({"rows": file}), "an object with neither"),
        ("metrics-list", json!([{"model": "m", "conc": 8, "metrics": [1, 2]}]), "\"metrics\" is an array"),
        ("scalars", json!([1, 2]), "element 1 of the array is a number"),
        ("mixed", json!([row8, flat]), "element 2 is an InferenceX process_result.py row but element 1 an InferenceX-app database row"),
        ("empty", json!([]), "an empty array"),
        ("string", json!("row"), "a string at the top level"),
    ] {
        let p = write(tmp.path(), &format!("{name}.json"), &v);
        let (code, out, err) = check(&raw(), &p, &[]);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert_eq!(out, Value::Null, "{name}: no report, no failed fields");
        assert!(err.contains(says), "{name}: {err}");
        assert!(
            err.contains("the row layouts read are (1) InferenceX utils/process_result.py rows")
                && err.contains("(2) InferenceX-app database rows"),
            "{name}: {err}"
        );
        assert!(!err.contains("the row has no"), "{name}: {err}");
    }
}
