//! `summary` and `compare`: the headless figures of recorded traces.

use super::{print, print_json, read_sources_with, write_stdout};
use anyhow::{bail, Context, Result};
use gcscope_core::report;
use gcscope_core::timeline::Retire;
use gcscope_core::timeline::Timeline;
use gcscope_core::trace::metric::UserMetric;
use gcscope_source as source;
use std::io::Write;
use std::path::PathBuf;

pub fn summary(
    files: &[PathBuf],
    json: bool,
    csv: bool,
    format: super::SummaryFormat,
    window: gcscope_core::timeline::Window,
) -> Result<()> {
    // Reads and exits, starting no program.
    source::read::base_pages_only();
    if csv {
        if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
            bail!("standard input (-) can be read only once");
        }
        super::stdin_not_a_terminal(files)?;
        // Rows are written as the input is read: nothing is held but the cycle being read.
        let out = std::io::stdout().lock();
        let mut rows = report::CsvRows::new(std::io::BufWriter::with_capacity(1 << 16, out));
        rows.window = window;
        for f in files {
            let name = f.display().to_string();
            rows.source(&name, |sink| -> Result<()> {
                Ok(source::stream_path(f, sink)?)
            })
            .map_err(|e| match e.is::<gcscope_core::Error>() {
                true => e.context("writing the output"),
                false => e,
            })?;
        }
        return rows.finish().context("writing the output");
    }
    let markdown = format == super::SummaryFormat::Markdown && !json;
    // Text, JSON and Markdown keep only each source's latest runs: an older one is summarised
    // and its part of the output spooled as soon as no cycle can reach it (`Timeline::retire`).
    let retired = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let spools = retired.clone();
    let sources = read_sources_with(files, false, window, |name, tl| {
        let spools = spools.clone();
        let name = name.to_string();
        let k = {
            let mut all = lock(&spools);
            all.push((
                report::Spool::default(),
                report::JsonSpools::default(),
                report::MarkdownSpools::default(),
            ));
            all.len() - 1
        };
        tl.retire = Some(Retire::new(move |r| {
            let mut all = lock(&spools);
            let (text, js, md) = &mut all[k];
            if json {
                report::retired_run_json(&r, &name, js);
            } else if markdown {
                report::retired_run_markdown(&r, &name, md);
            } else {
                report::retired_run_text(&r, text);
            }
        }));
    })?;
    super::hint_no_gc_lines(&sources);
    let mut retired = std::mem::take(&mut *lock(&retired));
    let printed = if json {
        let mut js: Vec<_> = retired.drain(..).map(|(_, j, _)| j).collect();
        write_stdout(|out| {
            let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
            report::write_summary_json_after(&sources, &mut js, &mut w)?;
            w.write_all(b"\n")?;
            w.flush()
        })
    } else if markdown {
        let mut md: Vec<_> = retired.drain(..).map(|(_, _, m)| m).collect();
        write_stdout(|out| {
            let mut w = std::io::BufWriter::with_capacity(1 << 16, out);
            report::write_summary_markdown_after(&sources, &mut md, &mut w)?;
            w.flush()
        })
    } else {
        let mut text: Vec<_> = retired.drain(..).map(|(t, _, _)| t).collect();
        write_stdout(|out| report::write_summary_text_after(&sources, &mut text, out))
    };
    // The process ends here: freeing a million-line timeline only costs time.
    std::mem::forget(sources);
    printed
}

