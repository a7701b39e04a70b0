//! The page scan density panel: objects per span visit, per cycle, by size class or (the
//! lab) as a histogram of visits; or why the trace has none.

use super::{block, columns, spark, MARK};
use crate::app::Pane;
use crate::view::Theme;
use gcscope_core::fmt::fmt_num;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

pub(crate) fn draw(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
    if !p.cols.has_density {
        let text = if p.cols.has_scan {
            "This run's scan: lines come from the legacy collector, which counts objects but no span (page) visits. Record a Green Tea build (Go 1.26+, or 1.25 with GOEXPERIMENT=greenteagc) to compare."
        } else {
            "gctrace=1 does not carry page scan density. Record with GODEBUG=gctrace=2 on Go 1.25+ (Green Tea: 1.26+ default, 1.25 with GOEXPERIMENT=greenteagc) to get objects per span visit here."
        };
        f.render_widget(
            Paragraph::new(text)
                .wrap(Wrap { trim: true })
                .block(block(" page scan density ")),
            area,
        );
        return;
    }
    let outer = block(format!(
        // One name for the figure: Go's span visits and the lab's page visits are both a
        // visit to one page's objects (a small-object span is a page).
        " page scan density (objects per visit), whole run {} ",
        p.summary
            .as_ref()
            .and_then(|s| {
                // The lab's own density first (it also prints Go-style scan: counters).
                s.lab
                    .as_ref()
                    .and_then(|l| l.objects_per_page_visit)
                    .or_else(|| s.scan.as_ref()?.objects_per_span_visit)
            })
            .map_or("-".into(), fmt_num)
    ));
    let inner = outer.inner(area);
    f.render_widget(outer, area);
    let data = columns(&p.cols.density_x10, inner.width as usize);
    let sel = p
        .selected()
        .and_then(|c| c.page_density())
        .map_or("-".into(), fmt_num);
    // The lab's run-length histogram: how many page visits scanned 1, 2-3, 4-7... objects.
    let hist = p
        .summary
        .as_ref()
        .and_then(|s| s.lab.as_ref())
        .map(|l| &l.density_hist)
        .filter(|h| h.iter().any(|&v| v > 0));
    let [a, b] = match hist {
        // The histogram needs its three lines whole; the trend takes what is left.
        Some(_) => Layout::vertical([Constraint::Min(0), Constraint::Length(3)]).areas(inner),
        None => Layout::vertical([Constraint::Percentage(50); 2]).areas(inner),
    };
    f.render_widget(
        spark(&data, format!("per cycle (sel {sel})"), MARK, theme),
        a,
    );
    if let Some(hist) = hist {
        f.render_widget(Paragraph::new(visit_histogram(hist, b.width as usize)), b);
        return;
    }
    let classes: Vec<String> = p
        .summary
        .as_ref()
        .and_then(|s| s.scan.as_ref())
        .map(|s| {
            let mut v: Vec<_> = s.classes.iter().filter(|c| c.objects > 0).collect();
            // The six classes with the most objects, then shown by size (large last), so the
            // line reads like the runtime's size class table.
            v.sort_by_key(|c| std::cmp::Reverse(c.objects));
            v.truncate(6);
            v.sort_by_key(|c| {
                if c.class == 0 {
                    u64::MAX
                } else {
                    u64::from(c.class)
                }
            });
            v.iter()
                .map(|c| {
                    let name = if c.class == 0 {
                        "large".to_string()
                    } else {
                        format!("{}B", c.class)
                    };
                    format!(
                        "{name}: {}",
                        c.objects_per_span_visit.map_or("-".into(), fmt_num)
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    f.render_widget(
        Paragraph::new(format!(
            "by size class (most objects, by size): {}",
            classes.join("  ")
        ))
        .wrap(Wrap { trim: true }),
        b,
    );
}

/// One text line per bucket would not fit; one bar of eighths per bucket does. Labels are
/// the bucket's lowest count; bars are shares of all page visits.
fn visit_histogram(hist: &[u64], width: usize) -> Vec<Line<'static>> {
    const BARS: [char; 9] = [' ', '▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let total: u64 = hist.iter().sum::<u64>().max(1);
    let max = hist.iter().copied().max().unwrap_or(1).max(1);
    let cell = (width / hist.len().max(1)).clamp(2, 6);
    let mut bars = String::new();
    let mut labels = String::new();
    for (i, &v) in hist.iter().enumerate() {
        let level = (v * 8).div_ceil(max) as usize;
        bars.push_str(&format!(
            "{:<cell$}",
            BARS[level.min(8)].to_string().repeat(cell - 1)
        ));
        let label = if i + 1 == hist.len() {
            format!("{}+", 1u64 << i)
        } else {
            (1u64 << i).to_string()
        };
        labels.push_str(&format!("{label:<cell$}"));
    }
    let single = hist.first().copied().unwrap_or(0) as f64 / total as f64;
    // The bars with their bucket labels first: a two-row panel (100x30) keeps both.
    vec![
        Line::from(bars),
        Line::from(labels),
        Line::from(format!(
            "objects per visit ({:.0}% of visits scan one object)",
            single * 100.0
        )),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: Vec<Line>) -> Vec<String> {
        lines.iter().map(Line::to_string).collect()
    }

    #[test]
    fn visit_histogram_bars_in_eighths_of_the_largest_bucket() {
        // 12 columns for 4 buckets: cells of 3, bars of 2.
        assert_eq!(
            text(visit_histogram(&[6, 3, 0, 1], 12)),
            [
                "██ ▄▄    ▂▂ ",
                "1  2  4  8+ ",
                "objects per visit (60% of visits scan one object)",
            ]
        );
        // Shares round to the nearest percent: 2 of 3 is 67%.
        assert_eq!(
            text(visit_histogram(&[2, 1], 4))[2],
            "objects per visit (67% of visits scan one object)"
        );
    }

    /// Beside one huge bucket a small one still shows (rounded up to an eighth); cells stop
    /// growing at 6 columns.
    #[test]
    fn visit_histogram_shows_a_small_bucket_beside_a_huge_one() {
        assert_eq!(
            text(visit_histogram(&[1, 1_000_000, 1], 60)),
            [
                "▁▁▁▁▁ █████ ▁▁▁▁▁ ",
                "1     2     4+    ",
                "objects per visit (0% of visits scan one object)",
            ]
        );
    }

    #[test]
    fn visit_histogram_of_zero_counts_and_no_width() {
        assert_eq!(
            text(visit_histogram(&[0, 0], 10)),
            [
                "          ",
                "1    2+   ",
                "objects per visit (0% of visits scan one object)",
            ]
        );
        // Width 0 or 1 still gives each bucket a cell of 2: a bar and a gap.
        for width in [0, 1] {
            assert_eq!(
                text(visit_histogram(&[1], width)),
                [
                    "█ ",
                    "1+",
                    "objects per visit (100% of visits scan one object)",
                ]
            );
        }
    }
}
