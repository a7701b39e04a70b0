//! Reading gctrace bytes into a `Timeline`: a stream on one thread in bounded memory, bytes
//! already in memory (a mapped file) in pieces on all cores, joined into exactly the timeline
//! one reader makes. Files and standard input are the sources crate's (`gcscope_source::read`).

use crate::timeline::Timeline;
use crate::trace::lines::{RawLine, DEFAULT_MAX_LINE};
use crate::trace::parse::common_line_at;
use crate::trace::reader::Reader;
use crate::trace::Decoder;
use gcscope_model::Event;
use std::io::Read;
use std::sync::atomic::Ordering::Relaxed;

/// Read a whole stream into a timeline. I/O errors are returned; bad lines never are (they
/// become problems in the timeline). A file is better read with `gcscope_source::read_path`, which maps it
/// and reads it on all cores.
pub fn read_all(input: impl Read) -> std::io::Result<Timeline> {
    read_all_into(input, Timeline::default())
}

/// `read_all` into a prepared timeline (e.g. one with `drop_cycles` set). One thread, in
/// bounded memory: a stream is read a buffer at a time.
pub fn read_all_into(input: impl Read, timeline: Timeline) -> std::io::Result<Timeline> {
    let mut tl = timeline;
    decode(input, &mut |e| tl.apply(e))?;
    tl.apply(Event::End { error: None });
    Ok(tl)
}

/// A stream's events, a buffer at a time on this thread (`Event::End` excepted).
fn decode(mut input: impl Read, each: &mut dyn FnMut(Event)) -> std::io::Result<()> {
    let mut decoder = Decoder::new();
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => decoder.push(&buf[..n], &mut |e| each(e)),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    decoder.finish(&mut |e| each(e));
    Ok(())
}

/// `read_all_into` on two threads: another reads the stream, cuts it into lines and
/// classifies them (`parse_line_into`, which needs no state), a batch a read; the caller's
/// thread reads the classified lines into the timeline (the reader's state: runs, stitching,
/// statistics) and hands each batch's buffers back. A batch goes over unclassified when the
/// caller's thread is waiting for one, and is classified there (`ParseOn::Idle`). The same
/// timeline as `read_all_into`, in bounded memory: at most `BATCHES_AHEAD` batches wait.
///
/// A batch keeps the bytes as read, and its lines are ranges of them (only a line begun in an
/// earlier read is copied, joined); the common gc line's cycle is kept in the batch and boxed
/// on the reading thread. (Copying every line, and a box made on one thread and freed on the
/// other, were a tenth of the cutting thread's time. Reusing the boxes of cycles the timeline
/// dropped, as a mapped file's pieces do, was 6 % less CPU but raised the peak of 3M lines
/// from a pipe from 36 to 53 MB: mimalloc committed 69 MiB instead of 40 under transparent
/// huge pages.)
///
/// # Errors
/// The stream's I/O error; bad lines never are (they become problems in the timeline).
pub fn read_stream_into(input: impl Read + Send, timeline: Timeline) -> std::io::Result<Timeline> {
    let mut tl = timeline;
    read_stream_with(input, &mut |e| tl.apply(e))?;
    tl.apply(Event::End { error: None });
    Ok(tl)
}

/// `read_stream_into`, each event handed to `each` as it is made (`Event::End` excepted).
///
/// # Errors
/// The stream's I/O error.
pub fn read_stream_with(
    input: impl Read + Send,
    each: &mut dyn FnMut(Event),
) -> std::io::Result<()> {
    read_stream_split(input, each, ParseOn::Idle)
}

/// Which thread of `read_stream_with` parses a batch's lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ParseOn {
    /// The cutting thread, unless the reading one is waiting for work: then it gets the batch
    /// unparsed and parses it itself. (The cutting thread did 56 % of the work with every
    /// line parsed there, and the reading one waited.)
    Idle,
    /// Always the cutting thread, or always the reading one: for tests, which must make the
    /// same timeline either way.
    #[cfg(test)]
    Cutter,
    #[cfg(test)]
    Reader,
}

