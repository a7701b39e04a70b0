//! Sources for the dashboard: each runs on its own thread, decodes bytes into events and sends
//! them in batches on a channel. A source never touches the UI.

use crate::model::Event;
use crate::trace::Decoder;
use std::io::Read;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::mpsc::Sender;

/// Events from source `.0`.
pub type Batch = (usize, Vec<Event>);

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
}

impl Spec {
    /// Cycles arrive over time (no replay).
    pub fn live(&self) -> bool {
        matches!(self, Spec::Stdin | Spec::Follow(_) | Spec::Lab(_))
    }
}

/// Events are sent in batches of about this many.
const BATCH: usize = 4096;

/// Start a source on its own thread.
pub fn spawn(spec: Spec, id: usize, tx: Sender<Batch>) {
    std::thread::spawn(move || {
        let mut out = Out {
            id,
            tx,
            buf: Vec::new(),
        };
        let result = match spec {
            Spec::File(path) => match std::fs::File::open(&path) {
                Ok(f) => read_to_end(f, &mut out),
                Err(e) => Err(format!("cannot open {}: {e}", path.display())),
            },
            Spec::Stdin => read_to_end(std::io::stdin().lock(), &mut out),
            Spec::Embedded(bytes) => read_to_end(bytes, &mut out),
            Spec::Follow(path) => follow(&path, &mut out),
            Spec::Lab(spec) => {
                lab(&spec, &mut out);
                Ok(())
            }
        };
        out.push(Event::End {
            error: result.err(),
        });
        out.flush();
    });
}

struct Out {
    id: usize,
    tx: Sender<Batch>,
    buf: Vec<Event>,
}

impl Out {
    fn push(&mut self, e: Event) {
        self.buf.push(e);
        if self.buf.len() >= BATCH {
            self.flush();
        }
    }

    /// False once the dashboard has gone away.
    fn flush(&mut self) -> bool {
        if self.buf.is_empty() {
            return !self.tx.is_closed();
        }
        self.tx
            .blocking_send((self.id, std::mem::take(&mut self.buf)))
            .is_ok()
    }
}

/// A live change of a lab source's settings; each starts a fresh, labelled run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Switch {
    Workload(crate::lab::Shape),
    Marker(crate::lab::Marker),
    Gogc(u64),
}

#[derive(Debug, Clone)]
pub struct LabSpec {
    pub cfg: crate::lab::Config,
    pub switches: Option<Arc<Mutex<Receiver<Switch>>>>,
}

/// The dashboard's handle on its lab sources: the keys' actions become switches, sent to
/// every lab source (both sides of an A/B get the same workload and GOGC).
#[derive(Debug)]
pub struct LabControl {
    senders: Vec<SyncSender<Switch>>,
    pub shape: crate::lab::Shape,
    /// The marker of a one-sided lab; `None` for an A/B (both markers are shown).
    pub marker: Option<crate::lab::Marker>,
    pub gogc: u64,
}

impl LabControl {
    /// Lab specs for these configurations (one, or the two sides of an A/B) and their
    /// control.
    pub fn new(cfgs: Vec<crate::lab::Config>) -> (LabControl, Vec<Spec>) {
        let first = cfgs.first().cloned().unwrap_or_default();
        let mut senders = Vec::new();
        let specs = cfgs
            .into_iter()
            .map(|cfg| {
                let (tx, rx) = std::sync::mpsc::sync_channel(16);
                senders.push(tx);
                Spec::Lab(Box::new(LabSpec {
                    cfg,
                    switches: Some(Arc::new(Mutex::new(rx))),
                }))
            })
            .collect::<Vec<_>>();
        let control = LabControl {
            marker: (specs.len() == 1).then_some(first.marker),
            senders,
            shape: first.shape,
            gogc: first.gogc,
        };
        (control, specs)
    }

