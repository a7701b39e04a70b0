//! The dashboard's panels, one file each, each drawn into the area the layout (`view`)
//! gives it: a side's header, its charts (phases, CPU, heap, pauses, page scan density), the
//! selected cycle decoded, the log, the guide of a source with no cycles, the A/B strip, and
//! the overlays and hint bar over them. Here: what they share.

pub(crate) mod cpu;
pub(crate) mod density;
pub(crate) mod detail;
pub(crate) mod findings;
pub(crate) mod guide;
pub(crate) mod header;
pub(crate) mod heap;
pub(crate) mod help;
pub(crate) mod hints;
pub(crate) mod log;
pub(crate) mod pauses;
pub(crate) mod phases;
pub(crate) mod strip;
pub(crate) mod tune;

use crate::app::Pane;
use crate::view::Theme;
use gcscope_core::trace::format;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Color;
use ratatui::text::Line;
use ratatui::widgets::{Block, Paragraph, Sparkline};
use ratatui::Frame;

/// The series' colours, each its own line or bar (`Theme::fg` drops them under `NO_COLOR`).
pub(crate) const ASSIST: Color = Color::Magenta;
pub(crate) const BACKGROUND: Color = Color::Blue;
pub(crate) const IDLE: Color = Color::Green;
pub(crate) const PAUSE: Color = Color::Red;
pub(crate) const MARK: Color = Color::Cyan;
pub(crate) const GOAL: Color = Color::Yellow;

/// `s` cut to `w` columns, with an ellipsis where it was cut.
pub(crate) fn fit(s: &str, w: usize) -> String {
    if s.chars().count() <= w {
        return s.to_string();
    }
    let mut out: String = s.chars().take(w.saturating_sub(1)).collect();
    out.push('…');
    out
}

pub(crate) fn block<'a>(title: impl Into<Line<'a>>) -> Block<'a> {
    Block::bordered().title(title)
}

/// Cycles `[lo, hi)` behind column `j` of `w` columns over `n` cycles: a run of cycles when
/// there are more cycles than columns, a stretched single cycle when fewer.
pub(crate) fn bucket(j: usize, w: usize, n: usize) -> (usize, usize) {
    let lo = j * n / w;
    (lo, ((j + 1) * n / w).max(lo + 1).min(n))
}

/// Fit a precomputed series (see `app::Cols`) to `width` columns: the largest value of each
/// column's share, or a value stretched over several columns.
pub(crate) fn columns(series: &[u64], width: usize) -> Vec<u64> {
    let n = series.len();
    if n == 0 || width == 0 {
        return Vec::new();
    }
    (0..width)
        .map(|j| {
            let (lo, hi) = bucket(j, width, n);
            series[lo..hi].iter().copied().max().unwrap_or(0)
        })
        .collect()
}

/// Cursor position as a column of a chart `width` wide over the window.
pub(crate) fn cursor_col(p: &Pane, width: usize) -> Option<usize> {
    let w = p.cols.window.clone();
    let cursor = p.cursor.index();
    if !w.contains(&cursor) || width == 0 {
        return None;
    }
    let i = cursor - w.start;
    (0..width).find(|&j| {
        let (lo, hi) = bucket(j, width, w.len());
        (lo..hi).contains(&i)
    })
}

pub(crate) fn spark<'a>(
    data: &'a [u64],
    title: String,
    color: Color,
    theme: Theme,
) -> Sparkline<'a> {
    Sparkline::default()
        .block(Block::default().title(title))
        .data(data)
        .style(theme.fg(color))
}

/// A cycle's time as its gc line prints it (Go's digits, truncated as Go does), so the
/// decoded text never says 328 where the line says 327.
pub(crate) fn ms(ns: u64) -> String {
    format::ms(ns)
}

