//! `summary --json` and `compare --json`: stable field names (docs/SUMMARY.md).

use super::{side_of, Source, Spool};
use crate::stats::compare::{self, Row, Side};
use crate::stats::summary::RunSummary;
use crate::timeline::RetiredRun;
use gcscope_model::NoteKind;
use serde::Serialize;
use std::collections::BTreeMap;

/// `summary --json`. Runs and problems are serialised as they are summarised, straight from
/// the timelines: the document is never held whole in memory.
#[derive(Serialize)]
pub struct SummaryJson<'a> {
    /// The steady-state window the figures are of (`--from-cycle`, `--after`); null: whole runs.
    pub window: Option<WindowJson>,
    pub runs: Runs<'a>,
    /// What each run's numbers say (docs/FINDINGS.md), most severe first within a run.
    pub findings: Findings<'a>,
    pub problems: Problems<'a>,
    pub notes: BTreeMap<&'static str, usize>,
    pub sources: Vec<SourceJson<'a>>,
}

/// Every run of every source, summarised one at a time while it is written.
pub struct Runs<'a>(&'a [Source]);

/// Every problem of every source.
pub struct Problems<'a>(&'a [Source]);

/// Every finding of every run, with the run it is of.
pub struct Findings<'a>(&'a [Source]);

#[derive(Serialize)]
pub struct FindingJson<'a> {
    pub source: &'a str,
    /// 1-based run number within its source, as in `runs[]`.
    pub run: usize,
    #[serde(flatten)]
    pub finding: crate::stats::findings::Finding,
}

impl Serialize for Findings<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().flat_map(|src| {
            numbered(src).flat_map(move |(i, summary)| {
                summary
                    .findings
                    .into_iter()
                    .map(move |finding| FindingJson {
                        source: &src.name,
                        run: i,
                        finding,
                    })
            })
        }))
    }
}

#[derive(Serialize)]
pub struct RunJson<'a> {
    pub source: &'a str,
    /// 1-based run number within its source (among the runs with cycles).
    pub run: usize,
    #[serde(flatten)]
    pub summary: RunSummary,
}

#[derive(Serialize)]
pub struct ProblemJson<'a> {
    pub source: &'a str,
    pub line: u64,
    pub reason: &'a str,
}

#[derive(Serialize)]
pub struct SourceJson<'a> {
    pub source: &'a str,
    pub runs: usize,
    pub cycles: usize,
    /// Cycles read before the window and left out of every figure.
    pub before_window: usize,
    pub output_lines: usize,
    pub problems: usize,
}

/// A source's runs with cycles still held, with their 1-based numbers, summarised one at a
/// time as they are written: thousands of runs' summaries are never held together.
fn numbered(src: &Source) -> impl Iterator<Item = (usize, RunSummary)> + '_ {
    src.timeline.numbered_summaries()
}

impl Serialize for Runs<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().flat_map(|src| {
            numbered(src).map(|(i, summary)| RunJson {
                source: &src.name,
                run: i,
                summary,
            })
        }))
    }
}

impl Serialize for Problems<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().flat_map(|src| {
            src.timeline.problems.iter().map(|p| ProblemJson {
                source: &src.name,
                line: p.line,
                reason: &p.reason,
            })
        }))
    }
}

/// `--from-cycle` and `--after` as JSON: `{from_cycle, after_s}`, each null when not given.
#[derive(Serialize)]
pub struct WindowJson {
    pub from_cycle: Option<u32>,
    pub after_s: Option<f64>,
}

/// The sources' window (one for the whole command), or `None` for whole runs.
fn window_json(sources: &[Source]) -> Option<WindowJson> {
    let w = sources.first()?.timeline.window;
    (!w.is_whole()).then(|| WindowJson {
        from_cycle: w.from_cycle,
        after_s: w.after_ns.map(|t| t as f64 / 1e9),
    })
}

