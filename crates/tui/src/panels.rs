//! The dashboard's panels, each drawn into the area the layout gives it: the phases, heap,
//! CPU, pause, page-scan-density, decoded-cycle and log panes of one source.

use super::app::Pane;
use super::view::{block, fit, Theme, ASSIST, BACKGROUND, GOAL, IDLE, MARK, PAUSE};
use gcscope_core::fmt::{fmt_num, go_ms};
use gcscope_core::stats::compare::Metric;
use gcscope_core::trace::format;
use gcscope_model::Cycle;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Color;
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Block, Chart, Dataset, GraphType, Paragraph, Sparkline, Wrap};
use ratatui::Frame;

/// Cycles `[lo, hi)` behind column `j` of `w` columns over `n` cycles: a run of cycles when
/// there are more cycles than columns, a stretched single cycle when fewer.
fn bucket(j: usize, w: usize, n: usize) -> (usize, usize) {
    let lo = j * n / w;
    (lo, ((j + 1) * n / w).max(lo + 1).min(n))
}

/// Fit a precomputed series (see `app::Cols`) to `width` columns: the largest value of each
/// column's share, or a value stretched over several columns.
fn columns(series: &[u64], width: usize) -> Vec<u64> {
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
fn cursor_col(p: &Pane, width: usize) -> Option<usize> {
    let w = p.cols.window.clone();
    if !w.contains(&p.cursor) || width == 0 {
        return None;
    }
    let i = p.cursor - w.start;
    (0..width).find(|&j| {
        let (lo, hi) = bucket(j, width, w.len());
        (lo..hi).contains(&i)
    })
}

fn spark<'a>(data: &'a [u64], title: String, color: Color, theme: Theme) -> Sparkline<'a> {
    Sparkline::default()
        .block(Block::default().title(title))
        .data(data)
        .style(theme.fg(color))
}

/// A cycle's time as its gc line prints it (Go's digits, truncated as Go does), so the
/// decoded text never says 328 where the line says 327.
fn ms(ns: u64) -> String {
    format::ms(ns)
}

/// A series on one row, its label on the left: the compact form of a sparkline, for a
/// panel with no room for a title row per series.
fn label_row(f: &mut Frame, label: String, data: &[u64], color: Color, theme: Theme, r: Rect) {
    let lw = (label.chars().count() as u16 + 1).min(r.width / 2);
    let [l, d] = Layout::horizontal([Constraint::Length(lw), Constraint::Min(0)]).areas(r);
    f.render_widget(Paragraph::new(fit(&label, lw as usize)), l);
    let cols = columns(data, d.width as usize);
    f.render_widget(Sparkline::default().data(&cols).style(theme.fg(color)), d);
}

pub(super) fn phases(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
    let outer = block(fit(
        " phases per cycle: STW pause, concurrent mark ",
        area.width.saturating_sub(2) as usize,
    ));
    let inner = outer.inner(area);
    f.render_widget(outer, area);
    let cycles = &p.cycles()[p.cols.window.clone()];
    let w = inner.width as usize;
    let sel = p.selected();
    let pause_max = ms(p.cols.pause.iter().copied().max().unwrap_or(0));
    let mark_max = ms(p.cols.mark.iter().copied().max().unwrap_or(0));
    if inner.height < 5 {
        let [a, b, axis] = Layout::vertical([Constraint::Length(1); 3]).areas(inner);
        let sel_pause = sel.map_or(String::new(), |c| format!(" {}", ms(c.pause())));
        let sel_mark = sel.map_or(String::new(), |c| format!(" {}", ms(c.mark_wall())));
        label_row(
            f,
            format!("STW{sel_pause}ms"),
            &p.cols.pause,
            PAUSE,
            theme,
            a,
        );
        label_row(f, format!("mark{sel_mark}ms"), &p.cols.mark, MARK, theme, b);
        time_axis(f, p, cycles, axis, theme);
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
        sel.map_or(String::new(), |c| format!(
            "  sel {}+{}",
            ms(c.clock.sweep_term),
            ms(c.clock.mark_term)
        ))
    );
    let t_mark = format!(
        "mark ms (max {mark_max}){}",
        sel.map_or(String::new(), |c| format!("  sel {}", ms(c.mark_wall())))
    );
    f.render_widget(spark(&pause, fit(&t_pause, w), PAUSE, theme), a);
    f.render_widget(spark(&mark, fit(&t_mark, w), MARK, theme), b);
    time_axis(f, p, cycles, axis, theme);
}

