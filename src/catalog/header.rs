//! The header that marks a SQLite file as a proofpack catalog of a given
//! version (checked and written by `schema`, named by the error of a newer
//! one).

/// The schema version this proofpack writes (SQLite `user_version`).
pub const SCHEMA_VERSION: u32 = 3;

/// SQLite `application_id` of a proofpack catalog ("PPKC").
pub const APPLICATION_ID: i32 = 0x5050_4B43;
