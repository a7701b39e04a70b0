//! Units every layer prints the same way: milliseconds as Go prints them, fixed decimals
//! without the general float formatter, and text from outside made safe for a terminal.
//! The one implementation of each: the parser's writer, the statistics' findings, the reports
//! and the dashboard all call these.

use crate::Ns;

/// The runtime's `fmtNSAsMS`: whole ms from 10 ms up, otherwise two significant digits with
/// at most three decimals, `0` below 1 µs.
#[must_use]
pub fn ms(ns: Ns) -> String {
    if ns >= 10_000_000 {
        return (ns / 1_000_000).to_string();
    }
    let mut x = ns / 1_000;
    if x == 0 {
        return "0".into();
    }
    let mut dec = 3;
    while x >= 100 {
        x /= 10;
        dec -= 1;
    }
    itoa_div(x, dec)
}

/// `val / 10^dec` with exactly `dec` decimals (the runtime's `itoaDiv`).
#[must_use]
pub fn itoa_div(val: u64, dec: u32) -> String {
    if dec == 0 {
        return val.to_string();
    }
    let p = 10u64.pow(dec);
    format!("{}.{:0width$}", val / p, val % p, width = dec as usize)
}

/// `{:.N}` (N <= 3) of a float, the same text, without the general float-formatting
/// algorithm, which took most of a large summary's printing time: the value times 10^N is
/// rounded in floating point, which picks the same digits as exact decimal rounding unless
/// the value is within a hair of a tie (or large); those go to the exact algorithm.
pub struct Fixed(pub f64, pub usize);

impl std::fmt::Display for Fixed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const POW10: [u64; 4] = [1, 10, 100, 1000];
        let Fixed(v, decimals) = *self;
        if let Some(&pow) = POW10.get(decimals) {
            let scaled = v * pow as f64;
            // Below 1e9 the one rounding of `scaled` is off by less than 2e-7.
            if v.is_sign_positive() && scaled < 1e9 {
                let floor = scaled.floor();
                let frac = scaled - floor;
                if (frac - 0.5).abs() > 1e-6 {
                    // In range: 0 <= floor < 1e9, a whole number.
                    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                    let n = floor as u64 + u64::from(frac > 0.5);
                    return if decimals == 0 {
                        write!(f, "{n}")
                    } else {
                        write!(f, "{}.{:0w$}", n / pow, n % pow, w = decimals)
                    };
                }
            }
        }
        write!(f, "{v:.decimals$}")
    }
}

/// Milliseconds at the precision gctrace prints them (the runtime's `fmtNSAsMS`): whole
/// milliseconds from 10 ms, below that two significant digits and at most three decimals
/// (`164`, `4.0`, `0.52`, `0.080`). A figure made of gctrace's values (a median, a
/// percentile, a sum) is printed no finer than its inputs were; rounded, where Go truncates a
/// cycle's value (`trace::format::ms` prints a cycle's).
#[must_use]
pub fn go_ms(v: f64) -> String {
    let a = v.abs();
    let decimals = if a >= 9.5 {
        0
    } else if a >= 0.995 {
        1
    } else if a >= 0.0995 {
        2
    } else {
        3
    };
    if v == 0.0 {
        // Go prints a zero as `0`.
        return "0".into();
    }
    if v < 0.0 {
        return format!("{v:.decimals$}");
    }
    Fixed(v, decimals).to_string()
}

/// Text from outside (a file name, a path, a command) made safe to print to a terminal:
/// control characters (escape sequences could retitle or clear the user's terminal) and
/// bidirectional controls (`needs_escape`) are written as Rust escapes, `\u{1b}`; everything
/// else is kept. The one function every output to a terminal uses for such text.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    if !s.chars().any(needs_escape) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs_escape(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// What must not reach a terminal as it is: control characters (C0, DEL, C1: ESC starts a
/// terminal command, BEL rings) and the bidirectional overrides and isolates (U+202A-U+202E,
/// U+2066-U+2069), which reorder the text shown after them (a file name that reads as
/// another), plus the marks U+200E, U+200F and U+061C.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// A path as `escape_controls` text.
#[must_use]
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
        // A right-to-left override makes `gnp.log` show as `gol.png`: escaped, with the
        // isolates and marks; other scripts are kept.
        assert_eq!(
            escape_controls("a\u{202E}gnp.log \u{2066}x\u{2069}\u{200F} ملف"),
            "a\\u{202e}gnp.log \\u{2066}x\\u{2069}\\u{200f} ملف"
        );
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
