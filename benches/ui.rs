//! Dashboard speed with a 1,000,000-cycle trace: time to the first frame (read + summary +
//! draw) and the time of one frame at 200x50, all cycles in view (downsampled).
// A test or bench that unwraps fails loudly, which is what it should do.
#![allow(clippy::unwrap_used)]

use criterion::{criterion_group, criterion_main, Criterion};
use gcscope_core::read as core_read;
use gcscope_model::Event;
use gcscope_tui::app::{App, Pane};
use gcscope_tui::view::{self, Theme};
use ratatui::backend::TestBackend;
use ratatui::Terminal;
use std::time::Instant;

const CYCLES: usize = 1_000_000;

/// One process's 1,000,000 gc lines: a real run's lines, renumbered and re-timed in order.
fn trace_text() -> Vec<u8> {
    let real = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/traces/go/go1.27.3_greentea_tree_p2_r1.log"
    ))
    .expect("trace");
    let tails: Vec<&str> = real
        .lines()
        .filter_map(|l| l.split_once("%: ").map(|(_, t)| t))
        .collect();
    let mut out = String::with_capacity(CYCLES * 150);
    for i in 0..CYCLES {
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

fn bench(c: &mut Criterion) {
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
    eprintln!(
        "memory per cycle: {} B Cycle record + 56 B running statistics",
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
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
