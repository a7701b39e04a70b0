//! Render functions over `&App`. Nothing here does I/O, parses, or walks more than the
//! visible window of cycles.

use super::app::{App, Link, Pane, SPEEDS};
use super::keys;
use super::panels;
use gcscope_core::stats::summary::LOADED_SHARE;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};
use ratatui::Frame;

pub const MIN_W: u16 = 60;
pub const MIN_H: u16 = 18;

/// Colours, or none at all under `NO_COLOR`. Chosen to read on dark and light backgrounds
/// (no white or black text, no dim greys).
#[derive(Clone, Copy)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    pub fn from_env() -> Self {
        Theme {
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }
    pub(super) fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    }
    pub(super) fn bold(&self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }
    pub(super) fn alert(&self) -> Style {
        if self.color {
            Style::default().fg(Color::Red).add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::BOLD | Modifier::REVERSED)
        }
    }
}

pub(super) const ASSIST: Color = Color::Magenta;
pub(super) const BACKGROUND: Color = Color::Blue;
pub(super) const IDLE: Color = Color::Green;
pub(super) const PAUSE: Color = Color::Red;
pub(super) const MARK: Color = Color::Cyan;
pub(super) const GOAL: Color = Color::Yellow;

pub fn draw(f: &mut Frame, app: &App, theme: Theme) {
    let area = f.area();
    if area.width < MIN_W || area.height < MIN_H {
        let msg = format!(
            "terminal too small: {}x{}, gcscope needs {MIN_W}x{MIN_H}",
            area.width, area.height
        );
        f.render_widget(Paragraph::new(msg).wrap(Wrap { trim: true }), area);
        return;
    }
    let [body, hints] = Layout::vertical([Constraint::Min(0), Constraint::Length(1)]).areas(area);
    match app.panes.len() {
        0 => f.render_widget(Paragraph::new("no source"), body),
        1 => single(f, app, &app.panes[0], body, theme),
        _ => ab(f, app, body, theme),
    }
    hint_bar(f, app, hints, theme);
    if app.help {
        help(f, area, theme);
    } else if app.findings {
        panels::findings(f, app, area, theme);
    }
}

/// What a side can show, in the order drawn top to bottom. Which of them a side shows, and
/// how tall, depends on the room (`stack`): the layout gives way by priority as the terminal
/// shrinks instead of cutting every panel.
#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord)]
enum Panel {
    Phases,
    Cpu,
    Heap,
    Density,
    Pauses,
    Detail,
    Log,
}

impl Panel {
    /// Rows of its compact form: below this the panel is left out.
    fn min_h(self) -> u16 {
        match self {
            Panel::Phases | Panel::Cpu | Panel::Heap => 5,
            Panel::Density | Panel::Pauses | Panel::Detail => 4,
            Panel::Log => 3,
        }
    }

    /// Rows it can use well; more room beyond every panel's wish is shared out evenly.
    fn want_h(self) -> u16 {
        match self {
            Panel::Detail => 8,
            Panel::Phases | Panel::Pauses => 7,
            Panel::Heap | Panel::Log => 6,
            Panel::Density | Panel::Cpu => 5,
        }
    }

    /// Which panels grow first once every chosen one has its compact height: the decoded
    /// cycle (its words are cut, not squeezed), then the charts.
    const GROWTH: [Panel; 7] = [
        Panel::Detail,
        Panel::Phases,
        Panel::Pauses,
        Panel::Heap,
        Panel::Density,
        Panel::Cpu,
        Panel::Log,
    ];

    fn draw(self, f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
        match self {
            Panel::Phases => panels::phases(f, p, area, theme),
            Panel::Cpu => panels::cpu(f, p, area, theme),
            Panel::Heap => panels::heap(f, p, area, theme),
            Panel::Density => panels::density(f, p, area, theme),
            Panel::Pauses => panels::pauses(f, p, area, theme),
            Panel::Detail => panels::cycle_detail(f, p, area, theme),
            Panel::Log => panels::log(f, p, area, theme),
        }
    }
}

