//! gctrace text <-> the model: parsing a line, reading lines into events (`Decoder`), and
//! writing the model back as Go's text (`format`). Depends only on `model`.

mod cursor;
mod fast;
pub mod format;
pub mod lines;
pub mod metric;
pub mod parse;
pub mod reader;

use gcscope_model::Event;

/// Bytes -> events, incrementally: feed chunks as they arrive, then `finish`.
#[derive(Default)]
pub struct Decoder {
    lines: lines::LineSplitter,
    reader: reader::Reader,
}

impl Decoder {
    #[must_use]
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

    /// The input starts over (a followed file was truncated or replaced by another): a line
    /// held back is read as it is, line numbers go on, and the next cycle starts a new run
    /// whatever its number.
    pub fn new_stream(&mut self, out: &mut impl FnMut(Event)) {
        let reader = &mut self.reader;
        self.lines.finish(|l| reader.line(l, out));
        reader.new_stream(out);
    }

    /// Physical lines seen so far.
    #[must_use]
    pub fn lines(&self) -> u64 {
        self.lines.lines()
    }
}