fn read_stream_split(
    mut input: impl Read + Send,
    each: &mut dyn FnMut(Event),
    parse_on: ParseOn,
) -> std::io::Result<()> {
    use crate::trace::lines::LineSplitter;
    use crate::trace::parse::{parse_line_into, Line};
    use gcscope_model::Cycle;
    use std::sync::mpsc;

    /// Where a line's bytes are: in what the read gave, or among the lines joined across reads.
    enum Bytes {
        Read(std::ops::Range<usize>),
        Joined(std::ops::Range<usize>),
    }
    /// A line as classified: the common gc line (its cycle next in `Batch::cycles`, and what
    /// follows it on the line), anything else, or not yet (the reading thread parses it).
    enum Classified {
        Common(std::ops::Range<usize>),
        Other(Line),
        Unread,
    }
    /// What one read gave and its lines: each line's number, bytes, bytes cut off its end and
    /// classification.
    struct Batch {
        read: Vec<u8>,
        joined: Vec<u8>,
        lines: Vec<(u64, Bytes, u64, Classified)>,
        cycles: Vec<Cycle>,
    }
    impl Batch {
        fn new() -> Self {
            Batch {
                read: vec![0; READ],
                joined: Vec::new(),
                lines: Vec::new(),
                cycles: Vec::new(),
            }
        }
    }
    let (full_tx, full_rx) = mpsc::sync_channel::<std::io::Result<Batch>>(BATCHES_AHEAD);
    // Batches sent and not yet taken by the reading thread: none means it waits for work.
    let queued = std::sync::atomic::AtomicUsize::new(0);
    let queued = &queued;
    let (empty_tx, empty_rx) = mpsc::channel::<Batch>();
    let stream = &mut input;
    let piped = std::thread::scope(|scope| {
        let cutter = std::thread::Builder::new()
            .name("gcscope-lines".into())
            .spawn_scoped(scope, move || {
                let mut splitter = LineSplitter::default();
                let mut batch = Batch::new();
                loop {
                    let n = match stream.read(&mut batch.read) {
                        Ok(n) => n,
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(e) => {
                            let _ = full_tx.send(Err(e));
                            return;
                        }
                    };
                    let Batch {
                        read,
                        joined,
                        lines,
                        cycles,
                    } = &mut batch;
                    let at = read.as_ptr() as usize;
                    let parse_here = match parse_on {
                        ParseOn::Idle => queued.load(Relaxed) > 0,
                        #[cfg(test)]
                        ParseOn::Cutter => true,
                        #[cfg(test)]
                        ParseOn::Reader => false,
                    };
                    let mut add = |l: RawLine<'_>| {
                        // A line that lies in this read is a range of it; one begun in an
                        // earlier read (the splitter's own copy) is copied.
                        let from = (l.bytes.as_ptr() as usize).wrapping_sub(at);
                        let bytes = if from < n {
                            Bytes::Read(from..from + l.bytes.len())
                        } else {
                            joined.extend_from_slice(l.bytes);
                            Bytes::Joined(joined.len() - l.bytes.len()..joined.len())
                        };
                        let classified = if parse_here {
                            let mut cycle = Cycle::default();
                            match parse_line_into(l.bytes, &mut cycle) {
                                Ok(after) => {
                                    cycles.push(cycle);
                                    Classified::Common(after)
                                }
                                Err(line) => Classified::Other(line),
                            }
                        } else {
                            Classified::Unread
                        };
                        lines.push((l.no, bytes, l.dropped, classified));
                    };
                    if n == 0 {
                        splitter.finish(add);
                        queued.fetch_add(1, Relaxed);
                        let _ = full_tx.send(Ok(batch));
                        return;
                    }
                    splitter.push(&read[..n], &mut add);
                    // Handed on a read at a time (a live program's lines are read as they
                    // come), unless the read held no whole line.
                    if lines.is_empty() {
                        continue;
                    }
                    let mut next = empty_rx.try_recv().unwrap_or_else(|_| Batch::new());
                    next.joined.clear();
                    next.lines.clear();
                    next.cycles.clear();
                    queued.fetch_add(1, Relaxed);
                    if full_tx
                        .send(Ok(std::mem::replace(&mut batch, next)))
                        .is_err()
                    {
                        return;
                    }
                }
            });
        if cutter.is_err() {
            // No thread to cut on: read here, below.
            return None;
        }
        let mut reader = Reader::new();
        for batch in full_rx {
            queued.fetch_sub(1, Relaxed);
            let mut batch = match batch {
                Ok(b) => b,
                Err(e) => return Some(Err(e)),
            };
            let mut cycles = batch.cycles.drain(..);
            for (no, bytes, dropped, classified) in batch.lines.drain(..) {
                let bytes = match bytes {
                    Bytes::Read(r) => &batch.read[r],
                    Bytes::Joined(r) => &batch.joined[r],
                };
                let raw = RawLine { no, bytes, dropped };
                let parsed = match classified {
                    // A cycle is kept for every common line, in order.
                    Classified::Common(after) => match cycles.next() {
                        Some(cycle) => Line::Cycle {
                            cycle: Box::new(cycle),
                            before: 0..0,
                            after,
                        },
                        None => continue,
                    },
                    Classified::Other(line) => line,
                    Classified::Unread => {
                        reader.line(raw, &mut |e| each(e));
                        continue;
                    }
                };
                reader.parsed_line(raw, parsed, &mut |e| each(e));
            }
            drop(cycles);
            let _ = empty_tx.send(batch);
        }
        reader.finish(&mut |e| each(e));
        Some(Ok(()))
    });
    // No thread to cut lines on: all of it here.
    piped.unwrap_or_else(|| decode(input, each))
}

