//! Cycle -> gctrace line, digit for digit as the Go runtime prints it (`fmtNSAsMS`, `>>20`).
//!
//! The lab prints its cycles with this, and the dashboard shows a cycle's line with it; the
//! round trip with `parse.rs` is a property test.

use gcscope_model::units::itoa_div;
pub use gcscope_model::units::ms;
use gcscope_model::Ns;
use gcscope_model::{Cycle, LabStats, ScanCounts, ScanStats};
use std::fmt::Write;

/// The Go-format line for a cycle (without newline).
pub fn line(c: &Cycle) -> String {
    let mut s = String::with_capacity(160);
    let _ = write!(
        s,
        "gc {} @{}s {}%",
        c.num,
        itoa_div(c.at / 1_000_000, 3),
        c.cum_pct
    );
    if c.leak_check {
        s.push_str(" (checking for goroutine leaks)");
    }
    s.push_str(": ");
    let clock: Vec<Ns> = match c.go15.as_deref() {
        Some(g) => vec![
            c.clock.sweep_term,
            g.clock_scan,
            g.clock_install_wb,
            c.clock.mark,
            c.clock.mark_term,
        ],
        None => vec![c.clock.sweep_term, c.clock.mark, c.clock.mark_term],
    };
    let clock: Vec<String> = clock.into_iter().map(ms).collect();
    s.push_str(&clock.join("+"));
    s.push_str(" ms clock, ");
    s.push_str(&ms(c.cpu.sweep_term));
    if let Some(g) = c.go15.as_deref() {
        let _ = write!(s, "+{}+{}", ms(g.cpu_scan), ms(g.cpu_install_wb));
    }
    let _ = write!(
        s,
        "+{}/{}/{}+{} ms cpu, {}->{}->{} MB",
        ms(c.cpu.assist),
        ms(c.cpu.background),
        ms(c.cpu.idle),
        ms(c.cpu.mark_term),
        c.heap_start >> 20,
        c.heap_end >> 20,
        c.heap_live >> 20
    );
    if let Some(goal) = c.goal {
        let _ = write!(s, ", {} MB goal", goal >> 20);
    }
    if let Some(stacks) = c.stacks {
        let _ = write!(s, ", {} MB stacks", stacks >> 20);
    }
    if let Some(globals) = c.globals {
        let _ = write!(s, ", {} MB globals", globals >> 20);
    }
    let _ = write!(s, ", {} P", c.procs);
    if c.forced {
        s.push_str(" (forced)");
    }
    s
}

/// The lab's extension line for a cycle (without newline), printed immediately before the
/// cycle's gc line: `lab: objs N bytes N visits N freed N cpu_ns N hist a,b,c`, with `hist -`
/// for an empty histogram. `parse.rs` reads it back exactly.
#[must_use]
pub fn lab_line(l: &LabStats) -> String {
    let mut s = String::with_capacity(96 + 8 * l.density_hist.len());
    let _ = write!(
        s,
        "lab: objs {} bytes {} visits {} freed {} cpu_ns {} offcpu_ns {} hist ",
        l.objects_scanned, l.bytes_scanned, l.page_visits, l.objects_freed, l.thread_cpu, l.offcpu
    );
    if l.density_hist.is_empty() {
        s.push('-');
    }
    for (i, n) in l.density_hist.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(s, "{n}");
    }
    if let Some(t) = l.turn {
        let _ = write!(s, " turn {t}");
    }
    if l.setup {
        s.push_str(" setup");
    }
    s
}

/// The `scan:` lines Go prints under gctrace=2 for these counters: the total, then one per
/// size class (`L` for large objects).
#[must_use]
pub fn scan_lines(s: &ScanStats) -> String {
    let mut out = format!("scan: total {}\n", scan_counts(&s.total));
    for (size, c) in &s.classes {
        let class = if *size == 0 {
            "L".to_string()
        } else {
            format!("{size}B")
        };
        out.push_str(&format!("scan: class {class} {}\n", scan_counts(c)));
    }
    out
}

fn scan_counts(c: &ScanCounts) -> String {
    match c.green_tea {
        Some(g) => format!(
            "{}+{}+{}={} objs, {}+{}={} spans",
            g.sparse_objs,
            g.span_objs_sparse,
            g.span_objs_dense,
            g.sparse_objs + g.span_objs_sparse + g.span_objs_dense,
            g.spans_sparse,
            g.spans_dense,
            g.spans_sparse + g.spans_dense
        ),
        None => format!("{} objs", c.objs),
    }
}

