//! The byte cursor the line grammar (`parse.rs`) is written with: literals, spaces, exact
//! integers and decimals, sizes, and errors that say where and what was expected.

use super::parse::{LineKind, ParseError, MAX_PHASE_NS};
use gcscope_model::Ns;

/// A byte cursor with the few primitives the grammar needs.
pub(super) struct Cursor<'a> {
    pub(super) s: &'a [u8],
    pub(super) pos: usize,
    pub(super) start: usize,
}

impl<'a> Cursor<'a> {
    pub(super) fn new(s: &'a [u8], pos: usize) -> Self {
        Cursor { s, pos, start: pos }
    }

    #[inline(always)]
    pub(super) fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    // The error constructors take the cursor's fields by value: a `&self` passed to an
    // out-of-line function would keep the cursor in memory, and every step of the parser
    // would store and reload its position.
    #[inline(always)]
    pub(super) fn err(&self, expected: &'static str) -> ParseError {
        gc_error(self.pos, self.start, self.pos >= self.s.len(), expected)
    }

    #[inline(always)]
    pub(super) fn error_at(&self, pos: usize, expected: &'static str) -> ParseError {
        gc_error(pos, self.start, false, expected)
    }

    #[inline(always)]
    pub(super) fn lit(&mut self, lit: &'static [u8]) -> Result<(), ParseError> {
        if self.opt(lit) {
            Ok(())
        } else {
            Err(self.err(lit_name(lit)))
        }
    }

    #[inline(always)]
    pub(super) fn opt(&mut self, lit: &[u8]) -> bool {
        match self.s.get(self.pos..self.pos + lit.len()) {
            Some(here) if here == lit => {
                self.pos += lit.len();
                true
            }
            _ => false,
        }
    }

    /// One or more blanks.
    #[inline(always)]
    pub(super) fn ws(&mut self) -> Result<(), ParseError> {
        if self.skip_ws() == 0 {
            Err(self.err("a space"))
        } else {
            Ok(())
        }
    }

    #[inline(always)]
    pub(super) fn skip_ws(&mut self) -> usize {
        let rest = self.s.get(self.pos..).unwrap_or_default();
        let n = rest
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .count();
        self.pos += n;
        n
    }

    pub(super) fn int(&mut self) -> Result<u64, ParseError> {
        self.int_as("a number")
    }

    /// The digits at the cursor: their value and how many. Up to 19 digits cannot overflow a
    /// u64; more are the caller's to check (`checked_digits`). The hot loop of the parser: no
    /// overflow check per digit.
    #[inline(always)]
    pub(super) fn digits(&mut self) -> (u64, usize) {
        let (v, n) = leading_digits(self.s.get(self.pos..).unwrap_or_default());
        self.pos += n;
        (v, n)
    }

    #[inline(always)]
    pub(super) fn int_as<T: TryFrom<u64>>(&mut self, what: &'static str) -> Result<T, ParseError> {
        let from = self.pos;
        let (mut v, n) = self.digits();
        if n == 0 {
            return Err(self.err(what));
        }
        if n > 19 {
            match checked_digits(&self.s[from..self.pos]) {
                Ok(exact) => v = exact,
                Err(at) => {
                    self.pos = from + at;
                    return Err(self.err(what));
                }
            }
        }
        T::try_from(v).map_err(|_| ParseError {
            pos: from,
            ..self.err(what)
        })
    }

    /// A decimal number scaled by 10^`scale` exactly: `0.458` with scale 9 is 458_000_000.
    /// Digits beyond `scale` decimals are dropped (they are below the unit).
    #[inline(always)]
    pub(super) fn decimal(&mut self, scale: u32, what: &'static str) -> Result<u64, ParseError> {
        let scale = scale.min(9) as usize;
        let whole: u64 = self.int_as(what)?;
        let mut value = whole
            .checked_mul(POW10[scale])
            .ok_or_else(|| self.err(what))?;
        if self.peek() == Some(b'.') {
            self.pos += 1;
            let from = self.pos;
            let (frac, n) = self.digits();
            if n == 0 {
                return Err(self.err(what));
            }
            let kept = scaled_fraction(&self.s[from..self.pos], frac, scale);
            value = value.checked_add(kept).ok_or_else(|| self.err(what))?;
        }
        Ok(value)
    }

    /// Milliseconds as printed by the runtime's `fmtNSAsMS`, to ns; at most `MAX_PHASE_NS`
    /// (see there), so that every sum of a cycle's phases is exact.
    #[inline(always)]
    pub(super) fn ms(&mut self, what: &'static str) -> Result<Ns, ParseError> {
        let from = self.pos;
        let v = self.decimal(6, what)?;
        if v > MAX_PHASE_NS {
            self.pos = from;
            return Err(self.err("a phase time below 2^53 ns (104 days)"));
        }
        Ok(v)
    }

    /// `a+b+c` (1 to 5 values): the values and how many there were.
    #[inline(always)]
    pub(super) fn ms_list(
        &mut self,
        sep: u8,
        what: &'static str,
    ) -> Result<([Ns; 5], usize), ParseError> {
        let mut v = [0; 5];
        v[0] = self.ms(what)?;
        let mut n = 1;
        while self.peek() == Some(sep) && n < 5 {
            self.pos += 1;
            v[n] = self.ms(what)?;
            n += 1;
        }
        Ok((v, n))
    }

