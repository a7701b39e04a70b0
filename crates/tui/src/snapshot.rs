//! One frame of the dashboard as an SVG picture, with its colours: what `view --snapshot`
//! writes headless and the `s` key writes from the running dashboard, so a result can go into
//! an issue or a PR as it looked.

use crate::app::{App, Pane};
use crate::keys::Action;
use crate::view::{self, Theme};
use gcscope_core::timeline::Timeline;
use gcscope_model::{Event, SourceId};
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};
use ratatui::Terminal;
use std::fmt::Write;

/// A cell's size in the picture, px: a common monospace cell at 14 px.
const CELL_W: f64 = 8.4;
const CELL_H: f64 = 17.0;
const FONT_PX: f64 = 14.0;
/// The terminal's own colours, which `Color::Reset` stands for.
const DEFAULT_FG: &str = "#d0d0d0";
const DEFAULT_BG: &str = "#1c1c1c";

/// The dashboard over `timelines` (each a pane, named; all of them read), every cycle shown,
/// drawn at `w`x`h` cells as an SVG document.
#[must_use]
pub fn render(timelines: Vec<(String, Timeline)>, w: u16, h: u16, theme: Theme) -> String {
    let panes = timelines
        .into_iter()
        .map(|(name, tl)| {
            let mut p = Pane::new(name, false);
            p.timeline = tl;
            p
        })
        .collect();
    let mut app = App::new(panes);
    // What the loop does once a file's events have all arrived.
    for i in 0..app.panes.len() {
        app.apply(SourceId::from_index(i), Event::End { error: None });
    }
    app.act(Action::AllAtOnce);
    app.refresh();
    let mut terminal = match Terminal::new(TestBackend::new(w, h)) {
        Ok(t) => t,
        // A test backend cannot fail to start; an empty picture says so if it ever does.
        Err(_) => return svg(&Buffer::empty(ratatui::layout::Rect::new(0, 0, w, h))),
    };
    let drawn = terminal.draw(|f| view::draw(f, &app, theme));
    match drawn {
        Ok(frame) => svg(frame.buffer),
        Err(_) => svg(&Buffer::empty(ratatui::layout::Rect::new(0, 0, w, h))),
    }
}

/// A drawn buffer as an SVG document: a background, a rectangle per run of cells with a
/// background of their own, and a text run per run of cells of one style, each placed at its
/// cell and stretched to its cells' width (a font's box-drawing and block glyphs need not be
/// one cell wide).
#[must_use]
pub fn svg(buf: &Buffer) -> String {
    let area = buf.area;
    let (w, h) = (
        f64::from(area.width) * CELL_W,
        f64::from(area.height) * CELL_H,
    );
    let mut o = String::new();
    let _ = writeln!(
        o,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0}" height="{h:.0}" viewBox="0 0 {w:.1} {h:.1}">"#
    );
    let _ = writeln!(
        o,
        r#"<style>text{{font-family:"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:{FONT_PX}px;white-space:pre}}</style>"#
    );
    let _ = writeln!(
        o,
        r#"<rect width="100%" height="100%" fill="{DEFAULT_BG}"/>"#
    );
    for y in area.top()..area.bottom() {
        let row: Vec<Cell> = (area.left()..area.right())
            .map(|x| Cell::of(&buf[(x, y)]))
            .collect();
        let top = f64::from(y - area.top()) * CELL_H;
        // Backgrounds first, text over them.
        for (start, len, cell) in runs(&row, |a, b| a.bg == b.bg) {
            if cell.bg != DEFAULT_BG {
                let _ = writeln!(
                    o,
                    r#"<rect x="{:.1}" y="{top:.1}" width="{:.1}" height="{CELL_H}" fill="{}"/>"#,
                    start as f64 * CELL_W,
                    len as f64 * CELL_W,
                    cell.bg
                );
            }
        }
        let baseline = top + CELL_H * 0.78;
        for (start, len, cell) in runs(&row, |a, b| a.fg == b.fg && a.bold == b.bold) {
            let text: String = row[start..start + len]
                .iter()
                .map(|c| c.symbol.as_str())
                .collect();
            if text.trim().is_empty() {
                continue;
            }
            let weight = if cell.bold {
                r#" font-weight="bold""#
            } else {
                ""
            };
            let _ = writeln!(
                o,
                r#"<text x="{:.1}" y="{baseline:.1}" fill="{}"{weight} textLength="{:.1}" lengthAdjust="spacingAndGlyphs">{}</text>"#,
                start as f64 * CELL_W,
                cell.fg,
                len as f64 * CELL_W,
                xml_escape(&text)
            );
        }
    }
    o.push_str("</svg>\n");
    o
}

