//! The readable tables of `summary` and `compare`.

use super::Source;
use crate::fmt::{escape_controls, go_ms, pct, row_spread, verdict_text, Fixed};
use crate::stats::compare::{Row, Verdict, MIN_RUNS, P99_CYCLES};
use crate::stats::findings::Severity;
use crate::stats::summary::{RunSummary, LOADED_CPUS, LOADED_SHARE};
use crate::stats::Spread;
use crate::timeline::{RetiredRun, Timeline};
use gcscope_model::NoteKind;
use std::fmt::Write;

/// The readable `summary` table.
#[must_use]
pub fn summary_text(sources: &[Source]) -> String {
    let mut out = Vec::new();
    // Writing to memory cannot fail.
    let _ = write_summary_text(sources, &mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// `summary_text`, written to `out` as it is made: a log of thousands of processes makes
/// megabytes of it, summarised and formatted on all cores, a chunk of runs at a time.
pub fn write_summary_text(
    sources: &[Source],
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    write_summary_text_after(sources, &mut [], out)
}

/// `write_summary_text` of sources whose timelines retired runs (`Timeline::retire`):
/// `retired[k]` holds the text of source `k`'s retired runs (`retired_run_text`), written
/// before its runs still held.
pub fn write_summary_text_after(
    sources: &[Source],
    retired: &mut [super::Spool],
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    for spool in retired.iter() {
        spool.check()?;
    }
    for (k, s) in sources.iter().enumerate() {
        out.write_all(source_head(s).as_bytes())?;
        if let Some(spool) = retired.get_mut(k) {
            spool.copy_to(out, 0)?;
        }
        write_runs_text(&s.timeline, out)?;
        out.write_all(source_tail(&s.timeline).as_bytes())?;
    }
    Ok(())
}

/// What `view` leaves in the terminal once the dashboard closes: each source's line as
/// `write_summary_text` writes it, and only the run its pane showed (`shown`, an index into
/// the timeline's runs), with a line saying how to get the others: a log of a million
/// processes would otherwise print them all.
///
/// # Errors
/// Writing failed.
pub fn write_shown_runs_text(
    shown: &[(Source, usize)],
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    for (s, k) in shown {
        let tl = &s.timeline;
        out.write_all(source_head(s).as_bytes())?;
        let runs = &tl.runs[..];
        // Numbered among the runs with a summary, after those retired.
        let number = tl.retired.with_cycles
            + runs
                .iter()
                .take(k + 1)
                .filter(|r| r.stats.cycles() > 0)
                .count();
        let mut o = String::new();
        if let Some(summary) = crate::timeline::summary_in_log(runs, tl.last_process(), *k) {
            run_text(&mut o, number, &summary);
        }
        let all = tl.runs_with_cycles();
        if all > 1 {
            let _ = writeln!(
                o,
                "  (the run the dashboard showed, {number} of {all}: `gcscope summary` gives \
                 every run)"
            );
        }
        o.push_str(&source_tail(tl));
        out.write_all(o.as_bytes())?;
    }
    Ok(())
}

/// A source's first lines: its counts, its window, and whether its counter restarted.
fn source_head(s: &Source) -> String {
    let tl = &s.timeline;
    // A run has a summary once it has a cycle (always, for a file).
    let runs = tl.runs_with_cycles();
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}: {}, {}, {}, {}",
        escape_controls(&s.name),
        count(runs, "run"),
        count(tl.cycle_count(), "cycle"),
        count(tl.output_count(), "output line"),
        count(tl.problems.len(), "problem")
    );
    if let Some(w) = tl.window.text() {
        let _ = writeln!(
            o,
            "  window       {w}: {} read before it, left out of every figure",
            count(tl.before_window(), "cycle")
        );
    }
    if runs > 1 {
        let _ = writeln!(
            o,
            "  the cycle counter restarted: {runs} separate runs (processes), never merged"
        );
    }
    o
}

