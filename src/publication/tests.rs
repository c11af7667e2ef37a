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
        Pinned::Digest { files, .. } => assert_eq!(*files, Some(96)),
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
    assert_eq!(p.points[1].offered.text, "1");
    let keys: Vec<&str> = p.points[0].cells.iter().map(|c| c.key.as_str()).collect();
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
        ("Just prose.\n".into(), "no \"Pinned inputs\" table"),
        (
            e.replace(
                "| 0.5 request/s | 0.460 request/s",
                "| 0.5 request/s | fast request/s",
            ),
            ":23: column \"Completed rate including drain\"",
        ),
        (
            e.replace("0.460 request/s", "0.460 furlongs"),
            "unknown unit",
        ),
        (
            e.replace(" Result |\n", "\n")
                .replace("|---|---|---|---|---|---|", "|---|---|---|---|---|"),
            "w.md:23: this row of the \"Measured points\" table has 6 cells, its header 5",
        ),
        (
            e.replace(
                "| TPOT p50 / p95 / p99 | Result |",
                "| TPOT p50 / p95 / p99 | Result | Notes |",
            )
            .replace("|---|---|---|---|---|---|", "|---|---|---|---|---|---|---|"),
            "w.md:23: column \"Notes\": \"\": the cell is empty or missing",
        ),
        (
            format!("{e}\nPinned inputs¶\n| Input | Value |\n|---|---|\n| Model | x |\n"),
            "a second \"Pinned inputs\" table",
        ),
    ];
    for (text, want) in cases {
        let err = Publication::parse(&text, "w.md").unwrap_err().to_string();
        assert!(err.contains(want), "{want:?} not in {err:?}");
    }
}
