//! `--follow`: a growing file read like `tail -F`.

use super::{Out, SourceError};
use gcscope_core::trace::Decoder;
use gcscope_model::Event;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

/// `tail -F`: read what is there, then poll for more. A file that shrinks, or whose bytes
/// already read changed (`prog > log` restarted and wrote past where gcscope was within one
/// poll), was rewritten and is read again from the start; a different file at the path
/// (rotation, or deletion and re-creation) is opened anew. Either way what follows is a new
/// stream: its cycles start a new run (`Decoder::new_stream`), whatever their numbers. A FIFO
/// is read from every writer in turn; a path that cannot be opened (missing, a loop of
/// symlinks, no permission) or is briefly not a file is waited for, saying why.
pub(super) fn follow(path: &Path, out: &mut Out) -> Result<(), SourceError> {
    let Some(mut file) = open_when_there(path, out) else {
        return Ok(());
    };
    let mut ident = file.metadata().map(|m| identity(&m)).unwrap_or_default();
    let mut fifo = is_fifo(&file);
    let mut pos = 0u64;
    // The last bytes read, to tell a rewrite of the same file from growth.
    let mut tail: Vec<u8> = Vec::new();
    let mut deleted = false;
    let mut dec = Decoder::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => {
                if !out.flush() {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_millis(200));
                // A FIFO has no size, identity change or rewrite: its next writer's bytes
                // simply follow (read gives 0 between writers).
                if fifo {
                    continue;
                }
                let now = match std::fs::metadata(path) {
                    Ok(m) => m,
                    Err(_) => {
                        if !deleted {
                            deleted = true;
                            say(
                                out,
                                format!(
                                    "{} was deleted; waiting for it to appear again",
                                    shown(path)
                                ),
                            );
                        }
                        continue;
                    }
                };
                let replaced = identity(&now) != ident;
                let truncated = !replaced && (now.len() < pos || rewritten(&file, pos, &tail));
                if !(replaced || truncated) {
                    continue;
                }
                if replaced {
                    let Some(f) = open_when_there(path, out) else {
                        return Ok(());
                    };
                    ident = f.metadata().map(|m| identity(&m)).unwrap_or(ident);
                    fifo = is_fifo(&f);
                    file = f;
                } else {
                    file.seek(SeekFrom::Start(0))
                        .map_err(|e| SourceError::read(path, e))?;
                }
                deleted = false;
                pos = 0;
                tail.clear();
                dec.new_stream(&mut |e| out.push(e));
                say(
                    out,
                    format!(
                        "{} was {}; reading it from the start as a new run",
                        shown(path),
                        if replaced { "replaced" } else { "truncated" }
                    ),
                );
            }
            Ok(n) => {
                pos += n as u64;
                remember_tail(&mut tail, &buf[..n]);
                dec.push(&buf[..n], &mut |e| out.push(e));
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            // The path became a directory (or another thing read cannot read) for a moment:
            // waited for, as a missing file is.
            Err(e) if e.raw_os_error() == Some(libc::EISDIR) => {
                say(
                    out,
                    format!("{} is a directory now; waiting for a file", shown(path)),
                );
                let Some(f) = open_when_there(path, out) else {
                    return Ok(());
                };
                ident = f.metadata().map(|m| identity(&m)).unwrap_or(ident);
                fifo = is_fifo(&f);
                file = f;
                pos = 0;
                tail.clear();
                dec.new_stream(&mut |e| out.push(e));
            }
            Err(e) => return Err(SourceError::read(path, e)),
        }
    }
}

/// Bytes kept from the end of what was read: enough to tell a rewrite from growth.
const TAIL: usize = 256;

fn remember_tail(tail: &mut Vec<u8>, read: &[u8]) {
    tail.extend_from_slice(&read[read.len().saturating_sub(TAIL)..]);
    let extra = tail.len().saturating_sub(TAIL);
    tail.drain(..extra);
}

/// Whether the bytes before `pos` are no longer the ones read there: the same file written
/// again from its start, to at least where gcscope had read.
fn rewritten(file: &std::fs::File, pos: u64, tail: &[u8]) -> bool {
    use std::os::unix::fs::FileExt;
    if tail.is_empty() {
        return false;
    }
    let at = pos - tail.len() as u64;
    let mut now = vec![0u8; tail.len()];
    match file.read_exact_at(&mut now, at) {
        Ok(()) => now != tail,
        // Shorter than that now: truncated (the size check says so too).
        Err(_) => true,
    }
}

