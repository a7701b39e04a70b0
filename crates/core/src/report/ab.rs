//! `gcscope ab`'s report: how the runs went (in the order they ran), then `compare`'s table
//! or JSON over the runs that ended well.

use super::{compare_json, compare_text, CompareJson, Source};
use crate::fmt::escape_controls;
use crate::timeline::Program;
use serde::Serialize;
use std::fmt::Write;

#[derive(Serialize)]
pub struct AbJson {
    /// Every run in the order it ran (warm-ups included, failed ones too).
    pub runs: Vec<AbRunJson>,
    /// Why the A/B ended before its last run, if it did.
    pub stopped: Option<String>,
    /// A side's Go build and the GODEBUG it ran with.
    pub a_build: Option<String>,
    pub b_build: Option<String>,
    pub godebug: Option<String>,
    #[serde(flatten)]
    pub compare: CompareJson,
}

#[derive(Serialize)]
pub struct AbRunJson {
    pub side: char,
    pub run: usize,
    pub warmup: bool,
    /// Exit code, or 128 + the signal, as a shell reports it.
    pub status: i32,
    pub status_text: String,
    /// `timeout` or `user` when gcscope stopped it.
    pub stopped: Option<&'static str>,
    /// Counted as a sample: not a warm-up, and ended by itself with status 0.
    pub sample: bool,
    pub wall_s: f64,
    pub cpu_s: Option<f64>,
    /// Go's GC P time over the run's Go processes, s (wall time while a GC worker holds a
    /// P: more than `cpu_s` when the machine was oversubscribed).
    pub gc_p_time_s: Option<f64>,
    /// CPUs other processes used meanwhile (`LOADED_CPUS`: loaded).
    pub other_cpus: Option<f64>,
    pub cycles: usize,
    /// `--metric` figures by name.
    pub values: std::collections::BTreeMap<String, f64>,
}

/// Each side's programs, interleaved back into the order they ran (A B A B ...).
fn runs(a: &[Source], b: &[Source]) -> Vec<AbRunJson> {
    let side = |s: &[Source], letter: char| -> Vec<AbRunJson> {
        s.iter()
            .flat_map(|src| {
                src.timeline
                    .programs
                    .iter()
                    .map(|p| run_json(p, letter, &src.timeline))
            })
            .collect()
    };
    let (ra, rb) = (side(a, 'A'), side(b, 'B'));
    let mut all = Vec::new();
    let (mut ia, mut ib) = (ra.into_iter(), rb.into_iter());
    loop {
        match (ia.next(), ib.next()) {
            (None, None) => break,
            (x, y) => all.extend(x.into_iter().chain(y)),
        }
    }
    all
}

fn run_json(p: &Program, side: char, tl: &crate::timeline::Timeline) -> AbRunJson {
    let exit = p.exit;
    AbRunJson {
        side,
        run: p.start.ab.map_or(0, |(_, r)| r),
        warmup: p.start.warmup,
        status: exit.map_or(-1, |e| e.status.shell_code()),
        status_text: exit.map_or("did not end".into(), |e| e.status.to_string()),
        stopped: exit.and_then(|e| e.stopped).map(|s| match s {
            gcscope_model::Stopped::Timeout => "timeout",
            gcscope_model::Stopped::User => "user",
        }),
        sample: p.is_sample(),
        wall_s: exit.map_or(0.0, |e| e.wall_s),
        cpu_s: exit.and_then(|e| e.cpu_s),
        gc_p_time_s: p.p_time_and_cpu_s(tl).map(|(p, _)| p),
        other_cpus: exit.and_then(|e| e.other_cpus),
        cycles: p.main_run(tl).map_or(0, |r| r.stats.cycles()),
        values: p.values.iter().cloned().collect(),
    }
}

/// Said when Go's GC P time exceeded the process's whole CPU time in any run, from
/// `(gc P time s, process CPU s)` per run: those runs' GC figures are not CPU seconds.
#[must_use]
pub fn p_time_over_cpu(runs: &[(f64, f64)]) -> Option<String> {
    let over: Vec<f64> = runs
        .iter()
        .filter(|(p, cpu)| p > cpu)
        .map(|(p, cpu)| if *cpu > 0.0 { p / cpu } else { f64::INFINITY })
        .collect();
    let most = over.iter().copied().reduce(f64::max)?;
    let by = if most.is_finite() {
        format!("by up to {most:.1}x")
    } else {
        "with no CPU time measured".to_string()
    };
    let which = if runs.len() == 1 {
        "Go's GC P time exceeded the process's CPU time (user + sys)".to_string()
    } else {
        format!(
            "in {} of {} runs Go's GC P time exceeded the process's CPU time (user + sys)",
            over.len(),
            runs.len()
        )
    };
    Some(format!(
        "oversubscribed: {which}, {by}: Go books a GC worker's wall time while it holds a P, \
         so on this machine its GC figures are P time, not CPU seconds"
    ))
}

