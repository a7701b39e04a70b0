//! The dashboard: sources -> events -> `App` -> `view::draw`.
//!
//! The main loop is the only code that changes state: it drains every pending source event,
//! handles input, and draws at most `FPS` times a second. It never waits on a source.

#![forbid(unsafe_code)]
// The dashboard's casts are screen geometry (columns and rows, within a terminal's u16) and
// chart scaling (bar heights, bucket indices), never a figure it prints: those come formatted
// from gcscope-core. So the workspace's cast lints, there for input-derived figures, are
// allowed here.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]

pub mod app;
pub mod error;
pub mod keys;
mod panels;
pub mod snapshot;
pub mod view;

use app::{App, Pane};
use crossterm::event::{Event as Term, MouseEventKind};
pub use error::Error;
use futures::{Stream, StreamExt};
use gcscope_core::timeline::Timeline;
use gcscope_model::SourceId;
use gcscope_source::{Batch, Interrupted, Signals, Spec};
use ratatui::backend::Backend;
use ratatui::Terminal;
use std::io::IsTerminal;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::Receiver;

const FPS: u64 = 30;
/// Longest the loop spends applying source events before it looks at input and draws again.
const DRAIN_BUDGET: Duration = Duration::from_millis(15);

/// Open the dashboard on these sources (one, or two for A/B), with the control of their lab
/// sources if they are the lab.
/// What it had read and compared when it ended (`Closed`) is for the terminal once it is
/// back.
pub fn run(
    sources: Vec<(String, Spec)>,
    lab: Option<gcscope_source::LabControl>,
) -> (Closed, Result<(), Error>) {
    let (kept, strip, result) = run_app(sources, |app| app.lab = lab);
    (Closed { kept, strip }, result)
}

/// What the dashboard showed when it ended: each pane's timeline and run (`Kept`), and the
/// A/B strip as text (`None` without two panes or a row to compare).
pub struct Closed {
    pub kept: Vec<Kept>,
    pub strip: Option<String>,
}

/// The dashboard, and what its sources had read when it ended: the panes' timelines, in the
/// sources' order, for the report a command prints once the terminal is back (what the
/// dashboard showed, the terminal keeps). Empty when the loop itself failed.
/// `window` (`--from-cycle`, `--after`) is the cycles every pane's figures are of.
/// With `summaries`, the retired runs' summary text is kept too (`Kept::retired_text`).
pub fn run_keeping(
    sources: Vec<(String, Spec)>,
    window: gcscope_core::timeline::Window,
    summaries: bool,
) -> (Closed, Result<(), Error>) {
    let (kept, strip, result) = run_app(sources, |app| {
        for p in &mut app.panes {
            p.timeline.window = window;
            if summaries {
                p.spool_retired();
            }
        }
    });
    (Closed { kept, strip }, result)
}

/// The dashboard as a demo: the sources replay by themselves, slowly enough to follow, with
/// `caption` saying what is on screen until the first key.
pub fn run_demo(sources: Vec<(String, Spec)>, caption: String) -> (Closed, Result<(), Error>) {
    let (kept, strip, result) = run_app(sources, |app| {
        app.autoplay = true;
        app.speed = 0;
        app.notice = Some(caption);
    });
    (Closed { kept, strip }, result)
}

