//! The dashboard over files, standard input or a followed file, and the embedded demo.

use anyhow::{bail, Result};
use gcscope::source::Spec;
use std::path::PathBuf;

/// A real trace recorded with Go 1.27.3 (Green Tea, tree workload), shown by `demo`.
const EMBEDDED_NAME: &str = "embedded: go1.27.3_greentea_tree_p2_r1.log";
const EMBEDDED: &[u8] = include_bytes!("../../traces/go/go1.27.3_greentea_tree_p2_r1.log");

pub fn demo() -> Result<()> {
    gcscope::ui::run(vec![(EMBEDDED_NAME.into(), Spec::Embedded(EMBEDDED))], None)
}

pub fn view(files: &[PathBuf], follow: bool) -> Result<()> {
    if files.iter().filter(|f| f.as_os_str() == "-").count() > 1 {
        bail!("standard input (-) can be read only once");
    }
    let mut sources = Vec::new();
    for f in files {
        let spec = if f.as_os_str() == "-" {
            Spec::Stdin
        } else if follow {
            Spec::Follow(f.clone())
        } else {
            // Said before the dashboard opens: a file that cannot be read (missing, no
            // permission, a directory) would otherwise show an empty dashboard.
            let readable = std::fs::File::open(f).and_then(|file| {
                if file.metadata()?.is_dir() {
                    Err(std::io::Error::other("it is a directory"))
                } else {
                    Ok(())
                }
            });
            if let Err(e) = readable {
                bail!("cannot open {}: {e}", gcscope::fmt::path(f));
            }
            Spec::File(f.clone())
        };
        sources.push((gcscope::fmt::path(f).to_string(), spec));
    }
    gcscope::ui::run(sources, None)
}
