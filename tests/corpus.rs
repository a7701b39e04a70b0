//! Every real trace under traces/: nothing that looks like a gc line is silently lost, counts
//! agree with the corpus' own index, and the parsed CPU sums agree with the program's own
//! runtime/metrics.
// Tests build their inputs from numbers they chose; the workspace's cast lints are for
// numbers read from traces.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]
// A test or bench that unwraps fails loudly, which is what it should do.
#![allow(clippy::unwrap_used)]

use gcscope_core::read as core_read;
use gcscope_core::timeline::Timeline;
use gcscope_source as source;
use regex::bytes::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("traces")
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .expect("traces dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    v.sort();
    v
}

fn all_traces() -> Vec<PathBuf> {
    let mut v = files("go", ".log");
    v.extend(files("wild", ".txt"));
    assert!(v.len() > 60, "the corpus is in traces/ ({} files)", v.len());
    v
}

fn read(p: &Path) -> Timeline {
    source::read_path(p).expect("readable")
}

fn cycle_lines(tl: &Timeline) -> BTreeSet<u64> {
    tl.runs
        .iter()
        .flat_map(|r| r.cycles.iter().map(|c| c.line))
        .collect()
}

/// Independent of the parser: a regex for "this line holds the start of a gc line".
#[test]
fn no_gc_line_is_silently_lost() {
    let gc_start = Regex::new(r"(^|[^A-Za-z0-9])gc #?[0-9]+ @[0-9]").unwrap();
    let gc_head = Regex::new(r"(^|[^A-Za-z0-9])gc ([0-9]+ @[0-9.]+s [0-9]+%)?").unwrap();
    let tail = Regex::new(r" ms clock, ").unwrap();
    let mut checked = 0;
    for path in all_traces() {
        let tl = read(&path);
        let cycles = cycle_lines(&tl);
        let problems: BTreeSet<u64> = tl.problems.iter().map(|p| p.line).collect();
        let text = std::fs::read(&path).unwrap();
        for (i, line) in text.split(|&b| b == b'\n').enumerate() {
            let no = i as u64 + 1;
            if gc_start.is_match(line) {
                checked += 1;
                assert!(
                    cycles.contains(&no) || problems.contains(&no),
                    "{}:{no}: a gc line neither parsed nor reported",
                    path.display()
                );
            } else if tail.is_match(line) {
                // The tail of a split gc line: joined to the line before, or reported.
                assert!(
                    cycles.contains(&(no - 1)) && gc_head.is_match(&text_line(&text, no - 1))
                        || problems.contains(&no),
                    "{}:{no}: a gc line tail neither joined nor reported",
                    path.display()
                );
            }
        }
    }
    assert!(checked > 4_500, "checked {checked} gc lines");
}

fn text_line(text: &[u8], no: u64) -> Vec<u8> {
    text.split(|&b| b == b'\n')
        .nth(no as usize - 1)
        .unwrap_or_default()
        .to_vec()
}

/// traces/go/INDEX.md's file table: `gc N @` lines, last N, forced.
fn index_rows() -> BTreeMap<String, (usize, u32, usize)> {
    let index = std::fs::read_to_string(root().join("go/INDEX.md")).unwrap();
    let mut rows = BTreeMap::new();
    for line in index.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // | # | file | version | GC | mode | P | GODEBUG | env | gc N @ | last N | forced | ...
        if cells.len() < 13 || !cells[2].starts_with("`go") || !cells[2].ends_with(".log`") {
            continue;
        }
        let name = cells[2].trim_matches('`').to_string();
        let (Ok(lines), Ok(last)) = (cells[9].parse(), cells[10].parse()) else {
            continue;
        };
        let forced = cells[11].parse().unwrap_or(0);
        rows.insert(name, (lines, last, forced));
    }
    rows
}