    /// `pre+...+pre+assist/background/idle+post`: the STW and scan terms before the mark
    /// triple, the triple, and the mark-termination term.
    #[allow(clippy::type_complexity)]
    #[inline(always)]
    pub(super) fn cpu_fields(&mut self) -> Result<([Ns; 3], usize, [Ns; 3], Ns), ParseError> {
        const WHAT: &str = "a CPU time in ms";
        let mut pre = [self.ms(WHAT)?, 0, 0];
        let mut n = 1;
        self.lit(b"+")?;
        let mut assist = self.ms(WHAT)?;
        while self.peek() == Some(b'+') && n < 3 {
            self.pos += 1;
            pre[n] = assist;
            n += 1;
            assist = self.ms(WHAT)?;
        }
        self.lit(b"/")?;
        let background = self.ms(WHAT)?;
        self.lit(b"/")?;
        let idle = self.ms(WHAT)?;
        self.lit(b"+")?;
        let post = self.ms(WHAT)?;
        Ok((pre, n, [assist, background, idle], post))
    }

    #[inline(always)]
    pub(super) fn mb(&mut self, what: &'static str) -> Result<u64, ParseError> {
        let n: u64 = self.int_as(what)?;
        n.checked_mul(1 << 20)
            .ok_or_else(|| self.err("a size below 2^44 MB"))
    }
}

/// Powers of ten a decimal is scaled by (`Cursor::decimal`, `fast`).
pub(super) const POW10: [u64; 10] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
];

/// The digits `rest` starts with: their value and how many. Up to 19 digits cannot overflow
/// a u64; the value of more wraps, and is the caller's to check. The hot loop of the parser: no
/// overflow check per digit.
#[inline(always)]
pub(super) fn leading_digits(rest: &[u8]) -> (u64, usize) {
    let mut v = 0;
    let n = more_digits(rest, &mut 0, &mut v);
    (v, n)
}

/// The digits of `s` from `at` on, appended to `value` (wrapping, as `leading_digits`) and
/// `at` moved past them; how many. (A decimal's two sides go into one value: `fast.rs`.)
#[inline(always)]
pub(super) fn more_digits(s: &[u8], at: &mut usize, value: &mut u64) -> usize {
    let from = *at;
    while let Some(d) = s.get(*at).map(|b| b.wrapping_sub(b'0')) {
        if d > 9 {
            break;
        }
        *value = value.wrapping_mul(10).wrapping_add(u64::from(d));
        *at += 1;
    }
    *at - from
}

/// A fraction's `digits` (`value` theirs when at most 19) kept to `scale` (at most 9)
/// decimals: a short one scaled up, a long one cut (what is cut is below the unit).
#[inline(always)]
pub(super) fn scaled_fraction(digits: &[u8], value: u64, scale: usize) -> u64 {
    match digits.get(..scale) {
        Some(kept) if digits.len() > scale => {
            kept.iter().fold(0, |v, &d| v * 10 + u64::from(d - b'0'))
        }
        _ => value * POW10[scale - digits.len()],
    }
}

#[cold]
#[inline(never)]
pub(super) fn gc_error(
    pos: usize,
    start: usize,
    at_end: bool,
    expected: &'static str,
) -> ParseError {
    ParseError {
        kind: LineKind::Gc,
        pos,
        start,
        expected,
        at_end,
    }
}

/// The value of more than 19 digits (which may overflow a u64), or where it overflows.
#[cold]
#[inline(never)]
fn checked_digits(digits: &[u8]) -> Result<u64, usize> {
    let mut v: u64 = 0;
    for (i, &d) in digits.iter().enumerate() {
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d - b'0')))
            .ok_or(i)?;
    }
    Ok(v)
}

fn lit_name(lit: &[u8]) -> &'static str {
    match lit {
        b"gc" => "`gc`",
        b"@" => "`@` and the start time",
        b"s" => "`s` after the start time",
        b"%" => "`%` after the GC CPU percentage",
        b":" => "`:` after the percentage",
        b"ms clock," => "`ms clock,`",
        b"ms cpu," => "`ms cpu,`",
        b"+" => "`+` between CPU times",
        b"/" => "`/` between assist, background and idle CPU",
        b"->" => "`->` between heap sizes",
        b"MB" => "`MB`",
        b"," => "`,` and the next field",
        b"scan:" => "`scan:`",
        b"class" => "`total` or `class`",
        b"B" => "`B` after the size class",
        b"objs" => "`objs`",
        b"objs," => "`objs,`",
        b"=" => "`=` and a total",
        b"spans" => "`spans`",
        b"lab:" => "`lab:`",
        b"bytes" => "`bytes`",
        b"visits" => "`visits`",
        b"freed" => "`freed`",
        b"cpu_ns" => "`cpu_ns`",
        b"hist" => "`hist`",
        b"(" | b"):" => "`(P):`",
        _ => "more text",
    }
}
