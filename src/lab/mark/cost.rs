//! The per-pointer cost of each marker's path on the scalar shape, apart from the collector's
//! scheduling: tables of pointers to 768-byte pointer-free objects in shuffled order (the
//! order churn leaves them in), drained by one P, marks cleared by a sweep between rounds.
//! `cargo test --release --lib per_pointer_cost -- --ignored --nocapture` prints ns per pointer
//! for legacy and Green Tea at the lab's size (32 K objects) and at real Go's (174,762).

use super::{GcWork, Marker, Marking, RootJob};
use crate::lab::heap::{AtomicObjRef, Heap, ObjRef, SpanId};
use crate::lab::sched::thread_cpu_ns;
use crate::lab::workload::types;
use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

// Type ids in `workload::types()`.
const SCALAR768: u32 = 8;
const TABLE: u32 = 9;
const TABLE_SLOTS: usize = 1024;

/// Allocates from a current span per type, as an mcache does.
fn alloc(heap: &Heap, cur: &mut HashMap<u32, SpanId>, tid: u32) -> ObjRef {
    let c = heap.class_of(tid);
    let class = c.class.expect("small");
    loop {
        if let Some(&s) = cur.get(&tid) {
            if let Some(o) = heap.next_free(s) {
                return heap.init_object(&o, tid);
            }
        }
        let s = heap.new_span(class, c.noscan, 0).expect("arena");
        cur.insert(tid, s);
    }
}

/// ns (thread CPU) per pointer shaded, per round, for each marker over `n` objects: one heap,
/// the markers' rounds alternating on it.
fn rounds(n: usize, rounds: usize, seed: u64) -> [Vec<f64>; 2] {
    let heap = Heap::new(4 << 30, types(), false);
    let mut cur = HashMap::new();
    let mut objs: Vec<ObjRef> = (0..n).map(|_| alloc(&heap, &mut cur, SCALAR768)).collect();
    let mut s = seed;
    for i in (1..objs.len()).rev() {
        let j = (crate::lab::rand::next_rand(&mut s) % (i as u64 + 1)) as usize;
        objs.swap(i, j);
    }
    let tables: Arc<[AtomicObjRef]> = objs
        .chunks(TABLE_SLOTS)
        .map(|chunk| {
            let t = alloc(&heap, &mut cur, TABLE);
            for (k, &o) in chunk.iter().enumerate() {
                heap.store(t.word(k as u32), o.to_word());
            }
            let slot = AtomicObjRef::default();
            slot.store(t, Relaxed);
            slot
        })
        .collect();
    let markers = [Marker::Legacy, Marker::Greentea];
    let mut out = [Vec::new(), Vec::new()];
    for r in 0..rounds * 2 {
        let m = r % 2;
        let mark = Marking::new(markers[m], 1, Default::default());
        mark.set_roots(vec![RootJob {
            slots: tables.clone(),
            start: 0,
            end: tables.len(),
        }]);
        let mut gcw = GcWork::default();
        let mut seed = 1;
        let t = thread_cpu_ns();
        mark.drain(&heap, &mut gcw, 0, &mut seed, |_| false);
        let ns = thread_cpu_ns().saturating_sub(t) as f64;
        let st = gcw.take_stats();
        assert_eq!(st.bytes_marked, (n * 768 + tables.len() * 9472) as u64);
        out[m].push(ns / (n + tables.len()) as f64);
        heap.start_sweep();
        while heap.sweep_next().is_some() {}
    }
    out
}

#[test]
#[ignore]
fn per_pointer_cost() {
    for n in [32_768, 174_762] {
        let rs = rounds(n, 41, 7);
        for (m, mut r) in rs.into_iter().enumerate() {
            r.sort_by(f64::total_cmp);
            println!(
                "{n:>7} objects  {:>8}  ns/pointer median {:.1}  min {:.1}  max {:.1}",
                ["legacy", "greentea"][m],
                r[r.len() / 2],
                r[0],
                r[r.len() - 1]
            );
        }
    }
}