#[test]
fn cycle_counts_match_the_corpus_index() {
    let rows = index_rows();
    let mut matched = 0;
    for path in files("go", ".log") {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let Some(&(_lines, last, forced)) = rows.get(&name) else {
            continue;
        };
        let tl = read(&path);
        assert_eq!(tl.runs.len(), 1, "{name}: one process, one run");
        let run = &tl.runs[0];
        let truncated = name.contains("synthetic-truncated");
        // The truncated file's last line is cut: reported, not counted.
        let expect = if truncated { last - 1 } else { last } as usize;
        assert_eq!(run.cycles.len(), expect, "{name}: cycles");
        assert_eq!(
            run.cycles.last().unwrap().num,
            expect as u32,
            "{name}: last N"
        );
        assert_eq!(
            run.cycles.iter().filter(|c| c.forced).count(),
            forced,
            "{name}: forced"
        );
        assert_eq!(
            tl.problems.len(),
            usize::from(truncated),
            "{name}: problems {:?}",
            tl.problems
        );
        matched += 1;
    }
    assert!(matched >= 40, "matched {matched} index rows");
}

#[test]
fn split_lines_are_stitched() {
    let tl = read(&root().join("go/go1.27.3_greentea_scalar_p2_combined2to1.log"));
    assert_eq!(tl.cycle_count(), 107);
    let nums: Vec<u32> = tl.runs[0].cycles.iter().map(|c| c.num).collect();
    assert_eq!(nums, (1..=107).collect::<Vec<_>>());
    let stitched = tl.note_count(gcscope_model::NoteKind::Stitched);
    assert_eq!(stitched, 6, "107 cycles, 101 whole gc lines");
    assert!(tl.problems.is_empty(), "{:?}", tl.problems);
    // The program's lines that landed inside gc lines are kept as output.
    assert!(tl
        .output
        .iter()
        .any(|l| l.text.starts_with("[gcwork] progress") && l.line == 240));
}

/// traces/wild/SOURCES.md: gc lines, scvg, GC forced and (forced) per file.
#[test]
fn wild_logs_match_their_sources_table() {
    use gcscope_model::NoteKind;
    let sources = std::fs::read_to_string(root().join("wild/SOURCES.md")).unwrap();
    let mut matched = 0;
    for line in sources.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 13 || !cells[1].starts_with('`') {
            continue;
        }
        let name = cells[1].trim_matches('`');
        let num = |i: usize| cells[i].parse::<usize>().unwrap();
        let (gc, old, scvg, scav, pacer, gc_forced, forced) =
            (num(5), num(6), num(7), num(8), num(9), num(10), num(11));
        let tl = read(&root().join("wild").join(name));
        let cycles = tl.cycle_count();
        assert_eq!(cycles, gc, "{name}: cycles");
        assert_eq!(old, 0);
        assert_eq!(tl.note_count(NoteKind::Scvg), scvg, "{name}: scvg");
        assert_eq!(tl.note_count(NoteKind::Scav), scav, "{name}: scav");
        assert_eq!(tl.note_count(NoteKind::Pacer), pacer, "{name}: pacer");
        assert_eq!(
            tl.note_count(NoteKind::GcForced),
            gc_forced,
            "{name}: GC forced"
        );
        let f: usize = tl
            .runs
            .iter()
            .map(|r| r.cycles.iter().filter(|c| c.forced).count())
            .sum();
        assert_eq!(f, forced, "{name}: (forced)");
        assert!(tl.problems.is_empty(), "{name}: {:?}", tl.problems);
        matched += 1;
    }
    assert_eq!(matched, 13);
}

#[test]
fn go_run_restarts_are_separate_runs() {
    let tl = read(&root().join("wild/052_tebeka-gctrace-map.gctrace-gorun-restarts.txt"));
    let sizes: Vec<usize> = tl.runs.iter().map(|r| r.cycles.len()).collect();
    assert_eq!(sizes, vec![18, 2, 2, 73]);
    assert!(tl.runs[1..].iter().all(|r| r.restart.is_some()));
}

#[test]
fn go_1_5_five_phase_log() {
    let tl = read(&root().join("wild/001_gcvis-go15-stderr-log.txt"));
    assert_eq!(tl.cycle_count(), 130);
    assert!(tl.runs[0].cycles.iter().all(|c| c.go15.is_some()));
}