/// A source's last lines, after its runs: notes, problems, the error it ended with.
fn source_tail(tl: &Timeline) -> String {
    let mut o = String::new();
    let notes: Vec<String> = NoteKind::ALL
        .iter()
        .map(|&k| (k, tl.note_count(k)))
        .filter(|(_, n)| *n > 0)
        .map(|(k, n)| format!("{} {}", k.name(), n))
        .collect();
    if !notes.is_empty() {
        let _ = writeln!(o, "  notes        {}", notes.join(", "));
    }
    if !tl.problems.is_empty() {
        let _ = writeln!(o, "  problems     {}:", tl.problems.len());
        for p in tl.problems.iter().take(5) {
            let _ = writeln!(o, "    line {}: {}", p.line, p.reason);
        }
        if tl.problems.len() > 5 {
            let _ = writeln!(
                o,
                "    ... {} more (--json lists all)",
                tl.problems.len() - 5
            );
        }
    }
    if let Some(err) = tl.source.error() {
        let _ = writeln!(o, "  ended with an error: {err}");
    }
    o
}

/// The runs' part of the summary table, in order. With many runs, blocks of them are
/// summarised and formatted on every core and written as they come, in bounded memory: a log
/// of thousands of processes makes megabytes of text, and building it in one string cost more
/// in fresh pages (3 us each on the CI VM) than the formatting itself.
fn write_runs_text(tl: &Timeline, out: &mut impl std::io::Write) -> std::io::Result<()> {
    const BLOCK: usize = 64;
    let runs = &tl.runs[..];
    // Runs are numbered among those with a summary (all of them, when read from text),
    // after those retired.
    let numbers: Vec<usize> = runs
        .iter()
        .scan(tl.retired.with_cycles, |n, r| {
            *n += usize::from(r.stats.cycles() > 0);
            Some(*n)
        })
        .collect();
    let last = tl.last_process();
    let format_block = |b: usize, o: &mut String| {
        let from = b * BLOCK;
        for k in (from..runs.len()).take(BLOCK) {
            if let Some(summary) = crate::timeline::summary_in_log(runs, last, k) {
                run_text(o, numbers[k], &summary);
            }
        }
    };
    let blocks = runs.len().div_ceil(BLOCK);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = cores.min(blocks / 4);
    if threads < 2 {
        let mut o = String::new();
        for b in 0..blocks {
            o.clear();
            format_block(b, &mut o);
            out.write_all(o.as_bytes())?;
        }
        return Ok(());
    }
    std::thread::scope(|scope| {
        // Lane t formats blocks t, t + threads, ...: lane 0 is this thread (its allocator
        // pages are warm; a new thread's are fresh, and page faults cost more than formatting
        // here), each other lane a thread that sends its blocks in order and gets the written
        // buffers back for reuse.
        let mut lanes = Vec::with_capacity(threads - 1);
        for t in 1..threads {
            let (tx, rx) = std::sync::mpsc::sync_channel::<String>(2);
            let (back_tx, back_rx) = std::sync::mpsc::sync_channel::<String>(4);
            let format_block = &format_block;
            scope.spawn(move || {
                for b in (t..blocks).step_by(threads) {
                    let mut o = back_rx.try_recv().unwrap_or_default();
                    o.clear();
                    format_block(b, &mut o);
                    // The writer is gone only when writing failed.
                    if tx.send(o).is_err() {
                        return;
                    }
                }
            });
            lanes.push((rx, back_tx));
        }
        let mut mine = String::new();
        for b in 0..blocks {
            let lane = b % threads;
            if lane == 0 {
                mine.clear();
                format_block(b, &mut mine);
                out.write_all(mine.as_bytes())?;
                continue;
            }
            let (rx, back) = &lanes[lane - 1];
            let Ok(o) = rx.recv() else {
                // A formatting thread panicked: the scope reports it.
                break;
            };
            out.write_all(o.as_bytes())?;
            let _ = back.try_send(o);
        }
        Ok(())
    })
}