fn first_program(s: &[Source]) -> Option<&Program> {
    s.iter().find_map(|s| s.timeline.programs.first())
}

pub fn ab_json(a: &[Source], b: &[Source], stopped: Option<&str>) -> AbJson {
    AbJson {
        runs: runs(a, b),
        stopped: stopped.map(str::to_string),
        a_build: first_program(a).and_then(|p| p.start.build.clone()),
        b_build: first_program(b).and_then(|p| p.start.build.clone()),
        godebug: first_program(a).map(|p| p.start.godebug.clone()),
        compare: compare_json(a, b),
    }
}

#[must_use]
pub fn ab_text(a: &[Source], b: &[Source], stopped: Option<&str>) -> String {
    ab_render(a, b, stopped, false)
}

/// `ab`'s result as Markdown: its run lines as paragraphs, then `compare`'s Markdown table.
#[must_use]
pub fn ab_markdown(a: &[Source], b: &[Source], stopped: Option<&str>) -> String {
    ab_render(a, b, stopped, true)
}

fn ab_render(a: &[Source], b: &[Source], stopped: Option<&str>, markdown: bool) -> String {
    let j = ab_json(a, b, stopped);
    let mut o = String::new();
    let order: String = j
        .runs
        .iter()
        .map(|r| {
            let mut s = r.side.to_string();
            if r.warmup {
                s = s.to_lowercase();
            }
            if !r.sample && (!r.warmup || r.status != 0 || r.stopped.is_some()) {
                s.push('!');
            }
            s
        })
        .collect::<Vec<_>>()
        .join(" ");
    let _ = writeln!(
        o,
        "order: {order}   (a b: warm-up, !: failed; never two at once)"
    );
    for (side, build) in [("A", &j.a_build), ("B", &j.b_build)] {
        if let Some(b) = build {
            let _ = writeln!(o, "{side} built with {}", escape_controls(b));
        }
    }
    if let Some(g) = &j.godebug {
        let _ = writeln!(o, "GODEBUG={}", escape_controls(g));
    }
    // Failed runs, warm-ups too (a warm-up that fails stops the A/B as a run does).
    let failed: Vec<&AbRunJson> = j
        .runs
        .iter()
        .filter(|r| !r.sample && (!r.warmup || r.status != 0 || r.stopped.is_some()))
        .collect();
    for r in &failed {
        let _ = writeln!(
            o,
            "failed: {} {} {}: {}{}, left out",
            r.side,
            if r.warmup { "warm-up" } else { "run" },
            r.run,
            r.status_text,
            match r.stopped {
                Some("timeout") => " (stopped at the time cap)",
                Some(_) => " (stopped)",
                None => "",
            }
        );
    }
    let others: Vec<f64> = j.runs.iter().filter_map(|r| r.other_cpus).collect();
    if let Some(max) = others.iter().copied().reduce(f64::max) {
        let mean = others.iter().sum::<f64>() / others.len() as f64;
        let _ = writeln!(
            o,
            "machine: other processes used {mean:.2} CPUs on average during the runs (most \
             {max:.2})"
        );
    }
    let pairs: Vec<(f64, f64)> = j
        .runs
        .iter()
        .filter_map(|r| Some((r.gc_p_time_s?, r.cpu_s?)))
        .collect();
    if let Some(note) = p_time_over_cpu(&pairs) {
        let _ = writeln!(o, "{note}");
    }
    if let Some(why) = stopped {
        let _ = writeln!(o, "stopped early: {why}");
    }
    let _ = writeln!(o);
    if j.compare.a_runs == 0 || j.compare.b_runs == 0 {
        // Runs that ended well but printed no gc line are not failures of the program: said
        // apart, with how Go prints them.
        let silent = |side: &[Source]| -> usize {
            side.iter()
                .map(|s| {
                    s.timeline
                        .programs
                        .iter()
                        .filter(|p| p.is_sample() && p.main_run(&s.timeline).is_none())
                        .count()
                })
                .sum()
        };
        let (sa, sb) = (silent(a), silent(b));
        if sa + sb > 0 {
            let _ = writeln!(
                o,
                "nothing to compare: {sa} of A's and {sb} of B's runs ended well but printed no \
                 gc line (gctrace was set in GODEBUG: is it a Go program, does it send its \
                 stderr elsewhere, or set GODEBUG itself?)"
            );
        } else {
            let _ = writeln!(
                o,
                "nothing to compare: {} of A's and {} of B's runs ended well (status 0, not \
                 stopped)",
                j.compare.a_runs, j.compare.b_runs
            );
        }
        return o;
    }
    if markdown {
        let mut md: String = o
            .lines()
            .filter(|l| !l.is_empty())
            .map(|l| format!("{l}\n\n"))
            .collect();
        md.push_str(&super::compare_markdown(a, b));
        return md;
    }
    o.push_str(&compare_text(a, b));
    o
}
