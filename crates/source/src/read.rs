//! Reading a file or standard input into a `Timeline`: the headless commands' source. A
//! stream is read on one thread in bounded memory; a large file is mapped and read in pieces
//! on all cores (`gcscope_core::read`), joined into exactly the timeline one reader makes.

use crate::SourceError;
use gcscope_core::read::{
    read_all_into, read_pieces, read_stream_into, read_stream_with, MAX_PIECE, MIN_PIECE,
};
use gcscope_core::timeline::Timeline;
use gcscope_model::Event;
use std::path::Path;

/// The name errors give standard input.
const STDIN: &str = "-";

/// A file, or standard input for `-`, read from start to end in bounded memory, each event
/// handed to `each` as it is made (`summary --csv` writes rows as it reads). Lines are cut
/// and classified on a thread of their own (`read_stream_with`).
pub fn stream_path(path: &Path, each: &mut dyn FnMut(Event)) -> Result<(), SourceError> {
    let read = if path.as_os_str() == STDIN {
        read_stream_with(std::io::stdin(), each).map_err(|e| SourceError::read(path, e))
    } else {
        let file = std::fs::File::open(path).map_err(|e| SourceError::open(path, e))?;
        read_stream_with(file, each).map_err(|e| SourceError::read(path, e))
    };
    read?;
    each(Event::End { error: None });
    Ok(())
}

/// Files at least this large are mapped instead of read: no copy through a buffer.
const MAP_AT_LEAST: u64 = 1 << 20;

/// Read a file (or standard input for `-`) into a timeline.
pub fn read_path(path: &Path) -> Result<Timeline, SourceError> {
    read_path_into(path, Timeline::default())
}

/// `read_path` into a prepared timeline.
pub fn read_path_into(path: &Path, timeline: Timeline) -> Result<Timeline, SourceError> {
    read_path_then(path, timeline, || {})
}

/// `read_path_into`, calling `mapped` once a large file is mapped and before its bytes are read
/// (where a test shortens the file).
fn read_path_then(
    path: &Path,
    timeline: Timeline,
    mapped: impl FnOnce(),
) -> Result<Timeline, SourceError> {
    if path.as_os_str() == STDIN {
        return read_stream_into(std::io::stdin(), timeline)
            .map_err(|e| SourceError::read(path, e));
    }
    let file = std::fs::File::open(path).map_err(|e| SourceError::open(path, e))?;
    let meta = file.metadata().map_err(|e| SourceError::read(path, e))?;
    if meta.is_file() && meta.len() >= MAP_AT_LEAST {
        // SAFETY: the map is read-only and lives only for this call. Another process
        // truncating the file meanwhile makes the next touch past its new end a SIGBUS, which
        // `shortened` turns into an error message naming the file; a log being appended to is
        // fine.
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            let _watch = crate::shortened::watch(&map, path);
            mapped();
            let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
            // One piece per core, and more for a large file so that `cores` pieces of at
            // most MAX_PIECE bytes are in memory at a time: a multiple of the cores, so that
            // the last piece is not read alone (141 MB in 3 pieces on 2 cores read its third
            // piece with the other core idle).
            let pieces = cores
                .min(map.len() / MIN_PIECE)
                .max(map.len().div_ceil(MAX_PIECE).next_multiple_of(cores));
            // A piece read gives its pages back: they are the file's, read again from it
            // if touched again (a piece read a second time), so memory stays what the
            // figures need, not the file's size.
            let give_back = |r: std::ops::Range<usize>| {
                let page = 4096;
                let (from, to) = (r.start.div_ceil(page) * page, r.end / page * page);
                if from < to {
                    // SAFETY: a read-only shared mapping of a file: pages dropped here are
                    // read from the file again on their next touch, with the same bytes.
                    let _ = unsafe {
                        map.unchecked_advise_range(
                            memmap2::UncheckedAdvice::DontNeed,
                            from,
                            to - from,
                        )
                    };
                }
            };
            return Ok(read_pieces(&map, timeline, pieces, cores, &give_back).0);
        }
    }
    read_all_into(file, timeline).map_err(|e| SourceError::read(path, e))
}

/// Base pages only, for the rest of the process: for a command that reads logs and exits
/// (`summary`, `compare`), never one that starts a program (a child inherits the setting, and
/// a Go program measured under it would not run as it does elsewhere). Where the kernel does
/// not know the setting this does nothing.
///
/// mimalloc asks for transparent huge pages for its memory, and a summary's threads then
/// touched 2 MiB pages for the few hundred KiB each of them fills: `summary --json` of the
/// 1M-line traces of assets/bench/speed.sh faulted 17-22 huge pages (gc-only) and 40 (mixed,
/// 3,625 runs), each zeroed whole (/proc/vmstat `thp_fault_alloc`). With base pages only:
/// peak RSS 102-107 -> 80-82 MB and 175 -> 121-145 MB.
pub fn base_pages_only() {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    // SAFETY: PR_SET_THP_DISABLE takes no pointer; it sets a flag of this process.
    unsafe {
        libc::prctl(libc::PR_SET_THP_DISABLE, 1, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Set in the child process `a_file_shortened_while_read_is_an_error_naming_it` starts.
    const CHILD: &str = "GCSCOPE_TEST_SHORTENED_CHILD";

    /// A file truncated after it is mapped and before it is read (logrotate's copytruncate at
    /// the wrong moment) ends gcscope with a message naming it and exit code 1, not "Bus
    /// error". The fault ends the process, so the read runs in a child: this test binary run
    /// again for this one test.
    #[test]
    fn a_file_shortened_while_read_is_an_error_naming_it() {
        if let Some(path) = std::env::var_os(CHILD) {
            let path = std::path::PathBuf::from(path);
            let shortened = read_path_then(&path, Timeline::default(), || {
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(&path)
                    .and_then(|f| f.set_len(0))
                    .expect("truncate the mapped file");
            });
            // Not reached when the fault is caught: the handler exits with 1.
            panic!(
                "read a shortened file: {:?}",
                shortened.map(|t| t.runs.len())
            );
        }
        let dir = std::env::temp_dir().join(format!("gcscope-shortened-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rotated.log");
        // 2 MiB, more than MAP_AT_LEAST: it is mapped.
        let line = "gc 1 @0.011s 2%: 0.010+0.30+0.003 ms clock, 0.040+0.10/0.20/0.30+0.012 ms cpu, 4->4->0 MB, 4 MB goal, 0 MB stacks, 0 MB globals, 4 P\n";
        let text = line.repeat((2usize << 20).div_ceil(line.len()));
        std::fs::write(&path, text).unwrap();
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "read::tests::a_file_shortened_while_read_is_an_error_naming_it",
                "--nocapture",
            ])
            .env(CHILD, &path)
            .output()
            .unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "exit code; stderr: {stderr}");
        assert!(
            stderr.contains(&format!(
                "gcscope: cannot read {}: it was shortened while it was read",
                path.display()
            )),
            "stderr: {stderr}"
        );
    }
}
