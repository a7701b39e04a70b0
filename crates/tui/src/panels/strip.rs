//! The A/B comparison strip: the two sides' samples (runs, or a live lab A/B's turns) by
//! `compare`'s rule, or why nothing is compared.

use super::{block, fit};
use crate::app::{App, Samples};
use crate::view::Theme;
use gcscope_core::stats::summary::{LOADED_CPUS, LOADED_SHARE};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

pub(crate) fn draw(f: &mut Frame, app: &App, area: Rect, theme: Theme) {
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
    let single = one_run_a_side(app);
    let cells = cells(app, single);
    let mut lines = table(&cells, area.width.saturating_sub(2) as usize, theme);
    // Findings one side's run has and the other's not, below the rows when there is room.
    // The strip is at most a third of the screen: rows below its edge are cut, and the title
    // says so first (a narrow terminal cuts the title's end). The findings line takes the
    // last row from the table when the two do not fit (the header row and four rows stay).
    let diff = &app.finding_diff;
    let mut room = usize::from(area.height.saturating_sub(3));
    if !diff.is_empty() && room >= 5 {
        room = room.min(lines.len().saturating_sub(1)).min(room - 1);
        lines.truncate(room + 1);
        lines.push(Line::from(Span::styled(
            fit(diff, area.width.saturating_sub(2) as usize),
            theme.bold(),
        )));
    }
    let total = app.comparison.len();
    let cut = if room < total {
        format!(" ({room} of {total} rows shown, all in `gcscope compare`)")
    } else {
        String::new()
    };
    let what = samples_text(app, single);
    // As `compare` says it: the load moved the wall-clock rows (docs/SUMMARY.md).
    let loaded = app
        .panes
        .iter()
        .filter_map(|p| p.summary.as_ref()?.lab.as_ref()?.offcpu_share)
        .any(|share| share > LOADED_SHARE)
        || app.panes.iter().any(|p| {
            p.timeline.programs.iter().any(|g| {
                g.exit
                    .and_then(|e| e.other_cpus)
                    .is_some_and(|c| c > LOADED_CPUS)
            })
        });
    let loaded = if loaded {
        " machine loaded: wall-clock rows moved with it;"
    } else {
        ""
    };
    let title = fit(
        &format!(" A/B{cut}:{loaded} {what} "),
        area.width.saturating_sub(2) as usize,
    );
    f.render_widget(Paragraph::new(lines).block(block(title)), area);
}

/// One run a side: no ranges, so no verdicts.
fn one_run_a_side(app: &App) -> bool {
    app.comparison.iter().all(|r| r.a.is_none_or(|s| s.n < 2))
}

/// Each row's cells: the metric, A, B, the verdict, and why there is none.
fn cells(app: &App, single: bool) -> Vec<[String; 5]> {
    app.comparison
        .iter()
        .map(|r| {
            // No verdict: why, as `compare` says it (the title says it once for one run a
            // side).
            let why = match &r.why {
                Some(why) if !single && r.a.is_some() && r.b.is_some() => why.clone(),
                _ => String::new(),
            };
            [
                r.label.to_string(),
                gcscope_core::fmt::row_spread(r, &r.a),
                gcscope_core::fmt::row_spread(r, &r.b),
                gcscope_core::fmt::verdict_text(r),
                why,
            ]
        })
        .collect()
}

/// What the strip's samples are, as its title says.
fn samples_text(app: &App, single: bool) -> String {
    match app.samples {
        Samples::Programs(0, _) | Samples::Programs(_, 0) => {
            "each run that ends well is a sample of its side: waiting for both sides' first"
                .to_string()
        }
        Samples::Programs(a, b) => format!(
            "samples: runs that ended well, A {a}, B {b}; ~ = no verdict: a direction needs 3 \
             a side whose ranges do not overlap"
        ),
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
    }
}

/// The strip as plain text, every row, for the terminal once the dashboard closes (what the
/// dashboard showed, the terminal keeps); `None` without two panes or a row.
#[must_use]
pub(crate) fn text(app: &App) -> Option<String> {
    if app.panes.len() != 2 {
        return None;
    }
    if !app.mismatch.is_empty() {
        return Some(format!(
            "A/B: not compared: the selected runs differ in more than the marker ({})\n",
            app.mismatch.join(", ")
        ));
    }
    if app.comparison.is_empty() {
        return None;
    }
    let single = one_run_a_side(app);
    let mut o = format!("A/B: {}\n", samples_text(app, single));
    for line in table(&cells(app, single), 160, Theme { color: false }) {
        let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
        o.push_str(text.trim_end());
        o.push('\n');
    }
    Some(o)
}

/// The strip's rows in columns as wide as their widest cell: the figures and the change are
/// never cut; the metric's name gives way first (with an ellipsis), and the reason for no
/// verdict takes what is left.
fn table(cells: &[[String; 5]], width: usize, theme: Theme) -> Vec<Line<'static>> {
    let wide = |i: usize, head: &str| {
        cells
            .iter()
            .map(|c| c[i].chars().count())
            .chain([head.chars().count()])
            .max()
            .unwrap_or(0)
    };
    let (a_head, b_head) = ("A median [min-max]", "B median [min-max]");
    let (aw, bw, dw) = (wide(1, "A"), wide(2, "B"), wide(3, "B vs A"));
    let figures = aw + bw + dw + 6;
    let lw = wide(0, "metric").min(width.saturating_sub(figures)).max(6);
    let why_w = width.saturating_sub(lw + figures + 2);
    // Both full headers or both short ones: `A median [min-max]` beside a bare `B` reads
    // as two different statistics.
    let full = a_head.chars().count() <= aw && b_head.chars().count() <= bw;
    let head_cell = |full_head: &str, short: &str| if full { full_head } else { short }.to_string();
    // A reason cut short says less than none: it shows whole or not at all (the title says
    // what `~` means).
    let longest_why = cells
        .iter()
        .map(|c| c[4].chars().count())
        .max()
        .unwrap_or(0);
    let why_w = if why_w >= longest_why.min(40) {
        why_w
    } else {
        0
    };
    let row = |c: [&str; 5]| {
        let why = if why_w > 3 && !c[4].is_empty() {
            format!("  {}", fit(c[4], why_w))
        } else {
            String::new()
        };
        format!(
            "{:<lw$}  {:>aw$}  {:>bw$}  {:>dw$}{why}",
            fit(c[0], lw),
            c[1],
            c[2],
            c[3]
        )
    };
    let head = row([
        "metric",
        &head_cell(a_head, "A"),
        &head_cell(b_head, "B"),
        "B vs A",
        "",
    ]);
    let mut lines = vec![Line::from(Span::styled(head, theme.bold()))];
    lines.extend(
        cells
            .iter()
            .map(|c| Line::from(row([&c[0], &c[1], &c[2], &c[3], &c[4]]))),
    );
    lines
}