/// The panels that fit in `h` rows, taken in `priority` order at their compact height, then
/// grown towards what each can use (in priority order) and the rest shared out; in draw
/// order, with their heights.
fn stack(priority: &[Panel], h: u16) -> Vec<(Panel, u16)> {
    let mut chosen: Vec<(Panel, u16)> = Vec::new();
    let mut left = h;
    for &p in priority {
        if p.min_h() <= left {
            chosen.push((p, p.min_h()));
            left -= p.min_h();
        }
    }
    for g in Panel::GROWTH {
        if let Some((p, ph)) = chosen.iter_mut().find(|(p, _)| *p == g) {
            let add = p.want_h().saturating_sub(*ph).min(left);
            *ph += add;
            left -= add;
        }
    }
    let n = chosen.len() as u16;
    for (i, (_, ph)) in chosen.iter_mut().enumerate() {
        *ph += left / n.max(1) + u16::from((i as u16) < left % n.max(1));
    }
    chosen.sort_by_key(|(p, _)| *p);
    chosen
}

/// Draws `panels` of `p` stacked in `area` (or, while it has no cycle, how to get some).
fn column(f: &mut Frame, p: &Pane, priority: &[Panel], area: Rect, theme: Theme) {
    // No cycle in the run at all (a replay that has not reached the first is not empty).
    if no_cycles(p) {
        panels::guide(f, p, area, theme);
        return;
    }
    let parts = stack(priority, area.height);
    let rects = Layout::vertical(parts.iter().map(|(_, h)| Constraint::Length(*h))).split(area);
    for ((panel, _), r) in parts.iter().zip(rects.iter()) {
        panel.draw(f, p, *r, theme);
    }
}

fn single(f: &mut Frame, app: &App, p: &Pane, area: Rect, theme: Theme) {
    let wide = area.width >= 120;
    let head_h = 2;
    let [head, rest] =
        Layout::vertical([Constraint::Length(head_h), Constraint::Min(0)]).areas(area);
    header(f, app, p, 0, head, theme);
    if wide && rest.height >= 24 && !no_cycles(p) {
        let [l, r] = Layout::horizontal([Constraint::Percentage(50); 2]).areas(rest);
        column(f, p, &[Panel::Phases, Panel::Cpu, Panel::Detail], l, theme);
        let right = [Panel::Heap, Panel::Pauses, Panel::Density, Panel::Log];
        column(f, p, &right, r, theme);
    } else {
        // One column: what the run did first, then why.
        let order = [
            Panel::Phases,
            Panel::Cpu,
            Panel::Heap,
            Panel::Detail,
            Panel::Pauses,
            Panel::Density,
            Panel::Log,
        ];
        column(f, p, &order, rest, theme);
    }
}

fn ab(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    // The strip is the A/B's answer: on a short terminal it gets nearly half the height, so
    // its deltas survive; the sides keep their two main charts.
    let rows = if app.mismatch.is_empty() {
        // The rows, the header, the borders, and a line of findings that differ.
        app.comparison.len() as u16 + 3 + u16::from(!app.finding_diff.is_empty())
    } else {
        5
    };
    let cap = if area.height >= 40 {
        area.height / 3
    } else {
        area.height * 9 / 20
    };
    let [top, strip] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(rows.min(cap))]).areas(area);
    let cols = Layout::horizontal([Constraint::Percentage(50); 2]).split(top);
    let names = short_names(app);
    let density = app.panes.iter().any(|p| p.cols.has_density);
    let mut order = vec![Panel::Phases, Panel::Cpu];
    if density {
        // Page scan density is what an A/B of the two markers is about (lab, gctrace=2).
        order.push(Panel::Density);
    }
    order.extend([Panel::Heap, Panel::Pauses, Panel::Detail]);
    for (i, p) in app.panes.iter().take(2).enumerate() {
        let head_h = if cols[i].width >= 90 { 2 } else { 1 };
        let [head, rest] =
            Layout::vertical([Constraint::Length(head_h), Constraint::Min(0)]).areas(cols[i]);
        header_named(f, app, p, i, &names[i], head, theme);
        column(f, p, &order, rest, theme);
    }
    super::strip::draw(f, app, strip, theme);
}

/// The two sides' names as the headers show them: file names without their directories and
/// without the start they share (`…legacy_graph.log`, `…greentea_graph.log`), so two long
/// paths never collide at 80 columns.
fn short_names(app: &App) -> Vec<String> {
    let full: Vec<&str> = app.panes.iter().map(display_name).collect();
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

fn no_cycles(p: &Pane) -> bool {
    p.current_run().is_none_or(|r| r.cycles.is_empty())
}

/// A live lab run says what it runs; a file says which file it is (its settings are in
/// `summary`).
fn display_name(p: &Pane) -> &str {
    p.current_run()
        .and_then(|r| r.label.as_deref())
        .filter(|_| p.live)
        .unwrap_or(&p.name)
}

/// `s` cut to `w` columns, with an ellipsis where it was cut.
pub(super) fn fit(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        return s.to_string();
    }
    let mut out: String = s.chars().take(w.saturating_sub(1)).collect();
    out.push('…');
    out
}

