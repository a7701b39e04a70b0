//! Heap-shape workloads from seeds 000 and 001 (and the recorder in traces/go/recorder):
//! the same object sizes and pointer layouts, scaled to a lab-sized heap.
//!
//! A workload runs in bounded steps (one per P quantum) and keeps every reference it needs
//! across steps reachable from a root slot or from the heap: references in Rust locals never
//! outlive a step, which is what makes cooperative safepoints sound. Inside a step it polls
//! `Ctx::safepoint` every node visit or allocation of a long operation, where every reference
//! it holds is reachable from a root slot or the heap (a node of a rooted tree nobody changes,
//! an element of a rooted table), so the world stops within microseconds, not at the end of
//! a step (a tree check walks up to 64 K nodes in one).

use super::collector::Ctx;
use super::heap::{ObjRef, Type, TypeId};
use super::rand::next_rand;
use std::sync::atomic::{
    AtomicBool, AtomicU64,
    Ordering::{Acquire, Relaxed, Release},
};
use std::sync::Arc;

gcscope_model::named_enum! {
    #[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
    #[serde(rename_all = "lowercase")]
    pub enum Shape (name, from_name) {
        /// Binary trees of 16-byte nodes built, checked and dropped under a long-lived tree.
        Tree => "tree",
        /// Random access over items holding a string, a slice, a small map and a pointer to a
        /// random item; every third access replaces the item.
        Map => "map",
        /// 32-byte nodes pointing by hash into a long-lived pool of 32-byte nodes.
        Graph => "graph",
        /// 768-byte objects of 96 pointers into one shared array.
        Pointer => "pointer",
        /// 768-byte pointer-free objects.
        Scalar => "scalar",
    }
    hidden {
        /// Test workload: moves the only pointer to an object between holders during mark.
        Adversary => "adversary",
    }
}

impl Shape {
    /// Mutator threads for `procs` Ps: map runs single-threaded, as in the recorder.
    #[must_use]
    pub fn mutators(self, procs: usize) -> usize {
        match self {
            Shape::Map => 1,
            _ => procs.max(1),
        }
    }
}

// Type ids (index into `types()`).
const NODE: TypeId = 0;
const ITEM: TypeId = 1;
const STR: TypeId = 2;
const SLICE: TypeId = 3;
const HMAP: TypeId = 4;
const GROUP: TypeId = 5;
const GNODE: TypeId = 6;
const PTR768: TypeId = 7;
const SCALAR768: TypeId = 8;
const TABLE: TypeId = 9;
const SHARED: TypeId = 10;
const HOLDER: TypeId = 11;
const CHILD: TypeId = 12;
const GARBAGE: TypeId = 13;

const TABLE_SLOTS: u32 = 1024;
/// Tree check: node visits between two safepoint polls.
const CHECK_POLL: u64 = 64;
const SHARED_WORDS: u32 = 1 << 20;
const CANARY: u64 = 0x00C0_FFEE;

/// The heap types every workload draws from (sizes as Go lays the structs out).
#[must_use]
pub fn types() -> Vec<Type> {
    let t = |name, bytes, ptrs: Vec<u32>| Type { name, bytes, ptrs };
    vec![
        t("node", 16, vec![0, 1]),
        // string(ptr,len) slice(ptr,len,cap) map next id
        t("item", 64, vec![0, 2, 5, 6]),
        t("strdata", 16, vec![]),
        t("slicedata", 32, vec![]),
        t("hmap", 48, vec![2]),
        // ctrl word + 8 slots of (key ptr, key len, value); two slots used
        t("group", 208, vec![1, 4]),
        t("gnode", 32, vec![0, 1]),
        t("ptr768", 768, (0..96).collect()),
        t("scalar768", 768, vec![]),
        t("table", TABLE_SLOTS * 8, (0..TABLE_SLOTS).collect()),
        t("shared", SHARED_WORDS * 8, vec![]),
        t("holder", 32, vec![0, 1]),
        t("child", 16, vec![]),
        t("garbage", 48, vec![0]),
    ]
}

/// Sizes, scaled by `--scale`.
#[derive(Debug, Clone, Copy)]
pub struct Sizes {
    pub long_depth: u32,
    pub churn_depth: u32,
    pub items: u32,
    pub pool: u32,
    pub work: u32,
    pub objects: u32,
    pub holders: u32,
}

