//! The findings overlay (`i`).

use super::block;
use crate::app::App;
use crate::view::Theme;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Clear, Paragraph, Wrap};
use ratatui::Frame;

/// The findings overlay (`i`): the focused side's findings, most severe first, each with
/// its evidence cycles, numbered for 1-9.
pub(crate) fn draw(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    use gcscope_core::stats::findings::Severity;
    let found = app
        .focused()
        .and_then(|p| p.summary.as_ref())
        .map_or(&[][..], |s| &s.findings[..]);
    let w = area.width.saturating_sub(4).min(100);
    let mut lines: Vec<Line> = Vec::new();
    if found.is_empty() {
        lines.push(Line::from(
            "No finding for this run: none of the rules' conditions holds (docs/FINDINGS.md).",
        ));
    }
    for (i, x) in found.iter().enumerate() {
        let sev = match x.severity {
            Severity::Warn => Span::styled("warn", theme.alert()),
            Severity::Info => Span::styled("info", theme.bold()),
        };
        let evidence = if x.cycles.is_empty() {
            "whole run".to_string()
        } else {
            let gcs: Vec<String> = x.cycles.iter().map(|c| format!("gc {c}")).collect();
            gcs.join(", ")
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{} ", i + 1), theme.bold()),
            sev,
            Span::styled(format!(" {}", x.id), theme.bold()),
            Span::raw(format!("  ({evidence})")),
        ]));
        lines.push(Line::from(format!("  {}", x.text)));
    }
    // Rows once wrapped (words may wrap a little earlier: one spare row).
    let inner = usize::from(w.saturating_sub(2)).max(1);
    let rows: usize = lines.iter().map(|l| l.width().div_ceil(inner).max(1)).sum();
    let h = (rows as u16 + 3).min(area.height);
    let text = Paragraph::new(lines).wrap(Wrap { trim: false });
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    // Whose findings: the side and run they are of (Tab moves the focus in an A/B).
    let whose = app.focused().map_or(String::new(), |p| {
        let side = if app.panes.len() > 1 {
            format!("{} ", ["A", "B"][app.focus.index().min(1)])
        } else {
            String::new()
        };
        let name = p.name.rsplit('/').next().unwrap_or(&p.name);
        format!(
            "{side}{}, run {}/{}",
            gcscope_core::fmt::escape_controls(name),
            p.run.number(),
            p.timeline.run_count().max(1)
        )
    });
    let title = super::fit(
        &format!(" findings of {whose}: 1-9 go to a finding's cycle, any other key closes "),
        usize::from(w.saturating_sub(2)),
    );
    f.render_widget(Clear, r);
    f.render_widget(text.block(block(title)), r);
}
