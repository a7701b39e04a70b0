//! Parser and summary throughput on real lines.
//!
//! The input is every `.log` under traces/go concatenated and repeated to 200,000 lines (the
//! real mix of gc, scan:, pacer:, scav and program lines). Throughput is reported per line; the
//! whole-command comparison with grep and Python is assets/bench/speed.sh.
// A test or bench that unwraps fails loudly, which is what it should do.
#![allow(clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use gcscope_core::read as core_read;
use gcscope_core::timeline::Run;
use gcscope_core::trace::parse;
use std::hint::black_box;

const LINES: usize = 200_000;

fn corpus() -> Vec<u8> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/traces/go");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .expect("traces/go exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .filter(|p| !p.to_string_lossy().contains("synthetic"))
        .collect();
    names.sort();
    let mut one = Vec::new();
    for n in names {
        let mut b = std::fs::read(&n).expect("readable trace");
        if b.last() != Some(&b'\n') {
            b.push(b'\n');
        }
        one.extend_from_slice(&b);
    }
    let lines: Vec<&[u8]> = one.split_inclusive(|&b| b == b'\n').collect();
    let mut out = Vec::new();
    for l in lines.iter().cycle().take(LINES) {
        out.extend_from_slice(l);
    }
    out
}

fn bench(c: &mut Criterion) {
    let data = corpus();
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    let mut g = c.benchmark_group("trace");
    g.throughput(Throughput::Elements(LINES as u64));
    g.sample_size(20);
    g.bench_function("parse_line", |b| {
        b.iter(|| {
            let mut cycles = 0usize;
            for l in &lines {
                if matches!(parse::parse_line(l), parse::Line::Cycle { .. }) {
                    cycles += 1;
                }
            }
            black_box(cycles)
        })
    });
    // The building half alone (the reader's cross-line logic and the timeline), on lines
    // classified beforehand: the part that stays on one thread.
    let classified: Vec<parse::Line> = lines.iter().map(|l| parse::parse_line(l)).collect();
    g.bench_function("build", |b| {
        // The input vector and the timeline are freed outside the timing.
        b.iter_batched_ref(
            || classified.clone(),
            |parsed| {
                let mut tl = gcscope_core::timeline::Timeline {
                    drop_cycles: true,
                    ..Default::default()
                };
                let mut reader = gcscope_core::trace::reader::Reader::new();
                let mut sink = |e| tl.apply(e);
                for (i, (line, p)) in lines.iter().zip(parsed.drain(..)).enumerate() {
                    let raw = gcscope_core::trace::lines::RawLine {
                        no: i as u64 + 1,
                        bytes: line,
                        dropped: 0,
                    };
                    reader.classified(raw, p, &mut sink);
                }
                reader.finish(&mut sink);
                tl
            },
            criterion::BatchSize::LargeInput,
        )
    });
    // A stream: one thread, through the Decoder.
    g.bench_function("read_all", |b| {
        b.iter(|| black_box(core_read::read_all(&data[..]).map(|t| t.cycle_count())))
    });
    // A file's bytes: one piece per core, joined (16 MB, so as many pieces as cores).
    g.bench_function("read_bytes_into", |b| {
        b.iter(|| {
            black_box(
                core_read::read_bytes_into(&data, gcscope_core::timeline::Timeline::default())
                    .cycle_count(),
            )
        })
    });
    let tl = core_read::read_all(&data[..]).expect("in-memory read");
    g.bench_function("summaries", |b| {
        b.iter(|| {
            black_box(
                tl.runs
                    .iter()
                    .filter_map(Run::summary)
                    .map(|s| s.cycles)
                    .sum::<usize>(),
            )
        })
    });
    g.finish();

    // gc lines only (one process's, as a long-running program prints them): the parse alone.
    let gc_only: Vec<&[u8]> = lines
        .iter()
        .copied()
        .filter(|l| {
            l.starts_with(b"gc ") && matches!(parse::parse_line(l), parse::Line::Cycle { .. })
        })
        .collect();
    let mut g = c.benchmark_group("gc_lines");
    g.throughput(Throughput::Elements(gc_only.len() as u64));
    g.sample_size(20);
    g.bench_function("parse_line", |b| {
        b.iter(|| {
            let mut procs = 0u64;
            for l in &gc_only {
                if let parse::Line::Cycle { cycle, .. } = parse::parse_line(l) {
                    procs += u64::from(cycle.procs);
                }
            }
            black_box(procs)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
