//! Verifying a sealed bundle: the bundle layer's structural checks, then the
//! qualification checks on the very bytes those checks verified.
//!
//! The bundle is streamed, never extracted. A bundle sealed with
//! `qualification.json` right after MANIFEST is read once: the
//! qualification is read ahead from the first blocks (untrusted), the plan
//! made from it, and the one verifying pass checks every entry against
//! MANIFEST while it collects the evidence; `bundle.stable` then requires
//! the qualification read ahead to be the entry the pass verified. A bundle
//! in the v1 order is read twice: pass 1 verifies the structure and keeps
//! only `qualification.json`, pass 2 collects through the same verifying
//! reader, and its bytes are trusted only if its digest and structural
//! verdict equal pass 1's. Otherwise the file changed under us and every
//! content check is reported as not checkable.
//!
//! The module is split by step: `file` checks the seal, chooses the
//! strategy and concludes ([`verify_bundle_file`]); `read_ahead` gets
//! `qualification.json` before the evidence is collected (read ahead, or
//! grabbed by pass 1); `one_pass` and `two_pass` are the two strategies,
//! each collecting through `collecting` and reading journals again through
//! `deferred`; `stable` builds `bundle.stable`; `structure_only` reports a
//! `--structure-only` verification; `conclude` reports the checks after
//! the evidence pass.

mod collecting;
mod conclude;
mod deferred;
mod file;
mod one_pass;
mod read_ahead;
mod stable;
mod structure_only;
mod two_pass;

pub use file::{verify_bundle_file, SealRequest};
