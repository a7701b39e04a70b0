//! Every finding rule scored against how each recorded run was made, not against what its
//! numbers show: a confusion table per rule (docs/FINDINGS.md quotes it; `--nocapture`
//! prints it), on two parts of the corpus.
//!
//! - **tuned**: traces/go/*.log, the runs the rules' thresholds were fitted on, and the
//!   `tune` split of traces/go/pacer/.
//! - **kept out**: the `holdout` split of traces/go/pacer/ (chosen by a rule on the file name
//!   before any result was seen; labels.tsv).
//!
//! A rule's condition "holds" by the recording: the program was built or run to cause it
//! (a leak, forced cycles, a 2-minute sleep, 64 MB of stacks and globals, GOMAXPROCS above the
//! CPUs, a loaded machine, gctrace=2, a limit below the unlimited goal, GOGC=off, a live heap
//! under the floor). Rules whose condition is a share the trace prints (idle marking, assists,
//! overshoot) have no label independent of that share: they are counted, not scored.
//!
//! Each trace is judged on its main run, the last process of the log (`go run` logs trace
//! the go command and the compiler first).
#![allow(clippy::unwrap_used)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("traces/go")
}

/// One recorded run: its file name, its part of the corpus, its pacer label (kind, gogc,
/// limit_binds from labels.tsv; empty for traces/go/*.log), and the rules that fired.
struct Case {
    file: String,
    part: &'static str,
    kind: String,
    gogc: String,
    limit_binds: String,
    fired: Vec<&'static str>,
    /// The rules that fired at warn severity.
    warned: Vec<&'static str>,
}

/// The rules that fired on a trace's main run, and those of them at warn severity.
fn fired(path: &Path) -> (Vec<&'static str>, Vec<&'static str>) {
    let tl = gcscope_source::read_path(path).unwrap();
    let run = tl.runs.iter().rev().find_map(|r| r.summary()).unwrap();
    let warn = gcscope_core::stats::findings::Severity::Warn;
    (
        run.findings.iter().map(|f| f.id).collect(),
        run.findings
            .iter()
            .filter(|f| f.severity == warn)
            .map(|f| f.id)
            .collect(),
    )
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut logs: Vec<PathBuf> = std::fs::read_dir(root())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    logs.sort();
    for p in logs {
        let (fired, warned) = fired(&p);
        out.push(Case {
            file: p.file_name().unwrap().to_string_lossy().into_owned(),
            part: "tuned",
            kind: String::new(),
            gogc: String::new(),
            limit_binds: String::new(),
            fired,
            warned,
        });
    }
    let labels = std::fs::read_to_string(root().join("pacer/labels.tsv")).unwrap();
    let mut lines = labels.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    for l in lines.filter(|l| !l.is_empty()) {
        let c: Vec<&str> = l.split('\t').collect();
        let (fired, warned) = fired(&root().join("pacer").join(c[col("file")]));
        out.push(Case {
            file: c[col("file")].into(),
            part: if c[col("split")] == "holdout" {
                "kept out"
            } else {
                "tuned"
            },
            kind: c[col("kind")].into(),
            gogc: c[col("gogc")].into(),
            limit_binds: c[col("limit_binds")].into(),
            fired,
            warned,
        });
    }
    out
}

/// Whether the recording made a rule's condition true; `None`: no label independent of the
/// figure the rule reads.
type Holds = fn(&Case) -> Option<bool>;

/// traces/go/pacer/ was recorded while other jobs loaded the machine (load1 4-11, labels.tsv
/// notes): every run of it is a loaded-machine run.
fn pacer_corpus(c: &Case) -> bool {
    !c.kind.is_empty()
}

