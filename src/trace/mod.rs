//! gctrace text: parsing, formatting, and reading it from files and streams.

pub mod format;
pub mod lines;
pub mod parse;
pub mod reader;

use crate::event::Event;
use crate::timeline::Timeline;
use anyhow::{Context, Result};
use std::io::Read;
use std::path::Path;

/// Bytes -> events, incrementally: feed chunks as they arrive, then `finish`.
#[derive(Default)]
pub struct Decoder {
    lines: lines::LineSplitter,
    reader: reader::Reader,
}

impl Decoder {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, chunk: &[u8], out: &mut impl FnMut(Event)) {
        let reader = &mut self.reader;
        self.lines.push(chunk, |l| reader.line(l, out));
    }

    pub fn finish(&mut self, out: &mut impl FnMut(Event)) {
        let reader = &mut self.reader;
        self.lines.finish(|l| reader.line(l, out));
        reader.finish(out);
    }

    /// Physical lines seen so far.
    pub fn lines(&self) -> u64 {
        self.lines.lines()
    }
}

/// Read a whole stream into a timeline. I/O errors are returned; bad lines never are (they
/// become problems in the timeline).
pub fn read_all(input: impl Read) -> std::io::Result<Timeline> {
    read_all_into(input, Timeline::default())
}

/// `read_all` into a prepared timeline (e.g. one with `drop_cycles` set).
pub fn read_all_into(mut input: impl Read, timeline: Timeline) -> std::io::Result<Timeline> {
    pipeline(timeline, None, |send, take| {
        let mut splitter = lines::LineSplitter::default();
        let mut batch = take();
        let mut buf = vec![0u8; 256 * 1024];
        loop {
            let n = match input.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            splitter.push(&buf[..n], |l| batch.add_copy(l));
            if batch.items.len() >= BATCH && !send(std::mem::replace(&mut batch, take())) {
                return Ok(());
            }
        }
        splitter.finish(|l| batch.add_copy(l));
        send(batch);
        Ok(())
    })
}

/// Bytes already in memory (a mapped file) into a timeline: lines are classified in place.
pub fn read_bytes_into(bytes: &[u8], timeline: Timeline) -> Timeline {
    let result = pipeline(timeline, Some(bytes), |send, take| {
        let mut batch = take();
        let mut start = 0;
        let mut no = 0;
        while start < bytes.len() {
            let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
            no += 1;
            // The same cut as the streaming splitter: a huge line keeps its first bytes.
            let kept = (end - start).min(lines::DEFAULT_MAX_LINE);
            batch.add_in_place(no, start..start + kept, (end - start - kept) as u64, bytes);
            start = end + 1;
            if batch.items.len() >= BATCH && !send(std::mem::replace(&mut batch, take())) {
                return Ok(());
            }
        }
        send(batch);
        Ok(())
    });
    // Nothing in the in-memory producer can fail.
    result.unwrap_or_else(|e| unreachable!("in-memory read failed: {e}"))
}

/// Lines per batch handed from the classifying thread to the building thread.
const BATCH: usize = 4096;

/// Two threads: the caller's `produce` splits and classifies lines (the stateless, costly
/// part) into batches; a second thread runs the reader's cross-line logic and builds the
/// timeline, in line order. `base` is the memory batch ranges point into, when lines are not
/// copied into the batches.
fn pipeline(
    timeline: Timeline,
    base: Option<&[u8]>,
    produce: impl FnOnce(
        &mut dyn FnMut(Batch) -> bool,
        &mut dyn FnMut() -> Batch,
    ) -> std::io::Result<()>,
) -> std::io::Result<Timeline> {
    std::thread::scope(|scope| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(4);
        // Emptied batches go back for reuse: fresh buffers would be page-faulted in again and
        // again, which cost more than the parsing on a large file.
        let (back_tx, back_rx) = std::sync::mpsc::sync_channel::<Batch>(8);
        let builder = std::thread::Builder::new()
            .name("gcscope-build".into())
            .spawn_scoped(scope, move || {
                let mut tl = timeline;
                let mut reader = reader::Reader::new();
                let mut sink = |e| tl.apply(e);
                for mut batch in rx {
                    let src = base.unwrap_or(&batch.bytes);
                    for item in batch.items.drain(..) {
                        let raw = lines::RawLine {
                            no: item.no,
                            bytes: &src[item.range],
                            dropped: item.dropped,
                        };
                        reader.classified(raw, item.line, &mut sink);
                    }
                    batch.bytes.clear();
                    let _ = back_tx.try_send(batch);
                }
                reader.finish(&mut sink);
                tl
            })?;
        // A send fails only if the builder is gone, and then join reports why.
        let result = produce(&mut |b| tx.send(b).is_ok(), &mut || {
            back_rx.try_recv().unwrap_or_default()
        });
        drop(tx);
        let mut tl = builder
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        result?;
        tl.apply(Event::End { error: None });
        Ok(tl)
    })
}

/// Classified lines on their way from the reading thread to the building thread.
#[derive(Default)]
struct Batch {
    bytes: Vec<u8>,
    items: Vec<BatchItem>,
}

struct BatchItem {
    no: u64,
    range: std::ops::Range<usize>,
    dropped: u64,
    line: parse::Line,
}

impl Batch {
    /// A line from a stream: copied, since the read buffer is reused.
    fn add_copy(&mut self, l: lines::RawLine<'_>) {
        let start = self.bytes.len();
        self.bytes.extend_from_slice(l.bytes);
        self.items.push(BatchItem {
            no: l.no,
            range: start..self.bytes.len(),
            dropped: l.dropped,
            line: parse::parse_line(l.bytes),
        });
    }

    /// A line of in-memory input: only its range travels.
    fn add_in_place(&mut self, no: u64, range: std::ops::Range<usize>, dropped: u64, base: &[u8]) {
        let line = parse::parse_line(&base[range.clone()]);
        self.items.push(BatchItem {
            no,
            range,
            dropped,
            line,
        });
    }
}

/// Files at least this large are mapped instead of read: no copy through a buffer.
const MAP_AT_LEAST: u64 = 1 << 20;

/// Read a file (or standard input for `-`) into a timeline.
pub fn read_path(path: &Path) -> Result<Timeline> {
    read_path_into(path, Timeline::default())
}

/// `read_path` into a prepared timeline.
pub fn read_path_into(path: &Path, timeline: Timeline) -> Result<Timeline> {
    if path.as_os_str() == "-" {
        return read_all_into(std::io::stdin().lock(), timeline).context("reading standard input");
    }
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let meta = file
        .metadata()
        .with_context(|| format!("reading {}", path.display()))?;
    if meta.is_file() && meta.len() >= MAP_AT_LEAST {
        // SAFETY: the map is read-only and lives only for this call. Another process
        // truncating the file meanwhile would fault (SIGBUS); a log being appended to is fine.
        // A summary of a log being truncated under it is not a case we serve.
        if let Ok(map) = unsafe { memmap2::Mmap::map(&file) } {
            return Ok(read_bytes_into(&map, timeline));
        }
    }
    read_all_into(file, timeline).with_context(|| format!("reading {}", path.display()))
}