/// Bytes a read of a stream asks for (`read_stream_into`): what a batch holds at most.
const READ: usize = 256 * 1024;

/// Batches of lines cut and classified ahead of the reader (`read_stream_into`).
const BATCHES_AHEAD: usize = 4;

/// Bytes already in memory (a mapped file) into a timeline, one piece per core read side by
/// side (see `read_bytes_in_pieces`).
#[must_use]
pub fn read_bytes_into(bytes: &[u8], timeline: Timeline) -> Timeline {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    read_bytes_in_pieces(bytes, timeline, cores.min(bytes.len() / MIN_PIECE)).0
}

/// The largest piece of a mapped file: with one in memory per core, what a large file costs.
pub const MAX_PIECE: usize = 64 << 20;

/// Below this many bytes a piece is not worth a thread of its own.
pub const MIN_PIECE: usize = 1 << 20;

/// Read `bytes` cut into up to `pieces` consecutive pieces, each starting at a gc line and
/// read on its own thread (classifying and building in one pass: handing parsed lines to
/// another thread cost as much as parsing them). Each piece after the first is then joined to
/// the reading before it when `Reader::join` finds its runs are the ones one reader of the
/// whole input makes; otherwise (a line split across the cut, interleaved processes) it is
/// read again on from there. Either way the timeline is the one a single reader makes: tests
/// cut small inputs into many pieces and compare.
#[must_use]
pub fn read_bytes_in_pieces(bytes: &[u8], timeline: Timeline, pieces: usize) -> (Timeline, Pieces) {
    read_pieces(bytes, timeline, pieces, pieces, &|_| {})
}

