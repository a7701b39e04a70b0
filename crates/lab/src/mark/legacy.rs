//! The legacy marker's queues (Go's `gcWork` without Green Tea): two LIFO work buffers of 253
//! object references per P, and a global list of full buffers (`work.full`), here a mutex-
//! guarded stack instead of Go's lock-free `lfstack`.

use super::{GcWork, Marking};
use crate::heap::ObjRef;
use std::sync::atomic::Ordering::Relaxed;

pub const WORKBUF: usize = 253;

impl Marking {
    pub(super) fn put_full(&self, buf: Vec<ObjRef>) {
        let mut f = self.full.lock();
        f.push(buf);
        // Relaxed: a hint for `global_work`; the buffers move under the mutex.
        self.full_len.store(f.len(), Relaxed);
    }

    pub(super) fn get_full(&self) -> Option<Vec<ObjRef>> {
        if self.full_len.load(Relaxed) == 0 {
            return None;
        }
        let mut f = self.full.lock();
        let b = f.pop();
        self.full_len.store(f.len(), Relaxed);
        b
    }

    pub(super) fn put_obj(&self, gcw: &mut GcWork, base: ObjRef) {
        if gcw.wbuf1.len() >= WORKBUF {
            std::mem::swap(&mut gcw.wbuf1, &mut gcw.wbuf2);
            if gcw.wbuf1.len() >= WORKBUF {
                let full = std::mem::replace(&mut gcw.wbuf1, Vec::with_capacity(WORKBUF));
                self.put_full(full);
            }
        }
        gcw.wbuf1.push(base);
    }

    pub(super) fn get_obj(&self, gcw: &mut GcWork) -> Option<ObjRef> {
        if let Some(r) = gcw.wbuf1.pop() {
            return Some(r);
        }
        std::mem::swap(&mut gcw.wbuf1, &mut gcw.wbuf2);
        gcw.wbuf1.pop()
    }

    /// Go's `balance`: when the global list is empty, give others half of our buffers.
    pub(super) fn balance(&self, gcw: &mut GcWork) {
        if !gcw.wbuf2.is_empty() {
            let b = std::mem::take(&mut gcw.wbuf2);
            self.put_full(b);
        } else if gcw.wbuf1.len() > 4 {
            let half = gcw.wbuf1.split_off(gcw.wbuf1.len() / 2);
            self.put_full(half);
        }
    }
}