/// A cycle as trace text: the `lab:` line, the gc line, the `scan:` line.
#[must_use]
pub fn cycle_text(c: &Cycle) -> String {
    let mut s = String::with_capacity(400);
    if let Some(l) = &c.lab {
        s.push_str(&lab_line(l));
        s.push('\n');
    }
    s.push_str(&line(c));
    s.push('\n');
    if let Some(scan) = &c.scan {
        s.push_str(&scan_lines(scan));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::parse::{parse_line, Line};

    #[test]
    fn lab_line_text_and_round_trip() {
        let l = LabStats {
            objects_scanned: 123456,
            bytes_scanned: 9876543,
            page_visits: 2345,
            objects_freed: 34567,
            density_hist: vec![10, 3, 2, 0, 1],
            thread_cpu: 12345678,
            offcpu: 4321,
            setup: false,
            turn: None,
        };
        let text = lab_line(&l);
        assert_eq!(
            text,
            "lab: objs 123456 bytes 9876543 visits 2345 freed 34567 cpu_ns 12345678 offcpu_ns 4321 hist 10,3,2,0,1"
        );
        assert_eq!(parse_line(text.as_bytes()), Line::Lab(Box::new(l.clone())));
        // A lab trace written before off-CPU time was measured reads with 0.
        let old = "lab: objs 123456 bytes 9876543 visits 2345 freed 34567 cpu_ns 12345678 hist 10,3,2,0,1";
        assert_eq!(
            parse_line(old.as_bytes()),
            Line::Lab(Box::new(LabStats {
                offcpu: 0,
                ..l.clone()
            }))
        );
        for l in [
            LabStats::default(),
            LabStats {
                objects_scanned: u64::MAX,
                bytes_scanned: u64::MAX,
                page_visits: u64::MAX,
                objects_freed: u64::MAX,
                density_hist: vec![u64::MAX],
                thread_cpu: u64::MAX,
                offcpu: u64::MAX,
                setup: true,
                turn: Some(3),
            },
            LabStats {
                density_hist: vec![0],
                ..l
            },
        ] {
            let text = lab_line(&l);
            assert_eq!(
                parse_line(text.as_bytes()),
                Line::Lab(Box::new(l)),
                "{text}"
            );
        }
        assert!(lab_line(&LabStats::default()).ends_with(" hist -"));
    }

    #[test]
    fn fmt_ns_as_ms_like_the_runtime() {
        for (ns, text) in [
            (0, "0"),
            (999, "0"),
            (1_000, "0.001"),
            (80_000, "0.080"),
            (94_400, "0.094"),
            (320_000, "0.32"),
            (6_000_000, "6.0"),
            (9_999_999, "9.9"),
            (10_000_000, "10"),
            (54_700_000, "54"),
            (2_192_000_000, "2192"),
        ] {
            assert_eq!(ms(ns), text, "{ns}");
        }
    }

    #[test]
    fn real_lines_round_trip() {
        for l in [
            "gc 6 @0.458s 7%: 0.080+54+0.094 ms clock, 0.32+0.098/53/103+0.37 ms cpu, 98->105->103 MB, 114 MB goal, 0 MB stacks, 0 MB globals, 4 P",
            "gc 1 @3.842s 0%: 0.029+0.31+0.005 ms clock, 0.46+0/0.42/0.25+0.084 ms cpu, 4->4->3 MB, 5 MB goal, 16 P (forced)",
            "gc 47 @1.101s 13%: 0.027+6.1+0.001+0.29+1.0 ms clock, 0.11+6.1+0+6.0/0.015/0.021+4.3 ms cpu, 6->7->5 MB, 7 MB goal, 4 P",
            "gc 7 @0.639s 13% (checking for goroutine leaks): 0.065+20+0.021 ms clock, 0.13+0/6.5/17+0.042 ms cpu, 142->146->18 MB, 283 MB goal, 0 MB stacks, 0 MB globals, 2 P (forced)",
            "gc 763 @77536.239s 1%: 0.11+2192+0.75 ms clock, 0.92+9269/4379/3243+6.0 ms cpu, 6370->6390->3298 MB, 6533 MB goal, 8 P",
        ] {
            let Line::Cycle { cycle, .. } = parse_line(l.as_bytes()) else {
                panic!("{l}")
            };
            assert_eq!(line(&cycle), l);
        }
    }
}