/// A cell as the picture draws it: reversed video swapped, the terminal's defaults resolved.
#[derive(Clone)]
struct Cell {
    symbol: String,
    fg: &'static str,
    bg: &'static str,
    bold: bool,
}

impl Cell {
    fn of(c: &ratatui::buffer::Cell) -> Cell {
        let (mut fg, mut bg) = (colour(c.fg, DEFAULT_FG), colour(c.bg, DEFAULT_BG));
        if c.modifier.contains(Modifier::REVERSED) {
            std::mem::swap(&mut fg, &mut bg);
        }
        // A wide character's second cell is empty in the buffer: the first one's glyph
        // covers it.
        let symbol = match c.symbol() {
            "" => String::new(),
            s => s.to_string(),
        };
        Cell {
            symbol,
            fg,
            bg,
            bold: c.modifier.contains(Modifier::BOLD),
        }
    }
}

/// Maximal runs of cells that `same` says look alike: (start, length, first cell).
fn runs(row: &[Cell], same: impl Fn(&Cell, &Cell) -> bool) -> Vec<(usize, usize, Cell)> {
    let mut out: Vec<(usize, usize, Cell)> = Vec::new();
    for (i, c) in row.iter().enumerate() {
        match out.last_mut() {
            Some((_, len, first)) if same(first, c) => *len += 1,
            _ => out.push((i, 1, c.clone())),
        }
    }
    out
}

/// The xterm palette for the named colours the dashboard uses; 256-colour and RGB colours as
/// they are.
fn colour(c: Color, default: &'static str) -> &'static str {
    match c {
        Color::Reset => default,
        Color::Black => "#000000",
        Color::Red => "#cd3131",
        Color::Green => "#0dbc79",
        Color::Yellow => "#e5e510",
        Color::Blue => "#2472c8",
        Color::Magenta => "#bc3fbc",
        Color::Cyan => "#11a8cd",
        Color::Gray => "#e5e5e5",
        Color::DarkGray => "#666666",
        Color::LightRed => "#f14c4c",
        Color::LightGreen => "#23d18b",
        Color::LightYellow => "#f5f543",
        Color::LightBlue => "#3b8eea",
        Color::LightMagenta => "#d670d6",
        Color::LightCyan => "#29b8db",
        Color::White => "#ffffff",
        // The dashboard draws with named colours only; anything else reads as the default.
        Color::Indexed(_) | Color::Rgb(..) => default,
    }
}

fn xml_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&apos;"),
            // XML 1.0 has no place for other control characters: the dashboard escapes them
            // before drawing, and one that got through is dropped here.
            c if c.is_control() => {}
            c => o.push(c),
        }
    }
    o
}

/// Writes `svg` to a new file in `dir` named for the time, never over an existing one: the
/// path written, or why not.
pub fn write_new(dir: &std::path::Path, svg: &str) -> std::io::Result<std::path::PathBuf> {
    use std::io::Write as _;
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    for k in 0..100 {
        let name = if k == 0 {
            format!("gcscope-{stamp}.svg")
        } else {
            format!("gcscope-{stamp}-{k}.svg")
        };
        let path = dir.join(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut f) => {
                f.write_all(svg.as_bytes())?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other("100 snapshots this second already"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::style::Style;

    #[test]
    fn a_buffer_becomes_text_runs_with_their_colours_escaped() {
        let mut b = Buffer::empty(ratatui::layout::Rect::new(0, 0, 12, 2));
        b.set_string(0, 0, "a<b & c", Style::default().fg(Color::Red));
        b.set_string(
            0,
            1,
            "ok",
            Style::default().add_modifier(Modifier::REVERSED | Modifier::BOLD),
        );
        let s = svg(&b);
        assert!(s.starts_with("<svg "), "{s}");
        assert!(s.contains(r##"fill="#cd3131""##), "{s}");
        assert!(s.contains(">a&lt;b &amp; c</text>"), "{s}");
        // Reversed: default background colour on a default-foreground rectangle.
        assert!(s.contains(r##"fill="#d0d0d0"/>"##), "{s}");
        assert!(s.contains(r#"font-weight="bold""#), "{s}");
        assert!(s.trim_end().ends_with("</svg>"));
    }
}
