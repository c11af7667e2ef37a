//! A hostile publisher's write-ups, through the binary: each forges what a
//! reader of the rendered page sees and gets the check or the refusal
//! named (contract section 9). Refusals are exit 2 naming line, column or
//! the words not understood; checks fail with their id.

#[path = "publication_support/mod.rs"]
mod publication_support;
mod qualify_support;

use std::path::Path;

use publication_support::*;
use serde_json::json;

const ROW_1: &str = "| 1 request/s |";
const RESULT_1: &str = "197/200 within limits, 2 failed, 1 timed out";

#[test]
fn the_readme_command_passes_with_require_all() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/sample");
    let o = verify_with(
        &root.join("kimi-k3-mi355x-20260923-sample.tgz"),
        &[
            os("--publication"),
            root.join("PUBLICATION.md").as_os_str(),
            os("--trust"),
            root.join("trust.json").as_os_str(),
            os("--require-all"),
        ],
    );
    o.assert_ok();
    let v = o.report["verdict"].as_str().unwrap();
    assert!(
        v.contains("every row, cell and statement mapped to evidence"),
        "{v}"
    );
    assert!(
        o.report["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["source"] != "publisher"),
        "no row of the sample rests on a publisher's fact"
    );
}

#[test]
fn a_table_hidden_in_an_html_block_is_refused() {
    let p = published();
    p.edit("| Offered rate |", "<div hidden>\n| Offered rate |");
    let e = p.refused();
    assert!(e.contains("PUBLICATION.md:30:1: an HTML block"), "{e}");
}

#[test]
fn a_results_table_under_another_heading_is_checked() {
    let p = published();
    let t = p.text();
    std::fs::write(
        &p.path,
        format!("{t}\n## Measured points at higher load\n\n| Offered rate | Completed rate including drain |\n|---|---|\n| 4 request/s | 3.9 request/s |\n"),
    )
    .unwrap();
    let o = p.verify(&[]);
    o.assert_fails(
        "publication:point:4.offered_rate",
        "no point of the run declares this offered rate",
    );
}

#[test]
fn a_row_without_edge_pipes_is_a_row_as_github_shows_it() {
    let p = published();
    p.edit(
        &format!("{RESULT_1} |\n"),
        &format!("{RESULT_1} |\n2 request/s | 1.9 request/s | 200.0 tokens/s | 5.000 / 6.000 / 7.000 s | 250.0 / 251.0 / 252.0 ms | 200/200 within limits\n"),
    );
    p.verify(&[])
        .assert_fails("publication:point:2.offered_rate", "no point of the run");
}

#[test]
fn a_pilcrow_row_is_a_row_with_a_hidden_cell_and_refused() {
    let p = published();
    p.edit(
        &format!("{RESULT_1} |\n"),
        &format!("{RESULT_1} |\n| 2 request/s | 1.9 request/s | 200.0 tokens/s | 5.000 / 6.000 / 7.000 s | 250.0 / 251.0 / 252.0 ms | 200/200 within limits |¶\n"),
    );
    let e = p.refused();
    assert!(
        e.contains(
            "PUBLICATION.md:34:1: this table row is written with 7 cells under a header of 6"
        ),
        "{e}"
    );
}

#[test]
fn percentiles_are_read_in_the_order_written() {
    let p = published();
    p.edit("TTFT p50 / p95 / p99", "TTFT p99 / p95 / p50");
    let o = p.verify(&[]);
    o.assert_fails(
        "publication:point:0.5.ttft_s.p99",
        "does not round to published 5.187",
    );
    o.assert_fails(
        "publication:point:0.5.ttft_s.p50",
        "does not round to published 7.179",
    );
}

#[test]
fn p99_9_is_its_own_percentile() {
    let p = published();
    p.edit("TTFT p50 / p95 / p99", "TTFT p50 / p95 / p99.9");
    let o = p.verify(&[]);
    o.assert_fails(
        "publication:point:0.5.ttft_s.p99.9",
        "does not round to published 7.179",
    );
    assert_eq!(
        o.check("publication:point:0.5.ttft_s.p50")["ok"],
        json!(true)
    );
}

#[test]
fn per_gpu_over_the_fleet_total_fails() {
    let p = published();
    p.edit(
        "Output throughput including drain",
        "Output throughput per GPU",
    );
    let o = p.verify(&[]);
    o.assert_fails(
        "publication:point:0.5.output_throughput.per_gpu",
        "divided by the 32 GPUs the 4 engines attest",
    );
}

