//! The hint bar: the most used keys, what the last key did not do, or `/`'s prompt.

use super::fit;
use crate::app::{App, Mode};
use crate::keys;
use crate::view::Theme;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

/// `/`'s prompt while it waits for a cycle number; else what the last key did not do, said
/// once until the next key; else the keys.
pub(crate) fn draw(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    match (&app.mode, &app.notice) {
        (Mode::Jump(buf), _) => f.render_widget(
            Paragraph::new(format!(
                "jump to cycle: {buf}_  (Enter to go; Esc or any other key cancels)"
            )),
            area,
        ),
        (_, Some(notice)) => f.render_widget(
            Paragraph::new(fit(notice, area.width as usize)).style(theme.bold()),
            area,
        ),
        (_, None) => keys_line(f, app, area, theme),
    }
}

/// The most used keys that fit, whole.
fn keys_line(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
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
