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
            if let Err(e) = std::fs::metadata(f) {
                bail!("cannot open {}: {e}", gcscope::fmt::path(f));
            }
            Spec::File(f.clone())
        };
        sources.push((gcscope::fmt::path(f).to_string(), spec));
    }
    gcscope::ui::run(sources, None)
}