    pub fn act(&mut self, a: crate::ui::keys::Action) {
        use crate::lab::{Marker, Shape};
        use crate::ui::keys::Action;
        let switch = match a {
            Action::LabWorkload => {
                let all = Shape::ALL;
                let i = all.iter().position(|&s| s == self.shape).unwrap_or(0);
                self.shape = all[(i + 1) % all.len()];
                Switch::Workload(self.shape)
            }
            Action::LabMarker => match self.marker {
                Some(m) => {
                    let m = match m {
                        Marker::Legacy => Marker::Greentea,
                        Marker::Greentea => Marker::Legacy,
                    };
                    self.marker = Some(m);
                    Switch::Marker(m)
                }
                None => return,
            },
            Action::LabGogcUp => {
                self.gogc = self.gogc.saturating_mul(2).min(i32::MAX as u64);
                Switch::Gogc(self.gogc)
            }
            Action::LabGogcDown => {
                self.gogc = (self.gogc / 2).max(1);
                Switch::Gogc(self.gogc)
            }
            _ => return,
        };
        for s in &self.senders {
            // A full queue means the source is behind; the newest state is sent next time.
            let _ = s.try_send(switch);
        }
    }
}

/// Runs the lab and sends each cycle as it ends, until the dashboard goes away. A switch
/// ends the run at its next cycle and starts a fresh one with the new settings.
fn lab(spec: &LabSpec, out: &mut Out) {
    let mut cfg = spec.cfg.clone();
    let mut run = 0;
    loop {
        let switches = lab_run(&cfg, spec.switches.as_deref(), run, out);
        if switches.is_empty() {
            return;
        }
        for s in switches {
            match s {
                Switch::Workload(w) => cfg.shape = w,
                Switch::Marker(m) => cfg.marker = m,
                Switch::Gogc(g) => cfg.gogc = g,
            }
        }
        if let Some((t, side)) = &cfg.turns {
            t.rejoin(*side);
        }
        run += 1;
    }
}

/// One lab run as run `run` of the source, until a switch arrives (returned) or the
/// dashboard goes away (nothing returned).
fn lab_run(
    cfg: &crate::lab::Config,
    switches: Option<&Mutex<Receiver<Switch>>>,
    run: usize,
    out: &mut Out,
) -> Vec<Switch> {
    let fairness = match &cfg.turns {
        Some((t, _)) => format!(
            "; A/B fairness: the two sides take turns on the machine (at least {} ms each, \
             switching at cycle ends), so they never compete for CPU and each clock leaves out \
             the other's turns",
            t.slice.as_millis()
        ),
        None => String::new(),
    };
    out.push(Event::Output {
        line: 0,
        text: format!("gcscope {}{fairness}", cfg.label()),
    });
    out.push(Event::RunStart {
        run,
        line: 0,
        restart: None,
    });
    // The header shows the label: an A/B says how it keeps the comparison fair.
    let label = match &cfg.turns {
        Some((t, _)) => format!("{} · turns ≥{} ms", cfg.label(), t.slice.as_millis()),
        None => cfg.label(),
    };
    out.push(Event::RunLabel { run, label });
    let mut pending = Vec::new();
    if !out.flush() {
        return pending;
    }
    let mut alive = true;
    crate::lab::run(cfg, |lc| {
        out.push(Event::Cycle {
            run,
            cycle: Box::new(lc.result.cycle),
        });
        alive = out.flush();
        // A waiting switch ends this run at its cycle boundary.
        if let Some(rx) = switches.and_then(|r| r.lock().ok()) {
            pending.extend(rx.try_iter());
        }
        alive && pending.is_empty()
    });
    if !alive {
        pending.clear();
    }
    pending
}

fn read_to_end(mut r: impl Read, out: &mut Out) -> Result<(), String> {
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
            Err(e) => return Err(format!("read error: {e}")),
        }
    }
    dec.finish(&mut |e| out.push(e));
    Ok(())
}

/// `tail -F`: read what is there, then poll for more. A file that shrinks was truncated and
/// is read again from the start; a different file at the path (rotation) is opened anew.
fn follow(path: &std::path::Path, out: &mut Out) -> Result<(), String> {
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
