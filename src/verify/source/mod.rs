//! The ways evidence arrives: a sealed [`bundle`] read through the bundle
//! layer's verifying reader, or a run directory ([`rundir`], its files read
//! by [`rundir_files`]).

pub mod bundle;
pub mod rundir;
pub mod rundir_files;
