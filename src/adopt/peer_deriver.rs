//! The record deriver `verify` uses ([`PeerDeriver`]): client records from
//! a vLLM result file by the rules of [`super::derive`], a journal from a
//! LiteLLM log by those of [`super::journal`].

use std::io::Read;
use std::path::Path;

use super::derive::{consistency, derive, single, Params};
use crate::peers::results::{parse_results, ResultsError};
use crate::run::deriver::{Derived, RecordDeriver};
use crate::run::qualification::{Point, PointSource, DERIVE_RULES};

/// The record deriver `verify` uses: the rules of `derive`, through the
/// peers layer's reader.
pub struct PeerDeriver;

impl RecordDeriver for PeerDeriver {
    fn derive_journal(
        &self,
        point: &Point,
        file: &str,
        content: &mut dyn Read,
    ) -> Result<Vec<u8>, String> {
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
        let objects = parse_results(std::io::BufReader::new(content), Path::new(file))
            .map_err(|e: ResultsError| e.to_string())?;
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
