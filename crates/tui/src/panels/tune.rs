//! The tune view (`t`): what another GOGC would cost the focused run, or both sides' runs in
//! an A/B, by the model of `gcscope tune` (crates/core/src/stats/tune/): the trade-off curve
//! of peak heap against compulsory GC P time over GOGC, the run's own point marked, a limit's
//! goal ceiling where the pacer read one back, and the settings worth trying with their cost.
//! A model, and the title says so: `gcscope tune --verify` checks it by running the program.

use super::{block, fit, GOAL, MARK, PAUSE};
use crate::app::{App, Pane};
use crate::view::Theme;
use gcscope_core::stats::tune::{Prediction, Tune};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Clear, Dataset, GraphType, Paragraph};
use ratatui::Frame;

/// A side's letter, its curve and its own point, as (peak heap MiB, GC % of the Ps).
type Curve<'a> = (&'a str, Vec<(f64, f64)>, Option<(f64, f64)>);

/// A side's letter (none alone) and its answer.
fn sides(app: &App) -> Vec<(&'static str, &Pane)> {
    match app.panes.as_slice() {
        [one] => vec![("", one)],
        [a, b, ..] => vec![("A", a), ("B", b)],
        [] => Vec::new(),
    }
}

/// (peak heap MiB, GC P time share of the Ps %) of the predictions the model makes.
fn curve(t: &Tune) -> Vec<(f64, f64)> {
    t.predictions
        .iter()
        .filter(|p| p.refused.is_none())
        .map(|p| (p.peak_heap_mb, p.gc_share_of_ps * 100.0))
        .collect()
}

fn own(t: &Tune) -> Option<&Prediction> {
    t.predictions.iter().find(|p| p.own && p.refused.is_none())
}

/// The highest goal of a run whose goals a memory limit set (read back by the pacer model).
fn limit_ceiling(p: &Pane) -> Option<f64> {
    let pacer = p.summary.as_ref()?.pacer.as_ref()?;
    if pacer.limit_cycles == 0 {
        return None;
    }
    p.cycles()
        .iter()
        .filter_map(|c| c.goal)
        .max()
        .map(|g| g as f64 / 1_048_576.0)
}

/// The grid as three rows: GOGC, peak heap, GC share of the Ps; the trace's own marked `*`.
fn table(letter: &str, t: &Tune, width: usize) -> Vec<Line<'static>> {
    let ok: Vec<&Prediction> = t
        .predictions
        .iter()
        .filter(|p| p.refused.is_none() && p.limit_mib.is_none())
        .collect();
    let cell = |s: String| format!("{s:>6}");
    let mut gogc = format!("{letter:<2}GOGC     ");
    let mut heap = "  peak MiB ".to_string();
    let mut cpu = "  GC % Ps  ".to_string();
    for p in ok {
        let g = p.gogc.map_or("off".into(), |g| g.to_string());
        gogc += &cell(format!("{g}{}", if p.own { "*" } else { "" }));
        heap += &cell(format!("{:.0}", p.peak_heap_mb));
        cpu += &cell(format!("{:.1}", p.gc_share_of_ps * 100.0));
    }
    [gogc, heap, cpu]
        .into_iter()
        .map(|s| Line::from(fit(&s, width)))
        .collect()
}

