//! The CPU panel: each cycle's mark CPU by kind of worker (assists, background, idle).

use super::{block, columns, fit, label_row, ms, spark, ASSIST, BACKGROUND, IDLE};
use crate::app::Pane;
use crate::view::Theme;
use gcscope_core::fmt::go_ms;
use gcscope_core::stats::compare::Metric;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::Frame;

pub(crate) fn draw(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
    let s = p.summary.as_ref();
    let title = format!(
        " GC P time per cycle: compulsory {} ms mean, idle share {} ",
        // The strip's and `compare`'s figure, by the same code: the run's mean per cycle.
        s.and_then(|s| Metric::CompulsoryMsPerCycle.of(s))
            .map_or("-".into(), go_ms),
        gcscope_core::fmt::pct(s.and_then(|s| s.idle_share)),
    );
    let outer = block(fit(&title, area.width.saturating_sub(2) as usize));
    let inner = outer.inner(area);
    f.render_widget(outer, area);
    let w = inner.width as usize;
    let sel = p.selected();
    let cols = &p.cols.cpu;
    // (name, colour, series, the selected cycle's ns, the run's sum in ms)
    let kinds = [
        (
            "assist",
            ASSIST,
            &cols.assist,
            sel.as_ref().map(|c| c.cpu.assist),
            s.map(|s| s.cpu_ms.assist),
        ),
        (
            "background",
            BACKGROUND,
            &cols.background,
            sel.as_ref().map(|c| c.cpu.background),
            s.map(|s| s.cpu_ms.background),
        ),
        (
            "idle",
            IDLE,
            &cols.idle,
            sel.as_ref().map(|c| c.cpu.idle),
            s.map(|s| s.cpu_ms.idle),
        ),
    ];
    if inner.height < 6 {
        // One row a class: its label, the selected cycle's ms, the series.
        let rows = Layout::vertical([Constraint::Length(1); 3]).split(inner);
        for (&row, (name, color, series, at_sel, _)) in rows.iter().zip(kinds) {
            let short = if name == "background" { "bg" } else { name };
            let label = format!("{short} {}ms", at_sel.map_or("-".into(), ms));
            label_row(f, label, series, color, theme, row);
        }
        return;
    }
    let rows = Layout::vertical([Constraint::Ratio(1, 3); 3]).split(inner);
    for (&row, (name, color, series, at_sel, sum)) in rows.iter().zip(kinds) {
        let data = columns(series, w);
        let title = format!(
            "{name} ms  sel {}  run sum {}",
            at_sel.map_or("-".into(), ms),
            sum.map_or("-".into(), go_ms)
        );
        f.render_widget(spark(&data, fit(&title, w), color, theme), row);
    }
}