#[test]
fn an_unknown_header_qualifier_is_refused() {
    let p = published();
    p.edit(
        "TTFT p50 / p95 / p99",
        "TTFT p50 / p95 / p99 (cold start, first request of each session)",
    );
    let e = p.refused();
    assert!(
        e.contains("\"(cold start, first request of each session)\" is not a unit"),
        "{e}"
    );
}

#[test]
fn abbreviated_token_counts_are_refused() {
    let p = published();
    p.edit("8,192 input tokens", "8K input tokens");
    let e = p.refused();
    assert!(
        e.contains("\"8K\" is an abbreviation; write the number in full (e.g. 8,192)"),
        "{e}"
    );
}

/// Text a reader does not see, or that GitHub's renderer shows otherwise
/// than another reader (each kind found by the differential fuzz target
/// `publication_gfm`): refused at its line and column, exit 2.
#[test]
fn hidden_or_ambiguous_text_is_refused_where_it_stands() {
    let p = published();
    let honest = p.text();
    // Line 2 of the sample is empty: each case writes its prose there.
    let prose = "qualification¶\n\n";
    for (name, from, to, at, want) in [
        (
            "a zero-width space in a number",
            "| 0.433 request/s",
            "| 0.4\u{200b}33 request/s",
            "32:",
            "U+200B",
        ),
        // A renderer shows "0.4\u{fffd}33"; a reader dropping the NUL, 0.433.
        (
            "a NUL in a number",
            "| 0.433 request/s",
            "| 0.4\u{0}33 request/s",
            "32:",
            "the control character U+0000",
        ),
        (
            "a lone CR",
            "| 0.433 request/s",
            "| 0.4\r33 request/s",
            "32:",
            "a carriage return not followed by a line feed",
        ),
        (
            "markup in a www. address",
            prose,
            "qualification¶\nSee www.`x`y. This write-up is generated\n",
            "2:5:",
            "GitHub links it",
        ),
        (
            "a link definition look-alike",
            prose,
            "qualification¶\n[)x]:(/y\"t\"\nThis write-up is generated\n",
            "2:1:",
            "begins like a link reference definition",
        ),
        (
            "a footnote look-alike",
            prose,
            "qualification¶\nThis ([^1 x] write-up is generated\n",
            "2:7:",
            "a footnote reference or its look-alike",
        ),
        (
            "tildes GitHub strikes through",
            prose,
            "qualification¶\n~'~~'~e~~'~~'~e This write-up is generated\n",
            "2:3:",
            "a tilde that can close a strikethrough",
        ),
        (
            "a run of four emphasis characters",
            prose,
            "qualification¶\nThis ****write-up** is generated\n",
            "2:6:",
            "a run of 4 '*'",
        ),
        (
            "emphasis opened beside a symbol",
            prose,
            "qualification¶\nThis \u{ae}_write-up_ is generated\n",
            "2:8:",
            "an emphasis character beside",
        ),
        (
            "a run of underscores in a cell",
            "| Model | moonshotai/Kimi-K3 |",
            "| Model | moonshotai/____Kimi-K3 |",
            "8:22:",
            "a run of 4 '_'",
        ),
        (
            "a pipe after two backslashes",
            "| Model | moonshotai/Kimi-K3 |",
            "| Model | moonshotai\\\\|Kimi-K3 |",
            "8:",
            "two backslashes",
        ),
        // Neither Cf nor Cc, yet blank or nothing on the page; Rust and
        // Python count U+2028 as white space, cmark-gfm as text.
        (
            "a Hangul filler in a number",
            "| 0.433 request/s",
            "| 0.4\u{3164}33 request/s",
            "32:",
            "U+3164 shows as blank space or as nothing",
        ),
        (
            "the blank braille pattern in a label",
            "| Model | moonshotai/Kimi-K3 |",
            "| Model\u{2800} | moonshotai/Kimi-K3 |",
            "8:",
            "U+2800",
        ),
        (
            "a line separator inside a number",
            "| 0.433 request/s",
            "| 0.4\u{2028}33 request/s",
            "32:",
            "U+2028",
        ),
        // Invisible by the Unicode default-ignorable property, not by a
        // list: code points reserved for future format characters.
        (
            "a reserved invisible code point after an engine version",
            "| Engine | vLLM 0.11.2+rocm7.0,",
            "| Engine | vLLM 0.11.2\u{2065}+rocm7.0,",
            "9:",
            "U+2065",
        ),
        (
            "U+FFF0 splitting a claim word",
            "The launch checks confirmed",
            "The launch checks con\u{fff0}firmed",
            "20:",
            "U+FFF0",
        ),
        (
            "a variation selector after a digit",
            "| 0.433 request/s",
            "| 0.43\u{fe0f}3 request/s",
            "32:",
            "the variation selector U+FE0F",
        ),
        (
            "a combining mark over a digit",
            "| 0.433 request/s",
            "| 0.43\u{0338}3 request/s",
            "32:",
            "the combining mark U+0338 is drawn over '3'",
        ),
        (
            "a combining mark written as a character reference",
            "| 0.433 request/s",
            "| 0.43&#x338;3 request/s",
            "32:",
            "U+0338 is drawn over '3', so a reader sees another character than the text holds; remove it (or write the letter precomposed) (written as a character reference)",
        ),
    ] {
        std::fs::write(&p.path, &honest).unwrap();
        p.edit(from, to);
        let e = p.refused();
        assert!(
            e.contains(&format!("PUBLICATION.md:{at}")) && e.contains(want),
            "{name}: {e}"
        );
    }
    // A line beginning like HTML on the last line, no line feed after it.
    std::fs::write(
        &p.path,
        format!("{}<div", honest.trim_end_matches('\n').to_owned() + "\n\n"),
    )
    .unwrap();
    let e = p.refused();
    assert!(e.contains("HTML"), "{e}");
}

