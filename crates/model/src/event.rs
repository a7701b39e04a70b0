//! What sources produce and the state consumes: the one-way flow sources -> events -> state.

use super::cycle::{Cycle, ScanCounts};
use super::error::SourceError;
use super::ids::RunId;

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A new run starts: the first cycle, or the cycle counter restarted or went backwards
    /// (another process, `go run` tracing the go tool, two logs pasted together).
    RunStart {
        run: RunId,
        line: u64,
        /// The cycle number that broke the sequence and the one before it, for a restart.
        restart: Option<(u32, u32)>,
    },
    /// A source names run `run` (the lab: its workload, marker, GOGC, P and seed).
    RunLabel { run: RunId, label: String },
    /// A cycle, to be appended to run `run`.
    Cycle { run: RunId, cycle: Box<Cycle> },
    /// A `scan:` line for the last cycle of run `run`.
    Scan {
        run: RunId,
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
    End { error: Option<SourceError> },
    /// gcscope started a program (`run`, `ab`): what follows, up to its `ProgramExit`, is its
    /// output, and its cycles start a new run.
    ProgramStart(Box<ProgramStart>),
    /// A figure taken from the current program's output (`--metric NAME=REGEX`): the last
    /// match wins.
    ProgramValue { name: String, value: f64 },
    /// The current program ended.
    ProgramExit(ProgramExit),
}

/// A program gcscope runs: what it is and how it was built.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgramStart {
    /// The command as the user gave it.
    pub command: String,
    /// For a Go binary, its Go version and GOEXPERIMENT (`go1.27.3 GOEXPERIMENT=nogreenteagc`).
    pub build: Option<String>,
    /// The GODEBUG it was given.
    pub godebug: String,
    /// An A/B's side and run number (1-based), `('A', 3)`; warm-ups are numbered apart.
    pub ab: Option<(char, usize)>,
    /// A warm-up run: shown, never a sample.
    pub warmup: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProgramExit {
    pub status: ExitStatus,
    /// Wall time from start to exit, seconds.
    pub wall_s: f64,
    /// The program's CPU time (user + system, its children included), seconds.
    pub cpu_s: Option<f64>,
    /// What other processes used of the machine meanwhile, in CPUs (machine busy time less
    /// the program's, over the wall time): the load it shared the machine with.
    pub other_cpus: Option<f64>,
    /// gcscope stopped it: a time cap or the user.
    pub stopped: Option<Stopped>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    Timeout,
    User,
}

/// How a program ended, as a shell tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    Code(i32),
    Signal(i32),
}

impl ExitStatus {
    #[must_use]
    pub fn success(self) -> bool {
        self == ExitStatus::Code(0)
    }

    /// The status a shell would give: the code, or 128 + the signal.
    #[must_use]
    pub fn shell_code(self) -> i32 {
        match self {
            ExitStatus::Code(c) => c,
            ExitStatus::Signal(s) => 128 + s,
        }
    }
}

impl std::fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExitStatus::Code(c) => write!(f, "exit status {c}"),
            ExitStatus::Signal(s) => {
                let name = match *s {
                    1 => " (SIGHUP)",
                    2 => " (SIGINT)",
                    3 => " (SIGQUIT)",
                    6 => " (SIGABRT)",
                    9 => " (SIGKILL)",
                    11 => " (SIGSEGV)",
                    15 => " (SIGTERM)",
                    _ => "",
                };
                write!(f, "killed by signal {s}{name}")
            }
        }
    }
}

crate::named_enum! {
    /// Runtime lines that are kept and counted but carry no cycle.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum NoteKind (name, from_name) {
        /// `scvg: ...` / `scvgN: ...` (scavenger, Go <= 1.12 style).
        Scvg => "scvg",
        /// `scav ...` (`GODEBUG=scavtrace=1`).
        Scav => "scav",
        /// `pacer: ...` (`GODEBUG=gcpacertrace=1`).
        Pacer => "pacer",
        /// `GC forced`: sysmon's 2-minute periodic GC.
        GcForced => "gc_forced",
        /// A gc line that other output had split in two, joined back together by the reader.
        Stitched => "stitched",
    }
}

/// A parsed `scan:` line. `class` is `None` for `total`, `Some(0)` for large objects (`L`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScanLine {
    pub class: Option<u32>,
    pub counts: ScanCounts,
}

#[cfg(test)]
mod tests {
    use super::NoteKind;

    /// A kind's discriminant is its place in `ALL` (timelines count notes in an array by it).
    #[test]
    fn note_kinds_are_numbered_in_order() {
        for (i, k) in NoteKind::ALL.iter().enumerate() {
            assert_eq!(*k as usize, i);
        }
    }
}
