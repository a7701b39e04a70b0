//! The A/B comparison strip: the two sides' samples (runs, or a live lab A/B's turns) by
//! `compare`'s rule, or why nothing is compared.

use super::app::{App, Samples};
use super::view::{block, Theme};
use crate::stats::summary::LOADED_SHARE;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

pub(super) fn draw(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
    if !app.mismatch.is_empty() {
        // Two runs of different experiments: any delta would mix the marker with the rest.
        let text = format!(
            "not compared: the selected runs differ in more than the marker ({}). \
             Select runs of one experiment ([ ] moves both sides of a lab A/B).",
            app.mismatch.join(", ")
        );
        f.render_widget(
            Paragraph::new(text)
                .wrap(Wrap { trim: true })
                .block(block(" A/B ")),
            area,
        );
        return;
    }
    let mut lines = vec![Line::from(Span::styled(
        format!(
            "{:<26}{:>22}{:>22}{:>10}",
            "metric", "A median [min-max]", "B median [min-max]", "B vs A"
        ),
        theme.bold(),
    ))];
    let single = app.comparison.iter().all(|r| r.a.is_none_or(|s| s.n < 2));
    for r in &app.comparison {
        // No verdict: why, as `compare` says it (the title says it once for one run a side).
        let why = match &r.why {
            Some(why) if !single && r.a.is_some() && r.b.is_some() => format!("  {why}"),
            _ => String::new(),
        };
        lines.push(Line::from(format!(
            "{:<26}{:>22}{:>22}{:>10}{why}",
            r.label,
            crate::fmt::row_spread(r, &r.a),
            crate::fmt::row_spread(r, &r.b),
            crate::fmt::verdict_text(r)
        )));
    }
    // The strip is at most a third of the screen: rows below its edge are cut, and the title
    // says so first (a narrow terminal cuts the title's end).
    let fit = usize::from(area.height.saturating_sub(3));
    let total = app.comparison.len();
    let cut = if fit < total {
        format!(" ({fit} of {total} rows shown, all in `gcscope compare`)")
    } else {
        String::new()
    };
    let what = match app.samples {
        Samples::Turns(k) => format!(
            "samples: each side's latest {k} completed turns; ~ = no verdict: a direction \
             needs 3 a side whose ranges do not overlap"
        ),
        Samples::Runs if app.lab.is_some() => {
            "each completed turn of a side will be a sample: waiting for both sides' first"
                .to_string()
        }
        Samples::Runs if single => {
            "one run a side, so no ranges: repeat runs and use `gcscope compare` for a verdict"
                .to_string()
        }
        Samples::Runs => {
            "~ = no verdict: a direction needs 3 runs a side whose ranges do not overlap"
                .to_string()
        }
    };
    // As `compare` says it: the load moved the wall-clock rows (docs/SUMMARY.md).
    let loaded = app
        .panes
        .iter()
        .filter_map(|p| p.summary.as_ref()?.lab.as_ref()?.offcpu_share)
        .any(|share| share > LOADED_SHARE);
    let loaded = if loaded {
        " machine loaded: wall-clock rows moved with it;"
    } else {
        ""
    };
    let title = format!(" A/B{cut}:{loaded} {what} ");
    f.render_widget(Paragraph::new(lines).block(block(title)), area);
}