/// `read_bytes_in_pieces` with at most `at_once` pieces (at least two) read at a time, calling `done` with each piece's range once it has been read: a mapped file gives
/// its pages back then, so memory holds `at_once` pieces, whatever the file's size.
pub fn read_pieces(
    bytes: &[u8],
    timeline: Timeline,
    pieces: usize,
    at_once: usize,
    done: &(dyn Fn(std::ops::Range<usize>) + Sync),
) -> (Timeline, Pieces) {
    let cuts = cut_before_gc_lines(bytes, pieces.max(1));
    let (drop_cycles, drop_text, window, lean_stats) = (
        timeline.drop_cycles,
        timeline.drop_text,
        timeline.window,
        timeline.lean_stats,
    );
    // A timeline that retires its runs holds only the latest: a piece read on its own holds
    // all of its own, so one of many short runs stops and is read again, on, where they retire.
    let max_runs = match timeline.retire {
        Some(_) => PIECE_MAX_RUNS,
        None => usize::MAX,
    };
    std::thread::scope(|scope| {
        // Piece k on a thread of its own, numbering its lines from 1: how many lines come
        // before it is known only once they are read.
        let spawn = |k: usize| {
            let range = cuts[k].clone();
            let piece = &bytes[range.clone()];
            let thread = std::thread::Builder::new()
                .name(format!("gcscope-read{k}"))
                .spawn_scoped(scope, move || {
                    let mut reader = Reader::for_piece();
                    let mut tl = Timeline {
                        drop_cycles,
                        drop_text,
                        window,
                        lean_stats,
                        ..Timeline::default()
                    };
                    let lines = read_lines(piece, 1, &mut reader, &mut tl, max_runs);
                    done(range);
                    (reader, tl, lines)
                });
            (piece, thread)
        };
        let mut next = 1;
        let mut later = std::collections::VecDeque::new();
        while next < cuts.len() && next < at_once {
            later.push_back(spawn(next));
            next += 1;
        }
        let mut tl = timeline;
        let mut reader = Reader::new();
        let mut lines = read_lines(&bytes[cuts[0].clone()], 1, &mut reader, &mut tl, usize::MAX)
            .unwrap_or_default();
        done(cuts[0].clone());
        let mut count = Pieces {
            read: cuts.len(),
            read_again: 0,
        };
        loop {
            if later.is_empty() && next < cuts.len() {
                later.push_back(spawn(next));
                next += 1;
            }
            let Some((piece, thread)) = later.pop_front() else {
                break;
            };
            // Keep `at_once` pieces in flight while this one is waited for and joined: the one
            // joined here is still being read. (Topped up before the pop, only `at_once - 1`
            // were: from the third piece on, one piece was read at a time while this thread
            // waited, and a 141 MB file used 1.4 of 2 cores.)
            while next < cuts.len() && later.len() < at_once.max(2) - 1 {
                later.push_back(spawn(next));
                next += 1;
            }
            // A piece whose thread could not start is read here.
            let read = thread.ok().map(|t| {
                t.join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            });
            let joined = read.and_then(|(piece_reader, piece_tl, piece_lines)| {
                let piece_lines = piece_lines?;
                let starts_with_cycle = piece_tl.runs.first().is_some_and(|r| r.first_line == 1);
                let join = reader.join(piece_reader, starts_with_cycle, lines)?;
                Some((join, piece_tl, piece_lines))
            });
            lines += match joined {
                Some((join, piece_tl, piece_lines)) => {
                    tl.append(piece_tl, &join.runs, join.restart, lines);
                    piece_lines
                }
                None => {
                    count.read_again += 1;
                    let n = read_lines(piece, lines + 1, &mut reader, &mut tl, usize::MAX)
                        .unwrap_or_default();
                    let at = piece.as_ptr() as usize - bytes.as_ptr() as usize;
                    done(at..at + piece.len());
                    n
                }
            };
        }
        reader.finish(&mut |e| tl.apply(e));
        tl.apply(Event::End { error: None });
        (tl, count)
    })
}

/// How `read_bytes_in_pieces` went: how many pieces the input was cut into (fewer than asked
/// when there were not enough gc lines to cut at), and how many of them could not be joined
/// and were read again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pieces {
    pub read: usize,
    pub read_again: usize,
}

/// A piece read on its own stops at this many runs when its timeline retires runs.
const PIECE_MAX_RUNS: usize = 4096;

/// Classify and build the lines of `bytes`, the first numbered `first`; how many there were,
/// or `None` when the timeline reached `max_runs` runs and the rest was not read.
fn read_lines(
    bytes: &[u8],
    first: u64,
    reader: &mut Reader,
    tl: &mut Timeline,
    max_runs: usize,
) -> Option<u64> {
    let mut start = 0;
    let mut no = first;
    while start < bytes.len() {
        // Most lines of a large trace are read where they start, their end found by the
        // parse; anything else is cut at its newline first.
        let (end, common) = match common_line_at(&bytes[start..], &mut tl.spare_cycle.0) {
            Some((len, parsed)) => (start + len, Some(parsed)),
            None => (
                memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i),
                None,
            ),
        };
        // The same cut as the streaming splitter: a huge line keeps its first bytes.
        let kept = (end - start).min(DEFAULT_MAX_LINE);
        let raw = RawLine {
            no,
            bytes: &bytes[start..start + kept],
            dropped: (end - start - kept) as u64,
        };
        match common {
            Some(parsed) => reader.parsed_line(raw, parsed, &mut |e| tl.apply(e)),
            None => reader.line(raw, &mut |e| tl.apply(e)),
        }
        no += 1;
        start = end + 1;
        if max_runs != usize::MAX && no.is_multiple_of(1024) && tl.runs.len() >= max_runs {
            return None;
        }
    }
    Some(no - first)
}

