//! Command-line front end: argument structs per verb, terminal rendering.
//! Nothing here decides a verdict; it only presents what the library returns.

pub mod attest;
pub mod bundle_args;
pub mod catalog;
pub mod docs;
pub mod filekind;
pub mod formats;
pub mod host;
pub mod junit;
pub mod key;
pub mod manifest;
pub mod manpages;
pub mod output;
pub mod partition;
pub mod pins;
pub mod publish;
pub mod receipt;
pub mod report;
pub mod results;
pub mod run;
pub mod seal;
pub mod shards;
pub mod streamed;
pub mod ui;
pub mod unpack;
pub mod verify;
pub mod vsa;

pub use ui::{describe, human_bytes, human_rate, GlobalArgs, Ui};