/// Sum of the gctrace CPU fields vs the program's own runtime/metrics, per recorded log.
/// Tolerance found: the trace is 0.95-1.0 of the metric for assist, background and idle (each
/// printed value is truncated to 2 significant digits, and work after the last printed cycle
/// is only in the metric); never above it by more than rounding.
#[test]
fn cpu_sums_match_runtime_metrics() {
    let mut compared = 0;
    let mut worst: f64 = 1.0;
    for meta in files("go", ".metrics.json") {
        let log = PathBuf::from(meta.to_string_lossy().replace(".metrics.json", ".log"));
        let json: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&meta).unwrap()).unwrap();
        let tl = read(&log);
        let cycles: Vec<_> = tl.runs.iter().flat_map(|r| r.cycles.iter()).collect();
        let num_gc = json["memstats"]["NumGC"].as_u64().unwrap() as usize;
        // A cycle may have ended after the program wrote its sidecar, never before.
        assert!(
            cycles.len() == num_gc || cycles.len() == num_gc + 1,
            "{}: {} cycles, NumGC {num_gc}",
            log.display(),
            cycles.len()
        );
        let m = &json["metrics"];
        let Some(assist) = m["/cpu/classes/gc/mark/assist:cpu-seconds"].as_f64() else {
            continue; // Go 1.19 has no CPU classes.
        };
        let sum = |f: fn(&gcscope_model::Cycle) -> u64| {
            cycles.iter().map(|c| f(c)).sum::<u64>() as f64 / 1e9
        };
        for (what, trace, metric) in [
            ("assist", sum(|c| c.cpu.assist), assist),
            (
                "background",
                sum(|c| c.cpu.background),
                m["/cpu/classes/gc/mark/dedicated:cpu-seconds"]
                    .as_f64()
                    .unwrap(),
            ),
            (
                "idle",
                sum(|c| c.cpu.idle),
                m["/cpu/classes/gc/mark/idle:cpu-seconds"].as_f64().unwrap(),
            ),
        ] {
            if metric < 0.05 {
                assert!((trace - metric).abs() < 0.01, "{}: {what}", log.display());
                continue;
            }
            let ratio = trace / metric;
            worst = worst.min(ratio);
            assert!(
                (0.95..=1.005).contains(&ratio),
                "{}: {what} trace {trace:.4} s vs metric {metric:.4} s",
                log.display()
            );
        }
        compared += 1;
    }
    assert!(compared >= 40, "compared {compared}");
    eprintln!("worst trace/metric ratio: {worst:.3}");
}

/// An independent reading of the same lines (a regex, float arithmetic) agrees with
/// `summary --json`.
#[test]
fn summary_json_matches_an_independent_reading() {
    let re = Regex::new(
        r"gc (\d+) @([\d.]+)s (\d+)%: ([\d.]+)\+([\d.]+)\+([\d.]+) ms clock, ([\d.]+)\+([\d.]+)/([\d.]+)/([\d.]+)\+([\d.]+) ms cpu, (\d+)->(\d+)->(\d+) MB, (\d+) MB goal.* (\d+) P( \(forced\))?",
    )
    .unwrap();
    let bin = env!("CARGO_BIN_EXE_gcscope");
    for name in [
        "go/go1.27.3_greentea_tree_p2_r1.log",
        "go/go1.21.13_legacy_map_p2_r1.log",
        "go/go1.27.3_greentea_tree_p2_forced.log",
        "wild/041_GCViewer-testres-go1.19-zero-times-stacks.txt",
    ] {
        let path = root().join(name);
        let out = std::process::Command::new(bin)
            .args(["summary", "--json"])
            .arg(&path)
            .output()
            .unwrap();
        assert!(out.status.success());
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let run = &j["runs"][0];
        let text = std::fs::read(&path).unwrap();
        let (mut n, mut forced, mut assist, mut bg, mut idle, mut mark) =
            (0, 0, 0.0, 0.0, 0.0, 0.0);
        let mut pauses = Vec::new();
        for caps in re.captures_iter(&text) {
            let f = |i: usize| -> f64 { std::str::from_utf8(&caps[i]).unwrap().parse().unwrap() };
            n += 1;
            forced += usize::from(caps.get(17).is_some());
            assist += f(8);
            bg += f(9);
            idle += f(10);
            mark += f(5);
            pauses.push(f(4) + f(6));
        }
        let close = |a: f64, b: &serde_json::Value| (a - b.as_f64().unwrap()).abs() < 1e-6;
        assert_eq!(run["cycles"].as_u64().unwrap(), n, "{name}");
        assert_eq!(run["forced"].as_u64().unwrap(), forced as u64, "{name}");
        assert!(close(assist, &run["cpu_ms"]["assist"]), "{name} assist");
        assert!(close(bg, &run["cpu_ms"]["background"]), "{name} background");
        assert!(close(idle, &run["cpu_ms"]["idle"]), "{name} idle");
        assert!(close(mark, &run["clock_ms"]["mark"]), "{name} mark");
        let max = pauses.iter().cloned().fold(0.0, f64::max);
        assert!(close(max, &run["pause_ms"]["max"]), "{name} pause max");
        pauses.sort_by(f64::total_cmp);
        let p50 = pauses[(pauses.len() as f64 * 0.5).ceil() as usize - 1];
        let got = run["pause_ms"]["p50"].as_f64().unwrap();
        // hdrhistogram keeps 2 significant digits: within 1% (or 1 µs) of the exact rank.
        assert!(
            (got - p50).abs() <= (p50 * 0.01).max(0.001),
            "{name}: p50 {got} vs {p50}"
        );
    }
}

