//! The record deriver `verify` uses ([`PeerDeriver`]): client records from
//! a vLLM result file by the rules of [`super::derive`], a journal from a
//! LiteLLM log by those of [`super::journal`].

use std::io::Read;
use std::path::Path;

use super::derive::{consistency, derive, single, Params};
use crate::peers::results::{parse_results_limited, ResultsError, MAX_VALUES};
use crate::run::deriver::{Derived, RecordDeriver};
use crate::run::qualification::{Point, PointSource, DERIVE_RULES};

/// The most output tokens one request of a point may have, for reading its
/// result file: 32,768 (a long-context model's largest generation), so
/// at most 32,767 inter-token latencies a request.
pub const MAX_REQUEST_OUTPUT_TOKENS: u64 = 32_768;

/// Values a result file holds per request besides its inter-token
/// latencies: one of each scalar array (`input_lens`, `output_lens`,
/// `ttfts`, `latencies`, `start_times`, `errors`, `generated_texts`) and
/// the request's `itls` row itself.
pub const SCALARS_PER_REQUEST: u64 = 8;

/// The per-request values a point's result file is read with: the point's
/// declared requests (requests + warmup) plus one, each with its scalars
/// and the inter-token latencies of [`MAX_REQUEST_OUTPUT_TOKENS`], at most
/// [`MAX_VALUES`]. A file over it holds more than the point's requests can,
/// and is refused before it costs memory out of proportion to the point.
pub fn value_budget(declared: u64) -> u64 {
    declared
        .saturating_add(1)
        .saturating_mul(SCALARS_PER_REQUEST + MAX_REQUEST_OUTPUT_TOKENS)
        .min(MAX_VALUES)
}

/// The record deriver `verify` uses: the rules of `derive`, through the
/// peers layer's reader.
pub struct PeerDeriver;

impl RecordDeriver for PeerDeriver {
    fn derive_journal(
        &self,
        point: &Point,
        file: &str,
        content: &mut dyn Read,
    ) -> Result<crate::run::deriver::DerivedJournal, String> {
        let cap = super::import::MAX_RESULT_FILE;
        let bytes = crate::capped::read_to_cap(content, cap)
            .map_err(|e| format!("{file}: {e}"))?
            .ok_or_else(|| format!("{file}: larger than the {cap} bytes a router log may be"))?;
        super::journal::journal_of(point, file, &bytes)
    }

    fn derive(
        &self,
        point: &Point,
        source: &PointSource,
        file: &str,
        content: &mut dyn Read,
    ) -> Result<Derived, String> {
        if source.rules != DERIVE_RULES {
            return Err(format!(
                "{file}: derivation rules {:?}; this proofpack derives by {DERIVE_RULES:?}",
                source.rules
            ));
        }
        if source.format != "vllm" {
            return Err(format!(
                "{file}: format {:?}; client records are derived from vllm result files only",
                source.format
            ));
        }
        let declared = point.requests.saturating_add(point.warmup);
        let budget = value_budget(declared);
        let rows = declared.saturating_add(1);
        let objects = parse_results_limited(
            std::io::BufReader::new(content),
            Path::new(file),
            budget,
            rows,
        )
        .map_err(|e: ResultsError| over_budget(e.to_string(), point, declared, budget))?;
        let i = single(&objects, file).map_err(|e| e.to_string())?;
        let records =
            derive(&objects[i], &Params::of(point, source), file).map_err(|e| e.to_string())?;
        let consistency = consistency(objects, file);
        Ok(Derived {
            records: records.render(),
            window_end: records.window_end,
            count: records.records.len() as u64,
            anchor: records.anchor,
            consistency,
        })
    }
}

/// The reading error, with the point's budget where the file went over it.
fn over_budget(message: String, point: &Point, declared: u64, budget: u64) -> String {
    let rows = declared.saturating_add(1);
    if message.contains(&format!("more than {rows} requests in one file")) {
        return format!(
            "{message}: point {:?} declares {declared} request(s) (requests + warmup), and its result file is read with at most one request more; a file of more requests is not this point's",
            point.name
        );
    }
    if budget == MAX_VALUES || !message.contains(&format!("more than {budget} per-request values"))
    {
        return message;
    }
    format!(
        "{message}: point {:?} declares {declared} request(s) (requests + warmup), and its result file is read with at most {budget} per-request values (the declared requests plus one, {} values each: {SCALARS_PER_REQUEST} scalars and the inter-token latencies of {MAX_REQUEST_OUTPUT_TOKENS} output tokens)",
        point.name,
        SCALARS_PER_REQUEST + MAX_REQUEST_OUTPUT_TOKENS
    )
}
