//! The dashboard on ratatui's TestBackend: snapshots of what a person sees, every terminal
//! size, and the real event loop driven with scripted input and an injected clock.
// A test or bench that unwraps fails loudly, which is what it should do.
#![allow(clippy::unwrap_used)]

use crossterm::event::{Event as Term, KeyCode, KeyEvent, KeyModifiers};
use gcscope_core::read as core_read;
use gcscope_core::trace;
use gcscope_model::{Event, RunId, SourceId};
use gcscope_source as source;
use gcscope_tui::app::{App, Mode, Pane};
use gcscope_tui::keys::{self, Action};
use gcscope_tui::view::{self, Theme};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::time::Duration;

const THEME: Theme = Theme { color: false };

fn path(name: &str) -> String {
    format!("{}/traces/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// A pane fed with a trace's events, as a file source would.
fn pane(name: &str) -> Pane {
    let tl = source::read_path(std::path::Path::new(&path(name))).unwrap();
    let mut p = Pane::new(name, false);
    p.timeline = tl;
    p
}

fn app(names: &[&str]) -> App {
    let mut panes = Vec::new();
    for n in names {
        panes.push(pane(n));
    }
    let mut app = App::new(panes);
    // What the loop does when a file's events have arrived.
    for i in 0..app.panes.len() {
        app.apply(SourceId::from_index(i), Event::End { error: None });
    }
    app
}

fn screen(app: &mut App, w: u16, h: u16) -> String {
    app.refresh();
    let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
    t.draw(|f| view::draw(f, app, THEME)).unwrap();
    t.backend().to_string()
}

const TREE: &str = "go/go1.27.3_greentea_tree_p2_gctrace2.log";

#[test]
fn one_source() {
    let mut a = app(&[TREE]);
    let s = screen(&mut a, 140, 44);
    assert!(s.contains("cycles 23/23"));
    assert!(s.contains("page scan density (objects per visit), whole run 49.3"));
    insta::assert_snapshot!(s);
}

#[test]
fn a_b_side_by_side() {
    let mut a = app(&[
        "go/go1.27.3_legacy_graph_p2_r1.log",
        "go/go1.27.3_greentea_graph_p2_r1.log",
    ]);
    a.act(Action::Start);
    a.act(Action::StepForward);
    let s = screen(&mut a, 160, 56);
    assert!(s.contains("mean compulsory P ms/cycle"));
    assert!(
        s.matches(" gc 2 @").count() == 2,
        "linked cursors: both on the second cycle:\n{s}"
    );
    insta::assert_snapshot!(s);
}

/// The comparison strip takes at most a third of the screen; on a shorter terminal its last
/// rows are cut, and its title says how many are shown. gctrace=2 on both sides: all 14
/// metrics have a row (the legacy side's page scan density is `n/a`, `B only`).
#[test]
fn a_b_strip_says_when_rows_are_cut() {
    let mut a = app(&[
        "go/go1.27.3_legacy_tree_p2_gctrace2.log",
        "go/go1.27.3_greentea_tree_p2_gctrace2.log",
    ]);
    let s = screen(&mut a, 160, 56);
    assert_eq!(a.comparison.len(), 14);
    assert!(!s.contains("rows shown"), "{s}");
    // The strip's row (the panes' titles also say "page scan density").
    let density = s
        .lines()
        .find(|l| l.contains("page scan density") && l.contains("only"))
        .unwrap_or_else(|| panic!("{s}"));
    assert!(
        density.contains("n/a") && density.contains("B only"),
        "{density}"
    );
    let s = screen(&mut a, 160, 30);
    assert!(
        s.contains(" A/B (9 of 14 rows shown, all in `gcscope compare`): one run a side"),
        "{s}"
    );
    assert!(!s.contains("heap goal max MB"), "{s}");
}

#[test]
fn help_overlay() {
    let mut a = app(&[TREE]);
    a.act(Action::Help);
    let s = screen(&mut a, 100, 30);
    for (k, _) in keys::help_rows() {
        assert!(s.contains(k), "help lists {k}");
    }
    insta::assert_snapshot!(s);
}

#[test]
fn tiny_terminal_says_so() {
    let mut a = app(&[TREE]);
    let s = screen(&mut a, 40, 10);
    assert!(s.contains("terminal too small"));
    insta::assert_snapshot!(s);
}

/// A file that stopped on a read error says so in the header, not only a live source.
#[test]
fn a_read_error_shows_in_the_header_of_a_file() {
    let mut a = App::new(vec![Pane::new("broken.log", false)]);
    a.apply(
        SourceId::from_index(0),
        gcscope_model::Event::End {
            error: Some(gcscope_model::SourceError::read(
                std::path::Path::new("broken.log"),
                std::io::Error::from_raw_os_error(21),
            )),
        },
    );
    let s = screen(&mut a, 120, 40);
    assert!(
        s.contains("ended: read error on broken.log: Is a directory"),
        "{s}"
    );
}

/// A lab run whose mark segments spent half their wall time descheduled says "machine
/// loaded" in its header; a quiet one does not.
#[test]
fn a_loaded_lab_run_says_so_in_the_header() {
    for (offcpu_ns, loaded) in [(150_000, false), (600_000, true)] {
        let mut text = String::new();
        for n in 1..=3 {
            text += &format!("lab: objs 1000 bytes 1048576 visits 100 freed 100 cpu_ns 500000 offcpu_ns {offcpu_ns} hist 4\n");
            text += &format!("gc {n} @0.{n}s 1%: 0.01+1.0+0.01 ms clock, 0.02+0.1/0.5/0+0.02 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n");
        }
        let mut p = Pane::new("lab.log", false);
        p.timeline = core_read::read_all(text.as_bytes()).unwrap();
        let mut a = App::new(vec![p]);
        a.apply(SourceId::from_index(0), Event::End { error: None });
        let s = screen(&mut a, 120, 40);
        assert_eq!(s.contains("machine loaded (50% off-CPU)"), loaded, "{s}");
    }
}

#[test]
fn empty_trace() {
    let mut a = App::new(vec![Pane::new("empty.log", false)]);
    a.apply(SourceId::from_index(0), Event::End { error: None });
    let s = screen(&mut a, 100, 30);
    assert!(
        s.contains("No gc lines gcscope reads in this source"),
        "{s}"
    );
    assert!(
        s.contains("GODEBUG=gctrace=1 ./prog 2>&1 | gcscope -"),
        "{s}"
    );
    insta::assert_snapshot!(s);
}

#[test]
fn problems_and_program_output() {
    let mut a =
        app(&["wild/048_aceld-golang-debug-practice-log-timestamps-forced-GCforced-2P.txt"]);
    let mut p = pane("go/go1.27.3_greentea_graph_p2_r1_synthetic-truncated.log");
    std::mem::swap(&mut a.panes[0].timeline.problems, &mut p.timeline.problems);
    // Select the cycle printed just after the program's "loop end" (line 23).
    a.act(Action::Jump);
    for c in "22\n".chars() {
        a.jump_key(Some(c));
    }
    let s = screen(&mut a, 140, 44);
    assert!(s.contains("loop end"), "program output is shown");
    assert!(s.contains("gc_forced: GC forced"), "notes are shown");
    assert!(
        s.contains("9 problem: gc line ends early"),
        "problems with line numbers"
    );
    insta::assert_snapshot!(s);
}

#[test]
fn a_40ms_pause_jumps_out() {
    let mut text = String::new();
    for i in 1..=50 {
        let stw = if i == 30 { "40" } else { "0.030" };
        text.push_str(&format!(
            "gc {i} @{i}.000s 1%: {stw}+5.0+0.020 ms clock, 0.06+1.0/2.0/0+0.04 ms cpu, 8->9->4 MB, 9 MB goal, 0 MB stacks, 0 MB globals, 2 P\n"
        ));
    }
    let mut p = Pane::new("swap.log", false);
    p.timeline = core_read::read_all(text.as_bytes()).unwrap();
    let mut a = App::new(vec![p]);
    a.apply(SourceId::from_index(0), Event::End { error: None });
    let s = screen(&mut a, 140, 44);
    assert!(
        s.contains("over 1.0 ms (10x p50, at least 1): gc 30 40 ms"),
        "{s}"
    );
}

#[test]
fn replay_with_an_injected_clock() {
    let mut a = app(&["go/go1.27.3_greentea_tree_p2_r1.log"]);
    a.tick(Duration::ZERO);
    a.act(Action::PlayPause);
    a.tick(Duration::from_millis(1000)); // x1: the cycles that started in the first second
    let s = screen(&mut a, 140, 44);
    let first_s = a.panes[0].timeline.runs[0]
        .cycles
        .first()
        .map_or(0, |c| c.at);
    let expect = a.panes[0].timeline.runs[0]
        .cycles
        .iter()
        .filter(|c| c.at - first_s <= 1_000_000_000)
        .count();
    assert!(expect > 1 && expect < 61);
    assert!(s.contains(&format!("cycles {expect}/61")), "{s}");
    assert!(s.contains("▶ x1"));
}

#[test]
fn every_size_renders() {
    let mut one = app(&[TREE]);
    let mut two = app(&[
        "go/go1.27.3_legacy_tree_p2_r1.log",
        "go/go1.27.3_greentea_tree_p2_r1.log",
    ]);
    one.refresh();
    two.refresh();
    for w in 1..=200u16 {
        for h in 1..=60u16 {
            let mut t = Terminal::new(TestBackend::new(w, h)).unwrap();
            t.draw(|f| view::draw(f, &one, THEME)).unwrap();
            if (w + h) % 3 == 0 {
                t.draw(|f| view::draw(f, &two, THEME)).unwrap();
            }
        }
    }
}

fn key(c: KeyCode) -> std::io::Result<Term> {
    Ok(Term::Key(KeyEvent::new(c, KeyModifiers::NONE)))
}

/// The real loop: a source sends its events on the channel, scripted keys arrive, `q` quits.
#[tokio::test(start_paused = true)]
async fn the_event_loop_applies_events_and_keys() {
    let (tx, rx) = tokio::sync::mpsc::channel(8);
    let tl_events = {
        let mut v = Vec::new();
        let mut dec = trace::Decoder::new();
        let bytes = std::fs::read(path("go/go1.27.3_greentea_tree_p2_r1.log")).unwrap();
        dec.push(&bytes, &mut |e| v.push(e));
        dec.finish(&mut |e| v.push(e));
        v.push(Event::End { error: None });
        v
    };
    tx.send((SourceId::from_index(0), tl_events)).await.unwrap();
    drop(tx);
    let input = async_stream(vec![
        key(KeyCode::Char('g')),
        key(KeyCode::Right),
        key(KeyCode::Right),
        key(KeyCode::Char('/')),
        key(KeyCode::Char('4')),
        key(KeyCode::Char('0')),
        key(KeyCode::Enter),
        key(KeyCode::Char('q')),
    ]);
    let mut term = Terminal::new(TestBackend::new(120, 40)).unwrap();
    let app = App::new(vec![Pane::new("tree", false)]);
    let (app, signal) =
        gcscope_tui::event_loop(&mut term, app, rx, input, || Duration::ZERO, THEME)
            .await
            .unwrap();
    assert!(app.quit && signal.is_none());
    assert_eq!(app.panes[0].timeline.cycle_count(), 61);
    assert_eq!(app.panes[0].selected().unwrap().num, 40);
}

/// Keys one per frame, so the loop draws between them.
fn async_stream(
    items: Vec<std::io::Result<Term>>,
) -> impl futures::Stream<Item = std::io::Result<Term>> + Unpin {
    Box::pin(futures::stream::unfold(
        items.into_iter(),
        |mut it| async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            it.next().map(|x| (x, it))
        },
    ))
}

// The lab's own traces (written by `gcscope lab --headless --trace-out`), so lab panes are
// snapshotted deterministically; the live source is tested in tests/lab.rs.
const LAB_LEGACY: &str = "lab/lab_tree_legacy_p2.log";
const LAB_GREENTEA: &str = "lab/lab_tree_greentea_p2.log";

#[test]
fn lab_trace_single() {
    let mut a = app(&[LAB_GREENTEA]);
    let s = screen(&mut a, 140, 44);
    assert!(s.contains("gcscope lab"), "{s}");
    assert!(s.contains("objects per visit"), "{s}");
    assert!(!s.contains("objects per span visit, run -"), "{s}");
    insta::assert_snapshot!(s);
}

#[test]
fn lab_trace_a_b() {
    let mut a = app(&[LAB_LEGACY, LAB_GREENTEA]);
    let s = screen(&mut a, 200, 50);
    // Both sides show page scan density with its histogram, and the strip compares them.
    assert_eq!(s.matches("objects per visit").count(), 2, "{s}");
    assert!(s.contains("mean compulsory P ms/cycle"), "{s}");
    insta::assert_snapshot!(s);
}

/// A live lab run fed into a pane as the dashboard's source thread does: every pane draws
/// lab data (the values vary run to run, so this checks content, not a snapshot).
#[test]
fn live_lab_cycles_fill_the_panes() {
    let cfg = gcscope_lab::Config {
        duration: Some(Duration::from_millis(800)),
        scale: 1.0 / 16.0,
        arena_mb: 512,
        ..Default::default()
    };
    let mut a = App::new(vec![Pane::new(cfg.label(), true)]);
    a.apply(
        SourceId::from_index(0),
        Event::RunStart {
            run: RunId::FIRST,
            line: 0,
            restart: None,
        },
    );
    gcscope_lab::run(&cfg, |lc| {
        a.apply(
            SourceId::from_index(0),
            Event::Cycle {
                run: RunId::FIRST,
                cycle: Box::new(lc.result.cycle),
            },
        );
        true
    });
    let s = screen(&mut a, 140, 44);
    assert!(s.contains("(live) started"), "{s}");
    assert!(s.contains("objects per visit"), "{s}");
    assert!(s.contains("idle share"), "{s}");
    assert!(!s.contains("no cycles yet"), "{s}");
}

/// A live lab A/B side's text: a `# gcscope` header naming its settings, then `turns` turns
/// of two cycles each, background mark CPU `bg_ms` (+0.1 ms per turn, so ranges are real).
fn lab_side(label: &str, turns: u32, bg_ms: f64) -> String {
    let mut text = format!("# gcscope {label}\n");
    let mut n = 0;
    for t in 0..turns {
        for _ in 0..2 {
            n += 1;
            let bg = bg_ms + f64::from(t) * 0.1;
            text += &format!("lab: objs 1000 bytes 1048576 visits 100 freed 100 cpu_ns 500000 offcpu_ns 0 hist 4 turn {t}\n");
            text += &format!("gc {n} @{n}.0s 1%: 0.01+10+0.01 ms clock, 0.02+0.1/{bg:.1}/0+0.02 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n");
        }
    }
    text
}

/// Two live lab panes as `gcscope lab --ab` makes them, with the lab control that marks the
/// app as a live lab A/B.
fn live_lab_ab(a: &str, b: &str) -> App {
    let panes = [a, b]
        .iter()
        .map(|text| {
            let mut p = Pane::new("lab", true);
            p.timeline = core_read::read_all(text.as_bytes()).unwrap();
            p
        })
        .collect();
    let mut app = App::new(panes);
    let cfgs = vec![gcscope_lab::Config::default(); 2];
    app.lab = Some(gcscope_source::LabControl::new(cfgs).0);
    app
}

/// In the live lab A/B each completed turn is a sample (the turn in progress is not): with 5
/// done a side and B's background CPU half of A's in every turn, the strip reaches a verdict
/// by `compare`'s rule.
#[test]
fn the_live_lab_strip_compares_completed_turns() {
    let label = |m: &str| format!("lab tree {m} GOGC=100 P=2 seed=1 scale=1");
    let mut app = live_lab_ab(
        &lab_side(&label("legacy"), 6, 10.0),
        &lab_side(&label("greentea"), 6, 5.0),
    );
    let s = screen(&mut app, 200, 50);
    assert!(s.contains("each side's latest 5 completed turns"), "{s}");
    let row = s
        .lines()
        .find(|l| l.contains("mean compulsory P ms/cycle"))
        .unwrap();
    // Medians of turns 0..=4: A 10.14 + 0.2 ms per cycle, B 5.14 + 0.2 (at gctrace's
    // precision), -48.4 %, 5 a side.
    assert!(row.contains("10 [10-11]"), "{row}");
    assert!(row.contains("5.3 [5.1-5.5]"), "{row}");
    assert!(row.contains("-48.4%"), "{row}");
    // The runtime's cumulative % is not a per-turn figure.
    assert!(!s.contains("Go's GC % (final)"), "{s}");
}

/// Two runs of different experiments (the sides were switched apart) are not compared: the
/// strip says what differs.
#[test]
fn the_strip_refuses_runs_of_different_experiments() {
    let mut app = live_lab_ab(
        &lab_side("lab graph legacy GOGC=100 P=2 seed=1 scale=1", 4, 10.0),
        &lab_side("lab pointer greentea GOGC=200 P=2 seed=1 scale=1", 4, 5.0),
    );
    let s = screen(&mut app, 200, 50);
    assert!(
        s.contains("not compared: the selected runs differ in more than the marker (workload graph vs pointer, GOGC 100 vs 200)"),
        "{s}"
    );
    assert!(!s.contains("mean compulsory P ms/cycle"), "{s}");
    assert_eq!(app.mismatch.len(), 2);
}

/// `[` and `]` move both sides of a live lab A/B to the same run; in a files A/B only the
/// focused side moves.
#[test]
fn run_keys_move_both_sides_of_a_lab_ab_together() {
    let two_runs = format!(
        "{}{}",
        lab_side("lab tree legacy GOGC=100 P=2 seed=1 scale=1", 2, 10.0),
        lab_side("lab tree legacy GOGC=200 P=2 seed=1 scale=1", 2, 10.0)
    );
    let mut app = live_lab_ab(&two_runs, &two_runs);
    assert_eq!(app.panes[0].timeline.runs.len(), 2);
    app.act(Action::NextRun);
    let runs = |app: &App| app.panes.iter().map(|p| p.run.index()).collect::<Vec<_>>();
    assert_eq!(runs(&app), [1, 1]);
    // The newest run stays the newest: `]` does not wrap to run 1, and says so.
    app.act(Action::NextRun);
    assert_eq!(runs(&app), [1, 1]);
    assert!(app.notice.as_deref().unwrap().contains("newest run"));
    app.act(Action::PrevRun);
    assert_eq!(runs(&app), [0, 0]);
    app.act(Action::PrevRun);
    assert_eq!(runs(&app), [0, 0]);
    assert!(app.notice.as_deref().unwrap().contains("first run"));
    app.lab = None;
    app.act(Action::NextRun);
    assert_eq!(runs(&app), [1, 0]);
    // And the strip then refuses the pair.
    let s = screen(&mut app, 200, 50);
    assert!(s.contains("(GOGC 200 vs 100)"), "{s}");
}

/// One name, one number: the CPU pane's "mean compulsory P ms/cycle" and idle share are the
/// strip's figures for the same run, printed alike (`summary` prints the idle share so too).
#[test]
fn the_cpu_pane_and_the_strip_agree_on_a_figure_of_one_name() {
    let mut a = app(&[
        "go/go1.27.3_legacy_tree_p2_r1.log",
        "go/go1.27.3_greentea_tree_p2_r1.log",
    ]);
    let s = screen(&mut a, 200, 60);
    let after = |s: &str, key: &str| -> String {
        let i = s.find(key).unwrap() + key.len();
        s[i..].split_whitespace().next().unwrap().to_string()
    };
    let pane = s.lines().find(|l| l.contains("P time per cycle:")).unwrap();
    let strip = s
        .lines()
        .find(|l| l.contains("│mean compulsory P ms/cycle"))
        .unwrap();
    let idle = s.lines().find(|l| l.contains("│idle share")).unwrap();
    let pane_a = &pane[..pane.find("┐").unwrap()];
    assert_eq!(
        after(pane_a, "compulsory "),
        after(strip, "mean compulsory P ms/cycle"),
        "{pane}\n{strip}"
    );
    assert_eq!(
        after(pane_a, "idle share "),
        after(idle, "idle share of GC P time"),
        "{pane}\n{idle}"
    );
    let summary = gcscope_core::report::summary_text(&[gcscope_core::report::Source {
        name: "a".into(),
        timeline: a.panes[0].timeline.clone(),
    }]);
    assert!(
        summary.contains(&format!(
            "idle share of GC P time {}",
            after(pane_a, "idle share ")
        )),
        "{summary}"
    );
}

/// The six views a person meets, each at the four terminal sizes people have.
fn view_case(name: &str) -> App {
    match name {
        "one_trace" => app(&[TREE]),
        "a_b" => app(&[
            "go/go1.27.3_legacy_graph_p2_gctrace2.log",
            "go/go1.27.3_greentea_graph_p2_gctrace2.log",
        ]),
        "lab_a_b" => {
            // The live lab A/B as `gcscope` opens it: two live lab panes and the lab's keys.
            let mut app = App::new(
                [LAB_LEGACY, LAB_GREENTEA]
                    .iter()
                    .map(|n| {
                        let mut p = pane(n);
                        p.live = true;
                        p
                    })
                    .collect(),
            );
            let cfgs = vec![gcscope_lab::Config::default(); 2];
            app.lab = Some(gcscope_source::LabControl::new(cfgs).0);
            // Their events have arrived (a live pane shows each as it comes).
            for i in 0..2 {
                app.apply(SourceId::from_index(i), Event::End { error: None });
            }
            app
        }
        "help" => {
            let mut a = app(&[TREE]);
            a.mode = Mode::Help;
            a
        }
        "empty_pipe" => {
            // `(echo 'starting server'; sleep 30) | gcscope -`, before any gc line.
            let mut p = Pane::new("-", true);
            p.timeline = core_read::read_all(&b"starting server\n"[..]).unwrap();
            p.timeline.source = gcscope_core::timeline::SourceState::Producing;
            App::new(vec![p])
        }
        "problems_only" => {
            // A Go 1.4 log: every gc line is of the unsupported old format.
            let mut text = String::new();
            for n in 1..=9 {
                text += &format!("gc{n}(1): 0+0+0+0 us, 0 -> 0 MB, 21 (21-0) objects, 2 goroutines, 16/0/0 sweeps, 0(0) handoff, 0(0) steal, 0/0/0 yields\n");
            }
            let mut p = Pane::new("go14.log", false);
            p.timeline = core_read::read_all(text.as_bytes()).unwrap();
            let mut a = App::new(vec![p]);
            a.apply(SourceId::from_index(0), Event::End { error: None });
            a
        }
        "program_ab" => {
            // `gcscope ab './leg -mode tree' './gt -mode tree'` after three runs a side.
            let mut ab = ProgramAb::new();
            ab.runs(1..=3);
            ab.app
        }
        _ => unreachable!("{name}"),
    }
}

const SIZES: [(u16, u16); 4] = [(80, 24), (100, 30), (120, 40), (200, 50)];

/// A screen as rows of cells, to check what is where.
struct Screen {
    w: usize,
    rows: Vec<Vec<char>>,
}

impl Screen {
    /// `TestBackend`'s text: a row a line, in quotes.
    fn new(text: &str, w: u16) -> Screen {
        let rows: Vec<Vec<char>> = text
            .lines()
            .map(|l| {
                let cells: Vec<char> = l.chars().collect();
                cells[1..cells.len() - 1].to_vec()
            })
            .collect();
        let w = usize::from(w);
        assert!(rows.iter().all(|r| r.len() == w), "{text}");
        Screen { w, rows }
    }

    fn row(&self, i: usize) -> String {
        self.rows[i].iter().collect()
    }

    fn text(&self) -> String {
        (0..self.rows.len())
            .map(|i| self.row(i))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The rows above the A/B strip (all of them if there is none).
    fn above_strip(&self) -> usize {
        (0..self.rows.len())
            .find(|&i| self.row(i).starts_with("┌ A/B"))
            .unwrap_or(self.rows.len())
    }

    /// Side `i`'s half of the rows above the strip: A's (0) or B's (1).
    fn side(&self, i: usize) -> String {
        let half = self.w / 2;
        (0..self.above_strip())
            .map(|r| {
                self.rows[r][i * half..(i + 1) * half]
                    .iter()
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The strip's metric rows: below its head (`metric ... B vs A`), inside its borders.
    fn strip_rows(&self) -> Vec<String> {
        let rows: Vec<String> = (self.above_strip()..self.rows.len())
            .map(|i| self.row(i))
            .collect();
        rows.iter()
            .skip_while(|r| !r.contains("B vs A"))
            .skip(1)
            .take_while(|r| r.starts_with('│'))
            .map(|r| r.trim_matches('│').trim_end().to_string())
            // The line of findings one side has is not a metric's.
            .take_while(|r| !r.starts_with("findings: "))
            .collect()
    }

    /// The strip row of a metric.
    fn strip_row(&self, label: &str) -> String {
        self.strip_rows()
            .into_iter()
            .find(|r| r.starts_with(label))
            .unwrap_or_else(|| panic!("no {label} row in the strip:\n{}", self.text()))
    }

    fn hint_bar(&self) -> String {
        self.row(self.rows.len() - 1)
    }
}

/// Whether `text` shows cycle `num` as the selected one: in a header (`at gc 5 @...`) or on
/// a time axis, beside the `^` under it (`gc 5^`, `^gc 5`).
fn shows_selected(text: &str, num: u32) -> bool {
    text.contains(&format!("at gc {num} "))
        || text.contains(&format!("gc {num}^"))
        || [' ', '│']
            .iter()
            .any(|end| text.contains(&format!("^gc {num}{end}")))
}

/// An A/B's two headers on the first row: A's from the first column, B's from the middle,
/// with at least two blank columns between A's last word and B's name.
fn assert_headers_apart(sc: &Screen, a: &str, b: &str) {
    let top = sc.row(0);
    let half = sc.w / 2;
    let right: String = sc.rows[0][half..].iter().collect();
    let gap: String = sc.rows[0][half - 2..half].iter().collect();
    assert!(top.starts_with(a), "A's header is not first: {top:?}");
    assert!(
        right.starts_with(b),
        "B's header is not at column {half}: {top:?}"
    );
    assert_eq!(gap, "  ", "A's header runs into B's: {top:?}");
}

/// Each side of an A/B above the strip: its selected cycle's number and its two main
/// charts, once each.
fn assert_each_side_shows_its_cycle_and_charts(sc: &Screen, app: &App) {
    for (i, p) in app.panes.iter().enumerate() {
        let side = sc.side(i);
        let num = p.selected().unwrap().num;
        assert!(shows_selected(&side, num), "side {i}, gc {num}:\n{side}");
        for title in ["phases per cycle", "P time per cycle"] {
            assert_eq!(side.matches(title).count(), 1, "side {i}, {title}:\n{side}");
        }
    }
}

/// Checks `facts` on `case` at every size, then compares it with its snapshot: a snapshot
/// accepted without reading cannot take away what the facts name.
fn at_every_size(case: &str, facts: impl Fn(&Screen, &App)) {
    for (w, h) in SIZES {
        let mut a = view_case(case);
        let s = screen(&mut a, w, h);
        facts(&Screen::new(&s, w), &a);
        insta::assert_snapshot!(format!("{case}_{w}x{h}"), s);
    }
}

#[test]
fn one_trace_at_every_size_shows_its_name_counts_selected_cycle_and_four_panels() {
    at_every_size("one_trace", |sc, app| {
        let text = sc.text();
        let head = format!("{}\n{}", sc.row(0), sc.row(1));
        assert!(head.starts_with(TREE), "{text}");
        assert!(head.contains("cycles 23/23"), "{text}");
        let num = app.panes[0].selected().unwrap().num;
        assert_eq!(num, 23);
        assert!(head.contains("at gc 23 @3.545s"), "{text}");
        assert!(
            text.contains("gc 23^"),
            "the time axis marks gc 23:\n{text}"
        );
        for title in [
            "phases per cycle",
            "P time per cycle",
            "heap MB",
            "selected cycle, decoded",
        ] {
            assert_eq!(text.matches(title).count(), 1, "{title}:\n{text}");
        }
        assert!(
            sc.hint_bar().starts_with(" q  quit  ? i t s  help"),
            "{text}"
        );
    });
}

/// Two real traces: both names, apart; each side's selected cycle and two main charts; the
/// strip of one run a side, which says so and gives no verdict (every row's change is `~` or
/// `B only`, whole).
#[test]
fn a_b_at_every_size_shows_both_headers_apart_each_selected_cycle_and_no_verdict() {
    at_every_size("a_b", |sc, app| {
        let text = sc.text();
        // Whole paths where they fit (200 columns), else the file names' shared start cut.
        if sc.w >= 200 {
            assert_headers_apart(
                sc,
                "A go/go1.27.3_legacy_graph_p2_gctrace2.log",
                "B go/go1.27.3_greentea_graph_p2_gctrace2.log",
            );
        } else {
            assert_headers_apart(
                sc,
                "A …legacy_graph_p2_gctrace2.log",
                "B …greentea_graph_p2_gctrace2.log",
            );
        }
        assert_each_side_shows_its_cycle_and_charts(sc, app);
        let title = sc.row(sc.above_strip());
        assert!(title.contains(": one run a side, so no ra"), "{text}");
        let rows = sc.strip_rows();
        assert!(rows.len() >= 6, "{text}");
        for r in &rows {
            assert!(r.ends_with('~') || r.ends_with("B only"), "{r}\n{text}");
        }
        assert!(sc
            .strip_row("page scan density")
            .ends_with("n/a    113  B only"));
    });
}

/// The live lab A/B: both runs' settings as names, apart; each side's selected cycle and
/// charts; the strip waiting for completed turns; the lab's keys instead of the replay's.
#[test]
fn lab_a_b_at_every_size_shows_both_headers_apart_each_selected_cycle_and_lab_keys() {
    at_every_size("lab_a_b", |sc, app| {
        let text = sc.text();
        assert_headers_apart(
            sc,
            "A lab tree legacy GOGC=100 P=2 seed=1",
            "B lab tree greentea GOGC=100 P=2 seed=1",
        );
        assert_each_side_shows_its_cycle_and_charts(sc, app);
        let title = sc.row(sc.above_strip());
        assert!(title.contains("each completed turn of a"), "{text}");
        assert!(sc.strip_row("mean compulsory P ms/cycle").ends_with('~'));
        let hints = sc.hint_bar();
        assert!(hints.starts_with(" q  quit"), "{text}");
        assert!(
            !hints.contains("play/pause") && !hints.contains("speed"),
            "{hints}"
        );
        if sc.w >= 120 {
            assert!(hints.contains(" w  workload"), "{hints}");
        }
    });
}

/// The help over one trace: every row of the key table whole, under its title, and the
/// header above it still readable.
#[test]
fn help_at_every_size_lists_every_key_row_whole_over_the_header() {
    at_every_size("help", |sc, _| {
        let text = sc.text();
        assert!(text.contains("┌ keys (? to close) "), "{text}");
        for (k, help) in keys::help_rows() {
            assert!(
                text.lines().any(|l| l.contains(&format!("{k}  {help}"))),
                "{k} {help}:\n{text}"
            );
        }
        assert!(!text.contains("more: a taller terminal"), "{text}");
        assert!(sc.row(0).starts_with(TREE), "{text}");
    });
}

/// A live pipe before its first gc line: the guide, the line it has read, and no charts.
#[test]
fn empty_pipe_at_every_size_shows_the_guide_and_the_last_output_and_no_charts() {
    at_every_size("empty_pipe", |sc, _| {
        let text = sc.text();
        assert!(sc.row(0).starts_with("-  cycles 0/0  live"), "{text}");
        for line in [
            "No gc lines yet (1 other line so far).",
            "GODEBUG=gctrace=1 ./prog 2>&1 | gcscope -",
            "last output, line 1: starting server",
        ] {
            assert!(text.contains(line), "{line}:\n{text}");
        }
        assert!(!text.contains("phases per cycle"), "{text}");
    });
}

/// A Go 1.4 log: the problems with their lines, the guide, and no charts.
#[test]
fn problems_only_at_every_size_shows_the_problems_and_no_charts() {
    at_every_size("problems_only", |sc, _| {
        let text = sc.text();
        assert!(sc.row(0).starts_with("go14.log  cycles 0/0"), "{text}");
        for line in [
            "No gc lines gcscope reads in this source (0 other lines).",
            "9 problems; the first:",
            "  line 1: Go 1.4 or older gc line (gcN(P): ...)",
        ] {
            assert!(text.contains(line), "{line}:\n{text}");
        }
        assert!(!text.contains("phases per cycle"), "{text}");
    });
}

/// `gcscope ab` after three runs a side: each header says how its run went, apart from the
/// other; each side's selected cycle; the strip's verdicts on its figures, whole.
#[test]
fn program_ab_at_every_size_shows_how_each_run_went_and_the_strips_verdicts() {
    at_every_size("program_ab", |sc, app| {
        let text = sc.text();
        // The commands whole where they fit, else their paths by the last part.
        let dir = if sc.w >= 100 { "./" } else { "" };
        assert_headers_apart(
            sc,
            &format!("A {dir}leg -mode tree  run 3 exited 0"),
            &format!("B {dir}gt -mode tree  run 3 exited 0"),
        );
        assert_each_side_shows_its_cycle_and_charts(sc, app);
        let title = sc.row(sc.above_strip());
        assert!(title.contains("samples: runs that ended"), "{text}");
        assert!(
            text.contains("A median [min-max]   B median [min-max]"),
            "{text}"
        );
        assert!(sc.strip_row("ops").ends_with("+30.0%"), "{text}");
        assert!(
            sc.strip_row("mean compulsory P ms/cycle")
                .ends_with("-46.2%"),
            "{text}"
        );
    });
}

/// Each mode draws its own overlay or prompt, and only it: the panes draw none.
#[test]
fn each_mode_draws_its_overlay_or_prompt_and_no_other() {
    let marks = [
        (Mode::Help, "┌ keys (? to close) "),
        (Mode::Findings, "┌ findings of "),
        (Mode::Jump("12".into()), "jump to cycle: 12_  (Enter to go"),
    ];
    for mode in [
        Mode::Normal,
        Mode::Help,
        Mode::Findings,
        Mode::Jump("12".into()),
    ] {
        let mut a = app(&[TREE]);
        a.mode = mode.clone();
        let s = screen(&mut a, 100, 30);
        for (m, mark) in &marks {
            assert_eq!(s.contains(mark), *m == mode, "{mode:?}, {mark}:\n{s}");
        }
        let hints = s.lines().last().unwrap();
        assert_eq!(
            hints.contains(" q  quit"),
            !matches!(mode, Mode::Jump(_)),
            "{mode:?}: {hints}"
        );
    }
}

/// `demo` replays by itself once its sources have arrived, from the first cycle.
#[test]
fn autoplay_starts_the_replay_when_every_source_has_arrived() {
    let panes = ["go/go1.27.3_legacy_graph_p2_gctrace2.log", TREE]
        .iter()
        .map(|n| {
            // Read, but not yet ended: the End event is what the loop applies last.
            let mut p = pane(n);
            p.timeline.source = gcscope_core::timeline::SourceState::Producing;
            p
        })
        .collect();
    let mut a = App::new(panes);
    a.autoplay = true;
    a.apply(SourceId::from_index(0), Event::End { error: None });
    assert!(!a.playing, "one source has not arrived yet");
    a.apply(SourceId::from_index(1), Event::End { error: None });
    assert!(a.playing && !a.autoplay);
    assert!(
        a.panes
            .iter()
            .all(|p| p.shown < p.current_run().unwrap().cycles.len()),
        "replaying from the start"
    );
    a.tick(Duration::ZERO);
    a.tick(Duration::from_secs(3600));
    assert!(a
        .panes
        .iter()
        .all(|p| p.shown == p.current_run().unwrap().cycles.len()));
}

/// A key that does nothing here says why in the hint bar, and changes nothing.
#[test]
fn keys_that_do_nothing_say_why() {
    let mut a = view_case("lab_a_b");
    a.act(Action::LabMarker);
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("m: the A/B already shows both markers"), "{s}");
    let mut a = app(&[TREE]);
    let follow = a.panes[0].follow;
    a.panes[0].follow = !follow;
    a.act(Action::NextRun);
    assert_eq!(
        a.panes[0].follow, !follow,
        "] on a one-run file changes nothing"
    );
    assert!(a.notice.as_deref().unwrap().contains("one run"));
    a.act(Action::LabWorkload);
    assert!(a.notice.as_deref().unwrap().contains("gcscope lab"));
    // The next key that acts clears it.
    a.act(Action::StepBack);
    assert!(a.notice.is_none());
}

/// A file of many runs (a log across restarts) opens on its latest run.
#[test]
fn a_file_of_many_runs_opens_on_the_latest() {
    let mut text = String::new();
    for restart in 0..3 {
        for n in 1..=2 {
            text += &format!("gc {n} @{restart}.{n}s 1%: 0.01+1.0+0.01 ms clock, 0.02+0.1/0.5/0+0.02 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n");
        }
    }
    let mut p = Pane::new("restarts.log", false);
    p.timeline = core_read::read_all(text.as_bytes()).unwrap();
    let mut a = App::new(vec![p]);
    a.apply(SourceId::from_index(0), Event::End { error: None });
    assert_eq!(a.panes[0].timeline.runs.len(), 3);
    assert_eq!(a.panes[0].run, RunId::from_index(2));
    assert!(screen(&mut a, 100, 30).contains("run 3/3"));
}

/// On the smallest terminal gcscope draws on (`view::MIN_W` x `view::MIN_H`), every help row
/// is still whole.
#[test]
fn the_help_fits_the_smallest_terminal() {
    let mut a = view_case("help");
    let s = screen(&mut a, view::MIN_W.max(72), view::MIN_H);
    for (_, help) in keys::help_rows() {
        assert!(s.contains(help), "{help}:\n{s}");
    }
    assert!(!s.contains("more: a taller terminal"), "{s}");
}

/// Events of one program run (`gcscope run`/`ab`) replaying a recorded trace: its start,
/// its gc lines, a `--metric` value and its exit.
fn program_run(
    app: &mut App,
    pane: usize,
    dec: &mut trace::Decoder,
    file: &str,
    run: usize,
    ops: f64,
) {
    use gcscope_model::{ExitStatus, ProgramExit, ProgramStart};
    let side = if pane == 0 { 'A' } else { 'B' };
    app.apply(
        SourceId::from_index(pane),
        Event::ProgramStart(Box::new(ProgramStart {
            command: format!("./{file} -mode tree"),
            build: Some(if pane == 0 {
                "go1.27.3 GOEXPERIMENT=nogreenteagc (legacy marking)".into()
            } else {
                "go1.27.3 (Green Tea)".into()
            }),
            godebug: "gctrace=1".into(),
            ab: Some((side, run)),
            warmup: false,
        })),
    );
    let bytes = std::fs::read(path(file)).unwrap();
    let mut events = Vec::new();
    dec.push(&bytes, &mut |e| events.push(e));
    dec.new_stream(&mut |e| events.push(e));
    for e in events {
        app.apply(SourceId::from_index(pane), e);
    }
    app.apply(
        SourceId::from_index(pane),
        Event::ProgramValue {
            name: "ops".into(),
            value: ops,
        },
    );
    app.apply(
        SourceId::from_index(pane),
        Event::ProgramExit(ProgramExit {
            status: ExitStatus::Code(0),
            wall_s: 9.5,
            cpu_s: Some(18.0),
            other_cpus: Some(0.02),
            stopped: None,
        }),
    );
}

/// `gcscope ab './leg -mode tree' './gt -mode tree'` in the dashboard: real Go 1.27.3 tree
/// lines, legacy as A and Green Tea as B, each run's `ops` figure 100 (A) or 130 (B).
struct ProgramAb {
    app: App,
    decs: [trace::Decoder; 2],
}

impl ProgramAb {
    const FILES: [&str; 2] = [
        "go/go1.27.3_legacy_tree_p2_r1.log",
        "go/go1.27.3_greentea_tree_p2_r1.log",
    ];

    fn new() -> ProgramAb {
        ProgramAb {
            app: App::new(vec![
                Pane::new("./leg -mode tree", true),
                Pane::new("./gt -mode tree", true),
            ]),
            decs: [trace::Decoder::new(), trace::Decoder::new()],
        }
    }

    /// These runs of each side, A then B, as `ab` interleaves them.
    fn runs(&mut self, runs: std::ops::RangeInclusive<usize>) {
        for run in runs {
            for side in 0..2 {
                let ops = 100.0 + side as f64 * 30.0;
                program_run(
                    &mut self.app,
                    side,
                    &mut self.decs[side],
                    Self::FILES[side],
                    run,
                    ops,
                );
            }
        }
    }
}

/// `gcscope ab` in the dashboard: each side follows its current run, and the strip
/// compares the runs that ended, by compare's rule: no verdict at 2 a side, a verdict at 3.
#[test]
fn an_ab_of_programs_fills_the_strip_run_by_run() {
    let mut ab = ProgramAb::new();
    ab.runs(1..=2);
    let s = screen(&mut ab.app, 100, 30);
    assert!(s.contains("runs that ended well, A 2, B 2"), "{s}");
    let row = |s: &str, label: &str| -> String {
        s.lines()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("no {label} row:\n{s}"))
            .to_string()
    };
    assert!(row(&s, "compulsory P ms").contains(" ~ "), "{s}");
    let why = |app: &App| {
        app.comparison
            .iter()
            .find(|r| r.metric == "compulsory_cpu_ms_per_cycle")
            .and_then(|r| r.why.clone())
    };
    assert_eq!(
        why(&ab.app).as_deref(),
        Some("2 runs a side; a verdict needs 3")
    );
    ab.runs(3..=3);
    let app = &mut ab.app;
    let s = screen(app, 100, 30);
    assert!(s.contains("runs that ended well, A 3, B 3"), "{s}");
    assert!(row(&s, "compulsory P ms").contains("-46.2%"), "{s}");
    assert_eq!(why(app), None);
    assert!(row(&s, "ops").contains("+30.0%"), "{s}");
    // Each side shows its latest run, and how it ended.
    assert_eq!(app.panes[0].run, RunId::from_index(2));
    insta::assert_snapshot!(s);
    let wide = screen(app, 200, 50);
    assert!(wide.contains("run 3 exited 0"), "{wide}");
    assert!(
        wide.contains("GOEXPERIMENT=nogreenteagc (legacy marking)"),
        "{wide}"
    );
}

/// `gcscope run` of a program that printed nothing the reader takes for a gc line: the
/// guide says what gcscope set and why there may be none, not how to set gctrace.
#[test]
fn a_program_without_gc_lines_gets_its_own_guide() {
    use gcscope_model::{ExitStatus, ProgramExit, ProgramStart};
    let mut app = App::new(vec![Pane::new("./server -port 8080", true)]);
    app.apply(
        SourceId::from_index(0),
        Event::ProgramStart(Box::new(ProgramStart {
            command: "./server -port 8080".into(),
            build: None,
            godebug: "madvdontneed=1,gctrace=1".into(),
            ab: None,
            warmup: false,
        })),
    );
    app.apply(
        SourceId::from_index(0),
        Event::Output {
            line: 0,
            text: "listening on :8080".into(),
        },
    );
    let s = screen(&mut app, 80, 24);
    assert!(s.contains("GODEBUG=madvdontneed=1,gctrace=1"), "{s}");
    assert!(s.contains("last output: listening on :8080"), "{s}");
    assert!(s.contains("running"), "{s}");
    app.apply(
        SourceId::from_index(0),
        Event::ProgramExit(ProgramExit {
            status: ExitStatus::Signal(15),
            wall_s: 1.0,
            cpu_s: None,
            other_cpus: None,
            stopped: Some(gcscope_model::Stopped::User),
        }),
    );
    let s = screen(&mut app, 80, 24);
    assert!(s.contains("stopped (killed by signal 15 (SIGTERM))"), "{s}");
    insta::assert_snapshot!(s);
}

/// `i` opens the focused side's findings; a digit goes to that finding's first evidence
/// cycle and says so; the overlay lists each with its severity and evidence.
#[test]
fn the_findings_overlay_jumps_to_evidence() {
    let mut a = app(&["go/go1.27.3_greentea_heapleak_p2_live-growth.log"]);
    a.act(Action::Findings);
    let s = screen(&mut a, 100, 30);
    assert!(s.contains("1 warn live_growth  (gc 16, gc 32)"), "{s}");
    insta::assert_snapshot!(s);
    a.findings_key(Some('1'));
    assert_eq!(a.mode, Mode::Normal);
    let p = &a.panes[0];
    assert_eq!(p.selected().map(|c| c.num), Some(16));
    assert_eq!(
        a.notice.as_deref(),
        Some("live_growth: gc 16, its first evidence cycle")
    );
    a.act(Action::Findings);
    a.findings_key(Some('9'));
    assert_eq!(a.notice.as_deref(), Some("no finding 9"));
}

/// In the loop: `i` opens the findings, `1` goes to the first one's cycle, `i` again and then
/// `q` quits even with the overlay open (the input never ends here: only q can end it).
#[tokio::test(start_paused = true)]
async fn findings_keys_in_the_event_loop_and_q_quits_from_the_overlay() {
    use futures::StreamExt;
    let (tx, rx) = tokio::sync::mpsc::channel(8);
    let mut events = Vec::new();
    let mut dec = trace::Decoder::new();
    let bytes = std::fs::read(path("go/go1.27.3_greentea_heapleak_p2_live-growth.log")).unwrap();
    dec.push(&bytes, &mut |e| events.push(e));
    dec.finish(&mut |e| events.push(e));
    events.push(Event::End { error: None });
    tx.send((SourceId::from_index(0), events)).await.unwrap();
    drop(tx);
    let input = async_stream(vec![
        key(KeyCode::Char('a')),
        key(KeyCode::Char('i')),
        key(KeyCode::Char('1')),
        key(KeyCode::Char('i')),
        key(KeyCode::Char('q')),
    ])
    .chain(futures::stream::pending());
    let mut term = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let app = App::new(vec![Pane::new("leak", false)]);
    let run = gcscope_tui::event_loop(&mut term, app, rx, input, || Duration::ZERO, THEME);
    let (app, signal) = tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("q did not quit from the findings overlay")
        .unwrap();
    assert!(app.quit && signal.is_none());
    assert_eq!(app.panes[0].selected().unwrap().num, 16);
}

/// The A/B strip names the findings one side's run has and the other's not.
#[test]
fn the_strip_names_findings_one_side_has() {
    let mut a = app(&[
        "go/go1.27.3_greentea_pointer_p2_r1.log",
        "go/go1.27.3_greentea_pointer_p2_memlimit200.log",
    ]);
    a.act(Action::AllAtOnce);
    let s = screen(&mut a, 200, 50);
    let line = s
        .lines()
        .find(|l| l.contains("findings: "))
        .unwrap_or_else(|| panic!("no findings line:\n{s}"));
    assert!(line.contains("A only pause_outlier"), "{line}");
    assert!(
        line.contains("B only memory_limit, idle_marking, overshoot"),
        "{line}"
    );
}

/// The heap panel says what set the goals: the pacer read back from the run, on its bottom
/// border (a memory limit named where one bound, GOGC where it set them).
#[test]
fn the_heap_panel_names_the_pacer_gogc_and_a_binding_limit() {
    let mut a = app(&["go/go1.27.3_greentea_pointer_p2_r1.log"]);
    let s = screen(&mut a, 200, 50);
    assert!(
        s.lines().any(|l| l.contains("└ GOGC 100 (")),
        "no pacer line under the heap panel:\n{s}"
    );
    let mut b = app(&["go/go1.27.3_greentea_pointer_p2_memlimit200.log"]);
    let s = screen(&mut b, 200, 50);
    assert!(
        s.lines()
            .any(|l| l.contains("a memory limit set 178 of 181 goals")),
        "no limit under the heap panel:\n{s}"
    );
}

/// Under `go run` the log's first processes are the go command's and the compiler's: the
/// dashboard opens on the program's run, and a run before it says it is an earlier process,
/// its findings too.
#[test]
fn a_go_run_logs_earlier_process_says_so_in_the_header() {
    let mut a = app(&["go/pacer/gorun_graph_cold.log"]);
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("run 84/84"), "{s}");
    assert!(!s.contains("earlier process"), "{s}");
    a.act(Action::PrevRun);
    let s = screen(&mut a, 120, 40);
    assert!(s.contains("earlier process, run 83/84"), "{s}");
    let findings = &a.panes[0].summary.as_ref().unwrap().findings;
    assert!(!findings.is_empty());
    assert!(findings
        .iter()
        .all(|f| f.text.starts_with("(An earlier process")));
}

/// The tune view (`t`): the curve of peak heap against GC P time over GOGC, the grid with the
/// trace's own GOGC starred, the settings worth trying, at 80x24 and in an A/B with both
/// sides' grids; any other key closes it.
#[test]
fn the_tune_view_shows_the_model_at_80x24_and_both_sides_in_an_a_b() {
    let tree = "go/pacer/sweep_tree_gogc100.log";
    let mut a = app(&[tree]);
    a.act(Action::Tune);
    assert_eq!(a.mode, Mode::Tune);
    let s = screen(&mut a, 80, 24);
    assert!(s.contains("tune: a model, not measured"), "{s}");
    assert!(s.contains("98*"), "the trace's own GOGC starred: {s}");
    assert!(s.contains("peak MiB") && s.contains("GC % Ps"), "{s}");
    assert!(s.contains("try: GOGC=50"), "{s}");
    assert!(s.contains("peak heap MiB"), "the x axis: {s}");
    insta::assert_snapshot!("tune_80x24", s);
    a.key(KeyEvent::new(KeyCode::Right, KeyModifiers::NONE));
    assert_eq!(a.mode, Mode::Normal, "another key closes it");

    let mut ab = app(&[tree, "go/pacer/sweep_graph_gogc100.log"]);
    ab.act(Action::Tune);
    let s = screen(&mut ab, 120, 40);
    assert!(s.contains("A GOGC") && s.contains("B GOGC"), "{s}");
    assert!(s.contains("A try:") && s.contains("B try:"), "{s}");
    assert!(s.contains("curves: A"), "which curve is whose: {s}");

    // A run the model refuses says why instead of a curve.
    let mut leak = app(&["go/go1.27.3_greentea_heapleak_p2_live-growth.log"]);
    leak.act(Action::Tune);
    let s = screen(&mut leak, 100, 30);
    assert!(
        s.contains("no model: the live heap is still growing"),
        "{s}"
    );
}

/// `--from-cycle`: the panes hold the window's cycles only, and the header says the window
/// and how many cycles it left out.
#[test]
fn a_window_shows_in_the_header_and_the_cycle_count() {
    let window = gcscope_core::timeline::Window {
        from_cycle: Some(10),
        after_ns: None,
    };
    let tl = source::read_path_into(
        std::path::Path::new(&path(TREE)),
        gcscope_core::timeline::Timeline {
            window,
            ..Default::default()
        },
    )
    .unwrap();
    let mut p = Pane::new(TREE, false);
    p.timeline = tl;
    let mut a = App::new(vec![p]);
    a.apply(SourceId::from_index(0), Event::End { error: None });
    a.act(Action::AllAtOnce);
    let s = screen(&mut a, 100, 30);
    // The trace has gc 1..23.
    assert!(s.contains("cycles 14/14"), "{s}");
    assert!(s.contains("window from gc 10 (9 before)"), "{s}");
}

/// Names are shortened only when they do not fit: whole paths at 200 columns, the shared
/// start cut at 80. The findings overlay says whose findings it lists.
#[test]
fn names_are_whole_where_they_fit_and_the_findings_say_whose() {
    let files = [
        "go/go1.27.3_legacy_graph_p2_gctrace2.log",
        "go/go1.27.3_greentea_graph_p2_gctrace2.log",
    ];
    let mut a = app(&files);
    let wide = screen(&mut a, 200, 50);
    let top = wide.lines().next().unwrap();
    assert!(top.contains(&format!("A {}", files[0])), "{top}");
    assert!(top.contains(&format!("B {}", files[1])), "{top}");
    let narrow = screen(&mut a, 80, 24);
    let top = narrow.lines().next().unwrap();
    assert!(top.contains("A …legacy_graph_p2_gctrace2.log"), "{top}");
    a.act(Action::SwitchFocus);
    a.act(Action::Findings);
    let s = screen(&mut a, 120, 40);
    assert!(
        s.contains("findings of B go1.27.3_greentea_graph_p2_gctrace2.log, run 1/1"),
        "{s}"
    );
}

/// `gcscope run` at 100x30: the program's output shows, its last line (printed after its
/// last gc line: the result it is run for) too, when the newest cycle is selected.
#[test]
fn a_programs_last_output_line_shows_at_100x30() {
    use gcscope_model::{ExitStatus, ProgramExit, ProgramStart};
    let mut a = App::new(vec![Pane::new("./prog", true)]);
    let id = SourceId::from_index(0);
    a.apply(
        id,
        Event::ProgramStart(Box::new(ProgramStart {
            command: "./prog".into(),
            build: None,
            godebug: "gctrace=1".into(),
            ab: None,
            warmup: false,
        })),
    );
    let mut text = std::fs::read_to_string(path("go/go1.27.3_greentea_tree_p2_r1.log")).unwrap();
    text.push_str("result: 1234 ops/s\n");
    let mut dec = trace::Decoder::new();
    let mut events = Vec::new();
    dec.push(text.as_bytes(), &mut |e| events.push(e));
    dec.finish(&mut |e| events.push(e));
    for e in events {
        a.apply(id, e);
    }
    a.apply(
        id,
        Event::ProgramExit(ProgramExit {
            status: ExitStatus::Code(0),
            wall_s: 9.5,
            cpu_s: Some(18.0),
            other_cpus: None,
            stopped: None,
        }),
    );
    a.apply(id, Event::End { error: None });
    let s = screen(&mut a, 100, 30);
    assert!(s.contains("result: 1234 ops/s"), "{s}");
    assert!(s.contains("log to the selected cycle and after"), "{s}");
}

/// At 100x30 an A/B's one-row headers keep the selected cycle after `/ 20 Enter`; `l` and
/// `f` say what they did in the hint bar, and `f` moves both linked sides.
#[test]
fn jump_link_and_follow_show_and_say_what_they_did_at_100x30() {
    let mut a = app(&[
        "go/go1.27.3_legacy_tree_p2_r1.log",
        "go/go1.27.3_greentea_tree_p2_r1.log",
    ]);
    a.act(Action::Jump);
    for c in "20\n".chars() {
        a.jump_key(Some(c));
    }
    let s = screen(&mut a, 100, 30);
    let top = s.lines().next().unwrap();
    assert_eq!(top.matches(" gc 20 @").count(), 2, "{top}");
    a.act(Action::LinkMode);
    let s = screen(&mut a, 100, 30);
    assert!(s.contains("linked by time: the sides select"), "{s}");
    a.act(Action::Follow);
    assert!(a.panes.iter().all(|p| p.follow), "both sides follow");
    a.act(Action::Follow);
    assert!(a.panes.iter().all(|p| !p.follow), "both hold still");
    let s = screen(&mut a, 100, 30);
    assert!(s.contains("holding still at the selected cycle"), "{s}");
}

/// `--follow`: what the reader says about the file (waiting, deleted, truncated) shows in
/// the header at 80x24, where the log panel is not drawn, until cycles flow again.
#[test]
fn a_followed_files_state_shows_in_the_header_until_cycles_come() {
    let mut a = App::new(vec![Pane::new("t.log", true)]);
    let id = SourceId::from_index(0);
    a.apply(
        id,
        Event::Output {
            line: 0,
            text: "gcscope: waiting for t.log: it is not there".into(),
        },
    );
    let s = screen(&mut a, 80, 24);
    assert!(
        s.lines()
            .take(2)
            .any(|l| l.contains("waiting for t.log: it is not there")),
        "{s}"
    );
    let mut dec = trace::Decoder::new();
    let mut events = Vec::new();
    dec.push(
        b"gc 1 @0.1s 0%: 0+0.99+0 ms clock, 0+0/0/0+0 ms cpu, 4->5->1 MB, 5 MB goal, 12 P\n",
        &mut |e| events.push(e),
    );
    for e in events {
        a.apply(id, e);
    }
    let s = screen(&mut a, 80, 24);
    assert!(!s.contains("waiting for t.log"), "{s}");
}
