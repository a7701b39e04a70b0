//! Helpers the integration tests share (each test crate takes what it needs).
#![allow(dead_code, clippy::unwrap_used)]

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The stand-in Go program (examples/standin.rs), which `cargo test` builds with the tests.
pub fn standin() -> String {
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_gcscope"));
    let p = exe.parent().unwrap().join("examples").join("standin");
    assert!(
        p.exists(),
        "{} missing: cargo test builds the examples",
        p.display()
    );
    p.display().to_string()
}

/// The process is running: a reaped one has no /proc entry, a zombie's state is Z.
pub fn alive(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        s.rsplit(')')
            .next()
            .is_some_and(|r| !r.trim_start().starts_with('Z'))
    })
}

/// Waits until the process is no longer running, at most `limit`; true if it ended.
pub fn gone_within(pid: i32, limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while alive(pid) {
        if Instant::now() > deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    true
}

/// A `compare --json` (or `ab --json`) document's row for one metric.
pub fn metric<'a>(v: &'a serde_json::Value, key: &str) -> &'a serde_json::Value {
    v["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == key)
        .unwrap_or_else(|| panic!("no {key}"))
}
