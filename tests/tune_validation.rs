//! `gcscope tune` against runs the fit never saw: fit one GOGC=100 run, predict the recorded
//! runs of the same program at other GOGC values and under memory limits, and score each
//! figure against the GC guide's formula as the baseline to beat (docs/TUNE.md quotes the
//! tables: `cargo test --release --test tune_validation -- --nocapture`; with `TUNE_ABS=1`
//! each case's predicted and measured figures too, tab-separated).
//!
//! Corpora: traces/go/pacer/ (the recorder's five shapes, GOGC 25-400 and limits, recorded on
//! a loaded machine), traces/go/tune/ (real programs nobody here wrote, gofmt and
//! encoding/json's benchmark, each built for both collectors, 3 runs a setting, recorded on a
//! quiet machine: the model was developed against these two) and traces/go/tune-holdout/
//! (two more standard-library benchmarks, recorded after the model was frozen and scored
//! once: the part no choice was made on), traces/go/tune-holdout2/ (index/suffixarray,
//! recorded and scored once the same way, the model unchanged), tune-holdout3/ and
//! tune-holdout4/ (the recorder's shapes at new sizes, each recorded after a change and scored
//! once: tune-holdout4 is the part held out from the model as it is).
//!
//! "The same work": each recorded run did its own amount of work (the pacer sweep scales
//! its iterations with GOGC), so a measured run's cycles and GC P time are scaled to the fit
//! run's MiB allocated (the sum over cycles of h1_N - h2_{N-1}, as the model counts work).
//! Targets (the issue's): cycles within 20 %, peak heap within 15 %, compulsory GC P time
//! within 25 %, each on at least three cases in four.
#![allow(clippy::unwrap_used, clippy::cast_precision_loss)]

use gcscope_core::stats::tune::{self, fit, Setting};
use gcscope_model::Cycle;
use std::path::{Path, PathBuf};

fn dir(sub: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("traces/go")
        .join(sub)
}

/// The main run of a trace: its last process.
fn cycles(path: &Path) -> (Vec<Cycle>, Option<gcscope_core::stats::pacer::PacerSummary>) {
    let tl = gcscope_source::read_path(path).unwrap();
    let run = tl.runs.iter().rev().find(|r| !r.cycles.is_empty()).unwrap();
    (
        run.cycles.clone().into_iter().collect(),
        run.summary().and_then(|s| s.pacer),
    )
}

/// What a recorded run measured, for the work it did.
struct Measured {
    cycles: f64,
    cpu_s: f64,
    peak: f64,
    work: f64,
}

fn measure(c: &[Cycle]) -> Measured {
    let (_, work) = fit::pairs(&gcscope_model::CycleStore::from(c.to_vec()).all());
    Measured {
        cycles: c.len() as f64,
        cpu_s: c.iter().map(|c| c.compulsory_cpu() as f64 / 1e9).sum(),
        peak: c
            .iter()
            .map(|c| c.heap_end as f64 / fit::MIB)
            .fold(0.0, f64::max),
        work,
    }
}

/// One case: a fit trace, the target traces (the runs of one setting: the median of their
/// figures is the measurement), the target's setting.
struct Case {
    group: String,
    fit: PathBuf,
    targets: Vec<PathBuf>,
    setting: Setting,
    /// Fit on the run's lines from a third of the way in, as a log that starts mid-run.
    mid_run: bool,
}

fn pacer_cases() -> Vec<Case> {
    let d = dir("pacer");
    let mut out = Vec::new();
    for shape in ["tree", "graph", "pointer", "scalar", "map"] {
        let fit = d.join(format!("sweep_{shape}_gogc100.log"));
        for g in [25, 50, 200, 400] {
            out.push(Case {
                group: format!("{shape} (pacer corpus)"),
                fit: fit.clone(),
                targets: vec![d.join(format!("sweep_{shape}_gogc{g}.log"))],
                setting: Setting {
                    gogc: Some(g),
                    limit_mib: None,
                },
                mid_run: false,
            });
        }
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            let prefix = format!("limit_{shape}_gogc100_lim");
            if let Some(rest) = name.strip_prefix(&prefix) {
                let mib: String = rest.chars().take_while(char::is_ascii_digit).collect();
                if rest.ends_with(".log") {
                    out.push(Case {
                        group: format!("{shape} (pacer corpus)"),
                        fit: fit.clone(),
                        targets: vec![p.clone()],
                        setting: Setting {
                            gogc: Some(100),
                            limit_mib: Some(mib.parse().unwrap()),
                        },
                        mid_run: false,
                    });
                }
            }
        }
    }
    out
}