fn is_fifo(f: &std::fs::File) -> bool {
    use std::os::unix::fs::FileTypeExt;
    f.metadata().is_ok_and(|m| m.file_type().is_fifo())
}

fn shown(path: &Path) -> String {
    gcscope_model::units::path(path)
}

fn say(out: &mut Out, text: String) {
    out.push(Event::Output {
        line: 0,
        text: format!("gcscope: {text}"),
    });
}

/// The path opened as something to read from, waiting (and saying why, once per reason)
/// while it is missing, unreadable or a directory; `None` when the reader went away.
fn open_when_there(path: &Path, out: &mut Out) -> Option<std::fs::File> {
    let mut last: Option<String> = None;
    loop {
        let why = match std::fs::File::open(path) {
            Ok(f) if f.metadata().is_ok_and(|m| m.is_dir()) => "it is a directory".to_string(),
            Ok(f) => return Some(f),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => "it is not there".to_string(),
            // A symlink loop (ELOOP), no permission...: the error, not "waiting to appear".
            Err(e) => format!("cannot open it: {e}"),
        };
        if last.as_deref() != Some(why.as_str()) {
            say(out, format!("waiting for {}: {why}", shown(path)));
            last = Some(why);
        }
        if !out.flush() {
            return None;
        }
        std::thread::sleep(Duration::from_millis(500));
    }
}

/// Which file a path names: device and inode.
fn identity(m: &std::fs::Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        (m.dev(), m.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = m;
        (0, 0)
    }
}

#[cfg(test)]
mod tests {
    use crate::{spawn, Batch, Spec};
    use gcscope_core::timeline::Timeline;
    use std::io::Write;
    use std::time::{Duration, Instant};

    fn line(n: u32) -> String {
        format!(
            "gc {n} @0.{n}s 0%: 0+0.99+0 ms clock, 0+0/0/0+0 ms cpu, 4->5->1 MB, 5 MB goal, 12 P\n"
        )
    }

    /// The timeline the dashboard builds from a followed file, after each change to the file:
    /// runs as lists of cycle numbers, and the output lines gcscope wrote about the file.
    struct Followed {
        rx: tokio::sync::mpsc::Receiver<Batch>,
        tl: Timeline,
    }

    impl Followed {
        /// Waits (up to 10 s) until the runs are `want`.
        fn runs_become(&mut self, want: &[&[u32]]) -> Vec<Vec<u32>> {
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                while let Ok((source, events)) = self.rx.try_recv() {
                    assert_eq!(source, gcscope_model::SourceId::from_index(3));
                    for e in events {
                        self.tl.apply(e);
                    }
                }
                let runs: Vec<Vec<u32>> = self
                    .tl
                    .runs
                    .iter()
                    .map(|r| r.cycles.iter().map(|c| c.num).collect())
                    .collect();
                if runs == want || Instant::now() > deadline {
                    return runs;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
        }

        fn said(&self, what: &str) -> bool {
            self.tl.output.iter().any(|o| o.text.contains(what))
        }
    }