impl Sizes {
    #[must_use]
    pub fn new(scale: f64) -> Sizes {
        let s = |n: f64| ((n * scale) as u32).max(1024);
        let d = scale.max(1.0 / 64.0).log2().round() as i32;
        Sizes {
            long_depth: (18 + d).clamp(8, 24) as u32,
            churn_depth: (14 + d).clamp(6, 20) as u32,
            items: s(200_000.0),
            pool: s(256_000.0),
            work: s(512_000.0),
            objects: s(32_768.0),
            holders: s(16_384.0),
        }
    }

    /// Global root slots a shape needs (its tables and long-lived roots).
    #[must_use]
    pub fn globals(&self, shape: Shape) -> usize {
        let tables = |n: u32| n.div_ceil(TABLE_SLOTS) as usize;
        match shape {
            Shape::Tree => 1,
            Shape::Map => tables(self.items),
            Shape::Graph => tables(self.pool) + tables(self.work),
            Shape::Pointer | Shape::Scalar => 1 + tables(self.objects),
            Shape::Adversary => tables(self.holders),
        }
    }
}

pub enum Step {
    /// Did a quantum of work.
    Ran,
    /// The run is failing (an allocation found the arena full): leave.
    Stop,
    /// Waiting for another mutator (setup not done): release the P for a while.
    Wait,
}

/// What mutators of one run share.
pub struct Shared {
    shape: Shape,
    sizes: Sizes,
    ready: AtomicBool,
    /// Work done, in the shape's unit (trees checked, accesses, replacements).
    ops: AtomicU64,
}

impl Shared {
    #[must_use]
    pub fn new(shape: Shape, sizes: Sizes) -> Arc<Shared> {
        Arc::new(Shared {
            shape,
            sizes,
            ready: AtomicBool::new(false),
            ops: AtomicU64::new(0),
        })
    }

    /// Has the long-lived heap been built (setup done)?
    pub fn ready(&self) -> bool {
        // Relaxed: for the report only (mutators use Acquire before reading the tables).
        self.ready.load(Relaxed)
    }

    /// Work done so far, in the shape's unit.
    pub fn ops(&self) -> u64 {
        self.ops.load(Relaxed)
    }
}

/// One mutator's workload state.
pub struct Mutator {
    sh: Arc<Shared>,
    rng: u64,
    setup: Option<Setup>,
    build: Option<Build>,
    n: u64,
}

enum Setup {
    Tree(Build),
    Tables { made: u32, filled: u32, linked: u32 },
}

impl Mutator {
    pub fn new(sh: Arc<Shared>, id: usize, seed: u64) -> Mutator {
        let setup = (id == 0).then(|| match sh.shape {
            Shape::Tree => Setup::Tree(Build::new(sh.sizes.long_depth, true, 0)),
            _ => Setup::Tables {
                made: 0,
                filled: 0,
                linked: 0,
            },
        });
        Mutator {
            sh,
            rng: seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ (id as u64 + 1),
            setup,
            build: None,
            n: 0,
        }
    }

    fn rand(&mut self, n: u32) -> u32 {
        (next_rand(&mut self.rng) % n.max(1) as u64) as u32
    }

    pub fn step(&mut self, ctx: &mut Ctx<'_>) -> Step {
        let ran = if self.setup.is_some() {
            self.setup_step(ctx)
        } else if !self.sh.ready.load(Acquire) {
            return Step::Wait;
        } else {
            self.churn(ctx)
        };
        match ran {
            Some(()) => Step::Ran,
            None => Step::Stop,
        }
    }

    fn churn(&mut self, ctx: &mut Ctx<'_>) -> Option<()> {
        match self.sh.shape {
            Shape::Tree => self.tree(ctx),
            Shape::Map => self.map(ctx),
            Shape::Graph => self.graph(ctx),
            Shape::Pointer => self.pointer(ctx, PTR768),
            Shape::Scalar => self.pointer(ctx, SCALAR768),
            Shape::Adversary => self.adversary(ctx),
        }
    }

    // ---- tables: arrays of 1024 pointers held by global root slots ----

    fn table_count(&self) -> (u32, u32) {
        let z = &self.sh.sizes;
        match self.sh.shape {
            Shape::Map => (z.items, 0),
            Shape::Graph => (z.pool, z.work),
            Shape::Pointer | Shape::Scalar => (z.objects, 0),
            Shape::Adversary => (z.holders, 0),
            Shape::Tree => (0, 0),
        }
    }

