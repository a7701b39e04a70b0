//! The heap panel: each cycle's goal, heap at the end and heap marked live, in MB, and under
//! it what set the goals: the pacer read back from the run (GOGC, the floor, a limit).

use super::{block, columns, fit, GOAL, MARK, PAUSE};
use crate::app::Pane;
use crate::view::Theme;
use ratatui::layout::Rect;
use ratatui::symbols::Marker;
use ratatui::text::Line;
use ratatui::widgets::{Axis, Chart, Dataset, GraphType};
use ratatui::Frame;

pub(crate) fn draw(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
    let sel = p.selected();
    // The legend is the title: each line has its own marker, so it reads without colour.
    let title = match sel {
        Some(c) => format!(
            " heap MB: • goal {}  ▀ end {}  ⠒ live {} ",
            c.goal.map_or("-".into(), |g| (g >> 20).to_string()),
            c.heap_end >> 20,
            c.heap_live >> 20,
        ),
        None => " heap MB: • goal  ▀ end  ⠒ live ".into(),
    };
    let title = fit(&title, area.width.saturating_sub(2) as usize);
    let w = area.width.saturating_sub(2).max(1) as usize * 2;
    let mb = |series: &[u64]| -> Vec<(f64, f64)> {
        columns(series, w)
            .into_iter()
            .enumerate()
            .map(|(i, y)| (i as f64, (y >> 20) as f64))
            .collect()
    };
    let (live, end, goal) = (
        mb(&p.cols.heap_live),
        mb(&p.cols.heap_end),
        mb(&p.cols.heap_goal),
    );
    let ymax = end.iter().chain(&goal).map(|p| p.1).fold(1.0, f64::max);
    let xmax = live.len().max(1) as f64;
    let line = |name, marker, color, data| {
        Dataset::default()
            .name(name)
            .marker(marker)
            .graph_type(GraphType::Line)
            .style(theme.fg(color))
            .data(data)
    };
    let chart = Chart::new(vec![
        line("goal", Marker::Dot, GOAL, &goal),
        line("end", Marker::HalfBlock, PAUSE, &end),
        line("live", Marker::Braille, MARK, &live),
    ])
    .block(match pacer_line(p, area) {
        Some(pacer) => block(title).title_bottom(pacer),
        None => block(title),
    })
    .x_axis(Axis::default().bounds([0.0, xmax]))
    .y_axis(
        Axis::default()
            .bounds([0.0, ymax * 1.05])
            .labels(vec![Line::from("0"), Line::from(format!("{ymax:.0}"))]),
    );
    f.render_widget(chart, area);
}

/// The pacer in a line on the panel's bottom border, from the run's summary (refreshed off
/// the render path), cut to the width.
fn pacer_line(p: &Pane, area: Rect) -> Option<String> {
    let pacer = p.summary.as_ref()?.pacer.as_ref()?;
    let text = format!(" {} ", gcscope_core::fmt::pacer_text(pacer));
    Some(fit(&text, area.width.saturating_sub(2) as usize))
}