#[must_use]
pub fn summary_json(sources: &[Source]) -> SummaryJson<'_> {
    let mut notes: BTreeMap<&'static str, usize> =
        NoteKind::ALL.iter().map(|k| (k.name(), 0)).collect();
    for s in sources {
        for kind in NoteKind::ALL {
            *notes.entry(kind.name()).or_default() += s.timeline.note_count(kind);
        }
    }
    SummaryJson {
        window: window_json(sources),
        runs: Runs(sources),
        findings: Findings(sources),
        problems: Problems(sources),
        notes,
        sources: sources
            .iter()
            .map(|s| SourceJson {
                source: &s.name,
                runs: s.timeline.run_count(),
                cycles: s.timeline.cycle_count(),
                before_window: s.timeline.before_window(),
                output_lines: s.timeline.output_count(),
                problems: s.timeline.problems.len(),
            })
            .collect(),
    }
}

/// The elements of `summary --json`'s `runs` and `findings` for a source's retired runs
/// (`Timeline::retire`), as that document has them.
#[derive(Default)]
pub struct JsonSpools {
    pub runs: Spool,
    pub findings: Spool,
}

/// Adds a retired run of `source` to its spools (`write_summary_json_after`).
pub fn retired_run_json(r: &RetiredRun, source: &str, spools: &mut JsonSpools) {
    let (Some(run), Some(summary)) = (r.number, r.summary()) else {
        return;
    };
    for finding in summary.findings.iter().cloned() {
        let f = FindingJson {
            source,
            run,
            finding,
        };
        spools.findings.push(&element(&f));
    }
    spools.runs.push(&element(&RunJson {
        source,
        run,
        summary,
    }));
}

/// An element of an array one level into the document, as `to_writer_pretty` writes it
/// there, with the comma before it.
fn element(v: &impl Serialize) -> Vec<u8> {
    let mut out = b",\n    ".to_vec();
    pretty_at(v, 4, &mut out);
    out
}

/// `v` pretty-printed as it is `indent` spaces into a pretty document: JSON strings hold no
/// raw newline, so each newline of it is followed by the indent.
fn pretty_at(v: &impl Serialize, indent: usize, out: &mut Vec<u8>) {
    // Every value here serialises (string keys only); a failure would be a bug, shown as null.
    let text = serde_json::to_vec_pretty(v).unwrap_or_else(|_| b"null".to_vec());
    for &b in &text {
        out.push(b);
        if b == b'\n' {
            out.extend(std::iter::repeat_n(b' ', indent));
        }
    }
}

/// A spool as a writer, to copy one spool into another.
struct SpoolWriter<'a>(&'a mut Spool);

