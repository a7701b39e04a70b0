//! The dashboard over files, standard input or a followed file, and the embedded demo.

use anyhow::{bail, Result};
use gcscope_source::Spec;
use std::path::PathBuf;

/// What `demo` shows: real traces recorded with Go 1.27.3 under GODEBUG=gctrace=2, the same
/// graph program built with the legacy collector (A) and with Green Tea (B).
const DEMO: [(&str, &[u8]); 2] = [
    (
        "embedded: go1.27.3_legacy_graph_p2_gctrace2.log",
        include_bytes!("../../traces/go/go1.27.3_legacy_graph_p2_gctrace2.log"),
    ),
    (
        "embedded: go1.27.3_greentea_graph_p2_gctrace2.log",
        include_bytes!("../../traces/go/go1.27.3_greentea_graph_p2_gctrace2.log"),
    ),
];

pub fn demo() -> Result<()> {
    let sources = DEMO
        .iter()
        .map(|(name, bytes)| (name.to_string(), Spec::Embedded(bytes)))
        .collect();
    let (closed, result) = gcscope_tui::run_demo(
        sources,
        "demo: Go 1.27.3, one graph program: A legacy GC, B Green Tea; replay x0.25, ? keys".into(),
    );
    let names = DEMO.iter().map(|(name, _)| name.to_string()).collect();
    super::say_what_was_shown(names, closed);
    Ok(result?)
}

/// One frame of the dashboard over `files`, read whole, as an SVG file.
pub fn snapshot(
    files: &[PathBuf],
    window: gcscope_core::timeline::Window,
    svg: &std::path::Path,
    (w, h): (u16, u16),
) -> Result<()> {
    if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        bail!("standard input (-) can be read only once");
    }
    // Read as the dashboard reads them: cycles and program output kept.
    let timelines = files
        .iter()
        .map(|f| {
            let tl = gcscope_source::read_path_into(
                f,
                gcscope_core::timeline::Timeline {
                    window,
                    ..Default::default()
                },
            )?;
            Ok((gcscope_core::fmt::path(f).to_string(), tl))
        })
        .collect::<Result<Vec<_>>>()?;
    let picture =
        gcscope_tui::snapshot::render(timelines, w, h, gcscope_tui::view::Theme::from_env());
    std::fs::write(svg, picture)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", gcscope_core::fmt::path(svg)))?;
    eprintln!(
        "gcscope: one {w}x{h} frame of the dashboard is in {}",
        gcscope_core::fmt::path(svg)
    );
    Ok(())
}

pub fn view(files: &[PathBuf], follow: bool, window: gcscope_core::timeline::Window) -> Result<()> {
    if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        bail!("standard input (-) can be read only once");
    }
    super::stdin_not_a_terminal(files)?;
    let mut sources = Vec::new();
    for f in files {
        let spec = if f.as_os_str() == "-" {
            Spec::Stdin
        } else if follow {
            Spec::Follow(f.clone())
        } else {
            // Said before the dashboard opens: a file that cannot be read (missing, no
            // permission, a directory) would otherwise show an empty dashboard.
            let readable = std::fs::metadata(f).and_then(|m| {
                use std::os::unix::fs::FileTypeExt;
                if m.is_dir() {
                    Err(std::io::Error::other("it is a directory"))
                } else if m.file_type().is_fifo() {
                    // Opened to check, a FIFO would meet its writer and leave it with no
                    // reader: its next write fails (EPIPE) before the dashboard opens it.
                    Ok(())
                } else {
                    std::fs::File::open(f).map(drop)
                }
            });
            if let Err(e) = readable {
                bail!("cannot open {}: {e}", gcscope_core::fmt::path(f));
            }
            Spec::File(f.clone())
        };
        sources.push((gcscope_core::fmt::path(f).to_string(), spec));
    }
    let names: Vec<String> = sources.iter().map(|(name, _)| name.clone()).collect();
    let (closed, result) = gcscope_tui::run_keeping(sources, window, false);
    super::say_what_was_shown(names, closed);
    Ok(result?)
}