/// `traces/go/<sub>/labels.tsv`: each GOGC=100 run without a limit of a program x collector is
/// a fit; the targets are its other settings, each measured as the median of its runs (2-3).
fn tune_cases_in(sub: &str) -> Vec<Case> {
    let d = dir(sub);
    let Ok(text) = std::fs::read_to_string(d.join("labels.tsv")) else {
        return Vec::new();
    };
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let rows: Vec<Vec<String>> = lines
        .filter(|l| !l.is_empty())
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    let key = |r: &Vec<String>| {
        (
            r[col("program")].clone(),
            r[col("collector")].clone(),
            r[col("gogc")].clone(),
            r[col("limit_mib")].clone(),
        )
    };
    let mut settings: Vec<(String, String, String, String)> = rows.iter().map(key).collect();
    settings.sort();
    settings.dedup();
    let mut out = Vec::new();
    for fit in rows
        .iter()
        .filter(|r| r[col("gogc")] == "100" && r[col("limit_mib")] == "-")
    {
        for k in &settings {
            let same_program = k.0 == fit[col("program")] && k.1 == fit[col("collector")];
            if !same_program || (k.2 == "100" && k.3 == "-") {
                continue;
            }
            out.push(Case {
                group: format!("{} {} fit r{}", k.0, k.1, fit[col("rep")]),
                fit: d.join(&fit[col("file")]),
                targets: rows
                    .iter()
                    .filter(|r| key(r) == *k)
                    .map(|r| d.join(&r[col("file")]))
                    .collect(),
                setting: Setting {
                    gogc: k.2.parse().ok(),
                    limit_mib: k.3.parse().ok(),
                },
                mid_run: false,
            });
        }
    }
    out
}

/// The GC guide's model: heap = live + (live + roots) x GOGC/100, capped by a limit; cycles
/// and GC CPU inversely proportional to the runway (heap - live), i.e. to GOGC.
fn guide(fit_cycles: &[Cycle], own: &Measured, s: Setting) -> (f64, f64, f64) {
    let live = fit_cycles
        .iter()
        .map(|c| c.heap_live as f64 / fit::MIB)
        .fold(0.0, f64::max);
    let roots = fit_cycles.last().map_or(0.0, |c| {
        (c.stacks.unwrap_or(0) + c.globals.unwrap_or(0)) as f64 / fit::MIB
    });
    let heap = |g: f64| live + (live + roots) * g / 100.0;
    let mut peak = heap(f64::from(s.gogc.unwrap_or(100)));
    if let Some(l) = s.limit_mib {
        peak = peak.min(l);
    }
    let runway = (peak - live).max(0.05 * live);
    let ratio = (heap(100.0) - live) / runway;
    (own.cycles * ratio, own.cpu_s * ratio, peak)
}

/// The machine's 1-minute load average while a recorded run ran (the mean of before and
/// after, from traces/go/pacer/runs.tsv and the labels.tsv of traces/go/tune*/), by file
/// name.
fn loads() -> std::collections::HashMap<String, f64> {
    let mut out = std::collections::HashMap::new();
    for (sub, file) in [
        ("pacer", "runs.tsv"),
        ("tune", "labels.tsv"),
        ("tune-holdout", "labels.tsv"),
        ("tune-holdout2", "labels.tsv"),
        ("tune-holdout3", "labels.tsv"),
        ("tune-holdout4", "labels.tsv"),
    ] {
        let Ok(text) = std::fs::read_to_string(dir(sub).join(file)) else {
            continue;
        };
        let mut lines = text.lines();
        let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
        let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
        for l in lines.filter(|l| !l.is_empty()) {
            let c: Vec<&str> = l.split('\t').collect();
            let (b, a): (f64, f64) = (
                c[col("load1_before")].parse().unwrap(),
                c[col("load1_after")].parse().unwrap(),
            );
            out.insert(c[col("file")].to_string(), (a + b) / 2.0);
        }
    }
    out
}

fn err(pred: f64, meas: f64) -> f64 {
    pred / meas - 1.0
}

