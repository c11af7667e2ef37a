//! The run-wide request limit (contract section 6, v1.1, issue 23),
//! through the binary: a run that declares more requests than proofpack
//! verifies is refused before any record is read (exit 2), fast and in a
//! few MiB; a client-records file holding more records than its point
//! declares is read one record past the declaration and no further.

mod qualify_support;

use qualify_support::*;
use serde_json::json;

#[test]
fn a_run_declaring_more_than_the_limit_is_refused_before_reading() {
    let c = fresh();
    // 2 points of 4,000,000 requests and one warmup: 8,000,002 in all.
    c.edit_json("qualification.json", |q| {
        for p in q["points"].as_array_mut().unwrap() {
            p["requests"] = json!(4_000_000);
        }
    });
    let trust = c.trust();
    let run = c.run();
    let started = std::time::Instant::now();
    let (code, _, stderr, peak_kib) = proofpack_measured(&[
        "verify".as_ref(),
        run.as_os_str(),
        "--trust".as_ref(),
        trust.as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("declares 8000002 requests over its 2 points")
            && stderr.contains("at most 8000000 per run"),
        "{stderr}"
    );
    // Nothing was read: small and fast (the bound is generous for a
    // shared CI machine; the refusal itself takes milliseconds).
    eprintln!("refused run directory: peak RSS {peak_kib} KiB (bound 32 MiB)");
    assert!(peak_kib < 32 * 1024, "peak RSS {peak_kib} KiB");
    assert!(started.elapsed().as_secs() < 30);
    // The same run sealed: refused the same way.
    c.seal();
    let bundle = c.bundle_path();
    let (code, _, stderr, peak_kib) = proofpack_measured(&[
        "verify".as_ref(),
        bundle.as_os_str(),
        "--trust".as_ref(),
        trust.as_os_str(),
    ]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("at most 8000000 per run"), "{stderr}");
    assert!(peak_kib < 32 * 1024, "peak RSS {peak_kib} KiB");
    // At the limit exactly, the run is read (and fails its counts, as its
    // files hold 201 records a point).
    c.edit_json("qualification.json", |q| {
        for p in q["points"].as_array_mut().unwrap() {
            p["requests"] = json!(3_999_999);
        }
    });
    let o = verify_with(&run, &["--trust".as_ref(), trust.as_os_str()]);
    assert_eq!(o.code, 1, "{}", o.stdout);
}

#[test]
fn a_records_file_holding_more_than_its_point_declares_is_read_one_past_it() {
    let c = fresh();
    // The point declares 100 requests; its file holds 200 and a warmup.
    c.edit_json("qualification.json", |q| {
        q["points"][0]["requests"] = json!(100);
    });
    let trust = c.trust();
    let o = verify_with(&c.run(), &["--trust".as_ref(), trust.as_os_str()]);
    o.assert_fails(
        "point:rate-0.5.records",
        "more records than its point declares (101 with its warmups); reading of this file stopped one record past them",
    );
    // One cause: the counts depend on the records read, so they are not
    // checkable because of it.
    let count = o.check("point:rate-0.5.count");
    assert_eq!(count["cause"], "point:rate-0.5.records", "{count}");
}

/// v1.1 (issue 23): records are read in one parse. A record written as a
/// JSON array of its fields in order (which the v1 reader took as a record)
/// is refused, and a repeated key is still refused wherever it is: a field
/// the record names, another key, or a key inside another key's value.
#[test]
fn records_read_in_one_parse_refuse_arrays_and_repeated_keys() {
    let fields = [
        "request_id",
        "point",
        "warmup",
        "status",
        "sent_at",
        "first_token_at",
        "finished_at",
        "input_tokens",
        "output_tokens",
    ];
    type Forge = fn(&mut serde_json::Map<String, serde_json::Value>, &str) -> String;
    let forged: [(&str, Forge, &str); 4] = [
        (
            "as an array",
            |_, _| String::new(),
            "invalid client record: invalid type: sequence",
        ),
        (
            "status twice",
            |_, line| line.replacen("{", "{\"status\":\"ok\",", 1),
            "duplicate key \\\"status\\\"",
        ),
        (
            "another key twice",
            |_, line| line.replacen("{", "{\"note\":1,\"note\":2,", 1),
            "duplicate key \\\"note\\\"",
        ),
        (
            "a key twice inside another key",
            |_, line| line.replacen("{", "{\"note\":[{\"a\":1,\"a\":1}],", 1),
            "duplicate key \\\"a\\\"",
        ),
    ];
    for (what, forge, needle) in forged {
        let c = fresh();
        c.edit_lines(C05, |lines| {
            let rec: serde_json::Value = serde_json::from_str(&lines[3]).unwrap();
            let mut obj = rec.as_object().unwrap().clone();
            let text = forge(&mut obj, &lines[3]);
            lines[3] = if text.is_empty() {
                let values: Vec<serde_json::Value> =
                    fields.iter().map(|f| obj[*f].clone()).collect();
                serde_json::Value::from(values).to_string()
            } else {
                text
            };
        });
        let o = c.verify_sealed();
        o.assert_fails("point:rate-0.5.records", needle);
        assert!(
            o.check("point:rate-0.5.records")
                .to_string()
                .contains("client.jsonl:4"),
            "{what}: the line is not named"
        );
    }
    // A journal event with its time twice.
    let c = fresh();
    c.edit_lines(J, |lines| {
        lines[2] = lines[2].replacen("{", "{\"at\":1.0,", 1);
    });
    c.verify_sealed().assert_fails(
        "point:rate-0.5.journal.terminal",
        "duplicate key \\\"at\\\"",
    );
}

/// v1.1 (issue 23): a journal is read to one request id past what its
/// points declare. One id past them is an orphan the checks name; a
/// journal of 2,000,000 ids no client sent (the v1.1 limit of 4,000,000 a
/// journal let it through, and every id was kept) stops at the second id
/// past them: the journal is malformed, the verdict red, and the memory
/// small.
#[test]
fn a_journal_is_read_to_one_request_id_past_what_its_points_declare() {
    let event = |id: &str| {
        format!("{{\"request_id\":\"{id}\",\"point\":\"rate-1\",\"event\":\"received\",\"at\":1790351202.5}}")
    };
    let c = fresh();
    c.edit_lines(J, |l| l.push(event("forged-0")));
    let o = c.verify_sealed();
    o.assert_fails("point:rate-1.journal.orphans", "forged-0");
    assert!(
        !o.check("point:rate-1.journal.terminal")["detail"]
            .to_string()
            .contains("declare"),
        "{}",
        o.stdout
    );

    let c = fresh();
    c.edit_lines(J, |l| {
        l.extend((0..2_000_000).map(|i| event(&format!("forged-{i}"))));
    });
    let d = c.seal();
    let pins = c.pins(Some(d), |_| {});
    let trust = c.trust();
    let bundle = c.bundle_path();
    let (code, stdout, stderr, peak_kib) = proofpack_measured(&[
        "verify".as_ref(),
        bundle.as_os_str(),
        "--json".as_ref(),
        "--pins".as_ref(),
        pins.as_os_str(),
        "--trust".as_ref(),
        trust.as_os_str(),
    ]);
    assert_eq!(code, 1, "{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let check = |id: &str| {
        report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap_or_else(|| panic!("no {id}"))
            .clone()
    };
    // The journal holds the 402 requests of its two points (warmups
    // included): reading stops at the second id past them.
    let t = check("point:rate-1.journal.terminal");
    assert_eq!(t["ok"], false, "{t}");
    assert!(
        t["detail"].as_str().unwrap().contains(
            "events of more request ids than its points declare (402 with their warmups)"
        ),
        "{t}"
    );
    // What depends on the journal is not checkable because of it.
    let orphans = check("point:rate-1.journal.orphans");
    assert_eq!(
        orphans["cause"], "point:rate-1.journal.terminal",
        "{orphans}"
    );
    eprintln!("journal of 2,000,000 forged ids: peak RSS {peak_kib} KiB (bound 48 MiB)");
    assert!(peak_kib < 48 * 1024, "peak RSS {peak_kib} KiB");
}

/// v1.1 (issue 23): a request id is at most 256 bytes, in the client
/// records and in the journal: what a verification keeps of a request
/// includes its id, and a run of ids of a megabyte each made it keep a
/// megabyte a request. An id of 256 bytes is read.
#[test]
fn a_request_id_longer_than_256_bytes_is_malformed() {
    let c = fresh();
    let long = format!("rate-1-{}", "x".repeat(250));
    assert_eq!(long.len(), 257);
    c.edit_lines("benchmark/rate-1/client.jsonl", |l| {
        l[3] = l[3].replacen("\"rate-1-", &format!("\"{}", &long[..long.len() - 6]), 1);
    });
    c.edit_lines(J, |l| {
        let mega = format!("rate-0.5-{}", "y".repeat(100_000));
        l.push(format!(
            "{{\"request_id\":\"{mega}\",\"point\":\"rate-0.5\",\"event\":\"received\",\"at\":1790151540.5}}"
        ));
    });
    let o = c.verify_sealed();
    o.assert_fails(
        "point:rate-1.records",
        "request_id of 257 bytes (beginning \\\"rate-1-xxxxxxxxxxxxxxxxxxxxxxxxx\\\"); at most 256",
    );
    o.assert_fails("point:rate-1.records", "benchmark/rate-1/client.jsonl:4");
    o.assert_fails(
        "point:rate-0.5.journal.terminal",
        "request_id of 100009 bytes",
    );

    // At the limit: read (the record's id changed, so the journal no
    // longer witnesses it, which its own checks say).
    let c = fresh();
    c.edit_lines("benchmark/rate-1/client.jsonl", |l| {
        l[3] = l[3].replacen("\"rate-1-", &format!("\"{}", &long[..long.len() - 7]), 1);
    });
    let o = c.verify_sealed();
    assert!(
        o.check("point:rate-1.records")["ok"] == true,
        "{}",
        o.stdout
    );
}

/// A point name is copied into every check id and derived record: a 2 MiB
/// name is refused by the qualification's schema before anything is
/// derived or read, in a few MiB (it once cost gigabytes and aborted).
#[test]
fn a_huge_point_name_is_refused_before_anything_is_read() {
    let c = fresh();
    c.edit_json("qualification.json", |q| {
        q["points"][0]["name"] = json!("p".repeat(2 << 20));
    });
    let trust = c.trust();
    let run = c.run();
    let (code, stdout, stderr, peak_kib) = proofpack_measured(&[
        "verify".as_ref(),
        run.as_os_str(),
        "--trust".as_ref(),
        trust.as_os_str(),
        "--json".as_ref(),
    ]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stdout.contains("a point name of 2097152 bytes"),
        "{}",
        &stdout[..stdout.len().min(2000)]
    );
    assert!(stdout.len() < 1 << 20, "the name is not quoted whole");
    eprintln!("2 MiB point name: peak RSS {peak_kib} KiB (bound 64 MiB)");
    assert!(peak_kib < 64 * 1024, "peak RSS {peak_kib} KiB");
}
