//! A published qualification write-up, read as GitHub shows it (contract
//! section 9): parsed once ([`markdown`], a port of cmark-gfm), checked for
//! anything that can hide or fake content ([`document`]), and every table
//! of the rendered document classified: a pinned-inputs table (header
//! `Input | Value`), a measured-points table (a header of the
//! measured-points vocabulary, wherever it stands), or a table proofpack
//! does not read, which is kept so that the verdict names it as not
//! checked. Every header cell and every cell of a table proofpack reads is
//! consumed completely by its closed grammar ([`grammar`]) or the write-up
//! is refused, naming the line and the words not understood.
//!
//! This module only reads; what each row means for the evidence is decided
//! by the qualify layer (`published`). This file holds
//! [`Publication::parse`]; `types` the error type and the rows and cells as
//! read; `find` classifies the tables and finds the bundle digest in the
//! prose; `pinned` reads the pinned-inputs rows by their labels; `points`
//! reads the measured-points rows by their headers; `statements` finds the
//! statements of the prose, and `prose` and `prose_run` hold the closed
//! grammars that read what a statement says.

pub mod document;
pub mod glyphs;
pub mod grammar;
pub mod html_page;
pub mod markdown;
pub mod prose;
pub mod prose_run;
pub mod statements;
pub mod text_copy;
pub mod values;

mod find;
mod pinned;
mod points;
mod types;

use std::path::Path;

use crate::digest::Sha256Digest;
pub use document::Document;
pub use grammar::Qualifier;
pub use pinned::{LabelKind, LABELS};
pub use statements::Statement;
pub use text_copy::Form;
pub use types::{
    percentile_name, Cell, CellValue, Metric, Per, Pinned, PinnedRow, PointRow, PublicationError,
    UncheckedTable, Workload, MAX_PUBLICATION_BYTES,
};
pub use values::{slug, Decimal};

/// A write-up, read.
#[derive(Debug, Clone, PartialEq)]
pub struct Publication {
    /// Where it came from.
    pub origin: String,
    /// The whole rendered document (prose and tables), for checks over
    /// its prose.
    pub document: Document,
    /// The pinned-inputs rows, in order.
    pub pinned: Vec<PinnedRow>,
    /// The measured-points rows, by offered rate, in order.
    pub points: Vec<PointRow>,
    /// Line of each measured-points table's header row.
    pub measured_tables: Vec<usize>,
    /// Tables that proofpack does not read.
    pub unchecked_tables: Vec<UncheckedTable>,
    /// The bundle digest the prose states ("... bundle ... (SHA-256 `<hex>`)"),
    /// with its line.
    pub bundle: Option<(Sha256Digest, usize)>,
    /// Every sentence or clause of the prose that states a number,
    /// digest, count or outcome, in order ([`statements`]).
    pub statements: Vec<Statement>,
    /// SHA-256 of the file's bytes, when read from a file
    /// ([`Publication::read`]); an input of a verification summary.
    pub source_sha256: Option<Sha256Digest>,
}

impl Publication {
    /// The bundle its prose names, as (file name, SHA-256 hex), from the
    /// first statement of the bundle form ("The retained artifact bundle is
    /// <file> (SHA-256 <hex>)"): what a reader holding only the write-up
    /// must get to verify it.
    pub fn named_bundle(&self) -> Option<(String, String)> {
        use prose::{FormKind, Read};
        self.statements
            .iter()
            .find_map(|s| match prose::read(&s.text)? {
                Read::Form(FormKind::Bundle, slots) => match slots.as_slice() {
                    [grammar::Slot::Text(n), grammar::Slot::Hex(h)] => Some((n.clone(), h.clone())),
                    _ => None,
                },
                _ => None,
            })
    }

    /// Reads a write-up file, in the form the contract's rule gives.
    pub fn read(path: &Path) -> Result<Publication, PublicationError> {
        Publication::read_as(path, None)
    }

    /// Reads a write-up file in `form` (`None`: the contract's rule,
    /// [`text_copy::form_of`]).
    pub fn read_as(path: &Path, form: Option<Form>) -> Result<Publication, PublicationError> {
        let bytes =
            crate::capped::read_capped(path, MAX_PUBLICATION_BYTES).map_err(|e| match e {
                crate::capped::CappedError::TooLarge { .. } => PublicationError::Unreadable {
                    path: path.into(),
                    reason: format!(
                        "larger than {MAX_PUBLICATION_BYTES} bytes; this is not a write-up"
                    ),
                },
                crate::capped::CappedError::Io { source, .. } => PublicationError::Io {
                    path: path.into(),
                    source,
                },
            })?;
        let digest = Sha256Digest::of_bytes(&bytes);
        let text = String::from_utf8(bytes).map_err(|e| PublicationError::Unreadable {
            path: path.into(),
            reason: format!("not UTF-8 text (byte {})", e.utf8_error().valid_up_to()),
        })?;
        let origin = path.display().to_string();
        // The text is given up to the parse, which drops it once it has its
        // own copy: an 8 MiB write-up is read in under 64 MiB (contract
        // section 9, docs/performance.md).
        let document = Document::parse_owned(text, &origin, form)?;
        let mut p = Publication::of_document(document, &origin)?;
        p.source_sha256 = Some(digest);
        Ok(p)
    }

    /// Parses write-up text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &str) -> Result<Publication, PublicationError> {
        Publication::of_document(Document::parse(text, origin)?, origin)
    }

    fn of_document(document: Document, origin: &str) -> Result<Publication, PublicationError> {
        let found = find::classify(&document, origin)?;
        let pinned = match found.pinned {
            Some(t) => pinned::pinned_rows(t, origin)?,
            None => Vec::new(),
        };
        let points = points::point_rows(&found.measured, origin)?;
        if found.pinned.is_none() && found.measured.is_empty() {
            return Err(PublicationError::NoTable {
                origin: origin.into(),
            });
        }
        let bundle = find::bundle_digest(&document, origin)?;
        let statements =
            statements::statements(&document).map_err(|e| PublicationError::TooManyStatements {
                origin: origin.into(),
                line: e.0,
            })?;
        Ok(Publication {
            statements,
            origin: origin.into(),
            measured_tables: found.measured.iter().map(|t| t.line).collect(),
            unchecked_tables: found.unchecked,
            pinned,
            points,
            bundle,
            document,
            source_sha256: None,
        })
    }
}

#[cfg(test)]
mod tests;