/// One part's score: per figure (cycles, peak heap, compulsory GC P time where the load
/// matched), cases within target for the model and for the guide, and the cases.
#[derive(Default)]
struct Score {
    n: u32,
    model: [u32; 3],
    guide: [u32; 3],
    cpu_n: u32,
}

impl Score {
    fn line(&self, part: &str) -> String {
        format!(
            "| {part} | {} | {}/{} vs {} | {}/{} vs {} | {}/{} vs {} |",
            self.n,
            self.model[0],
            self.n,
            self.guide[0],
            self.model[1],
            self.n,
            self.guide[1],
            self.model[2],
            self.cpu_n,
            self.guide[2]
        )
    }
}

/// Score `cases`, adding their rows to `table`.
fn score(cases: &[Case], table: &mut String, refused: &mut Vec<String>) -> Score {
    // GC P time counts a worker's time while descheduled: on a machine loaded differently it
    // measures the load. It is scored where every target run's load average was within 1.0
    // of the fit run's (a rule fixed before scoring); cycles and heap everywhere.
    let loads = loads();
    let load_of = |p: &Path| {
        loads
            .get(&p.file_name().unwrap().to_string_lossy().into_owned())
            .copied()
    };
    let mut sc = Score::default();
    let target = [0.20, 0.15, 0.25];
    for c in cases {
        let (mut fc, mut fp) = cycles(&c.fit);
        if c.mid_run {
            // A log whose first third is missing: the pacer read back from what is left.
            fc.drain(..fc.len() / 3);
            let mut pacer = gcscope_core::stats::pacer::PacerStats::default();
            for c in &fc {
                pacer.push(c);
            }
            fp = Some(pacer.summary());
        }
        let own = measure(&fc);
        let t = match tune::tune(
            &gcscope_model::CycleStore::from(fc.clone()).all(),
            fp.as_ref(),
            &[c.setting],
        ) {
            Ok(t) => t,
            Err(e) => {
                refused.push(format!("{}: fit refused: {e}", c.fit.display()));
                continue;
            }
        };
        let p = &t.predictions[0];
        if let Some(why) = &p.refused {
            refused.push(format!("{} {}: {why}", c.group, c.setting.label()));
            continue;
        }
        // Each target run's cycles and GC P time for the fit run's work; the median of the runs.
        let runs: Vec<Measured> = c.targets.iter().map(|t| measure(&cycles(t).0)).collect();
        let median = |f: &dyn Fn(&Measured) -> f64| {
            let mut v: Vec<f64> = runs.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            let n = v.len();
            if n % 2 == 1 {
                v[n / 2]
            } else {
                (v[n / 2 - 1] + v[n / 2]) / 2.0
            }
        };
        let mc = median(&|m| m.cycles * own.work / m.work);
        let mcpu = median(&|m| m.cpu_s * own.work / m.work);
        let mpeak = median(&|m| m.peak);
        let (gc, gcpu, gpeak) = guide(&fc, &own, c.setting);
        let model = [
            err(p.cycles, mc),
            err(p.peak_heap_mb, mpeak),
            err(p.compulsory_gc_cpu_s, mcpu),
        ];
        let base = [err(gc, mc), err(gpeak, mpeak), err(gcpu, mcpu)];
        sc.n += 1;
        for i in 0..2 {
            sc.model[i] += u32::from(model[i].abs() <= target[i]);
            sc.guide[i] += u32::from(base[i].abs() <= target[i]);
        }
        let same_load = load_of(&c.fit).is_some_and(|f| {
            c.targets
                .iter()
                .all(|t| load_of(t).is_some_and(|l| (l - f).abs() <= 1.0))
        });
        if same_load {
            sc.cpu_n += 1;
            sc.model[2] += u32::from(model[2].abs() <= target[2]);
            sc.guide[2] += u32::from(base[2].abs() <= target[2]);
        }
        if std::env::var_os("TUNE_ABS").is_some() {
            eprintln!(
                "ABS\t{}\t{}\tcyc {:.0} {:.0}\tpeak {:.0} {:.0}\tcpu {:.2} {:.2}",
                c.group,
                c.setting.label(),
                p.cycles,
                mc,
                p.peak_heap_mb,
                mpeak,
                p.compulsory_gc_cpu_s,
                mcpu
            );
        }
        let f = |i: usize| format!("{:+.0}% / {:+.0}%", model[i] * 100.0, base[i] * 100.0);
        *table += &format!(
            "| {} | {} | {} | {} | {}{} |\n",
            c.group,
            c.setting.label(),
            f(0),
            f(1),
            f(2),
            if same_load { "" } else { " (load differs)" }
        );
    }
    sc
}