pub(super) fn block<'a>(title: impl Into<Line<'a>>) -> Block<'a> {
    Block::bordered().title(title)
}

fn header(f: &mut Frame, app: &App, p: &Pane, i: usize, area: Rect, theme: Theme) {
    if p.timeline.programs.is_empty() {
        header_named(f, app, p, i, display_name(p), area, theme);
    } else {
        let names = short_names(app);
        header_named(f, app, p, i, &names[i.min(names.len() - 1)], area, theme);
    }
}

/// A side's header: its name, then what a person checks first (how far it is, its GC CPU,
/// the selected cycle, live or replaying), then the rest; wrapped at words into the rows it
/// has, so a narrow terminal keeps the start and cuts nothing mid-word.
fn header_named(
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
    let focus = app.panes.len() > 1 && app.focus == i;
    let name_style = if focus {
        theme.bold().add_modifier(Modifier::REVERSED)
    } else {
        theme.bold()
    };
    let s = p.summary.as_ref();
    let runs = p.timeline.runs.len();
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
    spans.push(Span::raw(format!("cycles {}/{}", p.cycles().len(), total)));
    if let Some(c) = sel {
        spans.push(Span::raw(format!("GC CPU {}%", c.cum_pct)));
        spans.push(Span::raw(format!(
            "at gc {} @{:.3}s",
            c.num,
            c.at as f64 / 1e9
        )));
    }
    if !state_first {
        spans.push(Span::styled(state, theme.bold()));
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
    spans.push(Span::raw(format!("run {}/{}", p.run + 1, runs.max(1))));
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

fn hint_bar(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    if let Some(buf) = &app.jump {
        f.render_widget(
            Paragraph::new(format!(
                "jump to cycle: {buf}_  (Enter to go; Esc or any other key cancels)"
            )),
            area,
        );
        return;
    }
    if let Some(notice) = &app.notice {
        // What the last key did not do, and why: said once, until the next key.
        f.render_widget(
            Paragraph::new(fit(notice, area.width as usize)).style(theme.bold()),
            area,
        );
        return;
    }
    let mut spans = Vec::new();
    let lab = app.lab.as_ref();
    // An A/B lab shows both markers already: no marker switch to offer.
    let marker_switch = lab.is_some_and(|l| l.marker.is_some());
    let mut used = 0;
    for (k, what) in keys::hints(lab.is_some(), marker_switch) {
        // Whole hints only: the ones that do not fit are in the help (`?`, the second).
        let w = k.chars().count() + what.chars().count() + 4;
        if used + w > area.width as usize {
            continue;
        }
        used += w;
        spans.push(Span::styled(
            format!(" {k} "),
            theme.bold().add_modifier(Modifier::REVERSED),
        ));
        spans.push(Span::raw(format!(" {what} ")));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn help(f: &mut Frame, area: Rect, theme: Theme) {
    let mut rows: Vec<Line> = keys::help_rows()
        .map(|(k, h)| {
            Line::from(vec![
                Span::styled(format!("{k:>8}  "), theme.bold()),
                Span::raw(h),
            ])
        })
        .collect();
    // As wide as its longest row, so no row is cut where the terminal has the room.
    let longest = keys::help_rows()
        .map(|(_, h)| h.chars().count() + 10)
        .max()
        .unwrap_or(0);
    let h = (rows.len() as u16 + 2).min(area.height);
    let w = (longest as u16 + 2).min(area.width);
    // Too short for every row: whole rows, and how many more a taller terminal shows.
    let room = usize::from(h.saturating_sub(2));
    if rows.len() > room {
        let more = rows.len() + 1 - room;
        rows.truncate(room.saturating_sub(1));
        rows.push(Line::from(format!(
            "          (+{more} more: a taller terminal shows them)"
        )));
    }
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    f.render_widget(Clear, r);
    f.render_widget(Paragraph::new(rows).block(block(" keys (? to close) ")), r);
}