    /// Growth continues the run; truncation, rotation, and deletion with re-creation each
    /// start a new run holding exactly the new file's cycles, even when their numbers would
    /// continue the old run.
    #[test]
    fn follow_starts_a_new_run_after_truncation_rotation_and_recreation() {
        let dir = std::env::temp_dir().join(format!("gcscope-follow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.log");
        std::fs::write(&path, line(1)).unwrap();
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        spawn(
            Spec::Follow(path.clone()),
            gcscope_model::SourceId::from_index(3),
            tx,
        );
        let mut f = Followed {
            rx,
            tl: Timeline::default(),
        };
        assert_eq!(f.runs_become(&[&[1]]), [vec![1]]);
        // Growth: the same run.
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        file.write_all(line(2).as_bytes()).unwrap();
        assert_eq!(f.runs_become(&[&[1, 2]]), [vec![1, 2]]);
        // Truncation, then a cycle whose number continues the old run: a new run anyway.
        std::fs::write(&path, "").unwrap();
        std::thread::sleep(Duration::from_millis(400));
        std::fs::write(&path, line(3)).unwrap();
        assert_eq!(f.runs_become(&[&[1, 2], &[3]]), [vec![1, 2], vec![3]]);
        assert!(f.said("was truncated"));
        // Rotation: the path now names a different file.
        std::fs::rename(&path, dir.join("t.log.1")).unwrap();
        std::fs::write(&path, [line(1), line(2)].concat()).unwrap();
        let want: &[&[u32]] = &[&[1, 2], &[3], &[1, 2]];
        assert_eq!(f.runs_become(want), want);
        assert!(f.said("was replaced"));
        // Deletion is said while waiting; the re-created file is a new run.
        std::fs::remove_file(&path).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !f.said("was deleted") && Instant::now() < deadline {
            f.runs_become(want);
        }
        assert!(f.said("was deleted"));
        std::fs::write(&path, line(1)).unwrap();
        let want: &[&[u32]] = &[&[1, 2], &[3], &[1, 2], &[1]];
        assert_eq!(f.runs_become(want), want);
        assert!(f.tl.problems.is_empty(), "{:?}", f.tl.problems);
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn follow(path: &std::path::Path) -> Followed {
        let (tx, rx) = tokio::sync::mpsc::channel(64);
        spawn(
            Spec::Follow(path.to_path_buf()),
            gcscope_model::SourceId::from_index(3),
            tx,
        );
        Followed {
            rx,
            tl: Timeline::default(),
        }
    }

    fn temp(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("gcscope-follow-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// `prog > log` restarted: the same file written again from its start, with more bytes
    /// than were read, between two polls. Its size never shrank, but the bytes gcscope had
    /// read are gone: a new run from the start, not the old run's continuation.
    #[test]
    fn a_rewrite_longer_than_what_was_read_is_a_new_run() {
        let dir = temp("rewrite");
        let path = dir.join("t.log");
        std::fs::write(&path, [line(1), line(2)].concat()).unwrap();
        let mut f = follow(&path);
        assert_eq!(f.runs_become(&[&[1, 2]]), [vec![1, 2]]);
        // Truncate and write three cycles at once, inside one poll (the file's inode kept).
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&path)
            .unwrap();
        // The restarted program's lines: its own timestamps, so not the bytes read before.
        let again: String = (1..=3)
            .map(|n| line(n).replacen(&format!("@0.{n}s"), &format!("@0.{n}5s"), 1))
            .collect();
        file.write_all(again.as_bytes()).unwrap();
        drop(file);
        let want: &[&[u32]] = &[&[1, 2], &[1, 2, 3]];
        assert_eq!(f.runs_become(want), want);
        assert!(f.said("was truncated"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A FIFO is read from every writer in turn: the second writer's cycles come after the
    /// first's (no "Illegal seek" when the first goes away).
    #[test]
    fn a_fifo_is_read_from_every_writer() {
        let dir = temp("fifo");
        let path = dir.join("t.fifo");
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: a valid C string; mkfifo has no other preconditions.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let mut f = follow(&path);
        for cycles in [[1u32, 2], [3, 4]] {
            let mut w = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
            for n in cycles {
                w.write_all(line(n).as_bytes()).unwrap();
            }
            drop(w);
            std::thread::sleep(Duration::from_millis(400));
        }
        assert_eq!(f.runs_become(&[&[1, 2, 3, 4]]), [vec![1, 2, 3, 4]]);
        assert!(f.tl.source.error().is_none(), "{:?}", f.tl.source);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A symlink loop is said as what it is, not as a file that has yet to appear; a path
    /// that is a directory for a while is waited for, and the file then read.
    #[test]
    fn a_symlink_loop_is_named_and_a_directory_waited_out() {
        let dir = temp("loop");
        let path = dir.join("t.log");
        std::os::unix::fs::symlink(&path, &path).unwrap();
        let mut f = follow(&path);
        let deadline = Instant::now() + Duration::from_secs(10);
        while !f.said("cannot open it") && Instant::now() < deadline {
            f.runs_become(&[]);
        }
        assert!(f.said("cannot open it"), "{:?}", f.tl.output);
        assert!(f
            .tl
            .output
            .iter()
            .any(|o| o.text.contains("symbolic links") || o.text.contains("os error 40")));
        std::fs::remove_file(&path).unwrap();
        std::fs::create_dir(&path).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while !f.said("it is a directory") && Instant::now() < deadline {
            f.runs_become(&[]);
        }
        assert!(f.said("it is a directory"));
        std::fs::remove_dir(&path).unwrap();
        std::fs::write(&path, line(1)).unwrap();
        assert_eq!(f.runs_become(&[&[1]]), [vec![1]]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
