//! The gc line as the runtime prints it since Go 1.6, read in one pass that only says whether
//! it read it: `gc N @S.SSSs P%: a+b+c ms clock, d+e/f/g+h ms cpu, A->B->C MB, G MB goal,
//! ... , N P`, single spaces, then ` (forced)` or nothing.
//!
//! Almost every line of a large trace is this one. The grammar's cursor (`cursor.rs`) reads
//! every shape gctrace ever had and says where and why a line stops making sense; carrying
//! that all along made a 141-byte line cost ~170 ns. This reader gives up at the first thing
//! off the common shape (a tab, two spaces, Go 1.5's five phases, a leak-check mark, a number
//! of 20 digits, anything out of range) and `parse.rs` then reads the line in full: so a line
//! read here gives exactly the cycle the full grammar gives (tests below and in `parse.rs`
//! compare them over every line of the corpus and mutated ones).

use super::cursor::{leading_digits, more_digits, scaled_fraction, POW10};
use super::parse::MAX_PHASE_NS;
use gcscope_model::{Clock, Cpu, Cycle};

/// Reads `line` (from its first byte) into `cy`, which starts as `Cycle::default()`: the byte
/// offset after the gc text, or `None` when the line is not in the common shape (then `cy` may
/// hold some of its fields and is the caller's to reset).
#[inline(never)]
pub(super) fn parse_common(line: &[u8], cy: &mut Cycle) -> Option<usize> {
    let mut c = Fast { s: line, pos: 0 };
    c.lit(b"gc ")?;
    cy.num = u32::try_from(c.uint()?).ok()?;
    c.lit(b" @")?;
    cy.at = c.short_decimal(9)?;
    c.lit(b"s ")?;
    cy.cum_pct = u16::try_from(c.uint()?).ok()?;
    c.lit(b"%: ")?;
    let sweep_term = c.ms()?;
    c.byte(b'+')?;
    let mark = c.ms()?;
    c.byte(b'+')?;
    let mark_term = c.ms()?;
    c.lit(b" ms clock, ")?;
    cy.clock = Clock {
        sweep_term,
        mark,
        mark_term,
    };
    let sweep_term = c.ms()?;
    c.byte(b'+')?;
    let assist = c.ms()?;
    c.byte(b'/')?;
    let background = c.ms()?;
    c.byte(b'/')?;
    let idle = c.ms()?;
    c.byte(b'+')?;
    let mark_term = c.ms()?;
    c.lit(b" ms cpu, ")?;
    cy.cpu = Cpu {
        sweep_term,
        assist,
        background,
        idle,
        mark_term,
    };
    cy.heap_start = c.mb()?;
    c.lit(b"->")?;
    cy.heap_end = c.mb()?;
    c.lit(b"->")?;
    cy.heap_live = c.mb()?;
    c.lit(b" MB")?;
    // `, N MB goal`, `, N MB stacks`, `, N MB globals` (in any order), then `, N P`.
    loop {
        c.lit(b", ")?;
        let n = c.uint()?;
        c.byte(b' ')?;
        if c.byte(b'P').is_some() {
            cy.procs = u32::try_from(n).ok()?;
            break;
        }
        c.lit(b"MB ")?;
        let bytes = n.checked_mul(1 << 20)?;
        if c.lit(b"goal").is_some() {
            cy.goal = Some(bytes);
        } else if c.lit(b"stacks").is_some() {
            cy.stacks = Some(bytes);
        } else if c.lit(b"globals").is_some() {
            cy.globals = Some(bytes);
        } else {
            return None;
        }
    }
    // The line's end, or (read from a buffer of many lines: `parse::common_line_at`) its
    // newline.
    if matches!(line.get(c.pos), None | Some(b'\n')) {
        return Some(c.pos);
    }
    c.lit(b" (forced)")?;
    cy.forced = true;
    Some(c.pos)
}

