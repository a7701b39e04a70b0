//! The phases panel: each cycle's stop-the-world pause and concurrent mark, over a time
//! axis that marks the selected cycle.

use super::{block, columns, cursor_col, fit, label_row, ms, spark, MARK, PAUSE};
use crate::app::Pane;
use crate::view::Theme;
use gcscope_model::CycleSlice;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Color;
use ratatui::widgets::Paragraph;
use ratatui::Frame;

pub(crate) fn draw(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
    let outer = block(fit(
        " phases per cycle: STW pause, concurrent mark ",
        area.width.saturating_sub(2) as usize,
    ));
    let inner = outer.inner(area);
    f.render_widget(outer, area);
    let cycles = p.cycles().slice(p.cols.window.clone());
    let w = inner.width as usize;
    let sel = p.selected();
    let pause_max = ms(p.cols.pause.iter().copied().max().unwrap_or(0));
    let mark_max = ms(p.cols.mark.iter().copied().max().unwrap_or(0));
    if inner.height < 5 {
        let [a, b, axis] = Layout::vertical([Constraint::Length(1); 3]).areas(inner);
        let sel_pause = sel
            .as_ref()
            .map_or(String::new(), |c| format!(" {}", ms(c.pause())));
        let sel_mark = sel
            .as_ref()
            .map_or(String::new(), |c| format!(" {}", ms(c.mark_wall())));
        label_row(
            f,
            format!("STW{sel_pause}ms"),
            &p.cols.pause,
            PAUSE,
            theme,
            a,
        );
        label_row(f, format!("mark{sel_mark}ms"), &p.cols.mark, MARK, theme, b);
        time_axis(f, p, &cycles, axis, theme);
        return;
    }
    let [a, b, axis] = Layout::vertical([
        Constraint::Percentage(50),
        Constraint::Percentage(50),
        Constraint::Length(1),
    ])
    .areas(inner);
    let pause = columns(&p.cols.pause, w);
    let mark = columns(&p.cols.mark, w);
    let t_pause = format!(
        "STW pause ms (max {pause_max}){}",
        sel.as_ref().map_or(String::new(), |c| format!(
            "  sel {}+{}",
            ms(c.clock.sweep_term),
            ms(c.clock.mark_term)
        ))
    );
    let t_mark = format!(
        "mark ms (max {mark_max}){}",
        sel.as_ref()
            .map_or(String::new(), |c| format!("  sel {}", ms(c.mark_wall())))
    );
    f.render_widget(spark(&pause, fit(&t_pause, w), PAUSE, theme), a);
    f.render_widget(spark(&mark, fit(&t_mark, w), MARK, theme), b);
    time_axis(f, p, &cycles, axis, theme);
}

/// The window's first and last start times, and a `^` under the selected cycle with its
/// number beside it, on the side with more room (`^gc 5`, `gc 5^`): an A/B side's header
/// has no room for the selected cycle below 200 columns; the axis always has.
fn time_axis(f: &mut Frame, p: &Pane, cycles: &CycleSlice<'_>, area: Rect, theme: Theme) {
    let (Some(first), Some(last)) = (cycles.first(), cycles.last()) else {
        return;
    };
    let w = area.width as usize;
    let mut row = vec![' '; w];
    let put = |row: &mut Vec<char>, from: usize, text: &str| {
        for (i, ch) in text.chars().enumerate() {
            row[from + i] = ch;
        }
    };
    // The columns a time label may not take: the mark's, and one more beside its number.
    let mut taken: Option<std::ops::Range<usize>> = None;
    if let Some(col) = cursor_col(p, w).filter(|&c| c < w) {
        let num = p
            .selected()
            .map_or(String::new(), |c| format!("gc {}", c.num));
        let n = num.len();
        let after = col + 1 + n <= w;
        let before = col >= n;
        if after && (!before || w - col > col) {
            put(&mut row, col, &format!("^{num}"));
            taken = Some(col..col + n + 2);
        } else if before {
            put(&mut row, col - n, &format!("{num}^"));
            taken = Some((col - n).saturating_sub(1)..col + 1);
        } else {
            row[col] = '^';
            taken = Some(col..col + 1);
        }
    }
    let left = format!("@{:.3}s", first.at as f64 / 1e9);
    let right = format!("@{:.3}s", last.at as f64 / 1e9);
    // A label the mark would break is left out: `@11.^76s` reads as neither.
    let clear = |from: usize, len: usize| {
        taken
            .as_ref()
            .is_none_or(|t| from + len <= t.start || from >= t.end)
    };
    if clear(0, left.len()) && left.len() < w {
        put(&mut row, 0, &left);
    }
    let start = w.saturating_sub(right.len());
    if clear(start, right.len()) && start > left.len() {
        put(&mut row, start, &right);
    }
    f.render_widget(
        Paragraph::new(row.into_iter().collect::<String>()).style(theme.fg(Color::Reset)),
        area,
    );
}
