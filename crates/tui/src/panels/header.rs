//! A side's header: its name, how far it is, the selected cycle, its state, and the rest,
//! in the rows it has.

use super::fit;
use crate::app::{App, Link, Pane, SPEEDS};
use crate::view::Theme;
use gcscope_core::stats::summary::LOADED_SHARE;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// Columns between A's header and B's: as many as between two items of a header (`fill`).
pub(crate) const GAP: u16 = 2;

/// The two sides' names as the headers show them, in `room` columns each: whole when they fit,
/// else without their directories, else also without the start they share
/// (`…legacy_graph.log`, `…greentea_graph.log`), so two long paths never collide at 80
/// columns and are not shortened at 200.
pub(crate) fn short_names(app: &App, room: usize) -> Vec<String> {
    let full: Vec<&str> = app.panes.iter().map(display_name).collect();
    let fits = |names: &[&str]| names.iter().all(|n| n.chars().count() <= room);
    if fits(&full) {
        return full.iter().map(|n| n.to_string()).collect();
    }
    if full.iter().any(|n| n.starts_with("lab ")) {
        // A lab label is its settings: the workload in their shared start matters.
        return full.iter().map(|n| n.to_string()).collect();
    }
    // A command (`gcscope run`, `ab`): every path in it by its last part.
    let commands: Vec<String>;
    let base: Vec<&str> = if app.panes.iter().any(|p| !p.timeline.programs.is_empty()) {
        commands = full
            .iter()
            .map(|n| {
                n.split(' ')
                    .map(|w| w.rsplit('/').next().unwrap_or(w))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect();
        commands.iter().map(String::as_str).collect()
    } else {
        full.iter()
            .map(|n| n.rsplit('/').next().unwrap_or(n))
            .collect()
    };
    if fits(&base) {
        return base.iter().map(|n| n.to_string()).collect();
    }
    let common = match base.as_slice() {
        [a, b] => a
            .char_indices()
            .zip(b.chars())
            .take_while(|((_, x), y)| x == y)
            .last()
            .map_or(0, |((i, x), _)| i + x.len_utf8()),
        _ => 0,
    };
    // Cut at a word boundary of the shared start, and only when it saves something.
    let cut = base
        .first()
        .and_then(|a| a[..common].rfind(['_', ' ', '-', '.']).map(|i| i + 1))
        .unwrap_or(0);
    base.iter()
        .map(|n| {
            if cut >= 4 && cut < n.len() {
                format!("…{}", &n[cut..])
            } else {
                n.to_string()
            }
        })
        .collect()
}

/// Columns a side's name may take in a header `width` wide: half of a two-row header (from 90
/// columns), a third of a one-row one, which must keep the counts and the selected cycle.
pub(crate) fn name_room(width: u16) -> usize {
    let w = usize::from(width);
    if w >= 90 {
        (w / 2).saturating_sub(2)
    } else {
        w / 3
    }
}

/// A live lab run says what it runs; a file says which file it is (its settings are in
/// `summary`).
fn display_name(p: &Pane) -> &str {
    p.current_run()
        .and_then(|r| r.label.as_deref())
        .filter(|_| p.live)
        .unwrap_or(&p.name)
}

/// Pane `i`'s header: named as the side of an A/B of programs, or by its own name.
pub(crate) fn draw(f: &mut Frame, app: &App, p: &Pane, i: usize, area: Rect, theme: Theme) {
    if p.timeline.programs.is_empty() {
        named(f, app, p, i, display_name(p), area, theme);
    } else {
        let names = short_names(app, name_room(area.width));
        named(f, app, p, i, &names[i.min(names.len() - 1)], area, theme);
    }
}

/// A side's header: its name, then what a person checks first (how far it is, its GC CPU,
/// the selected cycle, live or replaying), then the rest; wrapped at words into the rows it
/// has, so a narrow terminal keeps the start and cuts nothing mid-word.
pub(crate) fn named(
    f: &mut Frame,
    app: &App,
    p: &Pane,
    i: usize,
    name: &str,
    area: Rect,
    theme: Theme,
) {
    let side = if app.panes.len() > 1 {
        format!("{} ", ["A", "B"][i.min(1)])
    } else {
        String::new()
    };
    let focus = app.panes.len() > 1 && app.focus.index() == i;
    let name_style = if focus {
        theme.bold().add_modifier(Modifier::REVERSED)
    } else {
        theme.bold()
    };
    let s = p.summary.as_ref();
    let runs = p.timeline.run_count();
    let total = p.current_run().map_or(0, |r| r.cycles.len());
    // A source that stopped on an error says so, live or not (a file that could not be read
    // would otherwise look like an empty trace).
    let program = p.timeline.programs.last();
    let state = if let Some(e) = p.timeline.source.error() {
        format!("ended: {e}")
    } else if let Some(g) = program {
        // A program gcscope runs: which run of an A/B, and how it ended.
        let which = match (g.start.ab, g.start.warmup) {
            (Some((_, k)), true) => format!("warm-up {k} "),
            (Some((_, k)), false) => format!("run {k} "),
            (None, true) => "warm-up ".to_string(),
            (None, false) => String::new(),
        };
        // Short: in an A/B at 80 columns a side's header has 40.
        let status = |s: gcscope_model::ExitStatus| match s {
            gcscope_model::ExitStatus::Code(c) => format!("exited {c}"),
            other => other.to_string(),
        };
        match g.exit {
            None => format!("{which}running"),
            Some(e) => match e.stopped {
                Some(gcscope_model::Stopped::Timeout) => {
                    format!("{which}timed out ({})", status(e.status))
                }
                Some(gcscope_model::Stopped::User) => {
                    format!("{which}stopped ({})", status(e.status))
                }
                None => format!("{which}{}", status(e.status)),
            },
        }
    } else if p.live {
        if p.timeline.source.ended() {
            "ended".to_string()
        } else {
            "live".into()
        }
    } else if app.playing {
        format!("▶ x{}", SPEEDS[app.speed])
    } else {
        format!("⏸ x{}", SPEEDS[app.speed])
    };
    let sel = p.selected();
    // A program's command can be long, and how its run is going matters most: the name
    // gives way to half the row, and the state comes right after it.
    let name_w = if program.is_some() {
        (area.width as usize / 2).max(12)
    } else {
        area.width as usize
    };
    let name = fit(&format!("{side}{name}"), name_w);
    let mut spans = vec![Span::styled(name, name_style)];
    let state_first = program.is_some();
    if state_first {
        spans.push(Span::styled(state.clone(), theme.bold()));
    }
    // A one-row header (an A/B side under 90 columns) says the same in fewer words.
    let short = area.height < 2;
    spans.push(Span::raw(if short {
        format!("{}/{}", p.cycles().len(), total)
    } else {
        format!("cycles {}/{}", p.cycles().len(), total)
    }));
    // The selected cycle before Go's %: after `/ 20 Enter` it is what the user looks for,
    // and a one-row header at 100 columns has room for one of the two.
    if let Some(c) = sel {
        spans.push(Span::raw(format!(
            "{}gc {} @{:.3}s",
            if short { "" } else { "at " },
            c.num,
            c.at as f64 / 1e9
        )));
        spans.push(Span::raw(format!("Go's GC {}%", c.cum_pct)));
    }
    if !state_first {
        spans.push(Span::styled(state, theme.bold()));
    }
    // A followed file's state, while it lasts (the log panel has it only from 200x50).
    if let Some(e) = &p.source_event {
        let e = e.strip_prefix("gcscope: ").unwrap_or(e);
        spans.push(Span::styled(fit(e, area.width as usize), theme.bold()));
    }
    // `--from-cycle` / `--after`: every figure is of the window, and the header says so.
    if let Some(w) = p.timeline.window.text() {
        let before = p.current_run().map_or(0, |r| r.before_window);
        spans.push(Span::styled(
            format!("window {w} ({before} before)"),
            theme.bold(),
        ));
    }
    // Under go run / go test the first processes of a log are the go command's and the
    // compiler's: said beside the state, with the run number, so nobody tunes the wrong process.
    if s.is_some_and(|s| s.earlier_process) {
        spans.push(Span::styled(
            format!("earlier process, run {}/{}", p.run.number(), runs.max(1)),
            theme.bold(),
        ));
    }
    if let Some(b) = program.and_then(|g| g.start.build.as_deref()) {
        spans.push(Span::raw(b.to_string()));
    }
    // What the run's numbers say: `i` opens them.
    if let Some(n) = s.map(|s| s.findings.len()).filter(|&n| n > 0) {
        spans.push(Span::styled(
            format!("{n} finding{} (i)", if n == 1 { "" } else { "s" }),
            theme.bold(),
        ));
    }
    // The lab's mark segments spent much of their time descheduled by the OS: wall-clock
    // figures moved with the load (docs/SUMMARY.md, offcpu_share).
    if let Some(share) = s
        .and_then(|s| s.lab.as_ref())
        .and_then(|l| l.offcpu_share)
        .filter(|&share| share > LOADED_SHARE)
    {
        spans.push(Span::styled(
            format!("machine loaded ({:.0}% off-CPU)", share * 100.0),
            theme.bold(),
        ));
    }
    if !s.is_some_and(|s| s.earlier_process) {
        spans.push(Span::raw(format!("run {}/{}", p.run.number(), runs.max(1))));
    }
    // A stream of many processes: the older runs were summarised and let go.
    if p.timeline.run_base > 0 {
        spans.push(Span::raw(format!(
            "runs 1-{} summarised, {} held",
            p.timeline.run_base,
            p.timeline.runs.len()
        )));
    }
    if let Some(s) = s {
        spans.push(Span::raw(format!("{}, {} P", s.format, s.procs)));
    }
    if p.follow {
        spans.push(Span::raw("following"));
    }
    if app.panes.len() > 1 {
        spans.push(Span::raw(match app.link {
            Link::Index => "linked by index",
            Link::Time => "linked by time",
        }));
    }
    let lines = fill(spans, area.width as usize, area.height as usize);
    f.render_widget(Paragraph::new(lines), area);
}

/// `items` in order on up to `rows` lines of `width` columns, two spaces apart; an item
/// that does not fit on the line starts the next, and what does not fit at all is left out
/// whole (the items come most important first).
fn fill(items: Vec<Span<'static>>, width: usize, rows: usize) -> Vec<Line<'static>> {
    let mut lines: Vec<Vec<Span>> = vec![Vec::new()];
    let mut used = 0;
    for item in items {
        let w = item.width();
        let gap = if used == 0 { 0 } else { 2 };
        if used + gap + w > width && used > 0 {
            if lines.len() == rows {
                continue;
            }
            lines.push(Vec::new());
            used = 0;
        }
        let gap = if used == 0 { 0 } else { 2 };
        if used + gap + w > width {
            continue;
        }
        if let Some(line) = lines.last_mut() {
            if gap > 0 {
                line.push(Span::raw("  "));
            }
            line.push(item);
        }
        used += gap + w;
    }
    lines.into_iter().map(Line::from).collect()
}
