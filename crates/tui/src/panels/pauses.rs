//! The pauses panel: the run's pause percentiles, the outliers that must jump out, and the
//! distribution of pauses in power-of-4 buckets.

use super::{block, fit, ms};
use crate::app::{Pane, PAUSE_EDGES_US};
use crate::view::Theme;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use ratatui::Frame;

pub(crate) fn draw(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
    let w = area.width.saturating_sub(2) as usize;
    let room = area.height.saturating_sub(2) as usize;
    let mut lines = Vec::new();
    if let Some(s) = &p.summary {
        let q = &s.pause_ms;
        // The unit first: a narrow pane cuts the end of the line, never what the numbers are.
        lines.push(Line::from(fit(
            // As `summary` prints them (no p99 that is the max).
            &format!("ms: {}", gcscope_core::fmt::percentiles_text(q, s.cycles)),
            w,
        )));
        // A pause far above the typical one must jump out (a 40 ms stall among 50 µs pauses).
        let outliers = &p.cols.outliers;
        if !outliers.is_empty() {
            let head = format!(
                "over {} ms (10x p50, at least 1): ",
                ms(p.cols.outlier_limit)
            );
            lines.push(Line::from(Span::styled(
                outlier_list(&head, outliers, p.cols.outliers_total, w),
                theme.alert(),
            )));
        }
        let bar_w = w.saturating_sub(16);
        lines.extend(distribution(
            &p.cols.pause_hist,
            bar_w,
            room.saturating_sub(lines.len()),
        ));
    }
    let title = fit(" pauses (STW sweep + mark termination) ", w);
    f.render_widget(Paragraph::new(lines).block(block(title)), area);
}

/// `head`, then as many outliers (largest first) as fit in `w` columns, and how many are
/// left out.
fn outlier_list(head: &str, outliers: &[(u32, u64)], total: usize, w: usize) -> String {
    let mut out = head.to_string();
    let mut shown = 0;
    for (i, (num, pause)) in outliers.iter().enumerate() {
        let item = format!(
            "{}gc {num} {} ms",
            if i > 0 { ", " } else { "" },
            ms(*pause)
        );
        // Room for this item and, if any would be left out, for saying how many.
        let more = if i + 1 < total { " +99 more".len() } else { 0 };
        if i > 0 && out.chars().count() + item.chars().count() + more > w {
            break;
        }
        out.push_str(&item);
        shown += 1;
    }
    if total > shown {
        out.push_str(&format!(" +{} more", total - shown));
    }
    out
}

/// Pause counts in power-of-4 buckets from 10 µs, as bars: the buckets from the first to the
/// last that has a pause, and when fewer rows are free, the slowest ones (the tail is what
/// the pane is for; p50 says the rest).
fn distribution(counts: &[u64; 7], bar_w: usize, rows: usize) -> Vec<Line<'static>> {
    const EDGES_US: [u64; 6] = PAUSE_EDGES_US;
    let max = counts.iter().copied().max().unwrap_or(0).max(1);
    let label = |i: usize| match i {
        0 => "   <10µs".to_string(),
        6 => ">10.24ms".to_string(),
        _ => format!("<{:>5}µs", EDGES_US[i]),
    };
    let first = counts.iter().position(|&n| n > 0).unwrap_or(0);
    let last = counts.iter().rposition(|&n| n > 0).unwrap_or(6);
    let from = first.max((last + 1).saturating_sub(rows));
    (from..=last)
        .map(|i| {
            let n = (counts[i] as usize * bar_w).div_ceil(max as usize);
            Line::from(format!(
                "{} {:<bar_w$} {}",
                label(i),
                "█".repeat(n),
                counts[i]
            ))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: Vec<Line>) -> Vec<String> {
        lines.iter().map(Line::to_string).collect()
    }

    #[test]
    fn distribution_bars_are_shares_of_the_largest_bucket() {
        assert_eq!(
            text(distribution(&[1, 2, 4, 0, 0, 0, 8], 8, 7)),
            [
                "   <10µs █        1",
                "<   40µs ██       2",
                "<  160µs ████     4",
                "<  640µs          0",
                "< 2560µs          0",
                "<10240µs          0",
                ">10.24ms ████████ 8",
            ]
        );
    }

    /// Beside one huge bucket a single pause still gets a bar (rounded up), and a bar never
    /// outgrows its width.
    #[test]
    fn distribution_shows_a_single_pause_beside_a_huge_bucket() {
        assert_eq!(
            text(distribution(&[1, 0, 0, 0, 1_000_000, 0, 3], 10, 7)),
            [
                "   <10µs █          1",
                "<   40µs            0",
                "<  160µs            0",
                "<  640µs            0",
                "< 2560µs ██████████ 1000000",
                "<10240µs            0",
                ">10.24ms █          3",
            ]
        );
    }

    #[test]
    fn distribution_of_no_pauses_and_narrow_bars() {
        assert_eq!(
            text(distribution(&[0; 7], 3, 7)),
            [
                "   <10µs     0",
                "<   40µs     0",
                "<  160µs     0",
                "<  640µs     0",
                "< 2560µs     0",
                "<10240µs     0",
                ">10.24ms     0",
            ]
        );
        assert_eq!(
            text(distribution(&[5, 0, 0, 0, 0, 0, 1], 0, 7)),
            [
                "   <10µs  5",
                "<   40µs  0",
                "<  160µs  0",
                "<  640µs  0",
                "< 2560µs  0",
                "<10240µs  0",
                ">10.24ms  1",
            ]
        );
        // Only the buckets from the first pause to the last.
        assert_eq!(
            text(distribution(&[2, 1, 0, 0, 0, 0, 0], 1, 7)),
            ["   <10µs █ 2", "<   40µs █ 1"]
        );
    }

    /// With fewer rows than buckets the slowest stay: a 77 ms pause is never hidden below
    /// three rows of fast ones.
    #[test]
    fn distribution_keeps_the_tail_when_rows_are_few() {
        assert_eq!(
            text(distribution(&[9, 4, 0, 0, 0, 0, 1], 1, 3)),
            ["< 2560µs   0", "<10240µs   0", ">10.24ms █ 1"]
        );
    }

    #[test]
    fn outliers_say_how_many_are_left_out() {
        let o = [(7, 49_800_000), (13, 20_000_000), (21, 9_000_000)];
        assert_eq!(
            outlier_list("over 1.0 ms: ", &o, 20, 80),
            "over 1.0 ms: gc 7 49 ms, gc 13 20 ms, gc 21 9.0 ms +17 more"
        );
        assert_eq!(
            outlier_list("over 1.0 ms: ", &o, 3, 34),
            "over 1.0 ms: gc 7 49 ms +2 more"
        );
    }
}
