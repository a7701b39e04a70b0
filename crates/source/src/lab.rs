//! The lab collector as a live source: runs it on this thread, sends each cycle as it ends,
//! and restarts it with new settings when the dashboard sends a switch.

use super::{Out, SourceError, Spec};
use gcscope_lab::{Config, LabError, Marker, Shape};
use gcscope_model::{Event, RunId};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Arc, Mutex};

/// What the dashboard can ask of its lab sources.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LabKnob {
    NextWorkload,
    ToggleMarker,
    GogcUp,
    GogcDown,
}

/// A live change of a lab source's settings; each starts a fresh, labelled run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Switch {
    Workload(Shape),
    Marker(Marker),
    Gogc(u64),
}

#[derive(Debug, Clone)]
pub struct LabSpec {
    pub cfg: Config,
    pub switches: Option<Arc<Mutex<Receiver<Switch>>>>,
}

/// The dashboard's handle on its lab sources: the keys' actions become switches, sent to
/// every lab source (both sides of an A/B get the same workload and GOGC).
#[derive(Debug)]
pub struct LabControl {
    senders: Vec<SyncSender<Switch>>,
    pub shape: Shape,
    /// The marker of a one-sided lab; `None` for an A/B (both markers are shown).
    pub marker: Option<Marker>,
    pub gogc: u64,
}

impl LabControl {
    /// Lab specs for these configurations (one, or the two sides of an A/B) and their
    /// control.
    #[must_use]
    pub fn new(cfgs: Vec<Config>) -> (LabControl, Vec<Spec>) {
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

    /// Turn a knob: the new settings go to every lab source. `false` when the knob does
    /// not apply (the marker of an A/B, whose two sides are the two markers).
    pub fn turn(&mut self, knob: LabKnob) -> bool {
        let switch = match knob {
            LabKnob::NextWorkload => {
                let all = Shape::ALL;
                let i = all.iter().position(|&s| s == self.shape).unwrap_or(0);
                self.shape = all[(i + 1) % all.len()];
                Switch::Workload(self.shape)
            }
            LabKnob::ToggleMarker => match self.marker {
                Some(m) => {
                    let m = match m {
                        Marker::Legacy => Marker::Greentea,
                        Marker::Greentea => Marker::Legacy,
                    };
                    self.marker = Some(m);
                    Switch::Marker(m)
                }
                None => return false,
            },
            LabKnob::GogcUp => {
                self.gogc = self.gogc.saturating_mul(2).min(i32::MAX as u64);
                Switch::Gogc(self.gogc)
            }
            LabKnob::GogcDown => {
                self.gogc = (self.gogc / 2).max(1);
                Switch::Gogc(self.gogc)
            }
        };
        for s in &self.senders {
            // A full queue means the source is behind; the newest state is sent next time.
            let _ = s.try_send(switch);
        }
        true
    }
}

/// Runs the lab and sends each cycle as it ends, until the dashboard goes away. A switch
/// ends the run at its next cycle and starts a fresh one with the new settings. A run that
/// fails (its arena full) ends the source with that error, which the dashboard shows.
pub(super) fn lab(spec: &LabSpec, out: &mut Out) -> Result<(), SourceError> {
    let mut cfg = spec.cfg.clone();
    let mut run = RunId::FIRST;
    loop {
        let switches = lab_run(&cfg, spec.switches.as_deref(), run, out)?;
        if switches.is_empty() {
            return Ok(());
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
        run = run.next();
    }
}

/// One lab run as run `run` of the source, until a switch arrives (returned) or the
/// dashboard goes away (nothing returned).
fn lab_run(
    cfg: &Config,
    switches: Option<&Mutex<Receiver<Switch>>>,
    run: RunId,
    out: &mut Out,
) -> Result<Vec<Switch>, LabError> {
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
        return Ok(pending);
    }
    let mut alive = true;
    let end = gcscope_lab::run(cfg, |lc| {
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
    if let Some(e) = end.error {
        return Err(e);
    }
    if !alive {
        pending.clear();
    }
    Ok(pending)
}