fn run_app(
    sources: Vec<(String, Spec)>,
    setup: impl FnOnce(&mut App),
) -> (Vec<Kept>, Option<String>, Result<(), Error>) {
    if !std::io::stdout().is_terminal() {
        return (Vec::new(), None, Err(Error::NotATerminal));
    }
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return (Vec::new(), None, Err(e.into())),
    };
    let ended = rt.block_on(async {
        let (tx, rx) = tokio::sync::mpsc::channel::<Batch>(64);
        let panes = sources
            .iter()
            .map(|(name, spec)| {
                let mut p = Pane::new(name.clone(), spec.live());
                p.timeline.cycles_hint = spec.cycles_hint();
                p
            })
            .collect();
        for (i, (_, spec)) in sources.into_iter().enumerate() {
            gcscope_source::spawn(spec, SourceId::from_index(i), tx.clone());
        }
        drop(tx);
        // `init` installs a panic hook that restores the terminal before the panic message;
        // the guard restores it on every other way out (quit, error, Ctrl-C, and SIGINT,
        // SIGTERM, SIGHUP or SIGQUIT, which end the loop).
        // A fault or an abort (an allocation that failed) skips every destructor: a handler
        // gives the terminal back first.
        gcscope_source::signals::restore_terminal_on_crash(RESTORE_BYTES);
        let mut terminal = ratatui::init();
        let _guard = Restore;
        let _ = crossterm::execute!(std::io::stdout(), crossterm::event::EnableMouseCapture);
        let start = Instant::now();
        let input = crossterm::event::EventStream::new();
        event_loop(
            &mut terminal,
            {
                let mut app = App::new(panes);
                setup(&mut app);
                app
            },
            rx,
            input,
            move || start.elapsed(),
            view::Theme::from_env(),
        )
        .await
    });
    let (app, signal) = match ended {
        Ok(x) => x,
        Err(e) => return (Vec::new(), None, Err(e)),
    };
    let result = if let Some(signal) = signal {
        Err(Interrupted(signal).into())
    } else {
        // Every source failed and nothing was read: the dashboard showed why; the status
        // says so too.
        let failed: Vec<_> = app
            .panes
            .iter()
            .filter(|p| p.timeline.cycle_count() == 0)
            .filter_map(|p| p.timeline.source.error().cloned())
            .collect();
        if !failed.is_empty() && failed.len() == app.panes.len() {
            Err(Error::NothingRead(failed))
        } else {
            Ok(())
        }
    };
    let strip = panels::strip::text(&app);
    let kept = app
        .panes
        .into_iter()
        .map(|p| {
            // The run the pane showed, among those the timeline holds.
            let run = p.run.index().saturating_sub(p.timeline.run_base);
            let mut timeline = p.timeline;
            timeline.retire = None;
            let retired_text = std::mem::take(
                &mut *p
                    .retired_text
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            );
            Kept {
                timeline,
                retired_text,
                run,
            }
        })
        .collect();
    (kept, strip, result)
}

/// What a pane had read when the dashboard ended: its timeline, and the summary text of the
/// runs it retired (`gcscope_core::report::write_summary_text_after`).
pub struct Kept {
    pub timeline: Timeline,
    pub retired_text: gcscope_core::report::Spool,
    /// The run the pane showed when the dashboard ended: an index into `timeline.runs`.
    pub run: usize,
}

/// What undoes the dashboard's terminal modes, as bytes a signal handler can write: mouse
/// reporting off (every mode crossterm's EnableMouseCapture sets), the main screen back, the
/// cursor shown.
const RESTORE_BYTES: &[u8] =
    b"\x1b[?1006l\x1b[?1015l\x1b[?1003l\x1b[?1002l\x1b[?1000l\x1b[?1049l\x1b[?25h";

fn is_ctrl_z(ev: &Term) -> bool {
    use crossterm::event::{KeyCode, KeyEventKind, KeyModifiers};
    matches!(ev, Term::Key(k) if k.code == KeyCode::Char('z')
        && k.modifiers.contains(KeyModifiers::CONTROL)
        && k.kind == KeyEventKind::Press)
}

/// The terminal as the shell left it: before a stop.
fn give_back() {
    if !std::io::stdout().is_terminal() {
        return;
    }
    let _ = crossterm::execute!(std::io::stdout(), crossterm::event::DisableMouseCapture);
    // Raw mode off, the main screen back, the cursor shown: what every way out does.
    ratatui::restore();
}

/// The dashboard's terminal modes again, and a full redraw (the screen held the shell's).
fn take_again<B: Backend>(terminal: &mut Terminal<B>) -> Result<(), Error> {
    if !std::io::stdout().is_terminal() {
        return Ok(());
    }
    let _ = crossterm::terminal::enable_raw_mode();
    let _ = crossterm::execute!(
        std::io::stdout(),
        crossterm::terminal::EnterAlternateScreen,
        crossterm::terminal::Clear(crossterm::terminal::ClearType::All),
        crossterm::event::EnableMouseCapture,
        crossterm::cursor::Hide
    );
    // A blank frame, so that the next one is drawn whole on the cleared screen (ratatui's
    // own clear asks the terminal for the cursor position and waits for its answer).
    terminal
        .draw(|f| f.render_widget(ratatui::widgets::Clear, f.area()))
        .map(|_| ())
        .map_err(|e| Error::Draw(e.to_string()))
}

struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        give_back();
    }
}

/// The main loop, generic over the terminal, the input and the clock so tests drive it. Ends
/// with the app's final state, and the signal that ended it, if one did.
pub async fn event_loop<B: Backend>(
    terminal: &mut Terminal<B>,
    mut app: App,
    mut rx: Receiver<Batch>,
    mut input: impl Stream<Item = std::io::Result<Term>> + Unpin,
    clock: impl Fn() -> Duration,
    theme: view::Theme,
) -> Result<(App, Option<i32>), Error> {
    let mut frame = tokio::time::interval(Duration::from_millis(1000 / FPS));
    frame.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let mut sources_open = true;
    let mut signals = Signals::with_job_control()?;
    loop {
        // Keys, signals and frames before source events: a source that never pauses (a
        // program printing without end) must not starve q or the screen.
        tokio::select! {
            biased;
            ev = input.next() => match ev {
                // Raw mode turns Ctrl-Z into a key, not SIGTSTP: it stops gcscope as the
                // signal would, the terminal given back first.
                Some(Ok(ev)) if is_ctrl_z(&ev) => {
                    give_back();
                    gcscope_source::signals::stop_self();
                    take_again(terminal)?;
                }
                Some(Ok(ev)) => handle(&mut app, ev),
                Some(Err(e)) => return Err(e.into()),
                None => app.quit = true,
            },
            signal = signals.recv() => match signal {
                // Ctrl-Z: the terminal back to the shell, stopped; `fg`: taken again, redrawn.
                gcscope_source::signals::STOP => {
                    give_back();
                    gcscope_source::signals::stop_self();
                    take_again(terminal)?;
                }
                // Continued after a stop gcscope did not see (SIGSTOP): the shell may have
                // reset the terminal, so it is set up again.
                gcscope_source::signals::CONTINUE => take_again(terminal)?,
                other => return Ok((app, Some(other))),
            },
            _ = frame.tick() => {
                app.tick(clock());
                app.refresh();
                let drawn = terminal
                    .draw(|f| view::draw(f, &app, theme))
                    .map_err(|e| Error::Draw(e.to_string()))?;
                // `s`: the frame just drawn, as a picture, in the working directory.
                if std::mem::take(&mut app.snapshot) {
                    let svg = snapshot::svg(drawn.buffer);
                    app.notice = Some(match snapshot::write_new(std::path::Path::new("."), &svg) {
                        Ok(path) => format!("this frame is in {}", path.display()),
                        Err(e) => format!("cannot write the snapshot here: {e}"),
                    });
                }
            }
            batch = rx.recv(), if sources_open => match batch {
                Some(b) => {
                    apply(&mut app, b);
                    // Drain what else is pending, within a budget, so input stays responsive
                    // while a large file streams in.
                    let t0 = Instant::now();
                    while t0.elapsed() < DRAIN_BUDGET {
                        match rx.try_recv() {
                            Ok(b) => apply(&mut app, b),
                            Err(_) => break,
                        }
                    }
                }
                None => sources_open = false,
            },
        }
        if app.quit {
            return Ok((app, None));
        }
    }
}

fn apply(app: &mut App, (id, events): Batch) {
    for e in events {
        app.apply(id, e);
    }
}

fn handle(app: &mut App, ev: Term) {
    match ev {
        // The mode decides what a key does, by the key table (`keys::dispatch`).
        Term::Key(k) => app.key(k),
        Term::Mouse(m) => match m.kind {
            MouseEventKind::ScrollUp => app.act(keys::Action::StepBack),
            MouseEventKind::ScrollDown => app.act(keys::Action::StepForward),
            _ => {}
        },
        _ => {}
    }
}
