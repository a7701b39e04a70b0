//! Render functions over `&App`. Nothing here does I/O, parses, or walks more than the
//! visible window of cycles.

use super::app::{App, Link, Pane, SPEEDS};
use super::keys;
use super::panels;
use crate::stats::summary::LOADED_SHARE;
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
    }
}

fn single(f: &mut Frame, app: &App, p: &Pane, area: Rect, theme: Theme) {
    let [head, rest] = Layout::vertical([Constraint::Length(2), Constraint::Min(0)]).areas(area);
    header(f, app, p, 0, head, theme);
    let rows = Layout::vertical([
        Constraint::Percentage(34),
        Constraint::Percentage(33),
        Constraint::Percentage(33),
    ])
    .split(rest);
    let cols = |r: Rect| Layout::horizontal([Constraint::Percentage(50); 2]).split(r);
    let (r0, r1, r2) = (cols(rows[0]), cols(rows[1]), cols(rows[2]));
    panels::phases(f, p, r0[0], theme);
    panels::heap(f, p, r0[1], theme);
    panels::cpu(f, p, r1[0], theme);
    panels::pauses(f, p, r1[1], theme);
    panels::cycle_detail(f, p, r2[0], theme);
    let [density_area, log_area] =
        Layout::vertical([Constraint::Percentage(45), Constraint::Percentage(55)]).areas(r2[1]);
    panels::density(f, p, density_area, theme);
    panels::log(f, p, log_area, theme);
}

fn ab(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    let strip_h = (app.comparison.len() as u16 + 3).min(area.height / 3);
    let [top, strip] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(strip_h)]).areas(area);
    let cols = Layout::horizontal([Constraint::Percentage(50); 2]).split(top);
    for (i, p) in app.panes.iter().take(2).enumerate() {
        let [head, a, b, c, d, e] = Layout::vertical([
            Constraint::Length(2),
            Constraint::Percentage(21),
            Constraint::Percentage(19),
            Constraint::Percentage(22),
            Constraint::Percentage(21),
            Constraint::Percentage(17),
        ])
        .areas(cols[i]);
        header(f, app, p, i, head, theme);
        panels::phases(f, p, a, theme);
        panels::heap(f, p, b, theme);
        panels::cpu(f, p, c, theme);
        // Pauses and page scan density share a row when either side has density (the lab,
        // gctrace=2): it is what an A/B of the two markers is about.
        if app.panes.iter().any(|p| p.cols.has_density) {
            let [dl, dr] =
                Layout::horizontal([Constraint::Percentage(45), Constraint::Percentage(55)])
                    .areas(d);
            panels::pauses(f, p, dl, theme);
            panels::density(f, p, dr, theme);
        } else {
            panels::pauses(f, p, d, theme);
        }
        panels::cycle_detail(f, p, e, theme);
    }
    super::strip::draw(f, app, strip, theme);
}

pub(super) fn block<'a>(title: impl Into<Line<'a>>) -> Block<'a> {
    Block::bordered().title(title)
}

fn header(f: &mut Frame, app: &App, p: &Pane, i: usize, area: Rect, theme: Theme) {
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
    let state = if let Some(Some(e)) = &p.timeline.ended {
        format!("ended: {e}")
    } else if p.live {
        match &p.timeline.ended {
            None => "live".to_string(),
            _ => "ended".into(),
        }
    } else if app.playing {
        format!("▶ x{}", SPEEDS[app.speed])
    } else {
        format!("⏸ x{}", SPEEDS[app.speed])
    };
    let sel = p.selected();
    // A live lab run says what it runs; a file says which file it is (its settings are in
    // `summary`).
    let name = p
        .current_run()
        .and_then(|r| r.label.as_deref())
        .filter(|_| p.live)
        .unwrap_or(&p.name);
    let line1 = Line::from(vec![
        Span::styled(format!("{side}{name}"), name_style),
        Span::raw(format!(
            "  {}  {} P  run {}/{}",
            s.map_or("", |s| s.format),
            s.map_or(0, |s| s.procs),
            p.run + 1,
            runs.max(1)
        )),
    ]);
    let line2 = Line::from(vec![
        Span::raw(format!(
            "cycles {}/{}  GC CPU {}%  at gc {} @{:.3}s  ",
            p.cycles().len(),
            total,
            sel.map_or(0, |c| c.cum_pct),
            sel.map_or(0, |c| c.num),
            sel.map_or(0.0, |c| c.at as f64 / 1e9),
        )),
        Span::styled(state, theme.bold()),
        Span::raw(if p.follow { "  following" } else { "" }),
        // The lab's mark segments spent much of their time descheduled by the OS: wall-clock
        // figures moved with the load (docs/SUMMARY.md, offcpu_share).
        Span::styled(
            match s.and_then(|s| s.lab.as_ref()).and_then(|l| l.offcpu_share) {
                Some(share) if share > LOADED_SHARE => {
                    format!("  machine loaded ({:.0}% off-CPU)", share * 100.0)
                }
                _ => String::new(),
            },
            theme.bold(),
        ),
        Span::raw(if app.panes.len() > 1 {
            match app.link {
                Link::Index => "  linked by index",
                Link::Time => "  linked by time",
            }
        } else {
            ""
        }),
    ]);
    f.render_widget(Paragraph::new(vec![line1, line2]), area);
}

fn hint_bar(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    if let Some(buf) = &app.jump {
        f.render_widget(
            Paragraph::new(format!(
                "jump to cycle: {buf}_  (Enter to go, Esc to cancel)"
            )),
            area,
        );
        return;
    }
    let mut spans = Vec::new();
    let lab = app.lab.as_ref();
    // An A/B lab shows both markers already: no marker switch to offer.
    let marker_switch = lab.is_some_and(|l| l.marker.is_some());
    for (k, what) in keys::hints(lab.is_some(), marker_switch) {
        spans.push(Span::styled(
            format!(" {k} "),
            theme.bold().add_modifier(Modifier::REVERSED),
        ));
        spans.push(Span::raw(format!(" {what} ")));
    }
    f.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn help(f: &mut Frame, area: Rect, theme: Theme) {
    let rows: Vec<Line> = keys::help_rows()
        .map(|(k, h)| {
            Line::from(vec![
                Span::styled(format!("{k:>8}  "), theme.bold()),
                Span::raw(h),
            ])
        })
        .collect();
    let h = (rows.len() as u16 + 2).min(area.height);
    let w = 64.min(area.width);
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    f.render_widget(Clear, r);
    f.render_widget(Paragraph::new(rows).block(block(" keys (? to close) ")), r);
}