/// Up to `n` consecutive ranges covering `bytes`, about equal, each after the first starting
/// at a line that starts with `gc ` and a digit. Fewer when there are no such lines to cut at.
fn cut_before_gc_lines(bytes: &[u8], n: usize) -> Vec<std::ops::Range<usize>> {
    let finder = memchr::memmem::Finder::new(b"\ngc ");
    let mut cuts = vec![0];
    for k in 1..n {
        let from = (bytes.len() / n * k).max(cuts[cuts.len() - 1]);
        let next = finder
            .find_iter(&bytes[from..])
            .map(|i| from + i + 1)
            .find(|&at| bytes.get(at + 3).is_some_and(u8::is_ascii_digit));
        match next {
            Some(at) if at > cuts[cuts.len() - 1] => cuts.push(at),
            _ => break,
        }
    }
    cuts.push(bytes.len());
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timeline::Window;

    /// Pieces read a few at a time (as a large mapped file is) make the single reader's
    /// timeline, and every byte is handed back once read.
    #[test]
    fn pieces_read_a_few_at_a_time_equal_the_single_read() {
        let mut bytes = Vec::new();
        for f in [
            "traces/go/go1.27.3_greentea_map_p2_gctrace2.log",
            "traces/go/go1.26.6_legacy_tree_p2_r1.stdout.txt",
            "traces/go/go1.27.3_greentea_tree_p2_r1.log",
        ] {
            // The repository's traces/, from this crate's folder (tests run there).
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join(f);
            bytes.extend(std::fs::read(path).unwrap());
        }
        // A process of its own after these: its forced cycles, and cycles with stacks and
        // globals, come before ones without (below).
        for n in 1..=400u32 {
            let (forced, roots) = match n % 3 {
                0 => (" (forced)", ", 1 MB stacks, 2 MB globals"),
                1 => ("", ""),
                _ => ("", ", 0 MB stacks, 0 MB globals"),
            };
            let line = format!("gc {n} @{n}.5s 2%: 0.1+{n}+0.2 ms clock, 0.2+0.3/{n}/0.4+0.5 ms cpu, 9->10->{n} MB, 11 MB goal{roots}, 4 P{forced}\n");
            bytes.extend_from_slice(line.as_bytes());
        }
        let whole = read_all(&bytes[..]).unwrap();
        // Cycles dropped once their figures are taken (a summary's timeline), and before a
        // window: their boxes hold the next lines read, which must read as fresh ones.
        for window in [
            Window::default(),
            Window {
                from_cycle: Some(5),
                after_ns: None,
            },
        ] {
            let prepared = || Timeline {
                drop_cycles: true,
                window,
                ..Timeline::default()
            };
            let whole = read_all_into(&bytes[..], prepared()).unwrap();
            let (tl, _) = read_bytes_in_pieces(&bytes, prepared(), 6);
            assert_eq!(tl, whole, "cycles dropped, {window:?}");
            assert!(tl.runs.iter().all(|r| r.cycles.is_empty()));
        }
        for (pieces, at_once) in [(7, 2), (11, 3), (5, 1)] {
            let given_back = std::sync::Mutex::new(Vec::new());
            let (tl, count) = read_pieces(&bytes, Timeline::default(), pieces, at_once, &|r| {
                given_back.lock().unwrap().push(r)
            });
            assert_eq!(tl, whole, "{pieces} pieces, {at_once} at a time");
            assert_eq!(count.read, pieces);
            let mut ranges = given_back.into_inner().unwrap();
            ranges.sort_by_key(|r| r.start);
            ranges.dedup();
            assert_eq!(ranges.first().map(|r| r.start), Some(0));
            assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
            assert_eq!(ranges.last().map(|r| r.end), Some(bytes.len()));
        }
    }

    /// `read_stream_into` with the lines parsed on the thread `parse_on` says.
    fn read_stream_parsed_on(
        input: impl Read + Send,
        parse_on: ParseOn,
    ) -> std::io::Result<Timeline> {
        let mut tl = Timeline::default();
        read_stream_split(input, &mut |e| tl.apply(e), parse_on)?;
        tl.apply(Event::End { error: None });
        Ok(tl)
    }

    /// Gives `step` bytes a read, then (with `fail`) an error instead of the end.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
        fail: bool,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.bytes.is_empty() && self.fail {
                return Err(std::io::Error::other("the disk went away"));
            }
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    /// A stream read on two threads (lines cut and classified on one, read into the timeline
    /// on the other) makes the single reader's timeline, whatever the reads' sizes (a batch
    /// a read, lines cut across reads, reads as large as `READ`) and whichever thread parses
    /// the lines; and an I/O error ends it with that error.
    #[test]
    fn a_stream_read_on_two_threads_equals_the_single_read() {
        let mut bytes = Vec::new();
        for f in [
            "traces/go/go1.27.3_greentea_map_p2_gctrace2.log",
            "traces/go/go1.26.6_legacy_tree_p2_r1.stdout.txt",
            "traces/wild/034_felixge-dump-gctrace-gotest-bench-12P.txt",
        ] {
            let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../..")
                .join(f);
            bytes.extend(std::fs::read(path).unwrap());
        }
        let whole = read_all(&bytes[..]).unwrap();
        assert!(whole.cycle_count() > 50 && !whole.output.is_empty());
        for step in [1, 7, 4096, 1 << 20] {
            let trickle = Trickle {
                bytes: &bytes,
                step,
                fail: false,
            };
            let tl = read_stream_into(trickle, Timeline::default()).unwrap();
            assert_eq!(tl, whole, "{step} bytes a read");
        }
        for parse_on in [ParseOn::Cutter, ParseOn::Reader] {
            for step in [7, 1 << 20] {
                let trickle = Trickle {
                    bytes: &bytes,
                    step,
                    fail: false,
                };
                let tl = read_stream_parsed_on(trickle, parse_on).unwrap();
                assert_eq!(tl, whole, "{step} bytes a read, parsed on {parse_on:?}");
            }
        }
        let failing = Trickle {
            bytes: &bytes,
            step: 4096,
            fail: true,
        };
        let err = read_stream_into(failing, Timeline::default()).unwrap_err();
        assert_eq!(err.to_string(), "the disk went away");
    }

    /// The lines a batch cannot hold as ranges of its read: a line longer than the line limit
    /// (cut, within a read and across reads), lines ending in CRLF, a gc line glued to other
    /// output, one split across reads, and a last line without a newline. Read on two threads,
    /// they make the single reader's timeline.
    #[test]
    fn a_stream_of_awkward_lines_reads_as_the_single_reader_reads_it() {
        let gc = |n: u32| {
            format!("gc {n} @0.{n:03}s 1%: 0.010+1.2+0.011 ms clock, 0.020+0.1/1.0/0+0.022 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P")
        };
        let mut text = String::new();
        for n in 1..60u32 {
            match n % 6 {
                0 => text += &format!("{}\r\n", gc(n)),
                1 => text += &format!("BenchmarkX-2 \t{}\n", gc(n)),
                2 if n == 20 => text += &format!("{}\n{}\n", "y".repeat(300_000), gc(n)),
                3 => text += &format!("{} (forced)\n", gc(n)),
                _ => text += &format!("{}\n", gc(n)),
            }
        }
        text += &gc(60);
        let bytes = text.as_bytes();
        let whole = read_all(bytes).unwrap();
        assert_eq!(whole.cycle_count(), 60);
        assert_eq!(whole.problems.len(), 1, "the long line, cut");
        for step in [7, 4096, 65_536, 1 << 20] {
            for parse_on in [ParseOn::Idle, ParseOn::Cutter, ParseOn::Reader] {
                let trickle = Trickle {
                    bytes,
                    step,
                    fail: false,
                };
                let tl = read_stream_parsed_on(trickle, parse_on).unwrap();
                assert_eq!(tl, whole, "{step} bytes a read, parsed on {parse_on:?}");
            }
        }
    }
}
