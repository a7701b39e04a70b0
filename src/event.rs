//! What sources produce and the state consumes: the one-way flow sources -> events -> state.

use crate::cycle::Cycle;
use crate::trace::parse::{NoteKind, ScanLine};

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A new run starts: the first cycle, or the cycle counter restarted or went backwards
    /// (another process, `go run` tracing the go tool, two logs pasted together).
    RunStart {
        run: usize,
        line: u64,
        /// The cycle number that broke the sequence and the one before it, for a restart.
        restart: Option<(u32, u32)>,
    },
    /// A source names run `run` (the lab: its workload, marker, GOGC, P and seed).
    RunLabel { run: usize, label: String },
    /// A cycle, to be appended to run `run`.
    Cycle { run: usize, cycle: Box<Cycle> },
    /// A `scan:` line for the last cycle of run `run`.
    Scan {
        run: usize,
        line: u64,
        scan: ScanLine,
    },
    /// The program's own output, in order.
    Output { line: u64, text: String },
    /// A runtime line that is not a cycle.
    Note {
        line: u64,
        kind: NoteKind,
        text: String,
    },
    /// A line that could not be read as what it looks like.
    Problem { line: u64, reason: String },
    /// A source stopped producing (end of file, process exit, error). `error` says why if not
    /// a normal end.
    End { error: Option<String> },
}
