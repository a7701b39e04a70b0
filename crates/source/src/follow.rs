//! `--follow`: a growing file read like `tail -F`.

use super::{Out, SourceError};
use gcscope_core::trace::Decoder;
use gcscope_model::Event;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::Duration;

/// `tail -F`: read what is there, then poll for more. A file that shrinks was truncated and
/// is read again from the start; a different file at the path (rotation, or deletion and
/// re-creation) is opened anew. Either way what follows is a new stream: its cycles start a
/// new run (`Decoder::new_stream`), whatever their numbers.
pub(super) fn follow(path: &Path, out: &mut Out) -> Result<(), SourceError> {
    let open = || std::fs::File::open(path);
    let mut file = loop {
        match open() {
            Ok(f) => break f,
            Err(_) => {
                out.push(Event::Output {
                    line: 0,
                    text: format!(
                        "gcscope: waiting for {} to appear",
                        gcscope_model::units::path(path)
                    ),
                });
                if !out.flush() {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    };
    let mut ident = file.metadata().map(|m| identity(&m)).unwrap_or_default();
    let mut pos = 0u64;
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
                let now = match std::fs::metadata(path) {
                    Ok(m) => m,
                    Err(_) => {
                        if !deleted {
                            deleted = true;
                            out.push(Event::Output {
                                line: 0,
                                text: format!(
                                    "gcscope: {} was deleted; waiting for it to appear again",
                                    gcscope_model::units::path(path)
                                ),
                            });
                        }
                        continue;
                    }
                };
                let replaced = identity(&now) != ident;
                let truncated = !replaced && now.len() < pos;
                if !(replaced || truncated) {
                    continue;
                }
                if replaced {
                    match open() {
                        Ok(f) => {
                            ident = f.metadata().map(|m| identity(&m)).unwrap_or(ident);
                            file = f;
                        }
                        // Gone again between the two looks: try on the next poll.
                        Err(_) => continue,
                    }
                } else {
                    file.seek(SeekFrom::Start(0))
                        .map_err(|e| SourceError::read(path, e))?;
                }
                deleted = false;
                pos = 0;
                dec.new_stream(&mut |e| out.push(e));
                out.push(Event::Output {
                    line: 0,
                    text: format!(
                        "gcscope: {} was {}; reading it from the start as a new run",
                        gcscope_model::units::path(path),
                        if replaced { "replaced" } else { "truncated" }
                    ),
                });
            }
            Ok(n) => {
                pos += n as u64;
                dec.push(&buf[..n], &mut |e| out.push(e));
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(SourceError::read(path, e)),
        }
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
}
