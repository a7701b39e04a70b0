//! Output made before it can be written: the runs a timeline retires while it is read are
//! summarised and formatted then, but `summary` prints them after its header, whose counts are
//! known only at the end. A spool keeps that text in memory up to `IN_MEMORY` bytes and the
//! rest in an unnamed temporary file, so memory stays flat however many runs a log holds.

use std::io::{Read, Seek, Write};

/// Bytes a spool keeps in memory before it moves them to its file.
const IN_MEMORY: usize = 1 << 20;

#[derive(Default)]
pub struct Spool {
    mem: Vec<u8>,
    file: Option<std::fs::File>,
    len: u64,
    /// The first write that failed (a full disk): said when the spool is written out.
    failed: Option<std::io::Error>,
}

impl Spool {
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn push(&mut self, bytes: &[u8]) {
        if self.failed.is_some() {
            return;
        }
        self.mem.extend_from_slice(bytes);
        self.len += bytes.len() as u64;
        if self.mem.len() >= IN_MEMORY {
            if let Err(e) = self.spill() {
                self.failed = Some(e);
            }
        }
    }

    fn spill(&mut self) -> std::io::Result<()> {
        let file = match &mut self.file {
            Some(f) => f,
            None => self.file.insert(unnamed_file()?),
        };
        file.write_all(&self.mem)?;
        self.mem.clear();
        Ok(())
    }

    /// Whether everything given was kept: the first write that failed (a full disk), said
    /// before any output is written, so nothing is printed half.
    pub fn check(&self) -> std::io::Result<()> {
        match &self.failed {
            None => Ok(()),
            Some(e) => Err(std::io::Error::new(
                e.kind(),
                format!(
                    "could not keep the summaries of earlier runs in a temporary file in {} \
                     (TMPDIR): {e}",
                    crate::fmt::path(&std::env::temp_dir())
                ),
            )),
        }
    }

    /// Writes everything spooled to `out`, leaving out its first `skip` bytes.
    pub fn copy_to(&mut self, out: &mut dyn Write, mut skip: u64) -> std::io::Result<()> {
        self.check()?;
        if let Some(f) = &mut self.file {
            f.flush()?;
            f.rewind()?;
            let mut buf = vec![0u8; 1 << 16];
            loop {
                let n = match f.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => n,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(e) => return Err(e),
                };
                let from = usize::try_from(skip).unwrap_or(usize::MAX).min(n);
                skip -= from as u64;
                out.write_all(&buf[from..n])?;
            }
        }
        let from = usize::try_from(skip)
            .unwrap_or(usize::MAX)
            .min(self.mem.len());
        out.write_all(&self.mem[from..])
    }
}

/// A file in the temporary directory that no other process can open: it is removed as soon
/// as it is created, and its space comes back when gcscope closes it, however it ends.
fn unnamed_file() -> std::io::Result<std::fs::File> {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let dir = std::env::temp_dir();
    loop {
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let path = dir.join(format!("gcscope-spool-{}-{n}", std::process::id()));
        match std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(f) => {
                std::fs::remove_file(&path)?;
                return Ok(f);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What is spooled comes back in order, from memory and from the file alike, and the
    /// file leaves no name behind.
    #[test]
    fn a_spool_gives_back_what_it_was_given_from_memory_and_file() {
        let mut s = Spool::default();
        let mut want = Vec::new();
        for k in 0..200_000u32 {
            let piece = format!(",line {k}\n");
            s.push(piece.as_bytes());
            want.extend_from_slice(piece.as_bytes());
        }
        assert!(s.file.is_some(), "{} bytes stayed in memory", want.len());
        assert!(s.mem.len() < IN_MEMORY);
        let mut out = Vec::new();
        s.copy_to(&mut out, 1).unwrap();
        assert_eq!(out, want[1..]);
        let left = std::fs::read_dir(std::env::temp_dir())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .starts_with(&format!("gcscope-spool-{}-", std::process::id()))
            })
            .count();
        assert_eq!(left, 0);
    }
}