pub fn compare(
    a: &[PathBuf],
    b: &[PathBuf],
    json: bool,
    format: super::CompareFormat,
    metrics: &[UserMetric],
    window: gcscope_core::timeline::Window,
) -> Result<()> {
    // Reads and exits, starting no program.
    source::read::base_pages_only();
    let read = |files: &[PathBuf]| -> Result<Vec<report::Source>> {
        if metrics.is_empty() {
            // Runs compare by their summaries: a log of many processes keeps those, not the
            // runs' statistics.
            let bench = matches!(format, super::CompareFormat::Bench);
            return read_sources_with(files, false, window, |name, tl| {
                tl.retire = Some(Retire::drop_them());
                tl.keep_figures = true;
                // Only the bench lines are a line a run: the table folds each run in.
                tl.retired_records = bench.then(Vec::new);
                // Known before reading: each run is folded in as it retires.
                tl.recorded_other_cpus = recorded_load(std::path::Path::new(name));
            });
        }
        files
            .iter()
            .map(|f| {
                let mut timeline = source::read_path_into(
                    f,
                    gcscope_core::timeline::Timeline {
                        drop_cycles: true,
                        window,
                        ..Default::default()
                    },
                )?;
                take_values(&mut timeline, metrics, &recorded_stdout(f)?);
                timeline.output = Vec::new();
                Ok(report::Source {
                    name: f.display().to_string(),
                    timeline,
                })
            })
            .collect()
    };
    let (mut a, mut b) = (read(a)?, read(b)?);
    for s in a.iter_mut().chain(b.iter_mut()) {
        s.timeline.recorded_other_cpus = recorded_load(std::path::Path::new(&s.name));
        s.seal_figures();
    }
    super::hint_no_gc_lines(&a);
    super::hint_no_gc_lines(&b);
    super::say_unmatched_metrics(metrics, &a, &b);
    if report::run_count(&a) == 0 || report::run_count(&b) == 0 {
        if let Some(w) = window.text() {
            bail!("each side needs at least one run with gc cycles in the window ({w})");
        }
        bail!("each side needs at least one run with gc cycles");
    }
    if json {
        print_json(&report::compare_json(&a, &b))
    } else if matches!(format, super::CompareFormat::Bench) {
        print(&report::compare_bench(&a, &b))
    } else if matches!(format, super::CompareFormat::Markdown) {
        print(&report::compare_markdown(&a, &b))
    } else {
        print(&report::compare_text(&a, &b))
    }
}

/// The program output `gcscope ab` recorded beside a run's log: `X.stdout` for `X.log`.
/// The load recorded for a log by `ab --record` or `run --record`: its row of the `runs.tsv`
/// beside it (`other_cpus`, what other processes used of the machine while it ran). `None`
/// when there is no such file or row, or the row has no figure (a platform without it).
pub(crate) fn recorded_load(log: &std::path::Path) -> Option<f64> {
    let name = log.file_name()?.to_str()?;
    let text = std::fs::read_to_string(log.with_file_name("runs.tsv")).ok()?;
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next()?.split('\t').collect();
    let (log_col, load_col) = (
        head.iter().position(|h| *h == "log")?,
        head.iter().position(|h| *h == "other_cpus")?,
    );
    lines
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .find(|c| c.get(log_col) == Some(&name))
        .and_then(|c| c.get(load_col)?.parse().ok())
}

fn recorded_stdout(log: &std::path::Path) -> Result<Vec<String>> {
    if log.extension().is_none_or(|e| e != "log") {
        return Ok(Vec::new());
    }
    let path = log.with_extension("stdout");
    match std::fs::read(&path) {
        Ok(bytes) => Ok(String::from_utf8_lossy(&bytes)
            .lines()
            .map(str::to_string)
            .collect()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(e) => Err(anyhow::Error::new(e)
            .context(format!("cannot read {}", gcscope_core::fmt::path(&path)))),
    }
}

/// `--metric` figures of each run from the output the timeline kept: a line belongs to the
/// run it follows (lines before the first run, to the first); the last match in a run wins.
/// `extra` is more output of the last run (its recorded stdout), and wins over the log.
fn take_values(tl: &mut Timeline, metrics: &[UserMetric], extra: &[String]) {
    let starts: Vec<u64> = tl.runs.iter().map(|r| r.first_line).collect();
    let n = starts.len();
    for (k, run) in tl.runs.iter_mut().enumerate() {
        let from = if k == 0 { 0 } else { starts[k] };
        let to = starts.get(k + 1).copied().unwrap_or(u64::MAX);
        let lines = tl
            .output
            .iter()
            .filter(|t| t.line >= from && t.line < to)
            .map(|t| t.text.as_str());
        for m in metrics {
            let mut v = m.last_in(lines.clone());
            if k + 1 == n {
                v = m.last_in(extra.iter().map(String::as_str)).or(v);
            }
            if let Some(v) = v {
                run.values.push((m.name.clone(), v));
            }
        }
    }
}

/// A lock whose holder panicked is still the data: the spools are only ever appended to.
fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