    /// Global slot of table `t` (after the shape's own long-lived roots).
    fn table_root(&self, t: u32) -> usize {
        let first = matches!(self.sh.shape, Shape::Pointer | Shape::Scalar) as usize;
        first + t as usize
    }

    /// The heap word holding element `i` of array `which` (0: the main one, 1: graph's work).
    fn slot(&self, ctx: &Ctx<'_>, which: u32, i: u32) -> ObjRef {
        let (a, _) = self.table_count();
        let t = if which == 0 {
            0
        } else {
            a.div_ceil(TABLE_SLOTS)
        } + i / TABLE_SLOTS;
        ctx.root(true, self.table_root(t)).word(i % TABLE_SLOTS)
    }

    fn setup_step(&mut self, ctx: &mut Ctx<'_>) -> Option<()> {
        let (a, b) = self.table_count();
        let root0 = self.table_root(0);
        let Some(setup) = self.setup.as_mut() else {
            return Some(());
        };
        match setup {
            Setup::Tree(b) => {
                if b.step(ctx, 256)? {
                    self.finish_setup();
                }
            }
            Setup::Tables {
                made,
                filled,
                linked,
            } => {
                let tables = a.div_ceil(TABLE_SLOTS) + b.div_ceil(TABLE_SLOTS);
                if *made < tables {
                    let slot = root0 + *made as usize;
                    let t = ctx.alloc(TABLE)?;
                    ctx.set_root(true, slot, t);
                    *made += 1;
                    if *made == tables && matches!(self.sh.shape, Shape::Pointer) {
                        let s = ctx.alloc(SHARED)?;
                        ctx.set_root(true, 0, s);
                    }
                    return Some(());
                }
                let (mut f, mut l) = (*filled, *linked);
                let mut budget = 64;
                while budget > 0 && f < a + b {
                    budget -= 1;
                    // Every element made so far is in its table.
                    ctx.safepoint();
                    let (which, i) = if f < a { (0, f) } else { (1, f - a) };
                    let obj = self.make(ctx, which, i)?;
                    let slot = self.slot(ctx, which, i);
                    ctx.store_ptr(slot, obj);
                    f += 1;
                }
                // Graph: link the pool to itself by hash once every node exists.
                while budget > 0 && f == a + b && self.sh.shape == Shape::Graph && l < a {
                    budget -= 1;
                    ctx.safepoint();
                    let node = ctx.load_ptr(self.slot(ctx, 0, l));
                    let (x, y) = (hash(l as u64) % a as u64, hash(!(l as u64)) % a as u64);
                    let px = ctx.load_ptr(self.slot(ctx, 0, x as u32));
                    let py = ctx.load_ptr(self.slot(ctx, 0, y as u32));
                    ctx.store_ptr(node, px);
                    ctx.store_ptr(node.word(1), py);
                    l += 1;
                }
                if let Some(Setup::Tables { filled, linked, .. }) = self.setup.as_mut() {
                    *filled = f;
                    *linked = l;
                }
                let done = f == a + b && (self.sh.shape != Shape::Graph || l == a);
                if done {
                    self.finish_setup();
                }
            }
        }
        Some(())
    }

    fn finish_setup(&mut self) {
        self.setup = None;
        // Release: other mutators read the tables built here once they see `ready`.
        self.sh.ready.store(true, Release);
    }

    /// A new element `i` of array `which`.
    fn make(&mut self, ctx: &mut Ctx<'_>, which: u32, i: u32) -> Option<ObjRef> {
        Some(match self.sh.shape {
            Shape::Map => self.make_item(ctx, i)?,
            Shape::Graph if which == 0 => {
                let n = ctx.alloc(GNODE)?;
                ctx.store_word(n.word(2), i as u64);
                n
            }
            Shape::Graph => self.make_work_node(ctx)?,
            Shape::Pointer => self.make_obj(ctx, PTR768)?,
            Shape::Scalar => self.make_obj(ctx, SCALAR768)?,
            _ => {
                let h = ctx.alloc(HOLDER)?;
                let c = ctx.alloc(CHILD)?;
                ctx.store_word(c, CANARY);
                ctx.store_ptr(h, c);
                h
            }
        })
    }

