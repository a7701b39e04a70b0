//! `summary` and `compare`: the headless figures of recorded traces.

use super::{print, print_json, read_sources, write_stdout};
use anyhow::{bail, Context, Result};
use gcscope::{report, source};
use std::path::PathBuf;

pub fn summary(files: &[PathBuf], json: bool, csv: bool) -> Result<()> {
    if csv {
        if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
            bail!("standard input (-) can be read only once");
        }
        // Rows are written as the input is read: nothing is held but the cycle being read.
        let out = std::io::stdout().lock();
        let mut rows = report::CsvRows::new(std::io::BufWriter::with_capacity(1 << 16, out));
        for f in files {
            let name = f.display().to_string();
            rows.source(&name, |sink| source::stream_path(f, sink))
                .context("writing the output")?;
        }
        return rows.finish().context("writing the output");
    }
    let sources = read_sources(files, false)?;
    let printed = if json {
        print_json(&report::summary_json(&sources))
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