/// A series on one row, its label on the left: the compact form of a sparkline, for a
/// panel with no room for a title row per series.
pub(crate) fn label_row(
    f: &mut Frame,
    label: String,
    data: &[u64],
    color: Color,
    theme: Theme,
    r: Rect,
) {
    let lw = (label.chars().count() as u16 + 1).min(r.width / 2);
    let [l, d] = Layout::horizontal([Constraint::Length(lw), Constraint::Min(0)]).areas(r);
    f.render_widget(Paragraph::new(fit(&label, lw as usize)), l);
    let cols = columns(data, d.width as usize);
    f.render_widget(Sparkline::default().data(&cols).style(theme.fg(color)), d);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_splits_cycles_into_columns() {
        // More cycles than columns: runs of cycles, the longer ones last.
        let b = |w, n| (0..w).map(|j| bucket(j, w, n)).collect::<Vec<_>>();
        assert_eq!(b(3, 7), [(0, 2), (2, 4), (4, 7)]);
        assert_eq!(b(2, 4), [(0, 2), (2, 4)]);
        assert_eq!(b(1, 5), [(0, 5)]);
        // Fewer cycles than columns: each column shows one cycle, stretched.
        assert_eq!(b(5, 2), [(0, 1), (0, 1), (0, 1), (1, 2), (1, 2)]);
        assert_eq!(b(3, 1), [(0, 1), (0, 1), (0, 1)]);
        // No cycles: empty ranges, never past the end.
        assert_eq!(b(2, 0), [(0, 0), (0, 0)]);
    }

    /// For every small width and length: columns cover the cycles in order, each column
    /// non-empty; with at least as many cycles as columns, each cycle in exactly one column.
    #[test]
    fn buckets_cover_every_cycle_in_order() {
        for n in 1..=40 {
            for w in 1..=40 {
                let cols: Vec<_> = (0..w).map(|j| bucket(j, w, n)).collect();
                assert_eq!(cols[0].0, 0, "w {w} n {n}");
                assert_eq!(cols[w - 1].1, n, "w {w} n {n}");
                for (j, &(lo, hi)) in cols.iter().enumerate() {
                    assert!(lo < hi && hi <= n, "w {w} n {n} column {j}: {lo}..{hi}");
                    if n < w {
                        assert_eq!(hi, lo + 1, "w {w} n {n}: one cycle a column");
                    }
                }
                for pair in cols.windows(2) {
                    let ((lo0, hi0), (lo1, hi1)) = (pair[0], pair[1]);
                    if n >= w {
                        assert_eq!(hi0, lo1, "w {w} n {n}: columns tile the cycles");
                    } else {
                        assert!(lo0 <= lo1 && hi0 <= hi1 && lo1 <= hi0, "w {w} n {n}");
                    }
                }
            }
        }
    }

    #[test]
    fn columns_keep_the_largest_value_of_each_bucket() {
        assert_eq!(columns(&[1, 5, 2, 7, 3, 0], 3), [5, 7, 3]);
        // 7 values in 3 columns: 2, 2 and 3 values.
        assert_eq!(columns(&[4, 1, 9, 2, 8, 3, 7], 3), [4, 9, 8]);
        // Exact edges: the value at index 2 belongs to the second column, not the first.
        assert_eq!(columns(&[1, 2, 9, 3], 2), [2, 9]);
        assert_eq!(columns(&[9, 1, 2, 3], 2), [9, 3]);
        // One spike among zeros survives.
        assert_eq!(columns(&[0, 0, 0, 0, 0, 6, 0, 0, 0], 3), [0, 6, 0]);
        assert_eq!(columns(&[2, 9, 4], 1), [9]);
        assert_eq!(columns(&[5, 0, 7], 3), [5, 0, 7]);
    }

    #[test]
    fn columns_stretch_a_short_series() {
        assert_eq!(columns(&[3, 8], 5), [3, 3, 3, 8, 8]);
        assert_eq!(columns(&[6], 3), [6, 6, 6]);
    }

    #[test]
    fn columns_of_nothing_or_no_width_are_empty() {
        assert_eq!(columns(&[], 4), Vec::<u64>::new());
        assert_eq!(columns(&[1, 2], 0), Vec::<u64>::new());
        assert_eq!(columns(&[], 0), Vec::<u64>::new());
    }
}