    fn make_item(&mut self, ctx: &mut Ctx<'_>, id: u32) -> Option<ObjRef> {
        let item = ctx.alloc(ITEM)?;
        let s = ctx.alloc(STR)?;
        ctx.store_ptr(item, s);
        ctx.store_word(item.word(1), 16);
        let sl = ctx.alloc(SLICE)?;
        ctx.store_ptr(item.word(2), sl);
        ctx.store_word(item.word(3), 4);
        ctx.store_word(item.word(4), 4);
        let m = ctx.alloc(HMAP)?;
        ctx.store_ptr(item.word(5), m);
        let g = ctx.alloc(GROUP)?;
        ctx.store_ptr(m.word(2), g);
        for k in [1, 4] {
            let key = ctx.alloc(STR)?;
            ctx.store_ptr(g.word(k), key);
        }
        ctx.store_word(item.word(7), id as u64 | CANARY << 32);
        let filled = self.sh.ready.load(Relaxed) || id > 0;
        if filled {
            let n = if self.sh.ready.load(Relaxed) {
                self.sh.sizes.items
            } else {
                id
            };
            let other = self.rand(n);
            let o = ctx.load_ptr(self.slot(ctx, 0, other));
            ctx.store_ptr(item.word(6), o);
        }
        Some(item)
    }

    fn make_work_node(&mut self, ctx: &mut Ctx<'_>) -> Option<ObjRef> {
        let pool = self.sh.sizes.pool;
        let n = ctx.alloc(GNODE)?;
        let (x, y) = (self.rand(pool), self.rand(pool));
        let px = ctx.load_ptr(self.slot(ctx, 0, x));
        let py = ctx.load_ptr(self.slot(ctx, 0, y));
        ctx.store_ptr(n, px);
        ctx.store_ptr(n.word(1), py);
        Some(n)
    }

    fn make_obj(&mut self, ctx: &mut Ctx<'_>, ty: TypeId) -> Option<ObjRef> {
        let o = ctx.alloc(ty)?;
        if ty == PTR768 {
            let shared = ctx.root(true, 0);
            for k in 0..96 {
                let off = self.rand(SHARED_WORDS);
                ctx.store_ptr(o.word(k), shared.word(off));
            }
        } else {
            for k in 0..96 {
                let v = next_rand(&mut self.rng);
                ctx.store_word(o.word(k), v >> 1);
            }
        }
        Some(o)
    }

    // ---- churn ----

    fn tree(&mut self, ctx: &mut Ctx<'_>) -> Option<()> {
        let depth = self.sh.sizes.churn_depth + (self.n % 2) as u32;
        let b = self
            .build
            .get_or_insert_with(|| Build::new(depth, false, 0));
        if !b.step(ctx, 256)? {
            return Some(());
        }
        let d = b.depth;
        self.build = None;
        // Check: walk the tree and count its nodes (a freed or reused node breaks the count).
        let root = ctx.root(false, 0);
        let mut stack = vec![root];
        let mut count = 0u64;
        while let Some(r) = stack.pop() {
            if r.is_nil() {
                continue;
            }
            count += 1;
            if count.is_multiple_of(CHECK_POLL) {
                // The nodes on `stack` are in the tree, rooted in stack slot 0, which
                // nobody changes until the check is done.
                ctx.safepoint();
            }
            stack.push(ctx.load_ptr(r));
            stack.push(ctx.load_ptr(r.word(1)));
        }
        if count != (1u64 << (d + 1)) - 1 {
            ctx.bad_deref();
        }
        ctx.set_root(false, 0, ObjRef::NIL);
        self.n += 1;
        self.sh.ops.fetch_add(1, Relaxed);
        Some(())
    }

    fn map(&mut self, ctx: &mut Ctx<'_>) -> Option<()> {
        let n = self.sh.sizes.items;
        for _ in 0..24 {
            ctx.safepoint();
            let i = self.rand(n);
            let slot = self.slot(ctx, 0, i);
            let item = ctx.load_ptr(slot);
            if item.is_nil() || ctx.load_word(item.word(7)) != (i as u64 | CANARY << 32) {
                ctx.bad_deref();
                continue;
            }
            self.n += 1;
            if self.n.is_multiple_of(3) {
                let new = self.make_item(ctx, i)?;
                // Keep retention chains bounded, as the recorder does.
                let old = ctx.load_ptr(slot);
                ctx.store_ptr(old.word(6), ObjRef::NIL);
                ctx.store_ptr(slot, new);
            }
        }
        self.sh.ops.fetch_add(24, Relaxed);
        Some(())
    }