pub(crate) fn draw(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    let r = Rect {
        x: area.x,
        y: area.y,
        width: area.width,
        height: area.height.saturating_sub(1),
    };
    f.render_widget(Clear, r);
    let outer = block(fit(
        " tune: a model, not measured (gcscope tune --verify runs it); any key closes ",
        r.width.saturating_sub(2) as usize,
    ));
    let inner = outer.inner(r);
    f.render_widget(outer, r);
    let sides = sides(app);
    let width = inner.width as usize;
    // Text under the chart: per side, the grid (3 rows) and the settings worth trying (or why
    // there is no model).
    let mut text: Vec<Line> = Vec::new();
    for (letter, p) in &sides {
        match &p.tune {
            Some(Ok(t)) => {
                text.extend(table(letter, t, width));
                let tries = gcscope_core::report::worth_trying(t);
                let head = if letter.is_empty() {
                    "try: ".to_string()
                } else {
                    format!("{letter} try: ")
                };
                if !tries.is_empty() {
                    text.push(Line::from(vec![
                        Span::styled(head, theme.bold()),
                        Span::raw(fit(&tries.join("; "), width.saturating_sub(8))),
                    ]));
                }
            }
            Some(Err(why)) => {
                text.push(Line::from(fit(&format!("{letter} no model: {why}"), width)))
            }
            None => text.push(Line::from(format!("{letter} no run selected"))),
        }
    }
    // The markers say which curve is whose, with or without colour (the chart's own legend
    // gives way first on a small terminal).
    if sides.len() == 2 {
        text.insert(
            0,
            Line::from(fit(
                "curves: A ⠤⠤ braille, B • dots, █ each side's own setting",
                width,
            )),
        );
    }
    let text_h = (text.len() as u16).min(inner.height.saturating_sub(6));
    let [chart_area, text_area] =
        Layout::vertical([Constraint::Min(6), Constraint::Length(text_h)]).areas(inner);
    f.render_widget(Paragraph::new(text), text_area);

    let curves: Vec<Curve> = sides
        .iter()
        .filter_map(|(l, p)| match &p.tune {
            Some(Ok(t)) => Some((
                *l,
                curve(t),
                own(t).map(|o| (o.peak_heap_mb, o.gc_share_of_ps * 100.0)),
            )),
            _ => None,
        })
        .collect();
    if curves.is_empty() {
        return;
    }
    let limits: Vec<f64> = sides.iter().filter_map(|(_, p)| limit_ceiling(p)).collect();
    let all = curves.iter().flat_map(|c| c.1.iter().copied());
    let (xmax, ymax) = all.fold((1.0f64, 1.0f64), |(x, y), (a, b)| (x.max(a), y.max(b)));
    let xmax = limits.iter().copied().fold(xmax, f64::max) * 1.05;
    let ymax = ymax * 1.1;
    // Owned point lists: the datasets borrow them.
    let owns: Vec<Vec<(f64, f64)>> = curves.iter().map(|c| c.2.into_iter().collect()).collect();
    let limit_lines: Vec<Vec<(f64, f64)>> =
        limits.iter().map(|&x| vec![(x, 0.0), (x, ymax)]).collect();
    let colours = [MARK, GOAL];
    let mut datasets = Vec::new();
    for (i, (letter, points, _)) in curves.iter().enumerate() {
        let name = if letter.is_empty() {
            "GOGC 25-400".to_string()
        } else {
            format!("{letter}: GOGC 25-400")
        };
        datasets.push(
            Dataset::default()
                .name(name)
                .marker(if i == 0 { Marker::Braille } else { Marker::Dot })
                .graph_type(GraphType::Line)
                .style(theme.fg(colours[i % 2]))
                .data(points),
        );
    }
    for (i, pts) in owns.iter().enumerate() {
        datasets.push(
            Dataset::default()
                .name(
                    format!("{} the trace's own", curves[i].0)
                        .trim_start()
                        .to_string(),
                )
                .marker(Marker::Block)
                .graph_type(GraphType::Scatter)
                .style(theme.fg(colours[i % 2]))
                .data(pts),
        );
    }
    for pts in &limit_lines {
        datasets.push(
            Dataset::default()
                .name("limit's goal (read back)")
                .marker(Marker::Dot)
                .graph_type(GraphType::Line)
                .style(theme.fg(PAUSE))
                .data(pts),
        );
    }
    let chart = Chart::new(datasets)
        .x_axis(
            Axis::default()
                .title("peak heap MiB")
                .bounds([0.0, xmax])
                .labels(vec![Line::from("0"), Line::from(format!("{xmax:.0}"))]),
        )
        .y_axis(
            Axis::default()
                .title("GC % of Ps")
                .bounds([0.0, ymax])
                .labels(vec![Line::from("0"), Line::from(format!("{ymax:.0}"))]),
        );
    f.render_widget(chart, chart_area);
}
