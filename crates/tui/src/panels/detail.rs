//! The selected cycle, decoded: its gc line and what each of its figures means.

use super::{block, ms};
use crate::app::Pane;
use crate::view::Theme;
use gcscope_core::trace::format;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};
use ratatui::Frame;

pub(crate) fn draw(f: &mut Frame, p: &Pane, area: Rect, theme: Theme) {
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
        lines.push(Line::from(Span::styled(format::line(&c), theme.bold())));
    }
    lines.push(Line::from(format!(
        "gc {} ({}) started @{:.3}s{}; Go's GC {}% (of the Ps' time since the program started)",
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
        "P time: {} ms assists by allocating goroutines, {} ms background workers, {} ms idle workers, {} ms in the two pauses x P; {} ms compulsory",
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