    fn graph(&mut self, ctx: &mut Ctx<'_>) -> Option<()> {
        let w = self.sh.sizes.work;
        for _ in 0..48 {
            ctx.safepoint();
            let i = self.rand(w);
            let node = self.make_work_node(ctx)?;
            let slot = self.slot(ctx, 1, i);
            ctx.store_ptr(slot, node);
        }
        self.sh.ops.fetch_add(48, Relaxed);
        Some(())
    }

    fn pointer(&mut self, ctx: &mut Ctx<'_>, ty: TypeId) -> Option<()> {
        let n = self.sh.sizes.objects;
        for _ in 0..4 {
            ctx.safepoint();
            let i = self.rand(n);
            let o = self.make_obj(ctx, ty)?;
            let slot = self.slot(ctx, 0, i);
            ctx.store_ptr(slot, o);
        }
        self.sh.ops.fetch_add(4, Relaxed);
        Some(())
    }

    /// During mark, move the only pointer to a child from one holder into another holder's
    /// spare slot and delete the original: a lost object unless the barrier shades it.
    fn adversary(&mut self, ctx: &mut Ctx<'_>) -> Option<()> {
        let n = self.sh.sizes.holders;
        for _ in 0..8 {
            let g = ctx.alloc(GARBAGE)?;
            ctx.store_word(g.word(1), 1);
        }
        for _ in 0..32 {
            ctx.safepoint();
            let (i, j) = (self.rand(n), self.rand(n));
            let hi = ctx.load_ptr(self.slot(ctx, 0, i));
            let hj = ctx.load_ptr(self.slot(ctx, 0, j));
            if hi.is_nil() || hj.is_nil() {
                ctx.bad_deref();
                continue;
            }
            for from in [hi, hi.word(1)] {
                let c = ctx.load_ptr(from);
                if !c.is_nil() && ctx.load_word(c) != CANARY {
                    ctx.bad_deref();
                }
            }
            let c = ctx.load_ptr(hi);
            if !c.is_nil() && ctx.load_ptr(hj.word(1)).is_nil() {
                ctx.store_ptr(hj.word(1), c);
                ctx.store_ptr(hi, ObjRef::NIL);
            } else if c.is_nil() {
                // Bring a child back so there is always something to move.
                let s = ctx.load_ptr(hj.word(1));
                if !s.is_nil() {
                    ctx.store_ptr(hi, s);
                    ctx.store_ptr(hj.word(1), ObjRef::NIL);
                }
            }
        }
        self.sh.ops.fetch_add(32, Relaxed);
        Some(())
    }
}

/// A binary tree built top-down a few nodes per step: every node is linked into the tree
/// (rooted in a root slot) as soon as it exists, so nothing is held only by Rust locals.
struct Build {
    depth: u32,
    global: bool,
    slot: usize,
    path: Vec<(ObjRef, u8)>,
    started: bool,
}

impl Build {
    fn new(depth: u32, global: bool, slot: usize) -> Build {
        Build {
            depth,
            global,
            slot,
            path: Vec::with_capacity(depth as usize + 1),
            started: false,
        }
    }

    /// Builds up to `budget` nodes; true when the tree is complete.
    fn step(&mut self, ctx: &mut Ctx<'_>, mut budget: u32) -> Option<bool> {
        if !self.started {
            let n = ctx.alloc(NODE)?;
            ctx.set_root(self.global, self.slot, n);
            self.path.push((n, 0));
            self.started = true;
            budget -= 1;
        }
        while let Some(&(node, next)) = self.path.last() {
            if self.path.len() as u32 > self.depth || next >= 2 {
                self.path.pop();
                continue;
            }
            if budget == 0 {
                return Some(false);
            }
            budget -= 1;
            // Every node made so far is linked into the tree, rooted in a root slot.
            ctx.safepoint();
            let c = ctx.alloc(NODE)?;
            ctx.store_ptr(node.word(next as u32), c);
            if let Some(top) = self.path.last_mut() {
                top.1 += 1;
            }
            self.path.push((c, 0));
        }
        Some(true)
    }
}

fn hash(x: u64) -> u64 {
    let mut s = x;
    next_rand(&mut s)
}
