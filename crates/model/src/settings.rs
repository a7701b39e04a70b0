//! A lab run's settings as its label names them (`lab tree greentea GOGC=100 P=2 seed=1
//! scale=1 duration=5s`; lab traces start with `# gcscope LABEL`): what two runs must share
//! for a comparison of the markers to mean anything.

/// The settings an A/B's two sides must share, in the label's words. The marker is what an
/// A/B varies; the seed only picks one of many equal workloads.
const PAIRED: [&str; 4] = ["GOGC", "P", "scale", "duration"];

/// The words of a lab label: workload, marker, then `key=value` settings.
struct Settings<'a> {
    workload: &'a str,
    values: Vec<(&'a str, &'a str)>,
}

impl<'a> Settings<'a> {
    fn of(label: &'a str) -> Option<Settings<'a>> {
        let mut words = label.split_whitespace();
        if words.next()? != "lab" {
            return None;
        }
        let workload = words.next()?;
        let _marker = words.next()?;
        // The dashboard adds words after the settings (`· turns ≥250 ms`): only `k=v` count.
        let values = words.filter_map(|w| w.split_once('=')).collect();
        Some(Settings { workload, values })
    }

    fn get(&self, key: &str) -> Option<&'a str> {
        self.values.iter().find(|(k, _)| *k == key).map(|(_, v)| *v)
    }
}

/// How lab run `b`'s settings differ from lab run `a`'s in what an A/B must share, as
/// "workload tree vs graph", "scale 1 vs 2". Empty when they agree, when either label is not
/// a lab's, or for a setting only one label names (a trace written before it was recorded).
#[must_use]
pub fn differences(a: &str, b: &str) -> Vec<String> {
    let (Some(x), Some(y)) = (Settings::of(a), Settings::of(b)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if x.workload != y.workload {
        out.push(format!("workload {} vs {}", x.workload, y.workload));
    }
    for key in PAIRED {
        if let (Some(u), Some(v)) = (x.get(key), y.get(key)) {
            if u != v {
                out.push(format!("{key} {u} vs {v}"));
            }
        }
    }
    out
}

/// What `differences` reads of a label, as one string: two labels with the same key differ
/// alike from any third (the marker, the seed and any other word do not count). `None` for a
/// label that is not a lab's, which differs from nothing.
#[must_use]
pub fn experiment(label: &str) -> Option<String> {
    let s = Settings::of(label)?;
    let mut key = s.workload.to_string();
    for k in PAIRED {
        key.push(' ');
        key.push_str(s.get(k).map_or("-", |v| v));
    }
    Some(key)
}

/// Every difference between the labels of the runs on side A and those on side B (and
/// within each side), each said once: what makes the runs not one experiment.
pub fn mismatches<'a>(
    a: impl IntoIterator<Item = &'a str>,
    b: impl IntoIterator<Item = &'a str>,
) -> Vec<String> {
    let (a, b): (Vec<&str>, Vec<&str>) = (a.into_iter().collect(), b.into_iter().collect());
    let mut out: Vec<String> = Vec::new();
    let first = a.first().or(b.first()).copied();
    if let Some(first) = first {
        for label in a.iter().chain(&b) {
            for d in differences(first, label) {
                if !out.contains(&d) {
                    out.push(d);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marker_and_seed_may_differ_nothing_else() {
        let a = "lab tree legacy GOGC=100 P=2 seed=1 scale=1 duration=5s";
        assert!(differences(
            a,
            "lab tree greentea GOGC=100 P=2 seed=7 scale=1 duration=5s"
        )
        .is_empty());
        assert_eq!(
            differences(
                a,
                "lab graph greentea GOGC=200 P=2 seed=1 scale=2 duration=5s"
            ),
            ["workload tree vs graph", "GOGC 100 vs 200", "scale 1 vs 2"]
        );
    }

    #[test]
    fn dashboard_words_unknown_settings_and_go_labels_are_not_differences() {
        let live = "lab tree legacy GOGC=100 P=2 seed=1 scale=1 · turns ≥250 ms";
        assert!(differences(live, "lab tree greentea GOGC=100 P=2 seed=1 scale=1").is_empty());
        // Written before scale and duration were recorded: unknown, not different.
        assert!(differences("lab tree legacy GOGC=100 P=2 seed=1", live).is_empty());
        assert!(differences("go1.26 prog", live).is_empty());
    }

    #[test]
    fn mismatches_within_and_across_sides_are_said_once() {
        let l = |s: f64| format!("lab map legacy GOGC=100 P=2 seed=1 scale={s}");
        let (a, b) = ([l(1.0), l(2.0)], [l(2.0), l(1.0)]);
        assert_eq!(
            mismatches(a.iter().map(String::as_str), b.iter().map(String::as_str)),
            ["scale 1 vs 2"]
        );
    }
}
