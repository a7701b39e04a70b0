//! The per-pointer cost of each marker's path on the 768-byte shapes, apart from the
//! collector's scheduling: tables of pointers to 768-byte objects in shuffled order (the order
//! churn leaves them in), drained by one P, marks cleared by a sweep between rounds, the two
//! markers' rounds alternating on one heap. Scalar objects are pointer-free (each table slot
//! is a pointer to a different object: a chain of misses in the span metadata); pointer
//! objects hold 96 pointers into one shared array (every pointer finds the same, hot span).
//! `cargo test --release --lib per_pointer_cost -- --ignored --nocapture` prints thread-CPU ns
//! per pointer for legacy and Green Tea at the lab's size (32 K objects) and at real Go's
//! (174,762).

use super::{GcWork, Marker, Marking, RootJob};
use crate::heap::{AtomicObjRef, Heap, ObjRef, SpanId};
use crate::rand::next_rand;
use crate::sched::{thread_cpu_ns, Sched};
use crate::workload::types;
use std::collections::HashMap;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

// Type ids in `workload::types()`.
const PTR768: u32 = 7;
const SCALAR768: u32 = 8;
const TABLE: u32 = 9;
const SHARED: u32 = 10;
const TABLE_SLOTS: usize = 1024;
const SHARED_WORDS: u64 = 1 << 20;

/// Allocates from a current span per type, as an mcache does.
fn alloc(heap: &Heap, cur: &mut HashMap<u32, SpanId>, tid: u32) -> ObjRef {
    let c = heap.class_of(tid);
    let Some(class) = c.class else {
        let o = heap.alloc_large(c.bytes, c.noscan).expect("arena");
        return heap.init_object(&o, tid);
    };
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

/// ns (thread CPU) per pointer shaded, per round, for each marker over `n` objects of type
/// `tid` (SCALAR768 or PTR768).
fn rounds(tid: u32, n: usize, rounds: usize, seed: u64) -> [Vec<f64>; 2] {
    let heap = Heap::new(4 << 30, types(), false);
    let mut cur = HashMap::new();
    let mut s = seed;
    let mut roots = Vec::new();
    let shared = (tid == PTR768).then(|| alloc(&heap, &mut cur, SHARED));
    let mut objs: Vec<ObjRef> = (0..n)
        .map(|_| {
            let o = alloc(&heap, &mut cur, tid);
            if let Some(sh) = shared {
                for k in 0..96 {
                    let off = (next_rand(&mut s) % SHARED_WORDS) as u32;
                    heap.store(o.word(k), sh.word(off).to_word());
                }
            }
            o
        })
        .collect();
    for i in (1..objs.len()).rev() {
        let j = (next_rand(&mut s) % (i as u64 + 1)) as usize;
        objs.swap(i, j);
    }
    roots.extend(shared);
    for chunk in objs.chunks(TABLE_SLOTS) {
        let t = alloc(&heap, &mut cur, TABLE);
        for (k, &o) in chunk.iter().enumerate() {
            heap.store(t.word(k as u32), o.to_word());
        }
        roots.push(t);
    }
    let pointers = (n + roots.len() + if shared.is_some() { n * 96 } else { 0 }) as f64;
    let slots: Arc<[AtomicObjRef]> = roots
        .iter()
        .map(|&r| {
            let slot = AtomicObjRef::default();
            slot.store(r, Relaxed);
            slot
        })
        .collect();
    let markers = [Marker::Legacy, Marker::Greentea];
    let mut out = [Vec::new(), Vec::new()];
    // This thread is the heap's only one: its "world" is one P, stopped around each
    // stop-the-world step (the drain runs with it started, as a worker's does).
    let sched = Sched::new(1);
    for r in 0..rounds * 2 {
        let m = r % 2;
        let mark = Marking::new(markers[m], 1, sched.stw_flag());
        let world = sched.stop_world();
        mark.set_roots(
            &world,
            vec![RootJob {
                slots: slots.clone(),
                start: 0,
                end: slots.len(),
            }],
        );
        world.start();
        let mut gcw = GcWork::default();
        let mut seed = 1;
        let t = thread_cpu_ns();
        mark.drain(&heap, &mut gcw, 0, &mut seed, |_| false);
        let ns = thread_cpu_ns().saturating_sub(t) as f64;
        let st = gcw.take_stats();
        // Tables and pointer objects are scanned; scalar objects and the shared array are
        // pointer-free.
        let tables = n.div_ceil(TABLE_SLOTS);
        assert_eq!(st.objs_scanned, (tables + shared.map_or(0, |_| n)) as u64);
        out[m].push(ns / pointers);
        let world = sched.stop_world();
        heap.start_sweep(&world);
        world.start();
        while heap.sweep_next().is_some() {}
    }
    out
}

#[test]
#[ignore]
fn per_pointer_cost() {
    for (name, tid) in [("scalar", SCALAR768), ("pointer", PTR768)] {
        for n in [32_768, 174_762] {
            let rs = rounds(tid, n, 41, 7);
            for (m, mut r) in rs.into_iter().enumerate() {
                r.sort_by(f64::total_cmp);
                println!(
                    "{name:>7} {n:>7} objects  {:>8}  ns/pointer median {:.2}  min {:.2}  max {:.2}",
                    ["legacy", "greentea"][m],
                    r[r.len() / 2],
                    r[0],
                    r[r.len() - 1]
                );
            }
        }
    }
}
