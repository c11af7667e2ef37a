//! The ways evidence arrives: a sealed [`bundle`] read through the bundle
//! layer's verifying reader, a run directory ([`rundir`], its files read
//! by [`rundir_files`]), or a BagIt [`bag`] holding a run directory.

pub mod bag;
pub mod bundle;
pub mod rundir;
pub mod rundir_files;
