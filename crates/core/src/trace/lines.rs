//! Bytes -> physical lines, with bounded memory.
//!
//! Input is read in chunks; complete lines are handed out straight from the chunk without a
//! copy. A line longer than `max` keeps its first `max` bytes and the rest is skipped up to the
//! newline, so a 100 MB line costs linear time and `max` bytes of memory.

use memchr::memchr;

pub const DEFAULT_MAX_LINE: usize = 64 * 1024;

pub struct LineSplitter {
    buf: Vec<u8>,
    /// Bytes of the current line dropped because it exceeded `max`.
    dropped: u64,
    line_no: u64,
    max: usize,
}

/// One physical line as handed to the caller.
pub struct RawLine<'a> {
    /// 1-based line number.
    pub no: u64,
    /// The line without its `\n` (a trailing `\r` is left for the parser to ignore).
    pub bytes: &'a [u8],
    /// Bytes cut off the end because the line was longer than the limit.
    pub dropped: u64,
}

impl Default for LineSplitter {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_LINE)
    }
}

impl LineSplitter {
    #[must_use]
    pub fn new(max: usize) -> Self {
        LineSplitter {
            buf: Vec::new(),
            dropped: 0,
            line_no: 0,
            max: max.max(1),
        }
    }

    /// Lines handed out so far.
    #[must_use]
    pub fn lines(&self) -> u64 {
        self.line_no
    }

    /// True when a partial line is waiting for its newline.
    #[must_use]
    pub fn has_partial(&self) -> bool {
        !self.buf.is_empty() || self.dropped > 0
    }

    pub fn push(&mut self, mut chunk: &[u8], mut f: impl FnMut(RawLine<'_>)) {
        // Finish a line begun in an earlier chunk.
        if self.has_partial() {
            match memchr(b'\n', chunk) {
                Some(nl) => {
                    self.append(&chunk[..nl]);
                    chunk = &chunk[nl + 1..];
                    self.emit_buffered(&mut f);
                }
                None => {
                    self.append(chunk);
                    return;
                }
            }
        }
        while let Some(nl) = memchr(b'\n', chunk) {
            self.line_no += 1;
            let (line, dropped) = if nl > self.max {
                (&chunk[..self.max], (nl - self.max) as u64)
            } else {
                (&chunk[..nl], 0)
            };
            f(RawLine {
                no: self.line_no,
                bytes: line,
                dropped,
            });
            chunk = &chunk[nl + 1..];
        }
        self.append(chunk);
    }

    /// End of input: a last line without a newline is still a line.
    pub fn finish(&mut self, mut f: impl FnMut(RawLine<'_>)) {
        if self.has_partial() {
            self.emit_buffered(&mut f);
        }
    }

    fn append(&mut self, bytes: &[u8]) {
        let room = self.max - self.buf.len();
        if bytes.len() <= room {
            self.buf.extend_from_slice(bytes);
        } else {
            self.buf.extend_from_slice(&bytes[..room]);
            self.dropped += (bytes.len() - room) as u64;
        }
    }

    fn emit_buffered(&mut self, f: &mut impl FnMut(RawLine<'_>)) {
        self.line_no += 1;
        f(RawLine {
            no: self.line_no,
            bytes: &self.buf,
            dropped: self.dropped,
        });
        self.buf.clear();
        self.dropped = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(chunks: &[&[u8]], max: usize) -> Vec<(u64, Vec<u8>, u64)> {
        let mut s = LineSplitter::new(max);
        let mut out = Vec::new();
        for c in chunks {
            s.push(c, |l| out.push((l.no, l.bytes.to_vec(), l.dropped)));
        }
        s.finish(|l| out.push((l.no, l.bytes.to_vec(), l.dropped)));
        out
    }

    #[test]
    fn lines_across_chunks() {
        let out = split(&[b"ab", b"c\nde", b"f\n\ngh"], 100);
        assert_eq!(
            out,
            vec![
                (1, b"abc".to_vec(), 0),
                (2, b"def".to_vec(), 0),
                (3, b"".to_vec(), 0),
                (4, b"gh".to_vec(), 0)
            ]
        );
    }

    #[test]
    fn long_lines_are_cut_with_count() {
        let out = split(&[b"0123456789\nxy", b"z0123456789\n"], 4);
        assert_eq!(
            out,
            vec![(1, b"0123".to_vec(), 6), (2, b"xyz0".to_vec(), 9)]
        );
    }

    #[test]
    fn huge_line_memory_is_bounded() {
        let mut s = LineSplitter::new(1024);
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..100 {
            s.push(&chunk, |_| panic!("no newline yet"));
        }
        assert!(
            s.buf.capacity() <= 2048,
            "buffer grew to {}",
            s.buf.capacity()
        );
        let mut seen = 0;
        s.push(b"\n", |l| {
            seen += 1;
            assert_eq!(l.bytes.len(), 1024);
            assert_eq!(l.dropped, 100 * (1 << 20) - 1024);
        });
        assert_eq!(seen, 1);
    }
}
