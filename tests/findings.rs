//! Findings over real traces: for each rule a recorded run where its condition holds (the
//! id, severity and evidence cycles asserted) and one where it must not fire; and no rule
//! fires on an empty or one-cycle run.
#![allow(clippy::unwrap_used)]

use gcscope_core::stats::findings::{Finding, Severity};
use gcscope_core::stats::summary::RunStats;
use proptest::prelude::*;

fn findings(name: &str) -> Vec<Finding> {
    let path = format!(
        "{}/traces/go/go1.27.3_{name}.log",
        env!("CARGO_MANIFEST_DIR")
    );
    let tl = gcscope_source::read_path(std::path::Path::new(&path)).unwrap();
    let runs = gcscope_core::timeline::summarize(&tl.runs);
    assert_eq!(runs.len(), 1, "{name}");
    runs.into_iter().next().unwrap().findings
}

use Severity::{Info, Warn};

/// (rule, trace where it fires, its severity, its evidence cycles, trace where it must not)
const CASES: &[(&str, &str, Severity, &[u32], &str)] = &[
    (
        "idle_marking",
        "greentea_map_p2_r1",
        Warn,
        &[2, 3, 10],
        "greentea_graph_p2_r1",
    ),
    (
        "assist_bound",
        "greentea_tree_p2_r1",
        Warn,
        &[15, 14, 16],
        "greentea_map_p2_r1",
    ),
    (
        "min_heap",
        "greentea_tree_p2_min-heap",
        Warn,
        // The pacer judges a cycle from the one before it: gc 1 has none.
        &[2, 3, 4],
        "greentea_tree_p2_r1",
    ),
    (
        "memory_limit",
        "greentea_pointer_p2_memlimit200",
        Warn,
        &[6, 7, 8],
        "greentea_pointer_p2_r1",
    ),
    (
        "gogc_off",
        "greentea_tree_p2_gogc-off-memlimit200",
        Info,
        &[1],
        "greentea_pointer_p2_memlimit200",
    ),
    (
        "forced",
        "greentea_tree_p2_forced",
        Warn,
        &[6, 7, 9],
        "greentea_tree_p2_r1",
    ),
    (
        "periodic",
        "greentea_idle_p2_periodic",
        Info,
        &[17],
        "greentea_tree_p2_r1",
    ),
    (
        "stw_dominates",
        "greentea_tree_p8_procs-over-cpus",
        Warn,
        &[37, 41, 29],
        "greentea_tree_p2_r1",
    ),
    (
        "pause_outlier",
        "greentea_tree_p8_procs-over-cpus-w2",
        Warn,
        &[47, 30, 72],
        "greentea_graph_p2_r1",
    ),
    (
        "live_growth",
        "greentea_heapleak_p2_live-growth",
        Warn,
        // The first cycles of its last two buckets, by cycle number (gc 16-31, gc 32-63).
        &[16, 32],
        "greentea_tree_p2_r1",
    ),
    (
        "page_density",
        "greentea_pointer_p2_gctrace2",
        Warn,
        &[],
        "greentea_pointer_p2_r1",
    ),
    (
        "overshoot",
        "legacy_graph_p2_r1",
        Info,
        &[5, 4, 1],
        "greentea_graph_p2_r1",
    ),
    (
        "roots_dominate",
        "greentea_bigglobals_tree_p2_roots-dominate",
        Info,
        &[1, 2, 39],
        "greentea_tree_p2_r1",
    ),
];

#[test]
fn each_rule_fires_where_its_condition_holds_and_not_elsewhere() {
    for &(id, fires, severity, cycles, quiet) in CASES {
        let found = findings(fires);
        let f = found
            .iter()
            .find(|f| f.id == id)
            .unwrap_or_else(|| panic!("{id} does not fire on {fires}: {found:?}"));
        assert_eq!(f.severity, severity, "{id} on {fires}");
        assert_eq!(f.cycles, cycles, "{id} on {fires}: evidence");
        assert!(
            !f.text.is_empty() && f.text.contains("Not claimed")
                || id == "periodic"
                || id == "page_density",
            "{id}: {}",
            f.text
        );
        let none = findings(quiet);
        assert!(
            none.iter().all(|f| f.id != id),
            "{id} fires on {quiet}: {none:?}"
        );
    }
}

/// A Green Tea page density over 8 objects per visit is the "strong batching" band (info);
/// under 2 the warning one.
#[test]
fn page_density_bands_follow_the_density() {
    let graph = findings("greentea_graph_p2_gctrace2");
    let f = graph.iter().find(|f| f.id == "page_density").unwrap();
    assert_eq!(f.severity, Info);
    assert!(f.text.contains("strong batching"), "{}", f.text);
    let pointer = findings("greentea_pointer_p2_gctrace2");
    let f = pointer.iter().find(|f| f.id == "page_density").unwrap();
    assert!(f.text.contains("little batching"), "{}", f.text);
}

/// Warnings come before information within a run.
#[test]
fn warnings_come_first() {
    for &(_, fires, ..) in CASES {
        let found = findings(fires);
        let first_info = found.iter().position(|f| f.severity == Info);
        let last_warn = found.iter().rposition(|f| f.severity == Warn);
        if let (Some(i), Some(w)) = (first_info, last_warn) {
            assert!(w < i, "{fires}: {found:?}");
        }
    }
}

fn cycle(text: &str) -> gcscope_model::Cycle {
    match gcscope_core::trace::parse::parse_line(text.as_bytes()) {
        gcscope_core::trace::parse::Line::Cycle { cycle, .. } => *cycle,
        other => panic!("{other:?}"),
    }
}

proptest! {
    /// One cycle shows no pattern: whatever its numbers, no rule fires.
    #[test]
    fn no_rule_fires_on_one_cycle(
        pause in 0u64..100_000, mark in 0u64..100_000, assist in 0u64..100_000,
        idle in 0u64..100_000, start in 0u64..10_000, live in 0u64..10_000,
        goal in 0u64..10_000, stacks in 0u64..1_000, procs in 1u32..64, forced in any::<bool>(),
    ) {
        let line = format!(
            "gc 1 @1000.000s 50%: {p}+{mark}+{p} ms clock, {p}+{assist}/{assist}/{idle}+{p} ms cpu, {start}->{end}->{live} MB, {goal} MB goal, {stacks} MB stacks, {stacks} MB globals, {procs} P{f}",
            p = pause,
            end = start + 5,
            f = if forced { " (forced)" } else { "" },
        );
        let mut stats = RunStats::default();
        stats.push(&cycle(&line));
        let s = stats.summary(1, None).unwrap();
        prop_assert!(s.findings.is_empty(), "{:?}", s.findings);
    }
}

#[test]
fn no_rule_fires_on_an_empty_run() {
    assert!(RunStats::default().summary(1, None).is_none());
    let tl = gcscope_core::read::read_all(&b""[..]).unwrap();
    assert!(gcscope_core::timeline::summarize(&tl.runs).is_empty());
}
