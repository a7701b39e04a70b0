//! A mapped file shortened while it is read. `read_path` maps a large file; when another
//! program truncates it meanwhile (logrotate's `copytruncate` empties a log in place), the
//! next touch of a page past the new end is a SIGBUS, and gcscope died "Bus error" with
//! nothing said and nothing printed. While a `Watch` is alive, a SIGBUS at an address inside
//! its bytes ends gcscope with a message naming the file (exit code 1, as any other error);
//! any other SIGBUS gets the action it had before.
//!
//! What was read of the file before the fault is not printed: the figures would be of a part
//! of the log that nobody chose, cut wherever the fault happened to fall. The message says to
//! read it again.

use std::path::Path;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::OnceLock;

/// Mapped files watched at once in one process (`summary` and `compare` read one at a time;
/// tests read several side by side). One more is read unwatched.
const SLOTS: usize = 8;

/// A slot's `start` while it is free, and while it is being filled or emptied.
const FREE: usize = 0;
const BUSY: usize = usize::MAX;

struct Slot {
    start: AtomicUsize,
    end: AtomicUsize,
    message: AtomicPtr<u8>,
    message_len: AtomicUsize,
}

static WATCHED: [Slot; SLOTS] = [const {
    Slot {
        start: AtomicUsize::new(FREE),
        end: AtomicUsize::new(0),
        message: AtomicPtr::new(std::ptr::null_mut()),
        message_len: AtomicUsize::new(0),
    }
}; SLOTS];

/// The SIGBUS action before ours, taken again for a fault outside every watched file.
#[cfg(unix)]
static BEFORE: OnceLock<Option<Action>> = OnceLock::new();

#[cfg(unix)]
struct Action(libc::sigaction);

// SAFETY: plain data (a handler's address, flags and a mask), written once before it is read.
#[cfg(unix)]
unsafe impl Sync for Action {}
// SAFETY: as above: no pointer in it is dereferenced by Rust, whichever thread holds it.
#[cfg(unix)]
unsafe impl Send for Action {}

/// While alive, a SIGBUS inside `bytes` (a map of `path`) ends the process with a message.
#[derive(Debug)]
pub(crate) struct Watch {
    slot: Option<usize>,
    /// The message the handler writes: owned here, so it lives as long as the slot points at it.
    _message: Box<[u8]>,
}

/// Watch `bytes`, a map of the file at `path`.
pub(crate) fn watch(bytes: &[u8], path: &Path) -> Watch {
    let message: Box<[u8]> = format!(
        "gcscope: cannot read {}: it was shortened while it was read (a log rotated by \
         copytruncate?); nothing of it was printed: read it again\n",
        gcscope_model::units::path(path)
    )
    .into_bytes()
    .into_boxed_slice();
    #[cfg(unix)]
    if BEFORE.get_or_init(install).is_none() {
        return Watch {
            slot: None,
            _message: message,
        };
    }
    let start = bytes.as_ptr() as usize;
    let slot = WATCHED.iter().position(|s| {
        s.start
            .compare_exchange(FREE, BUSY, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    });
    if let Some(k) = slot {
        let s = &WATCHED[k];
        s.end.store(start + bytes.len(), Ordering::Relaxed);
        s.message
            .store(message.as_ptr().cast_mut(), Ordering::Relaxed);
        s.message_len.store(message.len(), Ordering::Relaxed);
        // Published last: the handler reads the rest only after it sees the start.
        s.start.store(start.max(1), Ordering::Release);
    }
    Watch {
        slot,
        _message: message,
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let Some(k) = self.slot {
            let s = &WATCHED[k];
            s.start.store(BUSY, Ordering::Release);
            s.message.store(std::ptr::null_mut(), Ordering::Relaxed);
            s.message_len.store(0, Ordering::Relaxed);
            s.start.store(FREE, Ordering::Release);
        }
    }
}

/// Our SIGBUS handler in place; the action it replaced, or `None` when it could not be set.
#[cfg(unix)]
fn install() -> Option<Action> {
    // SAFETY: zeroed sigactions are valid; sigaction reads `ours` and fills `before`.
    unsafe {
        let mut ours: libc::sigaction = std::mem::zeroed();
        ours.sa_sigaction = on_bus
            as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
            as libc::sighandler_t;
        ours.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut ours.sa_mask);
        let mut before: libc::sigaction = std::mem::zeroed();
        (libc::sigaction(libc::SIGBUS, &ours, &mut before) == 0).then_some(Action(before))
    }
}

#[cfg(unix)]
extern "C" fn on_bus(_sig: libc::c_int, info: *mut libc::siginfo_t, _ctx: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    for s in &WATCHED {
        let start = s.start.load(Ordering::Acquire);
        if start == FREE || start == BUSY {
            continue;
        }
        if (start..s.end.load(Ordering::Relaxed)).contains(&addr) {
            let message = s.message.load(Ordering::Relaxed);
            let len = s.message_len.load(Ordering::Relaxed);
            // SAFETY: write and _exit are async-signal-safe; the message lives while the slot
            // points at it (`Watch`).
            unsafe {
                if !message.is_null() {
                    libc::write(2, message.cast(), len);
                }
                libc::_exit(1);
            }
        }
    }
    // Not a watched file's: the action before ours, which the fault meets again on return.
    // SAFETY: sigaction with a valid action (or the default one) is async-signal-safe.
    unsafe {
        match BEFORE.get() {
            Some(Some(Action(before))) => {
                libc::sigaction(libc::SIGBUS, before, std::ptr::null_mut())
            }
            _ => {
                libc::signal(libc::SIGBUS, libc::SIG_DFL);
                0
            }
        };
    }
}