#[test]
fn gctrace2_page_scan_density_matches_the_index() {
    // INDEX.md: objects per span visit over the run, Go 1.27.3 Green Tea.
    for (shape, expect) in [
        ("graph", 113.5),
        ("tree", 49.3),
        ("map", 12.6),
        ("scalar", 2.6),
        ("pointer", 1.0),
    ] {
        let tl = read(&root().join(format!("go/go1.27.3_greentea_{shape}_p2_gctrace2.log")));
        let s = tl.runs[0].summary().unwrap();
        let scan = s.scan.expect("scan lines");
        assert_eq!(scan.collector, "green_tea");
        let d = scan.objects_per_span_visit.unwrap();
        assert!((d - expect).abs() < 0.05, "{shape}: {d}");
        let legacy = read(&root().join(format!("go/go1.27.3_legacy_{shape}_p2_gctrace2.log")));
        let ls = legacy.runs[0].summary().unwrap();
        assert_eq!(ls.scan.unwrap().collector, "legacy");
    }
}

/// Large files are mapped and classified in place; streams are split and copied. Both paths
/// must build the same timeline.
#[test]
fn mapped_and_streamed_reads_agree() {
    for path in all_traces() {
        let bytes = std::fs::read(&path).unwrap();
        let streamed = core_read::read_all(&bytes[..]).unwrap();
        let mapped = core_read::read_bytes_into(&bytes, Timeline::default());
        let name = path.display();
        assert_eq!(streamed.runs.len(), mapped.runs.len(), "{name}");
        for (a, b) in streamed.runs.iter().zip(&mapped.runs) {
            assert_eq!(a.cycles, b.cycles, "{name}");
        }
        assert_eq!(streamed.output, mapped.output, "{name}");
        assert_eq!(streamed.notes, mapped.notes, "{name}");
        assert_eq!(streamed.problems, mapped.problems, "{name}");
    }
}

/// Where two timelines first differ (a whole-timeline `assert_eq!` would print megabytes).
fn first_difference(a: &Timeline, b: &Timeline) -> Option<String> {
    if a.runs.len() != b.runs.len() {
        return Some(format!("{} runs, not {}", a.runs.len(), b.runs.len()));
    }
    for (i, (x, y)) in a.runs.iter().zip(&b.runs).enumerate() {
        if x != y {
            return Some(format!(
                "run {i}: first line {} / {}, restart {:?} / {:?}, {} / {} cycles, stats equal: {}",
                x.first_line,
                y.first_line,
                x.restart,
                y.restart,
                x.stats.cycles(),
                y.stats.cycles(),
                x.stats == y.stats
            ));
        }
    }
    for (what, same) in [
        ("output", a.output == b.output),
        ("notes", a.notes == b.notes),
        ("problems", a.problems == b.problems),
        ("end", a.source == b.source),
    ] {
        if !same {
            return Some(format!("{what} differ"));
        }
    }
    None
}

