//! Engine tools: the engine on its own, no server. `reversi perft` counts
//! move-tree leaves, `reversi solve` solves endgames exactly, `reversi
//! match` plays the engine against a GTP program (`gtp.rs`).

pub mod gtp;
pub mod r#match;
pub mod perft;
pub mod solve;

/// Exit codes of the tools (clap itself exits 2 on a bad command line).
pub mod exit {
    /// Done.
    pub const OK: u8 = 0;
    /// The tool ran but something failed on the way: a solve disagreed
    /// with a file's expected score, or the GTP engine failed mid-match.
    pub const FAILED: u8 = 1;
    /// Bad input (a position or file that does not parse), or the GTP
    /// engine could not be started.
    pub const BAD_INPUT: u8 = 2;
}

/// Millions of things per second, with a floor on the elapsed time.
fn millions_per_second(count: u64, seconds: f64) -> f64 {
    count as f64 / seconds.max(1e-9) / 1e6
}

/// CPU time this thread has used, in seconds: on a shared machine it says
/// more about a computation's cost than the wall clock.
fn thread_cpu_seconds() -> f64 {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `now` is a valid timespec for the call to fill.
    let ok = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut now) } == 0;
    if ok {
        now.tv_sec as f64 + now.tv_nsec as f64 / 1e9
    } else {
        0.0
    }
}

/// `1 leaf`, `2 leaves`: `count` and the right form of the noun.
fn plural(count: u64, one: &str, many: &str) -> String {
    format!("{count} {}", if count == 1 { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals() {
        assert_eq!(plural(1, "leaf", "leaves"), "1 leaf");
        assert_eq!(plural(0, "leaf", "leaves"), "0 leaves");
        assert_eq!(plural(4, "leaf", "leaves"), "4 leaves");
    }
}
