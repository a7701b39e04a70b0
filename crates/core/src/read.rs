//! Reading gctrace bytes into a `Timeline`: a stream on one thread in bounded memory, bytes
//! already in memory (a mapped file) in pieces on all cores, joined into exactly the timeline
//! one reader makes. Files and standard input are the sources crate's (`gcscope_source::read`).

use crate::timeline::Timeline;
use crate::trace::lines::{RawLine, DEFAULT_MAX_LINE};
use crate::trace::reader::Reader;
use crate::trace::Decoder;
use gcscope_model::Event;
use std::io::Read;

/// Read a whole stream into a timeline. I/O errors are returned; bad lines never are (they
/// become problems in the timeline). A file is better read with `gcscope_source::read_path`, which maps it
/// and reads it on all cores.
pub fn read_all(input: impl Read) -> std::io::Result<Timeline> {
    read_all_into(input, Timeline::default())
}

/// `read_all` into a prepared timeline (e.g. one with `drop_cycles` set). One thread, in
/// bounded memory: a stream is read a buffer at a time.
pub fn read_all_into(mut input: impl Read, timeline: Timeline) -> std::io::Result<Timeline> {
    let mut tl = timeline;
    let mut decoder = Decoder::new();
    let mut sink = |e| tl.apply(e);
    let mut buf = vec![0u8; 256 * 1024];
    loop {
        match input.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => decoder.push(&buf[..n], &mut sink),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    decoder.finish(&mut sink);
    tl.apply(Event::End { error: None });
    Ok(tl)
}

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
        let end = memchr::memchr(b'\n', &bytes[start..]).map_or(bytes.len(), |i| start + i);
        // The same cut as the streaming splitter: a huge line keeps its first bytes.
        let kept = (end - start).min(DEFAULT_MAX_LINE);
        let raw = RawLine {
            no,
            bytes: &bytes[start..start + kept],
            dropped: (end - start - kept) as u64,
        };
        reader.line(raw, &mut |e| tl.apply(e));
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
        let whole = read_all(&bytes[..]).unwrap();
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
}
