//! A program's own figure in its output (`--metric NAME=REGEX`): the number in the regex's
//! first capture group, on the last line it matches. The published A/Bs put the
//! application's throughput beside the GC figures; this is how gcscope reads it.

use regex::Regex;

#[derive(Debug, Clone)]
pub struct UserMetric {
    pub name: String,
    re: Regex,
}

impl UserMetric {
    /// `NAME=REGEX`: NAME is a word (letters, digits, `_`, `-`, `.`, `/`); REGEX has a
    /// capture group around the number. (That NAME is not one of gcscope's own figures is
    /// the command line's check: the names live in `stats`.)
    pub fn parse(spec: &str) -> Result<UserMetric, String> {
        let Some((name, re)) = spec.split_once('=') else {
            return Err(format!(
                "--metric {spec:?}: expected NAME=REGEX, e.g. 'ops=([0-9.]+) ops/s'"
            ));
        };
        let word = |c: char| c.is_ascii_alphanumeric() || "_-./".contains(c);
        if name.is_empty() || !name.chars().all(word) {
            return Err(format!(
                "--metric {spec:?}: the name {name:?} must be a word (letters, digits, _ - . /)"
            ));
        }
        let re = Regex::new(re).map_err(|e| format!("--metric {name}: {e}"))?;
        if re.captures_len() < 2 {
            return Err(format!(
                "--metric {name}: the regex needs a capture group around the number, e.g. '([0-9.]+) ops/s'"
            ));
        }
        Ok(UserMetric {
            name: name.to_string(),
            re,
        })
    }

    /// The number this line gives, if the regex matches it and group 1 reads as one
    /// (thousands separators `,` and `_` allowed).
    #[must_use]
    pub fn capture(&self, line: &str) -> Option<f64> {
        let caps = self.re.captures(line)?;
        let text: String = caps
            .get(1)?
            .as_str()
            .chars()
            .filter(|c| !matches!(c, ',' | '_'))
            .collect();
        text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
    }

    /// The figure of a run: the last line that gives one.
    pub fn last_in<'a>(&self, lines: impl DoubleEndedIterator<Item = &'a str>) -> Option<f64> {
        lines.rev().find_map(|l| self.capture(l))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_matching_line_gives_the_figure() {
        let m = UserMetric::parse(r"ops=([0-9.,]+) ops/s").unwrap();
        let lines = ["warm 1,000 ops/s", "10,500.5 ops/s", "done", "n/a ops/s"];
        assert_eq!(m.last_in(lines.iter().copied()), Some(10500.5));
        assert_eq!(m.capture("nothing here"), None);
    }

    #[test]
    fn bad_specs_say_what_is_wrong() {
        for (spec, says) in [
            ("ops", "expected NAME=REGEX"),
            ("=x(1)", "must be a word"),
            ("a b=(1)", "must be a word"),
            ("ops=[0-9]+", "capture group"),
            ("ops=(", "ops"),
        ] {
            let e = UserMetric::parse(spec).unwrap_err();
            assert!(e.contains(says), "{spec}: {e}");
        }
    }

    #[test]
    fn a_group_that_is_not_a_number_gives_nothing() {
        let m = UserMetric::parse(r"rate=rate: (\S+)").unwrap();
        assert_eq!(m.capture("rate: fast"), None);
        assert_eq!(m.capture("rate: inf"), None);
        assert_eq!(m.capture("rate: 1e3"), Some(1000.0));
    }
}
