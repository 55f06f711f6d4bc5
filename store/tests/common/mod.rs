//! What the store's test files share: the suite and PostgreSQL's harness.
#![allow(dead_code)] // each test file uses its own part

pub mod postgres;
pub mod suite;

use std::io::Write;

/// Says that the running test skips, and why, where `cargo test` shows it even
/// when the test passes: straight to standard error, which the harness does not capture.
pub fn skipped(why: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let _ = writeln!(std::io::stderr().lock(), "\n{test}: skipped: {why}");
}