fn time_axis(f: &mut Frame, p: &Pane, cycles: &[Cycle], area: Rect, theme: Theme) {
    let (Some(first), Some(last)) = (cycles.first(), cycles.last()) else {
        return;
    };
    let w = area.width as usize;
    let mut marker = vec![' '; w];
    if let Some(col) = cursor_col(p, w) {
        if col < w {
            marker[col] = '^';
        }
    }
    let left = format!("@{:.3}s", first.at as f64 / 1e9);
    let right = format!("@{:.3}s", last.at as f64 / 1e9);
    // A label the cursor would break is left out: `@11.^76s` reads as neither.
    let cursor = marker.iter().position(|&c| c == '^');
    let clear = |from: usize, len: usize| cursor.is_none_or(|c| c < from || c >= from + len);
    if clear(0, left.len()) && left.len() < w {
        for (i, ch) in left.chars().enumerate() {
            marker[i] = ch;
        }
    }
    let start = w.saturating_sub(right.len());
    if clear(start, right.len()) && start > left.len() {
        for (i, ch) in right.chars().enumerate() {
            marker[start + i] = ch;
        }
    }
    f.render_widget(
        Paragraph::new(marker.into_iter().collect::<String>()).style(theme.fg(Color::Reset)),
        area,
    );
}

pub(super) fn heap(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
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
    .block(block(title))
    .x_axis(Axis::default().bounds([0.0, xmax]))
    .y_axis(
        Axis::default()
            .bounds([0.0, ymax * 1.05])
            .labels(vec![Line::from("0"), Line::from(format!("{ymax:.0}"))]),
    );
    f.render_widget(chart, area);
}

