//! The layout: which panels each side shows at this size, and where; the panels draw
//! themselves (`panels`). Nothing here does I/O, parses, or walks more than the visible
//! window of cycles.

use super::app::{App, Mode, Pane};
use super::panels::{self, header};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::widgets::{Paragraph, Wrap};
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
    #[must_use]
    pub fn from_env() -> Self {
        Theme {
            color: std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
        }
    }
    pub(crate) fn fg(&self, c: Color) -> Style {
        if self.color {
            Style::default().fg(c)
        } else {
            Style::default()
        }
    }
    pub(crate) fn bold(&self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }
    pub(crate) fn alert(&self) -> Style {
        if self.color {
            Style::default().fg(Color::Red).add_modifier(Modifier::BOLD)
        } else {
            Style::default().add_modifier(Modifier::BOLD | Modifier::REVERSED)
        }
    }
}

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
    panels::hints::draw(f, app, hints, theme);
    // What the mode draws over the panes.
    match &app.mode {
        Mode::Help => panels::help::draw(f, area, theme),
        Mode::Findings => panels::findings::draw(f, app, area, theme),
        Mode::Tune => panels::tune::draw(f, app, area, theme),
        // `/`'s prompt is in the hint bar.
        Mode::Normal | Mode::Jump(_) => {}
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
            Panel::Phases => panels::phases::draw(f, p, area, theme),
            Panel::Cpu => panels::cpu::draw(f, p, area, theme),
            Panel::Heap => panels::heap::draw(f, p, area, theme),
            Panel::Density => panels::density::draw(f, p, area, theme),
            Panel::Pauses => panels::pauses::draw(f, p, area, theme),
            Panel::Detail => panels::detail::draw(f, p, area, theme),
            Panel::Log => panels::log::draw(f, p, area, theme),
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
        panels::guide::draw(f, p, area, theme);
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
    header::draw(f, app, p, 0, head, theme);
    // A program gcscope runs prints what the user ran it for: its output comes before the
    // detail panels (at 100x30 it showed only at 200x50).
    let program = !p.timeline.programs.is_empty();
    if wide && rest.height >= 24 && !no_cycles(p) {
        let [l, r] = Layout::horizontal([Constraint::Percentage(50); 2]).areas(rest);
        column(f, p, &[Panel::Phases, Panel::Cpu, Panel::Detail], l, theme);
        let right = if program {
            [Panel::Heap, Panel::Log, Panel::Pauses, Panel::Density]
        } else {
            [Panel::Heap, Panel::Pauses, Panel::Density, Panel::Log]
        };
        column(f, p, &right, r, theme);
    } else {
        // One column: what the run did first, then why.
        let mut order = vec![
            Panel::Phases,
            Panel::Cpu,
            Panel::Heap,
            Panel::Detail,
            Panel::Pauses,
            Panel::Density,
            Panel::Log,
        ];
        if program {
            order.retain(|&x| x != Panel::Log);
            order.insert(3, Panel::Log);
        }
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
    let names = header::short_names(app, header::name_room(cols[0].width));
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
        // A's header ends two columns short of B's, as far apart as a header's own items:
        // filled to the edge, `ended` ran into `B lab tree` (120x40).
        let head = if i == 0 {
            Rect {
                width: head.width.saturating_sub(header::GAP),
                ..head
            }
        } else {
            head
        };
        header::named(f, app, p, i, &names[i], head, theme);
        column(f, p, &order, rest, theme);
    }
    panels::strip::draw(f, app, strip, theme);
}

/// No cycle in the selected run (a replay that has not reached its first is not empty).
pub(crate) fn no_cycles(p: &Pane) -> bool {
    p.current_run().is_none_or(|r| r.cycles.is_empty())
}
