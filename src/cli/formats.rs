//! The manifest formats as the command line names them, shared by every
//! verb that reads or writes a manifest.

use clap::ValueEnum;
use proofpack::manifest::Format;

/// Output/input manifest formats on the command line.
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum FormatArg {
    /// `path:sha256` lines, sorted: the identity of the set.
    Canonical,
    /// JSON record with sizes and totals.
    Json,
    /// coreutils `sha256sum` lines.
    Sha256sum,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Self {
        match f {
            FormatArg::Canonical => Format::Canonical,
            FormatArg::Json => Format::Json,
            FormatArg::Sha256sum => Format::Sha256sum,
        }
    }
}

/// The forms of a write-up on the command line (`--publication-format`).
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum PublicationFormatArg {
    /// GitHub-flavoured Markdown source, read as cmark-gfm renders it.
    Gfm,
    /// The text copied from a rendered page: tables as tab-separated lines,
    /// a block a line, headings ending in ¶.
    Text,
    /// A rendered page's HTML (read by an HTML5 parser into the text a
    /// reader copies out of it).
    Html,
}

impl From<PublicationFormatArg> for proofpack::publication::Form {
    fn from(f: PublicationFormatArg) -> Self {
        match f {
            PublicationFormatArg::Gfm => proofpack::publication::Form::Gfm,
            PublicationFormatArg::Text => proofpack::publication::Form::Text,
            PublicationFormatArg::Html => proofpack::publication::Form::Html,
        }
    }
}