const RULES: [(&str, Holds); 14] = [
    ("idle_marking", |_| None),
    ("assist_bound", |_| None),
    ("overshoot", |_| None),
    ("min_heap", |c| {
        Some(c.kind == "floor" || c.file.contains("min-heap"))
    }),
    ("memory_limit", |c| {
        Some(c.limit_binds == "yes" || c.file.contains("memlimit200"))
    }),
    ("gogc_off", |c| {
        Some(c.gogc == "off" || c.file.contains("gogc-off"))
    }),
    // The scav program calls runtime.GC() and debug.FreeOSMemory() (traces/go/INDEX.md).
    ("forced", |c| {
        Some(c.file.contains("forced") || c.file.contains("scav"))
    }),
    ("periodic", |c| Some(c.file.contains("periodic"))),
    // A cause of pauses no GC work explains was there: GOMAXPROCS 8 on 2 CPUs with 2 busy
    // goroutines (the spiky shape recorded for it), or a loaded machine.
    ("pause_outlier", |c| {
        Some(c.file.contains("procs-over-cpus-w2") || pacer_corpus(c))
    }),
    ("live_growth", |c| Some(c.file.contains("heapleak"))),
    // Green Tea's span counters: gctrace=2 under the legacy collector prints none.
    ("page_density", |c| {
        Some(c.file.contains("gctrace2") && c.file.contains("greentea"))
    }),
    ("roots_dominate", |c| Some(c.file.contains("bigglobals"))),
    // Every stop long: GOMAXPROCS above the CPUs, 349 cycles/s at the floor, or a loaded
    // machine.
    ("stw_dominates", |c| {
        Some(
            (c.file.contains("procs-over-cpus") && !c.file.contains("-w2"))
                || c.file.contains("min-heap")
                || pacer_corpus(c),
        )
    }),
    // No program here was starved of CPU for seconds: every fire is a false one.
    ("stretched_mark", |_| Some(false)),
];

/// Rules whose label is exact (the recording decides the condition): any fire where it does
/// not hold, or silence where it does, is an error.
const EXACT: [&str; 7] = [
    "memory_limit",
    "forced",
    "periodic",
    "live_growth",
    "page_density",
    "roots_dominate",
    "stretched_mark",
];

/// Rules that speak only when the trace proves their condition: a fire where it does not hold
/// is an error; silence where the trace cannot tell is allowed and shown in the table (a goal
/// that GOGC=400 over a 3 MB heap and the 16 MB floor both explain; GOGC=off under a limit
/// whose first goal is within some GOGC's reach).
const NO_FALSE_FIRE: [&str; 2] = ["min_heap", "gogc_off"];

/// The rules that read a machine's timing (pause_outlier, stw_dominates), which a label can
/// only approximate, are reported, and must fire on the runs recorded for them.

#[test]
fn every_rule_fires_where_its_recorded_condition_holds_on_both_parts() {
    let cases = cases();
    assert!(cases.len() > 100, "{} cases", cases.len());
    let mut table = String::from(
        "| rule | part | runs | holds and fired | holds, silent | fired, does not hold | neither |\n\
         |---|---|---|---|---|---|---|\n",
    );
    let mut wrong = Vec::new();
    let mut misses: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (rule, holds) in RULES {
        for part in ["tuned", "kept out"] {
            let part_cases: Vec<&Case> = cases.iter().filter(|c| c.part == part).collect();
            let n = part_cases.len();
            if holds(part_cases[0]).is_none() {
                let f = part_cases
                    .iter()
                    .filter(|c| c.fired.contains(&rule))
                    .count();
                table += &format!(
                    "| {rule} | {part} | {n} | fired on {f} (no independent label) | | | |\n"
                );
                continue;
            }
            let mut m = [0u32; 4];
            let mut false_warn = 0;
            for c in &part_cases {
                let (h, f) = (holds(c) == Some(true), c.fired.contains(&rule));
                m[match (h, f) {
                    (true, true) => 0,
                    (true, false) => 1,
                    (false, true) => {
                        false_warn += u32::from(c.warned.contains(&rule));
                        2
                    }
                    (false, false) => 3,
                }] += 1;
                if h != f {
                    misses.entry(rule).or_default().push(&c.file);
                    if EXACT.contains(&rule) || (f && NO_FALSE_FIRE.contains(&rule)) {
                        wrong.push(format!("{rule}: fired={f} holds={h} on {}", c.file));
                    }
                }
            }
            table += &format!(
                "| {rule} | {part} | {n} | {} | {} | {} ({false_warn} warn) | {} |\n",
                m[0], m[1], m[2], m[3]
            );
        }
    }
    eprintln!("{table}");
    for (rule, files) in &misses {
        eprintln!("{rule} disagrees with its label on: {}", files.join(", "));
    }
    // The timing rules fire on the runs recorded to show them.
    let on = |file: &str, rule: &str| {
        cases
            .iter()
            .find(|c| c.file.contains(file))
            .is_some_and(|c| c.fired.contains(&rule))
    };
    assert!(on("procs-over-cpus-w2", "pause_outlier"));
    assert!(on("procs-over-cpus.log", "stw_dominates"));
    assert!(on("min-heap", "stw_dominates"));
    assert!(wrong.is_empty(), "{wrong:#?}");
}
