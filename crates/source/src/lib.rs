//! Sources: where events come from. For the dashboard each source runs on its own thread,
//! decodes bytes into events and sends them in batches on a channel (`spawn`); the headless
//! commands read a whole file or stream into a timeline (`read`). A source never touches the UI.

pub mod ab;
pub mod child;
mod follow;
pub mod gobuild;
mod lab;
pub mod read;
mod shortened;
pub mod signals;
pub mod supervise;

pub use lab::{LabControl, LabKnob, LabSpec, Switch};
pub use read::{read_path, read_path_into, stream_path};
pub use signals::{Interrupted, Signals};

use gcscope_core::trace::Decoder;
use gcscope_model::{Event, SourceId};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tokio::sync::mpsc::Sender;

/// Events from source `.0`.
pub type Batch = (SourceId, Vec<Event>);

#[derive(Debug, Clone)]
pub enum Spec {
    /// A file read once.
    File(PathBuf),
    /// Standard input, as it arrives.
    Stdin,
    /// A file followed as it grows, like `tail -F`: survives truncation and rotation.
    Follow(PathBuf),
    /// Bytes built into the binary.
    Embedded(&'static [u8]),
    /// The lab collector, live; switches (from the dashboard's keys) restart it.
    Lab(Box<LabSpec>),
    /// A program gcscope starts (`gcscope run`), stopped through the control.
    Run(Box<child::ChildSpec>, Arc<child::ChildControl>),
    /// An A/B of two programs (`gcscope ab`): this source is side A, and sends side B's
    /// events as the next source (a `Driven` one).
    Ab(Box<ab::AbSpec>, Arc<child::ChildControl>),
    /// A pane whose events the source before it sends (an A/B's side B).
    Driven,
}

impl Spec {
    /// At most how many cycles the source holds, when that is known before reading
    /// (`cycles_hint_of` its size; `Timeline::cycles_hint`).
    #[must_use]
    pub fn cycles_hint(&self) -> usize {
        cycles_hint_of(match self {
            Spec::File(path) => std::fs::metadata(path)
                .map_or(0, |m| usize::try_from(m.len()).unwrap_or(usize::MAX)),
            Spec::Embedded(bytes) => bytes.len(),
            _ => 0,
        })
    }

    /// Cycles arrive over time (no replay).
    #[must_use]
    pub fn live(&self) -> bool {
        matches!(
            self,
            Spec::Stdin
                | Spec::Follow(_)
                | Spec::Lab(_)
                | Spec::Run(..)
                | Spec::Ab(..)
                | Spec::Driven
        )
    }
}

/// At most how many cycles `bytes` of text hold: their size over the shortest gc line the
/// runtime prints (`Timeline::cycles_hint`).
#[must_use]
pub fn cycles_hint_of(bytes: usize) -> usize {
    // The shortest lines the runtime prints, with their newline, are 74 bytes (Go 1.5
    // without a goal, `gc #1 @0.0s 0%: 0+0+0+0+0 ms clock, 0+0+0+0/0/0+0 ms cpu, 0->0->0 MB,
    // 1 P`) and 76 (`gc 1 @0.0s 0%: 0+0+0 ms clock, 0+0/0/0+0 ms cpu, 0->0->0 MB, 0 MB goal,
    // 1 P`): 64 leaves room. An estimate too low only grows as before.
    const SHORTEST_GC_LINE: usize = 64;
    bytes / SHORTEST_GC_LINE
}

/// Why a source stopped before its end: the model's, since it travels in `Event::End`.
pub use gcscope_model::SourceError;

/// Events are sent in batches of about this many.
const BATCH: usize = 4096;

/// Start a source on its own thread.
pub fn spawn(spec: Spec, id: SourceId, tx: Sender<Batch>) {
    std::thread::spawn(move || {
        let mut out = Out {
            id,
            tx,
            buf: Vec::new(),
        };
        let result = match spec {
            Spec::File(path) => match std::fs::File::open(&path) {
                Ok(f) => read_to_end(f, &path, &mut out),
                Err(e) => Err(SourceError::open(&path, e)),
            },
            Spec::Stdin => read_to_end(std::io::stdin().lock(), Path::new("-"), &mut out),
            Spec::Embedded(bytes) => read_to_end(bytes, Path::new("(embedded)"), &mut out),
            Spec::Follow(path) => follow::follow(&path, &mut out),
            Spec::Lab(spec) => lab::lab(&spec, &mut out),
            Spec::Run(spec, control) => {
                let mut dec = Decoder::new();
                let r = child::run(&spec, &control, &mut dec, &mut out);
                dec.finish(&mut |e| out.push(e));
                control.finish();
                r.map(|_| ())
            }
            Spec::Ab(spec, control) => {
                let mut b = Out {
                    id: id.next(),
                    tx: out.tx.clone(),
                    buf: Vec::new(),
                };
                let r = ab::run(&spec, &control, [&mut out, &mut b], &mut |_| {});
                control.finish();
                let error = match r {
                    Ok(o) => o
                        .stopped_by
                        .filter(|_| !control.stopping())
                        .map(SourceError::Stopped),
                    Err(e) => Some(e),
                };
                for side in [&mut out, &mut b] {
                    side.push(Event::End {
                        error: error.clone(),
                    });
                    side.flush();
                }
                return;
            }
            Spec::Driven => return,
        };
        out.push(Event::End {
            error: result.err(),
        });
        out.flush();
    });
}

/// Where a source's events go: the dashboard's channel (`Out`), or a closure (headless).
pub trait Sink {
    fn push(&mut self, e: Event);
    /// What was pushed is shown now (a live source calls this when it has nothing more).
    fn flush(&mut self) {}
}

impl<F: FnMut(Event)> Sink for F {
    fn push(&mut self, e: Event) {
        self(e)
    }
}

impl Sink for Out {
    fn push(&mut self, e: Event) {
        Out::push(self, e)
    }

    fn flush(&mut self) {
        Out::flush(self);
    }
}

pub(crate) struct Out {
    id: SourceId,
    tx: Sender<Batch>,
    buf: Vec<Event>,
}

impl Out {
    pub(crate) fn push(&mut self, e: Event) {
        self.buf.push(e);
        if self.buf.len() >= BATCH {
            self.flush();
        }
    }

    /// False once the dashboard has gone away.
    pub(crate) fn flush(&mut self) -> bool {
        if self.buf.is_empty() {
            return !self.tx.is_closed();
        }
        self.tx
            .blocking_send((self.id, std::mem::take(&mut self.buf)))
            .is_ok()
    }
}

fn read_to_end(mut r: impl Read, path: &Path, out: &mut Out) -> Result<(), SourceError> {
    let mut dec = Decoder::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match r.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                dec.push(&buf[..n], &mut |e| out.push(e));
                // A live pipe shows what it has now, not when a batch fills.
                if !out.flush() {
                    return Ok(());
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(SourceError::read(path, e)),
        }
    }
    dec.finish(&mut |e| out.push(e));
    Ok(())
}
