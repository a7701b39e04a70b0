//! Numbers as people read them, shared by the headless reports and the dashboard: one
//! formatter per kind of figure, so a figure reads the same in every view.

use crate::stats::compare::{Change, Metric, Row, Verdict};
use crate::stats::Spread;
// Written where gctrace text is written (`trace::format`), so `stats` can word its findings
// with them; the one implementation of each.
pub use crate::trace::format::{go_ms, Fixed};

/// A share (0..1) as a percentage with one decimal, or `n/a`.
pub fn pct(x: Option<f64>) -> String {
    x.map_or("n/a".into(), |v| format!("{}%", Fixed(v * 100.0, 1)))
}

/// `median [min-max]`, or the single value of one run.
pub fn spread_text(s: &Option<Spread>) -> String {
    spread_with(s, &fmt_num)
}

/// A comparison row's side as `spread_text` has it, in the unit and precision every view
/// uses for the figure: the idle share, a fraction in JSON, reads as a percentage everywhere
/// in text (`2.4% [2.3%-3.1%]`), as `summary` and the CPU pane print it; times in ms at
/// gctrace's precision (`go_ms`).
pub fn row_spread(r: &Row, s: &Option<Spread>) -> String {
    let p: &dyn Fn(f64) -> String = match Metric::by_key(&r.metric) {
        Some(Metric::IdleShare) => &|v| format!("{}%", Fixed(v * 100.0, 1)),
        Some(m) if m.is_ms() => &go_ms,
        // Go prints the cumulative GC CPU as a whole percentage.
        Some(Metric::GcCpuPct) => &|v| Fixed(v, 0).to_string(),
        _ => &fmt_num,
    };
    spread_with(s, p)
}

/// `median [min-max]` (or the one value of one run), each number by `p`.
fn spread_with(s: &Option<Spread>, p: &dyn Fn(f64) -> String) -> String {
    match s {
        Some(s) if s.n == 1 => p(s.median),
        Some(s) => format!("{} [{}-{}]", p(s.median), p(s.min), p(s.max)),
        None => "n/a".into(),
    }
}

/// Three significant digits, no exponent.
pub fn fmt_num(v: f64) -> String {
    let a = v.abs();
    if a >= 100.0 || a == 0.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// A comparison's change as people read it: `-31.0%`, `+1.2 pp`, `×3.10`.
pub fn change_text(r: &Row) -> Option<String> {
    let c = r.change?;
    Some(match r.unit {
        Change::Relative => format!("{c:+.1}%"),
        Change::Points => format!("{c:+.1} pp"),
        Change::Ratio => format!("×{}", fmt_num(c)),
    })
}

/// A comparison's cell: the change where there is a verdict; otherwise `A only`, `B only`,
/// `n/a`, or `~` (no verdict; the row's `why` says why).
pub fn verdict_text(r: &Row) -> String {
    match (r.a, r.b, r.verdict) {
        (None, None, _) => "n/a".into(),
        (Some(_), None, _) => "A only".into(),
        (None, Some(_), _) => "B only".into(),
        (_, _, Verdict::None) => "~".into(),
        _ => change_text(r).unwrap_or_else(|| "n/a".into()),
    }
}

/// Text from outside (a file name, a path) made safe to print to a terminal: control
/// characters (escape sequences could retitle or clear the user's terminal) are written as
/// Rust escapes, `\u{1b}`; everything else is kept.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// A path as `escape_controls` text.
pub fn path(p: &std::path::Path) -> String {
    escape_controls(&p.to_string_lossy()).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn milliseconds_as_gctrace_prints_them() {
        let cases = [
            (164.0, "164"),
            (96.255, "96"),
            (9.96, "10"),
            (4.0, "4.0"),
            (0.523, "0.52"),
            (0.0805, "0.081"),
            (0.08, "0.080"),
            (0.005, "0.005"),
            (0.0, "0"),
            (2725.6, "2726"),
        ];
        for (v, want) in cases {
            assert_eq!(go_ms(v), want, "{v}");
        }
    }

    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape_controls("traces/a b.log"), "traces/a b.log");
        assert_eq!(
            escape_controls("x\u{1b}]0;owned\u{7}\u{1b}[2J\ny\u{9b}z"),
            "x\\u{1b}]0;owned\\u{7}\\u{1b}[2J\\ny\\u{9b}z"
        );
        assert_eq!(path(std::path::Path::new("é/\tt")), "é/\\tt");
    }

    /// `Fixed` writes exactly what `{:.N}` writes: for ms values as summaries make them (ns
    /// over 1e6, medians of two, shares), exact ties, huge, negative and odd values, and
    /// random bit patterns.
    #[test]
    fn fixed_is_the_standard_format() {
        let mut values = vec![
            0.0,
            -0.0,
            0.0005,
            0.0015,
            0.0025,
            1.0005,
            2.5,
            0.05,
            0.15,
            0.25,
            999_999.999_5,
            1e9,
            1e12,
            123_456.789_5,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::NAN,
            f64::INFINITY,
            -1.25,
        ];
        for ns in (0..300_000u64)
            .step_by(7)
            .chain((0..60u32).map(|k| 10u64.pow(k % 19) + u64::from(k)))
        {
            values.push(ns as f64 / 1e6);
            values.push((ns as f64 + 1.0) / 2e6);
            values.push(ns as f64 / 1e9);
            values.push(ns as f64 / 3e5 * 100.0);
        }
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            values.push(f64::from_bits(x >> 2));
            values.push((x % 10_000_000_000) as f64 / 1000.0);
        }
        for v in values {
            for d in 0..=3 {
                assert_eq!(
                    Fixed(v, d).to_string(),
                    format!("{v:.d$}"),
                    "{v:e} with {d}"
                );
            }
        }
    }
}