#[test]
fn a_cyrillic_letter_in_a_label_is_refused() {
    let p = published();
    p.edit("| Engine |", "| \u{415}ngine |");
    let e = p.refused();
    assert!(
        e.contains("PUBLICATION.md:9:") && e.contains("U+0415"),
        "{e}"
    );
}

#[test]
fn result_cells_in_other_words_are_refused() {
    let p = published();
    p.edit(RESULT_1, "197/200 within limits, 0 errors, 0 timeouts");
    let e = p.refused();
    assert!(e.contains("\"0 errors\" is not understood"), "{e}");
}

#[test]
fn a_result_that_leaves_out_the_failures_fails() {
    let p = published();
    p.edit(RESULT_1, "197/200 within limits");
    let o = p.verify(&[]);
    o.assert_only_failures(&["publication:point:1.result.unstated_failures"]);
    o.assert_fails(
        "publication:point:1.result.unstated_failures",
        "the records have 2 failed, 1 timed out that the cell does not state",
    );
    let p = published();
    p.edit(RESULT_1, "200/200 within limits");
    let o = p.verify(&[]);
    o.assert_fails(
        "publication:point:1.result",
        "200 within limits, the records give 197",
    );
    o.assert_fails("publication:point:1.result.unstated_failures", "2 failed");
}

#[test]
fn swapped_budgets_fail_each_against_its_metric() {
    let p = published();
    p.edit("10 s TTFT, 0.3 s TPOT", "0.3 s TTFT, 10 s TPOT");
    let o = p.verify(&[]);
    o.assert_fails(
        "publication:pin:fleet-latency-budgets.ttft",
        "slo.ttft_s 10",
    );
    o.assert_fails(
        "publication:pin:fleet-latency-budgets.tpot",
        "slo.tpot_s 0.3",
    );
    let p = published();
    p.edit(
        "10 s TTFT, 0.3 s TPOT",
        "TTFT \u{2264} 0.3 s, TPOT \u{2264} 50 ms",
    );
    assert!(p.refused().contains("is not understood"));
}

#[test]
fn an_engine_cell_with_an_unread_tail_is_refused() {
    let p = published();
    p.edit(
        "vLLM 0.11.2+rocm7.0, image",
        "vLLM 0.11.2+rocm7.0 with EAGLE-3 speculative decoding and FP4 KV cache, image",
    );
    let e = p.refused();
    assert!(e.contains("PUBLICATION.md:9: row \"Engine\""), "{e}");
    assert!(e.contains("is not understood"), "{e}");
    let p = published();
    p.edit(
        "eight GPUs, tensor",
        "eight GPUs per node x 2 nodes, tensor",
    );
    assert!(p
        .refused()
        .contains("\"eight GPUs per node x 2 nodes\" is not understood"));
}

