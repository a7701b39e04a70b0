//! The help overlay (`?`): every row of the key table.

use super::block;
use crate::keys;
use crate::view::Theme;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph};
use ratatui::Frame;

pub(crate) fn draw(f: &mut Frame, area: Rect, theme: Theme) {
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