/// A retired run's part of the summary table (`write_summary_text_after`), as
/// `write_summary_text` would have written it.
pub fn retired_run_text(r: &RetiredRun, spool: &mut super::Spool) {
    if let (Some(number), Some(summary)) = (r.number, r.summary()) {
        let mut o = String::new();
        run_text(&mut o, number, &summary);
        spool.push(o.as_bytes());
    }
}

pub fn run_text(o: &mut String, i: usize, r: &RunSummary) {
    let restart = r
        .restart
        .map(|(new, prev)| format!(", counter restarted: gc {new} after gc {prev}"))
        .unwrap_or_default();
    let label = r
        .label
        .as_deref()
        .map(|l| format!("{}; ", escape_controls(l)))
        .unwrap_or_default();
    // Line 0: the cycles were not read from text (the lab, live).
    let from = match r.first_line {
        0 => "not read from a log".to_string(),
        n => format!("from line {n}"),
    };
    let _ = writeln!(
        o,
        "run {i} ({from}): {label}{}, {} P{restart}",
        r.format, r.procs
    );
    let rate = r
        .cycles_per_s
        .map(|c| match r.missing_cycles {
            0 => format!(", {} cycles/s", Fixed(c, 2)),
            m => format!(
                ", {} cycles/s by cycle numbers ({m} cycles' lines missing: sampled or lost)",
                Fixed(c, 2)
            ),
        })
        .unwrap_or_default();
    let mut setup = match r.setup_cycles {
        0 => String::new(),
        n => format!(" (+{n} during the lab's setup, left out of the figures)"),
    };
    if r.before_window > 0 {
        setup.push_str(&format!(
            " (+{} before the window, left out)",
            r.before_window
        ));
    }
    if r.saturated {
        let _ = writeln!(
            o,
            "  problem      a sum reached 2^64-1 ns (about 585 years) and stopped there: the \
             sums and every figure made of them are lower bounds, not exact"
        );
    }
    if r.earlier_process {
        let _ = writeln!(
            o,
            "  process      an earlier process of this log: under go run or go test, the go \
             command's or a compile step's; the program's cycles come last"
        );
    }
    let _ = writeln!(
        o,
        "  cycles       {}{setup} ({} forced), gc {}..{}, @{}s..@{}s{rate}",
        r.cycles,
        r.forced,
        r.first_cycle,
        r.last_cycle,
        Fixed(r.start_s, 3),
        Fixed(r.end_s, 3)
    );
    let _ = writeln!(
        o,
        "  GC P time    Go's GC {}% (of the Ps' time, at the last cycle); {} ms in all, {} ms compulsory (total - idle)",
        r.final_gc_pct,
        go_ms(r.gc_cpu_ms),
        go_ms(r.compulsory_cpu_ms)
    );
    let c = &r.cpu_ms;
    let _ = writeln!(
        o,
        "  P time ms    assist {}  background {}  idle {}  STW {}+{}  idle share of GC P time {}",
        go_ms(c.assist),
        go_ms(c.background),
        go_ms(c.idle),
        go_ms(c.sweep_term),
        go_ms(c.mark_term),
        pct(r.idle_share)
    );
    let m = &r.per_cycle_median_ms;
    let _ = writeln!(
        o,
        "  per cycle    median ms: assist {}  background {}  idle {}  GC P time {}  compulsory {}; mean compulsory {}",
        go_ms(m.assist),
        go_ms(m.background),
        go_ms(m.idle),
        go_ms(m.gc_cpu),
        go_ms(m.compulsory_cpu),
        go_ms(r.compulsory_ms_per_cycle())
    );
    for (label, p, what) in [
        ("pause ms ", &r.pause_ms, "STW sweep + mark termination"),
        ("mark ms  ", &r.mark_ms, "concurrent, wall clock"),
    ] {
        let _ = writeln!(
            o,
            "  {label}    {}  ({what})",
            crate::fmt::percentiles_text(p, r.cycles)
        );
    }
    let goal = r
        .heap_goal_mb
        .map(|g| format!(", goal {}..{} MB", g.min, g.max))
        .unwrap_or_else(|| ", no goal printed".into());
    let _ = writeln!(
        o,
        "  heap         live {}..{} MB{goal}",
        r.heap_live_mb.min, r.heap_live_mb.max
    );
    if let Some(p) = &r.pacer {
        let _ = writeln!(o, "  pacer        {}", crate::fmt::pacer_text(p));
    }
    // One page scan density a run: a lab trace carries the lab's own (objects per page
    // visit, `lab:` lines), which `compare` and the dashboard use, beside the gctrace=2-style
    // `scan:` counters it also writes; those only count visits Go's way (an object scanned
    // alone is a visit of its own) and stay in `--json` (`scan`).
    if let (None, Some(s)) = (&r.lab, &r.scan) {
        match s.objects_per_span_visit {
            Some(d) => {
                let _ = writeln!(
                    o,
                    "  page scan    {} objects per span visit ({}, dense share {}) in {} with gctrace=2",
                    Fixed(d, 1),
                    count(s.span_visits.unwrap_or(0), "visit"),
                    pct(s.dense_share),
                    count(s.cycles_with_scan, "cycle")
                );
            }
            None => {
                let _ = writeln!(
                    o,
                    "  page scan    {} scanned (legacy collector: no span counters)",
                    count(s.objects, "object")
                );
            }
        }
    }
    if let Some(l) = &r.lab {
        let density = l
            .objects_per_page_visit
            .map_or("n/a".into(), |d| Fixed(d, 1).to_string());
        let _ = writeln!(
            o,
            "  page scan    {density} objects per page visit ({}, {}, {} MiB) in {}",
            count(l.page_visits, "visit"),
            count(l.objects_scanned, "object"),
            l.bytes_scanned >> 20,
            count(l.cycles_with_lab, "lab cycle")
        );
        let _ = writeln!(
            o,
            "  lab          {} freed; GC thread CPU {} ms, {} ms/cycle (mark segments plus the STW phases' own CPU)",
            count(l.objects_freed, "object"),
            Fixed(l.thread_cpu_ms, 1),
            Fixed(l.thread_cpu_ms_per_cycle, 3)
        );
        if let Some(share) = l.offcpu_share {
            let loaded = if share > LOADED_SHARE {
                ": the machine was loaded; CPU figures are on-CPU time, wall-clock ones \
                 (mark wall, pauses, cycles/s, GC CPU %) moved with the load"
            } else {
                ""
            };
            let _ = writeln!(
                o,
                "  off-CPU      {} ms of mark segments descheduled by the OS, {} of their wall time{loaded}",
                Fixed(l.offcpu_ms, 1),
                pct(Some(share))
            );
        }
    }
    for f in &r.findings {
        let evidence = if f.cycles.is_empty() {
            String::new()
        } else {
            format!(
                " [gc {}]",
                f.cycles
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let sev = match f.severity {
            Severity::Warn => "warn",
            Severity::Info => "info",
        };
        let _ = writeln!(o, "  finding      {sev} {}{evidence}: {}", f.id, f.text);
    }
}

/// `1 cycle`, `2 cycles`: a count and its noun, in the singular only for one.
fn count<N: std::fmt::Display + PartialEq + From<u8>>(n: N, noun: &str) -> String {
    if n == N::from(1) {
        format!("{n} {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[must_use]
pub fn compare_text(a: &[Source], b: &[Source]) -> String {
    compare_render(a, b, false)
}

/// `compare`'s result as Markdown, for a PR comment or an issue: the same figures, verdicts
/// and footnotes as the text, the table as a pipe table (its cells' `|` escaped).
#[must_use]
pub fn compare_markdown(a: &[Source], b: &[Source]) -> String {
    compare_render(a, b, true)
}

fn compare_render(a: &[Source], b: &[Source], markdown: bool) -> String {
    let c = super::compare_json(a, b);
    let mut o = String::new();
    let _ = writeln!(
        o,
        "A: {} ({} run{})",
        escape_controls(&c.a.join(", ")),
        c.a_runs,
        if c.a_runs == 1 { "" } else { "s" }
    );
    let _ = writeln!(
        o,
        "B: {} ({} run{})",
        escape_controls(&c.b.join(", ")),
        c.b_runs,
        if c.b_runs == 1 { "" } else { "s" }
    );
    if let Some(w) = a.first().and_then(|s| s.timeline.window.text()) {
        let before: usize = a.iter().chain(b).map(|s| s.timeline.before_window()).sum();
        let _ = writeln!(
            o,
            "window: {w} in every run ({before} cycles before it left out)"
        );
    }
    if !c.mismatch.is_empty() {
        let _ = writeln!(
            o,
            "not one experiment: the lab runs differ in more than the marker ({}); every \
             figure below moves with that too",
            c.mismatch.join(", ")
        );
    }
    // A side's cell names how many of its runs carry the figure when not all do.
    let cell = |r: &Row, s: &Option<Spread>, runs: usize| match s {
        Some(x) if x.n < runs => format!("{} ({} of {runs} runs)", row_spread(r, s), x.n),
        _ => row_spread(r, s),
    };
    // A figure no run on either side has (e.g. page scan density without gctrace=2) gets
    // no row.
    let shown: Vec<&Row> = c.metrics.iter().filter(|r| r.has_values()).collect();
    let one_sided = shown.iter().any(|r| r.a.is_none() || r.b.is_none());
    let rows: Vec<[String; 5]> = shown
        .iter()
        .map(|r| {
            [
                r.label.to_string(),
                cell(r, &r.a, c.a_runs),
                cell(r, &r.b, c.b_runs),
                verdict_text(r),
                // Why there is no verdict; with one, its p-value (from 4 runs a side).
                match (&r.why, r.verdict) {
                    (Some(why), _) if r.a.is_some() && r.b.is_some() => why.clone(),
                    (_, Verdict::None) => String::new(),
                    _ => r.p.map(|p| format!("p={p:.3}")).unwrap_or_default(),
                },
            ]
        })
        .collect();
    let head = [
        "metric".to_string(),
        "A median [min-max]".into(),
        "B median [min-max]".into(),
        "B vs A".into(),
        String::new(),
    ];
    let mut w = [0usize; 5];
    for r in rows.iter().chain(std::iter::once(&head)) {
        for (i, cell) in r.iter().enumerate() {
            w[i] = w[i].max(cell.chars().count());
        }
    }
    if markdown {
        // Lines above the table are paragraphs of their own.
        o = o.lines().map(|l| format!("{l}\n\n")).collect();
        let md = |s: &str| s.replace('|', "\\|");
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | |",
            head[0], head[1], head[2], head[3]
        );
        let _ = writeln!(o, "|---|--:|--:|--:|---|");
        for r in &rows {
            let _ = writeln!(
                o,
                "| {} | {} | {} | {} | {} |",
                md(&r[0]),
                md(&r[1]),
                md(&r[2]),
                md(&r[3]),
                md(&r[4])
            );
        }
        o.push('\n');
    } else {
        for r in std::iter::once(&head).chain(rows.iter()) {
            let _ = writeln!(
                o,
                "{:<w0$}  {:>w1$}  {:>w2$}  {:>w3$}  {}",
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                w0 = w[0],
                w1 = w[1],
                w2 = w[2],
                w3 = w[3]
            );
        }
    }
    if shown.iter().any(|r| verdict_text(r) == "~") {
        let _ = writeln!(
            o,
            "~ : no verdict, for the reason beside it: a direction needs {MIN_RUNS} runs a side \
             whose ranges do not overlap (the change is in --json)."
        );
    }
    let _ = writeln!(
        o,
        "B vs A: % is a change of A's median, pp a difference in percentage points (for \
         shares), × the ratio B/A (for densities and rates)."
    );
    if one_sided {
        let _ = writeln!(
            o,
            "A only, B only: no run on the other side has the figure (n/a), so nothing is compared."
        );
    }
    if shown.iter().any(|r| r.label.contains("(=max")) {
        let _ = writeln!(
            o,
            "p99 (=max, <{P99_CYCLES}): a run has fewer than {P99_CYCLES} cycles, so its p99 \
             is its maximum. mean: a run's total over its cycles; median: its middle cycle."
        );
    }
    if c.binned {
        let _ = writeln!(
            o,
            "binned: a side has over {} runs, so its medians and p-values are read from bins \
             of at most 0.1 % of their values (exact for Go's printed figures, within 0.1 % \
             for sums); min and max are exact.",
            crate::stats::dist::EXACT_CAP
        );
    }
    let programs = a
        .iter()
        .chain(b)
        .any(|s| !s.timeline.programs.is_empty() || s.timeline.recorded_other_cpus.is_some());
    let (la, lb) = (c.a_loaded_runs.unwrap_or(0), c.b_loaded_runs.unwrap_or(0));
    if la + lb > 0 && programs {
        let _ = writeln!(
            o,
            "loaded machine: {} of A's and {} of B's runs shared the machine with over {} CPUs \
             of other work; Go's GC P time figures count wall time, so they moved with the load \
             too. Repeat on an idle machine.",
            la, lb, LOADED_CPUS
        );
    } else if la + lb > 0 {
        let _ = writeln!(
            o,
            "loaded machine: {} of A's and {} of B's lab runs spent over {}% of their mark \
             time descheduled by the OS; CPU rows are on-CPU time, wall-clock rows (mark \
             wall, pauses, cycles/s, Go's GC %) moved with the load.",
            la,
            lb,
            (LOADED_SHARE * 100.0).round()
        );
    }
    if c.a_runs < 4 || c.b_runs < 4 {
        let _ = writeln!(o, "(p-values need at least 4 runs a side)");
    }
    // What one side's runs show and the other's do not (`summary` says why, per run).
    let differ: Vec<String> = c
        .findings
        .iter()
        .filter(|f| f.a_runs * c.b_runs != f.b_runs * c.a_runs)
        .map(|f| {
            format!(
                "{} in A {}/{} runs, B {}/{}",
                f.id, f.a_runs, c.a_runs, f.b_runs, c.b_runs
            )
        })
        .collect();
    if !differ.is_empty() {
        let _ = writeln!(o, "findings that differ: {}", differ.join("; "));
    }
    if markdown {
        // The footnotes under the table, each a paragraph.
        let (table, notes) = o.split_at(o.rfind("|\n").map_or(0, |i| i + 2));
        let notes: String = notes
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| format!("\n{l}\n"))
            .collect();
        return format!("{table}{notes}");
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With many runs the table is formatted in blocks on several threads and written as the
    /// blocks come: every run, in order, numbered, as one thread formats them.
    #[test]
    fn many_runs_are_written_in_order() {
        let mut text = String::new();
        for r in 0..1500 {
            for n in 1..=2 {
                text += &format!("gc {n} @0.{n}s 1%: 0.01+1.0+0.01 ms clock, 0.02+0.1/0.5/0+0.02 ms cpu, 4->5->{} MB, 5 MB goal, 2 P\n", r % 50);
            }
        }
        let tl = crate::read::read_all(text.as_bytes()).unwrap();
        assert_eq!(tl.runs.len(), 1500);
        let mut expected = String::new();
        for (i, s) in crate::timeline::summarize(&tl.runs).iter().enumerate() {
            run_text(&mut expected, i + 1, s);
        }
        // 1500 processes: all but the last are marked as earlier ones.
        assert_eq!(
            expected.matches("an earlier process of this log").count(),
            1499
        );
        let mut got = Vec::new();
        write_runs_text(&tl, &mut got).unwrap();
        assert!(String::from_utf8(got).unwrap() == expected);
    }
}
