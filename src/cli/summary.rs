//! `summary` and `compare`: the headless figures of recorded traces.

use super::{print, print_json, read_sources, write_stdout};
use anyhow::{bail, Result};
use gcscope::report;
use std::path::PathBuf;

pub fn summary(files: &[PathBuf], json: bool, csv: bool) -> Result<()> {
    // Per-cycle records are needed only for the per-cycle CSV.
    let sources = read_sources(files, csv)?;
    let printed = if json {
        print_json(&report::summary_json(&sources))
    } else if csv {
        write_stdout(|out| {
            report::write_summary_csv(&sources, out).map_err(|e| match e.into_kind() {
                csv::ErrorKind::Io(io) => io,
                other => std::io::Error::other(format!("{other:?}")),
            })
        })
    } else {
        write_stdout(|out| report::write_summary_text(&sources, out))
    };
    // The process ends here: freeing a million-line timeline only costs time.
    std::mem::forget(sources);
    printed
}

pub fn compare(a: &[PathBuf], b: &[PathBuf], json: bool, bench: bool) -> Result<()> {
    let (a, b) = (read_sources(a, false)?, read_sources(b, false)?);
    if report::all_runs(&a).is_empty() || report::all_runs(&b).is_empty() {
        bail!("each side needs at least one run with gc cycles");
    }
    if json {
        print_json(&report::compare_json(&a, &b))
    } else if bench {
        print(&report::compare_bench(&a, &b))
    } else {
        print(&report::compare_text(&a, &b))
    }
}
