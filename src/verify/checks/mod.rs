//! The check families, run in the order [`order::evaluate`] gives: the
//! benchmark [`plan`], the [`engines`] with their [`attested`]
//! attestations, the published [`facts`] and [`pins`], the [`hosts`]'
//! launch checks, the run's [`inventory`], every [`point`] (with
//! [`derived`] records and [`plausible`] bounds), and the [`published`]
//! write-up's rows, cells and statements.

pub mod attested;
pub mod derived;
pub mod engines;
pub mod facts;
pub mod hosts;
pub mod inventory;
pub mod options;
pub mod order;
pub mod pins;
pub mod plan;
pub mod plausible;
pub mod point;
pub mod published;
