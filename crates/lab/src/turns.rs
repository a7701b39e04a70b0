//! Fair A/B on a small machine: two lab runs take turns instead of competing for the same
//! cores. A side runs alone for at least one time slice and hands over only at the end of a
//! GC cycle (after its sweep), holding all its P tokens while the other side runs, so no
//! measured interval (a phase, a pause, a cycle's CPU) ever spans the other side's turn, and
//! each side's clock leaves out the time it spent waiting.

use parking_lot::{Condvar, Mutex, MutexGuard};
use std::time::Duration;

#[derive(Debug)]
pub struct Turns {
    st: Mutex<State>,
    cv: Condvar,
    /// Shortest turn.
    pub slice: Duration,
}

#[derive(Debug)]
struct State {
    current: usize,
    finished: Vec<bool>,
}

impl Turns {
    #[must_use]
    pub fn new(sides: usize, slice: Duration) -> Turns {
        Turns {
            st: Mutex::new(State {
                current: 0,
                finished: vec![false; sides],
            }),
            cv: Condvar::new(),
            slice,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.st.lock()
    }

    /// Blocks until it is `side`'s turn (or every other side has finished).
    pub fn wait(&self, side: usize) {
        let mut st = self.lock();
        while st.current != side {
            self.cv.wait(&mut st);
        }
    }

    /// Hands the turn to the next side still running (keeps it if there is none).
    pub fn pass(&self, side: usize) {
        let mut st = self.lock();
        let n = st.finished.len();
        if let Some(next) = (1..=n).map(|k| (side + k) % n).find(|&s| !st.finished[s]) {
            st.current = next;
        }
        drop(st);
        self.cv.notify_all();
    }

    /// `side` runs again (a live switch restarted it).
    pub fn rejoin(&self, side: usize) {
        self.lock().finished[side] = false;
    }

    /// `side` is done: it takes no turn until it rejoins.
    pub fn finish(&self, side: usize) {
        self.lock().finished[side] = true;
        self.pass(side);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn sides_alternate_and_a_finished_side_is_skipped() {
        let t = Arc::new(Turns::new(2, Duration::from_millis(1)));
        let log = Arc::new(Mutex::new(Vec::new()));
        let hs: Vec<_> = (0..2)
            .map(|side| {
                let (t, log) = (t.clone(), log.clone());
                std::thread::spawn(move || {
                    for _ in 0..3 {
                        t.wait(side);
                        log.lock().push(side);
                        t.pass(side);
                    }
                    t.finish(side);
                })
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
        assert_eq!(*log.lock(), vec![0, 1, 0, 1, 0, 1]);
    }
}