/// The parts: the recorder's shapes on a loaded machine, the real programs the model was
/// developed against, and real programs recorded after the model was frozen (the held-out
/// part, traces/go/tune-holdout/, never used to choose anything).
#[test]
fn tune_predicts_runs_it_never_saw_better_than_the_guides_formula() {
    let parts = [
        (
            "traces/go/pacer (recorder shapes, loaded machine)",
            pacer_cases(),
        ),
        (
            "traces/go/tune (gofmt, encoding/json)",
            tune_cases_in("tune"),
        ),
        (
            "traces/go/tune-holdout (held out)",
            tune_cases_in("tune-holdout"),
        ),
        (
            "traces/go/tune-holdout2 (held out, a second time)",
            tune_cases_in("tune-holdout2"),
        ),
        (
            "traces/go/tune-holdout3 (held out, a third time: recorder shapes, new sizes)",
            tune_cases_in("tune-holdout3"),
        ),
        (
            "traces/go/tune-holdout4 (held out, a fourth time: recorder shapes, new sizes)",
            tune_cases_in("tune-holdout4"),
        ),
        (
            "traces/go/tune-holdout4, each fit from a third of the way in (a log that starts mid-run)",
            tune_cases_in("tune-holdout4")
                .into_iter()
                .map(|c| Case {
                    group: format!("{} (mid-run)", c.group),
                    mid_run: true,
                    ..c
                })
                .collect(),
        ),
    ];
    let mut table = String::from(
        "| case | setting | cycles (model / guide) | peak heap | compulsory GC P time |\n|---|---|---|---|---|\n",
    );
    let mut refused = Vec::new();
    let mut summary = String::from(
        "| part | cases | cycles within 20 %: model vs guide | peak heap within 15 % | compulsory GC P time within 25 % (load-matched cases) |\n|---|---|---|---|---|\n",
    );
    let mut scores = Vec::new();
    for (name, cases) in &parts {
        let sc = score(cases, &mut table, &mut refused);
        summary += &sc.line(name);
        summary.push('\n');
        scores.push(sc);
    }
    eprintln!("{table}");
    eprintln!("{summary}");
    refused.dedup();
    for r in &refused {
        eprintln!("refused: {r}");
    }
    // The parts the model was developed on: cycles and GC P time at the three in
    // four; the peak heap at two in three (docs/TUNE.md: it reaches 89 of 119, short of the
    // issue's 3 in 4, and says where it fails).
    let dev = Score {
        n: scores[0].n + scores[1].n,
        model: [0, 1, 2].map(|i| scores[0].model[i] + scores[1].model[i]),
        guide: [0, 1, 2].map(|i| scores[0].guide[i] + scores[1].guide[i]),
        cpu_n: scores[0].cpu_n + scores[1].cpu_n,
    };
    assert!(dev.n >= 100, "{} cases", dev.n);
    assert!(4 * dev.model[0] >= 3 * dev.n, "cycles: {}", dev.line("dev"));
    assert!(
        3 * dev.model[1] >= 2 * dev.n,
        "peak heap: {}",
        dev.line("dev")
    );
    assert!(dev.cpu_n >= 20, "{} load-matched cases", dev.cpu_n);
    assert!(
        4 * dev.model[2] >= 3 * dev.cpu_n,
        "GC P time: {}",
        dev.line("dev")
    );
    // The part held out from the model at dfc16a0 (tune-holdout4, scored once: cycles
    // 48/54, peak heap 48/54, GC P time 42/54): the three in four on each figure, kept
    // from here on as a guard (it is no longer held out once a change is made looking at it).
    let held = &scores[5];
    assert!(held.n >= 50, "{} held-out cases", held.n);
    for i in 0..2 {
        assert!(
            4 * held.model[i] >= 3 * held.n,
            "figure {i}: {}",
            held.line("held out")
        );
    }
    assert!(
        4 * held.model[2] >= 3 * held.cpu_n,
        "GC P time: {}",
        held.line("held out")
    );
    // And better than the guide's formula on every figure.
    for i in 0..3 {
        assert!(
            dev.model[i] > dev.guide[i],
            "figure {i}: {}",
            dev.line("dev")
        );
    }
}
