//! What a verification says besides its checks: the [`verdict`] line, the
//! recomputed measured-points [`table`], the HTML [`page`]'s data with the
//! [`writeup`]'s blocks, and the [`summary`] a verification summary may
//! claim.

pub mod page;
pub mod summary;
pub mod table;
pub mod verdict;
pub mod writeup;
