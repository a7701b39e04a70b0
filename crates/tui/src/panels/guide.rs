//! The guide of a source with no cycle: what it has instead and how to get gc lines.

use super::block;
use crate::app::Pane;
use crate::view::Theme;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

/// A source with no cycle to show: what it has instead (output, problems) and how to get
/// gctrace out of a program, rather than empty charts that read like data.
pub(crate) fn draw(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
    let tl = &p.timeline;
    let output = tl.output.len() + tl.dropped_output;
    let waiting = !tl.source.ended();
    let mut lines = vec![Line::from(Span::styled(
        if waiting {
            format!("No gc lines yet ({output} other {} so far).", lines(output))
        } else {
            format!(
                "No gc lines gcscope reads in this source ({output} other {}).",
                lines(output)
            )
        },
        theme.bold(),
    ))];
    if !tl.problems.is_empty() {
        lines.push(Line::from(Span::styled(
            format!("{} problems; the first:", tl.problems.len()),
            theme.alert(),
        )));
        for pr in tl.problems.iter().take(3) {
            lines.push(Line::from(format!("  line {}: {}", pr.line, pr.reason)));
        }
    }
    if let Some(g) = tl.programs.last() {
        // A program gcscope started: GODEBUG is set; why there may be no lines yet.
        for text in [
            String::new(),
            format!("gcscope started it with GODEBUG={}.", g.start.godebug),
            "A Go program prints a gc line at each collection; none yet can mean:".into(),
            "  it has not collected yet (a small or idle heap), or it is not a Go program,".into(),
            "  or its command sets GODEBUG itself without gctrace (`GODEBUG=x=1 ./prog`),".into(),
            "  or it sends its stderr elsewhere.".into(),
        ] {
            lines.push(Line::from(text));
        }
        if let Some(last) = tl.output.last() {
            lines.push(Line::from(""));
            lines.push(Line::from(format!("last output: {}", last.text)));
        }
        f.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: false })
                .block(block(" no cycles ")),
            area,
        );
        return;
    }
    lines.push(Line::from(""));
    for text in gcscope_core::fmt::NO_GC_LINES_HINT {
        lines.push(Line::from(text));
    }
    if let Some(last) = tl.output.last() {
        lines.push(Line::from(""));
        lines.push(Line::from(format!(
            "last output, line {}: {}",
            last.line, last.text
        )));
    }
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(block(" no cycles ")),
        area,
    );
}

fn lines(n: usize) -> &'static str {
    if n == 1 {
        "line"
    } else {
        "lines"
    }
}