/// A large file is cut into pieces read side by side, each on its own thread, and put back
/// together. For every file, cut into 2 to 16 pieces, with and without per-cycle records, the
/// timeline is exactly the one a single reader makes: runs (and their statistics), cycles,
/// output, notes and problems, line numbers included.
#[test]
fn pieces_read_side_by_side_agree_with_one_reader() {
    let (mut pieces_total, mut again_total) = (0, 0);
    let mut paths = all_traces();
    // The lab's logs hold `lab:` lines, which a piece cannot always renumber.
    paths.extend(files("lab", ".log"));
    for path in paths {
        let bytes = std::fs::read(&path).unwrap();
        for drop_cycles in [false, true] {
            let prepared = || Timeline {
                drop_cycles,
                ..Timeline::default()
            };
            let whole = core_read::read_all_into(&bytes[..], prepared()).unwrap();
            for pieces in [2, 3, 7, 16] {
                let (tl, count) = core_read::read_bytes_in_pieces(&bytes, prepared(), pieces);
                if let Some(d) = first_difference(&tl, &whole) {
                    panic!("{} in {pieces} pieces: {d}", path.display());
                }
                pieces_total += count.read - 1;
                again_total += count.read_again;
            }
        }
    }
    // Most cuts join (a cut after a split gc line, or before a cycle that goes to another
    // process's run, is read again): otherwise the side-by-side reading gains nothing.
    println!("{again_total} of {pieces_total} pieces after the first read again");
    assert!(
        again_total * 10 < pieces_total,
        "{again_total} of {pieces_total} read again"
    );
}

/// The speed benchmark's input (assets/bench/speed.sh) is the recorded logs one after another:
/// many processes, the counter restarting, split lines, gctrace=2 scan lines. Cut into pieces,
/// every piece joins.
#[test]
fn concatenated_logs_join_without_reading_again() {
    let mut bytes = Vec::new();
    for path in files("go", ".log") {
        if path.to_string_lossy().contains("synthetic") {
            continue;
        }
        bytes.extend_from_slice(&std::fs::read(&path).unwrap());
        if bytes.last() != Some(&b'\n') {
            bytes.push(b'\n');
        }
    }
    let whole = core_read::read_all(&bytes[..]).unwrap();
    for pieces in [2, 5, 11] {
        let (tl, count) = core_read::read_bytes_in_pieces(&bytes, Timeline::default(), pieces);
        assert_eq!(first_difference(&tl, &whole), None, "{pieces} pieces");
        assert_eq!(count.read, pieces);
        assert_eq!(count.read_again, 0, "{pieces} pieces");
    }
}

/// The dashboard holds a run's cycles packed in gctrace's units (`CycleStore`): every cycle of
/// every real trace either packs or is one that cannot (Go 1.5's extra phases, gctrace=2's
/// scan counters, the lab's fields), so the 76-byte record is what real logs cost. And a packed
/// cycle reads back as its line parsed on its own gives it, field for field.
#[test]
fn every_plain_gc_line_of_the_corpus_is_stored_packed() {
    use gcscope_core::trace::parse;
    let mut compared = 0;
    for path in all_traces() {
        let tl = read(&path);
        let text = std::fs::read(&path).unwrap();
        let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
        for run in &tl.runs {
            let cannot = run
                .cycles
                .iter()
                .filter(|c| c.go15.is_some() || c.scan.is_some() || c.lab.is_some())
                .count();
            assert_eq!(
                run.cycles.whole_count(),
                cannot,
                "{}: cycles kept whole that could pack",
                path.display()
            );
            let packed = run
                .cycles
                .iter()
                .filter(|c| c.scan.is_none() && c.lab.is_none());
            for stored in packed {
                let Some(line) = usize::try_from(stored.line - 1)
                    .ok()
                    .and_then(|i| lines.get(i))
                else {
                    continue;
                };
                // A line the runtime's own output interleaved with is stitched from several.
                if let parse::Line::Cycle { cycle, .. } = parse::parse_line(line) {
                    let mut alone = *cycle;
                    alone.line = stored.line;
                    assert_eq!(alone, *stored, "{}:{}", path.display(), stored.line);
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 10_000, "{compared} cycles compared");
}
