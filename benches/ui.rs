//! Dashboard speed with a 1,000,000-cycle trace: time to the first frame (read + summary +
//! draw), the time of one frame at 200x50, all cycles in view (downsampled), and of a zoom
//! and a jump; and the load as the event loop does it while a file streams in (batches of
//! events, a refresh and a frame every 33 ms), at 1M cycles and, with GCSCOPE_BENCH_10M=1,
//! at 10M (about 1 GB of memory). GCSCOPE_BENCH_TRACE=1 prints each refresh's time.
// A test or bench that unwraps fails loudly, which is what it should do.
#![allow(clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, Criterion};
use gcscope_core::read as core_read;
use gcscope_model::Event;
use gcscope_tui::app::{App, Pane};
use gcscope_tui::keys::Action;
use gcscope_tui::view::{self, Theme};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::time::Instant;

const CYCLES: usize = 1_000_000;

/// One process's 1,000,000 gc lines: a real run's lines, renumbered and re-timed in order.
fn trace_text() -> Vec<u8> {
    trace_of(CYCLES)
}

/// `trace_text` of `cycles` lines.
fn trace_of(cycles: usize) -> Vec<u8> {
    let real = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/traces/go/go1.27.3_greentea_tree_p2_r1.log"
    ))
    .expect("trace");
    let tails: Vec<&str> = real
        .lines()
        .filter_map(|l| l.split_once("%: ").map(|(_, t)| t))
        .collect();
    let mut out = String::with_capacity(cycles * 150);
    for i in 0..cycles {
        let tail = tails[i % tails.len()];
        out.push_str(&format!(
            "gc {} @{}.{:03}s 29%: {tail}\n",
            i + 1,
            i / 10,
            (i % 10) * 100
        ));
    }
    out.into_bytes()
}

fn load(text: &[u8]) -> App {
    let mut p = Pane::new("1M", false);
    p.timeline = core_read::read_all(text).expect("in memory");
    let mut app = App::new(vec![p]);
    app.apply(
        gcscope_model::SourceId::from_index(0),
        Event::End { error: None },
    );
    app.refresh();
    app
}

/// The dashboard's load of `text` as its event loop does it: the source's events applied in
/// batches, with a refresh and a frame at 200x50 every 33 ms; seconds in all and in frames.
fn streamed_load(text: &[u8]) -> (f64, f64, usize) {
    // As the dashboard opens a file: told at most how many cycles can come.
    let mut pane = Pane::new("streamed", false);
    pane.timeline.cycles_hint = gcscope_source::cycles_hint_of(text.len());
    let mut app = App::new(vec![pane]);
    let mut term = Terminal::new(TestBackend::new(200, 50)).expect("backend");
    let mut dec = gcscope_core::trace::Decoder::new();
    let mut events = Vec::new();
    let t0 = Instant::now();
    let (mut frames, mut in_frames) = (0, 0.0);
    let mut last = Instant::now();
    let id = gcscope_model::SourceId::from_index(0);
    let mut frame = |app: &mut App, in_frames: &mut f64| {
        let f0 = Instant::now();
        app.refresh();
        if std::env::var_os("GCSCOPE_BENCH_TRACE").is_some() {
            eprintln!("refresh {:.1} ms", f0.elapsed().as_secs_f64() * 1e3);
        }
        term.draw(|f| view::draw(f, app, Theme { color: true }))
            .expect("draw");
        *in_frames += f0.elapsed().as_secs_f64();
    };
    for chunk in text.chunks(64 * 1024) {
        dec.push(chunk, &mut |e| events.push(e));
        for e in events.drain(..) {
            app.apply(id, e);
        }
        if last.elapsed().as_millis() >= 33 {
            frame(&mut app, &mut in_frames);
            frames += 1;
            last = Instant::now();
        }
    }
    dec.finish(&mut |e| events.push(e));
    for e in events.drain(..) {
        app.apply(id, e);
    }
    app.apply(id, Event::End { error: None });
    frame(&mut app, &mut in_frames);
    (t0.elapsed().as_secs_f64(), in_frames, frames + 1)
}

fn bench(c: &mut Criterion) {
    let sizes: &[usize] = if std::env::var_os("GCSCOPE_BENCH_10M").is_some() {
        &[CYCLES, 10 * CYCLES]
    } else {
        eprintln!("streamed load at 10M cycles: skipped (GCSCOPE_BENCH_10M=1 runs it)");
        &[CYCLES]
    };
    for &n in sizes {
        let (all, frames, count) = streamed_load(&trace_of(n));
        eprintln!(
            "streamed load of {n} cycles: {all:.2} s, of which {frames:.2} s in {count} frames"
        );
    }
    let text = trace_text();
    let t0 = Instant::now();
    let app = load(&text);
    let mut term = Terminal::new(TestBackend::new(200, 50)).expect("backend");
    term.draw(|f| view::draw(f, &app, Theme { color: true }))
        .expect("draw");
    eprintln!(
        "first frame with {} cycles: {:.0} ms (parse, summary, draw)",
        app.panes[0].timeline.cycle_count(),
        t0.elapsed().as_secs_f64() * 1e3
    );
    let cycles = &app.panes[0].timeline.runs[0].cycles;
    eprintln!(
        "memory per cycle: {} B in the run's CycleStore ({} B a Cycle record; a run's \
         statistics are bounded past 16,384 cycles)",
        cycles.heap_bytes() / cycles.len().max(1),
        std::mem::size_of::<gcscope_model::Cycle>()
    );
    let mut g = c.benchmark_group("dashboard");
    g.sample_size(20);
    g.bench_function("frame_200x50_1M_cycles", |b| {
        b.iter(|| {
            term.draw(|f| view::draw(f, &app, Theme { color: true }))
                .expect("draw");
        })
    });
    // A zoom in and back out, and a jump to the start and back to the end: each refreshes
    // the series over the window they show.
    let mut app = app;
    g.bench_function("zoom_in_out_1M_cycles", |b| {
        b.iter(|| {
            for a in [Action::ZoomIn, Action::ZoomOut] {
                app.act(a);
                app.refresh();
            }
        })
    });
    g.bench_function("jump_start_end_1M_cycles", |b| {
        b.iter(|| {
            for a in [Action::Start, Action::End] {
                app.act(a);
                app.refresh();
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