impl std::io::Write for SpoolWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.push(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// `summary --json` (the document `summary_json` serialises pretty, byte for byte), with
/// each source's retired runs (`retired[k]` for source `k`) before its runs still held.
pub fn write_summary_json_after(
    sources: &[Source],
    retired: &mut [JsonSpools],
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    for s in retired.iter() {
        s.runs.check()?;
        s.findings.check()?;
    }
    let doc = summary_json(sources);
    let mut o = b"{\n  \"window\": ".to_vec();
    pretty_at(&doc.window, 2, &mut o);
    o.extend_from_slice(b",\n  \"runs\": [");
    out.write_all(&o)?;
    // One pass: each run is summarised once, its element written and its findings' spooled
    // for the array after (elements carry their comma; the first leaves it out).
    let mut any = false;
    let mut findings = Spool::default();
    for (k, src) in sources.iter().enumerate() {
        if let Some(spool) = retired.get_mut(k) {
            if !spool.runs.is_empty() {
                spool.runs.copy_to(out, u64::from(!any))?;
                any = true;
            }
            spool.findings.copy_to(&mut SpoolWriter(&mut findings), 0)?;
        }
        for (run, summary) in numbered(src) {
            for finding in summary.findings.iter().cloned() {
                findings.push(&element(&FindingJson {
                    source: &src.name,
                    run,
                    finding,
                }));
            }
            let e = element(&RunJson {
                source: &src.name,
                run,
                summary,
            });
            out.write_all(&e[usize::from(!any)..])?;
            any = true;
        }
    }
    out.write_all(if any { b"\n  ]" } else { b"]" })?;
    out.write_all(b",\n  \"findings\": [")?;
    findings.check()?;
    let any = !findings.is_empty();
    findings.copy_to(out, 1)?;
    out.write_all(if any { b"\n  ]" } else { b"]" })?;
    let mut o = b",\n  \"problems\": ".to_vec();
    pretty_at(&doc.problems, 2, &mut o);
    o.extend_from_slice(b",\n  \"notes\": ");
    pretty_at(&doc.notes, 2, &mut o);
    o.extend_from_slice(b",\n  \"sources\": ");
    pretty_at(&doc.sources, 2, &mut o);
    o.extend_from_slice(b"\n}");
    out.write_all(&o)
}

#[derive(Serialize)]
pub struct CompareJson {
    /// The steady-state window the figures are of; null: whole runs.
    pub window: Option<WindowJson>,
    pub a: Vec<String>,
    pub b: Vec<String>,
    pub a_runs: usize,
    pub b_runs: usize,
    /// Runs on a loaded machine, so their wall-clock figures moved with the load: lab runs
    /// whose mark segments spent over `LOADED_SHARE` of their wall time off the CPU, programs
    /// (`ab`, or a log recorded with its `runs.tsv`) while other processes used over
    /// `LOADED_CPUS` CPUs. Null when no run of the side had its load measured: unknown, not 0.
    pub a_loaded_runs: Option<usize>,
    pub b_loaded_runs: Option<usize>,
    /// How the lab runs' settings differ beyond the marker (`gcscope_model::settings`), e.g.
    /// "scale 1 vs 2": not one experiment. Empty for Go traces.
    pub mismatch: Vec<String>,
    pub metrics: Vec<Row>,
    /// A side had more than `dist::EXACT_CAP` runs: its medians, ranges' inner ranks and
    /// p-values come from bins of at most 2^-10 of their values (`stats::dist`). Written
    /// only when true.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub binned: bool,
    /// Each finding either side has: in how many of each side's runs (docs/FINDINGS.md).
    pub findings: Vec<FindingCount>,
}

#[derive(Serialize)]
pub struct FindingCount {
    pub id: &'static str,
    pub a_runs: usize,
    pub b_runs: usize,
}

fn finding_counts(a: &Side, b: &Side) -> Vec<FindingCount> {
    let mut out: Vec<FindingCount> = Vec::new();
    for (side, runs) in [(0, a), (1, b)] {
        // A run counts once per id, however many times its rule names it (`Side`).
        for &(id, n) in runs.findings() {
            let at = match out.iter().position(|c| c.id == id) {
                Some(i) => i,
                None => {
                    out.push(FindingCount {
                        id,
                        a_runs: 0,
                        b_runs: 0,
                    });
                    out.len() - 1
                }
            };
            if side == 0 {
                out[at].a_runs += n;
            } else {
                out[at].b_runs += n;
            }
        }
    }
    out.sort_by_key(|c| c.id);
    out
}

#[must_use]
pub fn compare_json(a: &[Source], b: &[Source]) -> CompareJson {
    let (sa, sb) = (side_of(a), side_of(b));
    CompareJson {
        window: window_json(a),
        a: a.iter().map(|s| s.name.clone()).collect(),
        b: b.iter().map(|s| s.name.clone()).collect(),
        a_runs: sa.runs(),
        b_runs: sb.runs(),
        a_loaded_runs: sa.loaded_runs(),
        b_loaded_runs: sb.loaded_runs(),
        mismatch: gcscope_model::settings::mismatches(sa.labels(), sb.labels()),
        metrics: compare::compare_sides(&sa, &sb),
        binned: !(sa.is_exact() && sb.is_exact()),
        findings: finding_counts(&sa, &sb),
    }
}
