//! The log panel: problems first, then the program's output and the runtime's notes up to
//! the selected cycle's line.

use super::{block, fit, GOAL};
use crate::app::Pane;
use crate::view::Theme;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

pub(crate) fn draw(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
    let tl = &p.timeline;
    let h = area.height.saturating_sub(2) as usize;
    // Problems first (they must not scroll out of sight), then what the program and the
    // runtime printed up to the selected cycle's line.
    let mut lines: Vec<Line> = tl
        .problems
        .iter()
        .take(h.div_ceil(2))
        .map(|pr| {
            Line::from(Span::styled(
                format!("{:>6} problem: {}", pr.line, pr.reason),
                theme.alert(),
            ))
        })
        .collect();
    let room = h.saturating_sub(lines.len());
    // At the run's last cycle, what came after it too, to the next run: a program's last
    // line (its result) follows its last gc line.
    let at_last = p.selected().is_some() && p.cursor.index() + 1 >= p.total();
    let upto = match p.selected() {
        Some(_) if at_last => tl
            .run(p.run.index() + 1)
            .map_or(u64::MAX, |next| next.first_line.saturating_sub(1)),
        Some(c) => c.line.max(1),
        None => u64::MAX,
    };
    let out_end = tl.output.partition_point(|o| o.line <= upto);
    let note_end = tl.notes.partition_point(|n| n.line <= upto);
    let mut rows: Vec<(u64, Line)> = tl.output[..out_end]
        .iter()
        .rev()
        .take(room)
        .map(|o| (o.line, Line::from(format!("{:>6} {}", o.line, o.text))))
        .collect();
    rows.extend(tl.notes[..note_end].iter().rev().take(room).map(|n| {
        (
            n.line,
            Line::from(Span::styled(
                // A note's text often starts with its kind (`pacer: ...`): not twice.
                if n.text.starts_with(n.kind.name()) {
                    format!("{:>6} {}", n.line, n.text)
                } else {
                    format!("{:>6} {}: {}", n.line, n.kind.name(), n.text)
                },
                theme.fg(GOAL),
            )),
        )
    }));
    rows.sort_by_key(|r| r.0);
    let start = rows.len().saturating_sub(room);
    lines.extend(rows.into_iter().skip(start).map(|r| r.1));
    // Counts of the whole source; the lines shown are those up to the selected cycle.
    let title = format!(
        " log to the selected cycle{}; in all: output {}, notes {}, problems {} ",
        if at_last { " and after" } else { "" },
        tl.output_count(),
        tl.notes.len(),
        tl.problems.len()
    );
    let title = fit(&title, area.width.saturating_sub(2) as usize);
    f.render_widget(Paragraph::new(lines).block(block(title)), area);
}