pub(super) fn cpu(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
    let s = p.summary.as_ref();
    let title = format!(
        " CPU per cycle: compulsory {} ms/cycle, idle share {} ",
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
            sel.map(|c| c.cpu.assist),
            s.map(|s| s.cpu_ms.assist),
        ),
        (
            "background",
            BACKGROUND,
            &cols.background,
            sel.map(|c| c.cpu.background),
            s.map(|s| s.cpu_ms.background),
        ),
        (
            "idle",
            IDLE,
            &cols.idle,
            sel.map(|c| c.cpu.idle),
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

pub(super) fn pauses(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
    let w = area.width.saturating_sub(2) as usize;
    let room = area.height.saturating_sub(2) as usize;
    let mut lines = Vec::new();
    if let Some(s) = &p.summary {
        let q = &s.pause_ms;
        // The unit first: a narrow pane cuts the end of the line, never what the numbers are.
        lines.push(Line::from(fit(
            &format!(
                "ms: p50 {}  p90 {}  p99 {}  max {}",
                go_ms(q.p50),
                go_ms(q.p90),
                go_ms(q.p99),
                go_ms(q.max)
            ),
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
    const EDGES_US: [u64; 6] = super::app::PAUSE_EDGES_US;
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

pub(super) fn cycle_detail(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
    let Some(c) = p.selected() else {
        f.render_widget(
            Paragraph::new("no cycles yet").block(block(" selected cycle ")),
            area,
        );
        return;
    };
    // The gc line itself wraps to two or three rows: a short pane keeps the decoded words.
    let room = area.height.saturating_sub(2);
    let mut lines = Vec::new();
    if room >= 6 {
        lines.push(Line::from(Span::styled(format::line(c), theme.bold())));
    }
    lines.push(Line::from(format!(
        "gc {} ({}) started @{:.3}s{}; {}% of CPU went to GC since the program started",
        c.num,
        if c.line == 0 {
            "live".to_string()
        } else {
            format!("line {}", c.line)
        },
        c.at as f64 / 1e9,
        // The leak profiler forces its cycles too: say which forced it.
        match (c.forced, c.leak_check) {
            (_, true) => ", forced by the goroutine leak check",
            (true, false) => ", forced (runtime.GC, debug.FreeOSMemory)",
            _ => "",
        },
        c.cum_pct
    )));
    lines.push(Line::from(format!(
        "wall: {} ms stop-the-world sweep termination, {} ms concurrent mark, {} ms stop-the-world mark termination (pause {} ms)",
        ms(c.clock.sweep_term),
        ms(c.mark_wall()),
        ms(c.clock.mark_term),
        ms(c.pause())
    )));
    lines.push(Line::from(format!(
        "CPU: {} ms assists by allocating goroutines, {} ms background workers, {} ms idle workers, {} ms in the two pauses x P; {} ms compulsory",
        ms(c.cpu.assist),
        ms(c.cpu.background),
        ms(c.cpu.idle),
        ms(c.cpu.sweep_term + c.cpu.mark_term),
        ms(c.compulsory_cpu())
    )));
    lines.push(Line::from(format!(
        "heap: {} MB when marking began, {} MB when it ended, {} MB marked live; goal {}{}{}; {} P",
        c.heap_start >> 20,
        c.heap_end >> 20,
        c.heap_live >> 20,
        c.goal
            .map_or("not printed".into(), |g| format!("{} MB", g >> 20)),
        c.stacks
            .map_or(String::new(), |s| format!(", {} MB stacks", s >> 20)),
        c.globals
            .map_or(String::new(), |g| format!(", {} MB globals", g >> 20)),
        c.procs
    )));
    let para = Paragraph::new(lines)
        .wrap(Wrap { trim: true })
        .block(block(" selected cycle, decoded "));
    f.render_widget(para, area);
}

pub(super) fn density(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
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
        " page scan density: objects per span visit, whole run {} ",
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
        .and_then(Cycle::page_density)
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
            v.sort_by_key(|c| std::cmp::Reverse(c.objects));
            v.iter()
                .take(6)
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
        Paragraph::new(format!("by size class: {}", classes.join("  "))).wrap(Wrap { trim: true }),
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
    vec![
        Line::from(format!(
            "objects per visit ({:.0}% of visits scan one object)",
            single * 100.0
        )),
        Line::from(bars),
        Line::from(labels),
    ]
}

pub(super) fn log(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
    let tl = &p.timeline;
    let h = area.height.saturating_sub(2) as usize;
    // Problems first (they must not scroll out of sight), then what the program and the
    // runtime printed up to the selected cycle's line.
    let mut lines: Vec<Line> = tl
        .problems
        .iter()
        .take(h.div_ceil(2))
        .map(|pr| {
            Line::from(Span::styled(
                format!("{:>6} problem: {}", pr.line, pr.reason),
                theme.alert(),
            ))
        })
        .collect();
    let room = h.saturating_sub(lines.len());
    let upto = p.selected().map_or(u64::MAX, |c| c.line.max(1));
    let out_end = tl.output.partition_point(|o| o.line <= upto);
    let note_end = tl.notes.partition_point(|n| n.line <= upto);
    let mut rows: Vec<(u64, Line)> = tl.output[..out_end]
        .iter()
        .rev()
        .take(room)
        .map(|o| (o.line, Line::from(format!("{:>6} {}", o.line, o.text))))
        .collect();
    rows.extend(tl.notes[..note_end].iter().rev().take(room).map(|n| {
        (
            n.line,
            Line::from(Span::styled(
                // A note's text often starts with its kind (`pacer: ...`): not twice.
                if n.text.starts_with(n.kind.name()) {
                    format!("{:>6} {}", n.line, n.text)
                } else {
                    format!("{:>6} {}: {}", n.line, n.kind.name(), n.text)
                },
                theme.fg(GOAL),
            )),
        )
    }));
    rows.sort_by_key(|r| r.0);
    let start = rows.len().saturating_sub(room);
    lines.extend(rows.into_iter().skip(start).map(|r| r.1));
    // Counts of the whole source; the lines shown are those up to the selected cycle.
    let title = format!(
        " log to the selected cycle; in all: output {}, notes {}, problems {} ",
        tl.output_count(),
        tl.notes.len(),
        tl.problems.len()
    );
    let title = fit(&title, area.width.saturating_sub(2) as usize);
    f.render_widget(Paragraph::new(lines).block(block(title)), area);
}

/// A source with no cycle to show: what it has instead (output, problems) and how to get
/// gctrace out of a program, rather than empty charts that read like data.
pub(super) fn guide(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
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
    for text in [
        "",
        "Go prints one line per GC cycle on standard error when GODEBUG has gctrace=1:",
        "  GODEBUG=gctrace=1 ./prog 2>&1 | gcscope -      (2>&1: the lines are on stderr)",
        "  GODEBUG=gctrace=1 ./prog 2> gc.log; gcscope view gc.log",
        "GODEBUG=gctrace=2 (Go 1.25+) adds scan: lines: page scan density, Green Tea's measure.",
        "gcscope reads Go 1.5 and later; older runtimes printed another format.",
        "No Go program at hand? `gcscope demo` replays a real A/B; `gcscope` runs the lab.",
    ] {
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

/// The findings overlay (`i`): the focused side's findings, most severe first, each with
/// its evidence cycles, numbered for 1-9.
pub(super) fn findings(f: &mut Frame, app: &super::app::App, area: Rect, theme: Theme) {
    use gcscope_core::stats::findings::Severity;
    let found = app
        .panes
        .get(app.focus)
        .and_then(|p| p.summary.as_ref())
        .map_or(&[][..], |s| &s.findings[..]);
    let w = area.width.saturating_sub(4).min(100);
    let mut lines: Vec<Line> = Vec::new();
    if found.is_empty() {
        lines.push(Line::from(
            "No finding for this run: none of the rules' conditions holds (docs/FINDINGS.md).",
        ));
    }
    for (i, x) in found.iter().enumerate() {
        let sev = match x.severity {
            Severity::Warn => Span::styled("warn", theme.alert()),
            Severity::Info => Span::styled("info", theme.bold()),
        };
        let evidence = if x.cycles.is_empty() {
            "whole run".to_string()
        } else {
            let gcs: Vec<String> = x.cycles.iter().map(|c| format!("gc {c}")).collect();
            gcs.join(", ")
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{} ", i + 1), theme.bold()),
            sev,
            Span::styled(format!(" {}", x.id), theme.bold()),
            Span::raw(format!("  ({evidence})")),
        ]));
        lines.push(Line::from(format!("  {}", x.text)));
    }
    // Rows once wrapped (words may wrap a little earlier: one spare row).
    let inner = usize::from(w.saturating_sub(2)).max(1);
    let rows: usize = lines.iter().map(|l| l.width().div_ceil(inner).max(1)).sum();
    let h = (rows as u16 + 3).min(area.height);
    let text = Paragraph::new(lines).wrap(Wrap { trim: false });
    let r = Rect {
        x: area.x + (area.width - w) / 2,
        y: area.y + (area.height - h) / 2,
        width: w,
        height: h,
    };
    f.render_widget(ratatui::widgets::Clear, r);
    f.render_widget(
        text.block(block(
            " findings: 1-9 go to a finding's cycle, any other key closes ",
        )),
        r,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: Vec<Line>) -> Vec<String> {
        lines.iter().map(Line::to_string).collect()
    }

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

    #[test]
    fn visit_histogram_bars_in_eighths_of_the_largest_bucket() {
        // 12 columns for 4 buckets: cells of 3, bars of 2.
        assert_eq!(
            text(visit_histogram(&[6, 3, 0, 1], 12)),
            [
                "objects per visit (60% of visits scan one object)",
                "██ ▄▄    ▂▂ ",
                "1  2  4  8+ ",
            ]
        );
        // Shares round to the nearest percent: 2 of 3 is 67%.
        assert_eq!(
            text(visit_histogram(&[2, 1], 4))[0],
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
                "objects per visit (0% of visits scan one object)",
                "▁▁▁▁▁ █████ ▁▁▁▁▁ ",
                "1     2     4+    ",
            ]
        );
    }

    #[test]
    fn visit_histogram_of_zero_counts_and_no_width() {
        assert_eq!(
            text(visit_histogram(&[0, 0], 10)),
            [
                "objects per visit (0% of visits scan one object)",
                "          ",
                "1    2+   ",
            ]
        );
        // Width 0 or 1 still gives each bucket a cell of 2: a bar and a gap.
        for width in [0, 1] {
            assert_eq!(
                text(visit_histogram(&[1], width)),
                [
                    "objects per visit (100% of visits scan one object)",
                    "█ ",
                    "1+",
                ]
            );
        }
    }
}
