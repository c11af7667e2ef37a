use super::*;

fn excerpt() -> String {
    std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/publication/excerpt.md"
    ))
    .unwrap()
}

#[test]
fn the_excerpt_reads_row_by_row() {
    let p = Publication::parse(&excerpt(), "excerpt.md").unwrap();
    assert_eq!(p.pinned.len(), 13);
    let by = |slug: &str| p.pinned.iter().find(|r| r.slug == slug).unwrap();
    assert_eq!(
        by("narwhal-router-source").kind,
        Pinned::Commit("0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c".into())
    );
    match &by("checkpoint-weights").kind {
        Pinned::Digest { files, shards, .. } => {
            assert_eq!((*files, *shards), (None, Some(96)))
        }
        k => panic!("{k:?}"),
    }
    match &by("engine").kind {
        Pinned::Engine {
            name,
            version,
            image,
        } => {
            assert_eq!(
                (name.as_str(), version.as_str()),
                ("vLLM", "0.29.0+rocm100")
            );
            assert!(image.is_some());
        }
        k => panic!("{k:?}"),
    }
    match &by("accelerator-per-engine").kind {
        Pinned::Accelerator {
            name,
            count,
            tensor,
        } => {
            assert_eq!(name, "AMD Instinct MI355X");
            assert_eq!(count.as_ref().unwrap().0, 8);
            assert_eq!(*tensor, Some(8));
        }
        k => panic!("{k:?}"),
    }
    match &by("fleet-latency-budgets").kind {
        Pinned::Budgets {
            ttft,
            tpot,
            deadline,
        } => {
            assert_eq!(ttft.as_ref().unwrap().0.value, 10.0);
            assert_eq!(tpot.as_ref().unwrap().0.value, 0.3);
            assert_eq!(deadline.as_ref().unwrap().0.value, 8.5);
        }
        k => panic!("{k:?}"),
    }
    match &by("workload").kind {
        Pinned::Workload(w) => {
            assert_eq!(w.input_tokens, Some(8192));
            assert_eq!(w.output_tokens, Some(128));
            assert_eq!(w.seed.as_ref().unwrap().value, 1729.0);
            assert_eq!(w.temperature.as_ref().unwrap().value, 0.0);
            assert_eq!(w.prefix_caching, Some(false));
            assert_eq!((w.distinct_ids, w.pool), (Some(20), Some(28)));
        }
        k => panic!("{k:?}"),
    }
    assert_eq!(p.points.len(), 2);
    assert!(p.unchecked_tables.is_empty());
    assert_eq!(p.points[1].offered.text, "1");
    let keys: Vec<String> = p.points[0].cells.iter().map(|c| c.key()).collect();
    assert_eq!(
        keys,
        [
            "completed_rate",
            "output_throughput",
            "ttft_s.p50",
            "ttft_s.p95",
            "ttft_s.p99",
            "tpot_ms.p50",
            "tpot_ms.p95",
            "tpot_ms.p99",
            "result"
        ]
    );
    assert!(p.bundle.is_some());
}

#[test]
fn malformed_write_ups_name_the_line() {
    let e = excerpt();
    let cases: Vec<(String, &str)> = vec![
        ("Just prose.\n".into(), "no pinned-inputs table"),
        (
            e.replace(
                "| 0.5 request/s | 0.460 request/s",
                "| 0.5 request/s | fast request/s",
            ),
            ":24: column \"Completed rate including drain\"",
        ),
        (
            e.replace("0.460 request/s", "0.460 furlongs"),
            "\"furlongs\" is not understood",
        ),
        (
            e.replace(
                "| TPOT p50 / p95 / p99 | Result |",
                "| TPOT p50 / p95 / p99 | Result | Notes |",
            )
            .replace("|---|---|---|---|---|---|", "|---|---|---|---|---|---|---|"),
            "w.md:22: header \"Notes\" of a measured-points table: \"Notes\" is not a measured-points column",
        ),
        (
            format!("{e}\nPinned inputs¶\n\n| Input | Value |\n|---|---|\n| Model | x |\n"),
            "a second pinned-inputs table",
        ),
        (
            e.replace("\n\nThe retained", "\nThe retained"),
            "w.md:26: column \"Offered rate\": \"The retained",
        ),
        (
            e.replace("\n\nThe earlier", "\nThe earlier"),
            "put a blank line between a table and the prose after it",
        ),
    ];
    for (text, want) in cases {
        let err = Publication::parse(&text, "w.md").unwrap_err().to_string();
        assert!(err.contains(want), "{want:?} not in {err:?}");
    }
}

#[test]
fn every_table_is_pinned_measured_or_named_unchecked() {
    let e = excerpt();
    let t = format!("{e}\n## Measured points at higher load\n\n| Offered rate | Completed rate including drain |\n|---|---|\n| 4 request/s | 3.9 request/s |\n\n| Gate | Result |\n|---|---|\n| health | passed |\n");
    let p = Publication::parse(&t, "w.md").unwrap();
    assert_eq!(p.points.len(), 3);
    assert_eq!(p.points[2].offered.text, "4");
    assert_eq!(p.measured_tables.len(), 2);
    assert_eq!(p.unchecked_tables.len(), 1);
    assert_eq!(p.unchecked_tables[0].header, ["Gate", "Result"]);
}

#[test]
fn a_point_column_keys_the_rows_by_name() {
    let head = "| Point | Offered rate | Result |\n|---|---|---|\n";
    let t = format!(
        "{head}| a | 2 request/s | 1/1 within limits |\n| b | 2 request/s | 1/1 within limits |\n"
    );
    let p = Publication::parse(&t, "w.md").unwrap();
    let keys: Vec<String> = p.points.iter().map(|r| r.key()).collect();
    assert_eq!(keys, ["2:a", "2:b"]);
    let cases = [
        (
            format!("{head}| a | 2 request/s | 1/1 within limits |\n| a | 3 request/s | 1/1 within limits |\n"),
            "point \"a\" is published at offered rate 2 at line 3",
        ),
        (
            format!("{head}|  | 2 request/s | 1/1 within limits |\n"),
            "a point column names the run's point of each row",
        ),
        (
            format!("{head}| a | 2 request/s | 1/1 within limits |\n| a | 2 request/s | 1/1 within limits |\n"),
            "the same value (point \"a\", offered rate 2, result) is already published at line 3",
        ),
    ];
    for (text, want) in cases {
        let err = Publication::parse(&text, "w.md").unwrap_err().to_string();
        assert!(err.contains(want), "{want:?} not in {err:?}");
    }
}

#[test]
fn percentiles_are_read_in_the_order_written() {
    let e = excerpt()
        .replace("TTFT p50 / p95 / p99", "TTFT p99 / p95 / p50.0")
        .replace("p50.0", "p50");
    let p = Publication::parse(&e, "w.md").unwrap();
    let keys: Vec<String> = p.points[0].cells.iter().map(|c| c.key()).collect();
    assert_eq!(&keys[2..5], ["ttft_s.p99", "ttft_s.p95", "ttft_s.p50"]);
    assert_eq!(percentile_name(9990), "p99.9");
    assert_eq!(percentile_name(9999), "p99.99");
    assert_eq!(percentile_name(5000), "p50");
}
