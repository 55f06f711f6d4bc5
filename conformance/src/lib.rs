//! A conformance kit for `reversid`'s protocols, after h2spec and the
//! Autobahn test suite: point it at any server (or let any client connect to
//! it) and it checks what it can observe against `spec/PROTOCOL.md` (the binary
//! Reversi protocol) and `spec/TEXT-PROTOCOL.md` (the text protocol of every
//! game), printing a report section by section. `README.md` says how to run
//! it and what each section checks.
//!
//! The kit is written from the specs: its own copy of every game's rules is
//! the `reversi-games` crate, and everything else a check expects is spelled
//! out in the check, line by line.

pub mod client;
pub mod conn;
pub mod deviations;
pub mod report;
pub mod rng;
pub mod rules;
pub mod server;

pub use report::{Diff, Entry, Finding, Report, Verdict};
