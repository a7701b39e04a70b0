//! `--follow`: a growing file read like `tail -F`.

use super::Out;
use crate::model::Event;
use crate::trace::Decoder;
use std::io::Read;
use std::time::Duration;

/// `tail -F`: read what is there, then poll for more. A file that shrinks was truncated and
/// is read again from the start; a different file at the path (rotation) is opened anew.
pub(super) fn follow(path: &std::path::Path, out: &mut Out) -> Result<(), String> {
    use std::io::{Seek, SeekFrom};
    #[cfg(unix)]
    use std::os::unix::fs::MetadataExt;

    let open = || std::fs::File::open(path);
    let mut file = loop {
        match open() {
            Ok(f) => break f,
            Err(_) => {
                out.push(Event::Output {
                    line: 0,
                    text: format!("gcscope: waiting for {} to appear", path.display()),
                });
                if !out.flush() {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_millis(500));
            }
        }
    };
    let id = |m: &std::fs::Metadata| -> (u64, u64) {
        #[cfg(unix)]
        return (m.dev(), m.ino());
        #[cfg(not(unix))]
        return (0, 0);
    };
    let mut ident = file.metadata().map(|m| id(&m)).unwrap_or_default();
    let mut pos = 0u64;
    let mut dec = Decoder::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => {
                if !out.flush() {
                    return Ok(());
                }
                std::thread::sleep(Duration::from_millis(200));
                let now = std::fs::metadata(path);
                let rotated = now.as_ref().map(|m| id(m) != ident).unwrap_or(false);
                let truncated = now.as_ref().map(|m| m.len() < pos).unwrap_or(false);
                if rotated || truncated {
                    dec.finish(&mut |e| out.push(e));
                    dec = Decoder::new();
                    out.push(Event::Output {
                        line: 0,
                        text: format!(
                            "gcscope: {} was {}; reading it from the start",
                            path.display(),
                            if rotated { "replaced" } else { "truncated" }
                        ),
                    });
                    if rotated {
                        if let Ok(f) = open() {
                            ident = f.metadata().map(|m| id(&m)).unwrap_or(ident);
                            file = f;
                        }
                    } else {
                        file.seek(SeekFrom::Start(0)).map_err(|e| e.to_string())?;
                    }
                    pos = 0;
                }
            }
            Ok(n) => {
                pos += n as u64;
                dec.push(&buf[..n], &mut |e| out.push(e));
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("read error on {}: {e}", path.display())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::{spawn, Batch, Spec};
    use std::io::Write;

    const LINE: &str =
        "gc 1 @0.1s 0%: 0+0.99+0 ms clock, 0+0/0/0+0 ms cpu, 4->5->1 MB, 5 MB goal, 12 P\n";

    fn cycles(batches: &[Batch]) -> usize {
        batches
            .iter()
            .flat_map(|b| &b.1)
            .filter(|e| matches!(e, Event::Cycle { .. }))
            .count()
    }

    #[test]
    fn follow_survives_growth_truncation_and_rotation() {
        let dir = std::env::temp_dir().join(format!("gcscope-follow-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("t.log");
        std::fs::write(&path, LINE).unwrap();
        let (tx, mut rx) = tokio::sync::mpsc::channel(64);
        spawn(Spec::Follow(path.clone()), 3, tx);
        let mut got = Vec::new();
        let mut wait_for = |n: usize, got: &mut Vec<Batch>| {
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            while cycles(got) < n && std::time::Instant::now() < deadline {
                while let Ok(b) = rx.try_recv() {
                    got.push(b);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            cycles(got)
        };
        assert_eq!(wait_for(1, &mut got), 1);
        // Growth.
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(LINE.replace("gc 1 @0.1s", "gc 2 @0.2s").as_bytes())
            .unwrap();
        assert_eq!(wait_for(2, &mut got), 2);
        // Truncation: a new, shorter file content at the same inode.
        std::fs::write(&path, "").unwrap();
        std::thread::sleep(Duration::from_millis(400));
        std::fs::write(&path, LINE).unwrap();
        assert_eq!(wait_for(3, &mut got), 3);
        // Rotation: the path now names a different file.
        std::fs::rename(&path, dir.join("t.log.1")).unwrap();
        std::fs::write(&path, [LINE, LINE].concat()).unwrap();
        assert_eq!(wait_for(5, &mut got), 5);
        assert!(got.iter().all(|b| b.0 == 3));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