#[test]
fn a_workload_hash_against_a_decoy_fact_is_checked_against_the_plans_workload() {
    let mut p = published();
    std::fs::write(p.c.path("inputs/decoy.json"), b"{\"input_tokens\": 8192}\n").unwrap();
    p.c.edit_json("qualification.json", |q| {
        q["facts"] = json!([{"name": "workload", "file": "inputs/decoy.json"}])
    });
    p.reseal();
    let decoy = proofpack::digest::Sha256Digest::of_bytes(
        &std::fs::read(p.c.path("inputs/decoy.json")).unwrap(),
    );
    let real = proofpack::digest::Sha256Digest::of_bytes(
        &std::fs::read(p.c.path("inputs/workload.json")).unwrap(),
    );
    p.edit(&real.to_hex(), &decoy.to_hex());
    let o = p.verify(&[]);
    o.assert_fails(
        "publication:pin:workload-sha-256",
        "inputs/workload.json (named by inputs/benchmark-plan.json workload)",
    );
}

#[test]
fn a_row_backed_only_by_a_publisher_file_is_named_counted_apart_and_fails_require_all() {
    let mut p = published();
    std::fs::write(p.c.path("inputs/kv.json"), b"{\"dtype\": \"bf16\"}\n").unwrap();
    p.c.edit_json(
        "qualification.json",
        |q| {
            q["facts"] =
                json!([{"name": "kv-cache-dtype", "file": "inputs/kv.json", "pointer": "/dtype"}])
        },
    );
    p.reseal();
    p.edit("| Model |", "| KV cache dtype | bf16 |\n| Model |");
    let o = p.verify(&[]);
    o.assert_ok();
    let c = o.check("publication:pin:kv-cache-dtype");
    assert_eq!(c["ok"], json!(true));
    assert_eq!(c["source"], json!("publisher"));
    assert_eq!(c["stated_in"]["file"], json!("inputs/kv.json"));
    assert_eq!(c["stated_in"]["pointer"], json!("/dtype"));
    assert!(c["detail"]
        .as_str()
        .unwrap()
        .contains("stated by the publisher"));
    let v = o.report["verdict"].as_str().unwrap();
    assert!(
        v.contains(
            "1 row(s) backed only by files the publisher wrote for them: pin:kv-cache-dtype"
        ) && !v.contains("every row, cell and statement mapped"),
        "{v}"
    );
    p.verify(&[os("--require-all")])
        .assert_fails("publication:pin:kv-cache-dtype", "--require-all");
}

#[test]
fn a_write_up_with_no_digest_is_unpinned() {
    let p = published();
    let t = p.text();
    let measured = &t[t.find("Measured points¶").unwrap()..t.find("\n\nThe retained").unwrap()];
    std::fs::write(&p.path, format!("{measured}\n")).unwrap();
    let o = p.verify(&[]);
    o.assert_ok();
    let v = o.report["verdict"].as_str().unwrap();
    assert!(v.starts_with("VERIFIED (unpinned)"), "{v}");
}

#[test]
fn a_table_proofpack_does_not_read_is_named_and_fails_require_all() {
    let p = published();
    let t = p.text();
    std::fs::write(
        &p.path,
        format!("{t}\n| Gate | Outcome |\n|---|---|\n| health | passed |\n"),
    )
    .unwrap();
    let o = p.verify(&[]);
    o.assert_ok();
    assert!(o.check("publication:table:37")["ok"].is_null());
    let v = o.report["verdict"].as_str().unwrap();
    assert!(
        v.contains("1 table(s) NOT CHECKED") && !v.contains("every row, cell and statement mapped"),
        "{v}"
    );
    p.verify(&[os("--require-all")])
        .assert_fails("publication:table:37", "neither a pinned-inputs table");
}

#[test]
fn the_docs_site_layout_without_a_blank_line_after_a_table_is_refused_with_the_reason() {
    let p = published();
    p.edit(&format!("{RESULT_1} |\n\n"), &format!("{RESULT_1} |\n"));
    let e = p.refused();
    assert!(
        e.contains("put a blank line between a table and the prose after it"),
        "{e}"
    );
    let _ = ROW_1;
}

/// A line ending in ¶ right above a table's delimiter row is the header of
/// a one-column table on GitHub, not a docs-site heading: proofpack reads
/// the table GitHub shows (and names it as a table it does not read).
#[test]
fn a_pilcrow_line_above_a_delimiter_row_is_a_one_column_table() {
    let p = published();
    let t = p.text();
    std::fs::write(
        &p.path,
        format!("{t}\nAll gates passed¶\n|---|\n| health |\n"),
    )
    .unwrap();
    let o = p.verify(&[]);
    o.assert_ok();
    assert!(o.check("publication:table:37")["ok"].is_null());
    assert_eq!(o.check("publication:table:37")["reason"], "not_defined");
    p.verify(&[os("--require-all")])
        .assert_fails("publication:table:37", "neither a pinned-inputs table");
}