/// A byte cursor that only says whether it read what was asked.
struct Fast<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Fast<'_> {
    #[inline(always)]
    fn byte(&mut self, b: u8) -> Option<()> {
        (*self.s.get(self.pos)? == b).then(|| self.pos += 1)
    }

    #[inline(always)]
    fn lit(&mut self, lit: &[u8]) -> Option<()> {
        let here = self.s.get(self.pos..)?.get(..lit.len())?;
        (here == lit).then(|| self.pos += lit.len())
    }

    /// 1 to 19 digits (which cannot overflow a u64): their value and how many.
    #[inline(always)]
    fn digits(&mut self) -> Option<(u64, usize)> {
        let (v, n) = leading_digits(self.s.get(self.pos..)?);
        self.pos += n;
        (1..=19).contains(&n).then_some((v, n))
    }

    #[inline(always)]
    fn uint(&mut self) -> Option<u64> {
        self.digits().map(|(v, _)| v)
    }

    /// A decimal number scaled by 10^`scale` (at most 9), digits beyond `scale` decimals
    /// dropped: `Cursor::decimal`.
    #[inline(always)]
    fn decimal(&mut self, scale: usize) -> Option<u64> {
        let value = self.uint()?.checked_mul(POW10[scale])?;
        if self.byte(b'.').is_none() {
            return Some(value);
        }
        let from = self.pos;
        let (frac, _) = self.digits()?;
        value.checked_add(scaled_fraction(&self.s[from..self.pos], frac, scale))
    }

    /// `decimal`, its digits on both sides of the point read in one loop when the number is
    /// short enough that nothing can overflow (integer digits + `scale` at most 19) and has
    /// at most `scale` decimals: gctrace's times always are. Anything else is read again by
    /// `decimal`. (Two loops, a table lookup and two checked operations a number were a
    /// tenth of the parse.)
    #[inline(always)]
    fn short_decimal(&mut self, scale: usize) -> Option<u64> {
        let start = self.pos;
        let mut value: u64 = 0;
        let mut at = start;
        let whole = more_digits(self.s, &mut at, &mut value);
        let decimals = if self.s.get(at) == Some(&b'.') {
            at += 1;
            let n = more_digits(self.s, &mut at, &mut value);
            if n == 0 {
                return None;
            }
            n
        } else {
            0
        };
        if whole == 0 {
            return None;
        }
        if whole + scale > 19 || decimals > scale {
            return self.decimal(scale);
        }
        self.pos = at;
        Some(value * POW10[scale - decimals])
    }

    /// Milliseconds to ns, at most `MAX_PHASE_NS`: `Cursor::ms`.
    #[inline(always)]
    fn ms(&mut self) -> Option<u64> {
        self.short_decimal(6).filter(|&ns| ns <= MAX_PHASE_NS)
    }

    #[inline(always)]
    fn mb(&mut self) -> Option<u64> {
        self.uint()?.checked_mul(1 << 20)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::parse::parse_cycle;

    /// Every gc line of the repository's traces (traces/go and traces/wild).
    fn corpus_gc_lines() -> Vec<Vec<u8>> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../traces");
        let mut lines = Vec::new();
        for dir in ["go", "wild"] {
            let mut files: Vec<_> = std::fs::read_dir(root.join(dir))
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.is_file())
                .collect();
            files.sort();
            for f in files {
                let text = std::fs::read(&f).unwrap();
                for l in text.split(|&b| b == b'\n') {
                    if l.starts_with(b"gc ") {
                        lines.push(l.trim_ascii_end().to_vec());
                    }
                }
            }
        }
        lines
    }

    /// `line` read here, when it is, gives the full grammar's cycle and end.
    fn same_as_full(line: &[u8]) -> bool {
        let mut cy = Cycle::default();
        let Some(end) = parse_common(line, &mut cy) else {
            return false;
        };
        match parse_cycle(line, 0) {
            Ok((full, full_end)) => {
                assert_eq!(cy, full, "{}", String::from_utf8_lossy(line));
                assert_eq!(end, full_end, "{}", String::from_utf8_lossy(line));
            }
            Err(e) => panic!(
                "read here, not by the grammar ({e:?}): {}",
                String::from_utf8_lossy(line)
            ),
        }
        true
    }

    /// Over the corpus, most gc lines are read here, and each as the full grammar reads it.
    #[test]
    fn common_lines_of_the_corpus_read_as_the_full_grammar_reads_them() {
        let lines = corpus_gc_lines();
        let read = lines.iter().filter(|l| same_as_full(l)).count();
        assert!(lines.len() > 10_000, "{} gc lines", lines.len());
        // Go 1.5's lines, leak checks, lines glued to other output are the grammar's alone.
        assert!(read * 10 > lines.len() * 9, "{read} of {}", lines.len());
    }

    /// Changed lines (cut short anywhere, a byte replaced by one that matters to the grammar,
    /// a number made long) are read here only as the grammar reads them, or left to it.
    #[test]
    fn changed_lines_read_as_the_full_grammar_reads_them_or_not_at_all() {
        let lines = corpus_gc_lines();
        let mut distinct: Vec<&Vec<u8>> = lines.iter().collect();
        distinct.sort();
        distinct.dedup();
        let step = (distinct.len() / 150).max(1);
        let mut read = 0;
        let mut tried = 0;
        for line in distinct.iter().step_by(step) {
            for cut in 0..line.len() {
                tried += 1;
                read += usize::from(same_as_full(&line[..cut]));
            }
            for at in 0..line.len() {
                for b in *b"09 \t.+/-,P(#x" {
                    let mut changed = line.to_vec();
                    changed[at] = b;
                    tried += 1;
                    read += usize::from(same_as_full(&changed));
                }
            }
            // Each number replaced by one at an edge: of u16, u32, u64, 2^53 ns in ms (the
            // largest phase), 2^44 MB (the largest size), and 20 digits.
            let mut at = 0;
            while at < line.len() {
                let len = line[at..].iter().take_while(|b| b.is_ascii_digit()).count();
                if len == 0 {
                    at += 1;
                    continue;
                }
                for number in [
                    "0",
                    "65535",
                    "65536",
                    "4294967295",
                    "4294967296",
                    "9007199254",
                    "9007199255",
                    "18014398509",
                    "17592186044415",
                    "17592186044416",
                    "18446744073709551615",
                    "18446744073709551616",
                    "00000000000000000001",
                ] {
                    let mut changed = line[..at].to_vec();
                    changed.extend_from_slice(number.as_bytes());
                    changed.extend_from_slice(&line[at + len..]);
                    tried += 1;
                    read += usize::from(same_as_full(&changed));
                }
                at += len;
            }
        }
        assert!(tried > 100_000 && read > 10_000, "{read} of {tried}");
    }
}
