//! The signals that end gcscope's waiting loops (the dashboard's and headless `run`'s and
//! `ab`'s): one set, one implementation, so every front end stops the same way on the same
//! signals and tells its caller which one it was.

/// A loop was ended by a signal (its number): the terminal was restored (the dashboard) and the
/// program stopped; the caller exits with 128 + the number, as a shell reports a process the
/// signal stopped.
#[derive(Debug)]
pub struct Interrupted(pub i32);

impl std::fmt::Display for Interrupted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "stopped by signal {}", self.0)
    }
}

impl std::error::Error for Interrupted {}

/// The signals that end the dashboard and headless runs: each restores the terminal on its way
/// out (the default action of SIGINT, SIGHUP and SIGQUIT would leave it raw, in the alternate
/// screen) or lets a headless run print its summary.
pub struct Signals {
    #[cfg(unix)]
    streams: Vec<(i32, tokio::signal::unix::Signal)>,
}

/// Every catchable signal whose default action ends the process and that arrives from
/// outside (a `kill`, the terminal, a timer): caught, each ends a loop the same way. SIGPIPE is
/// ignored by Rust's runtime (a write then fails with EPIPE); the faults (SIGSEGV, SIGABRT...)
/// are `restore_terminal_on_crash`'s.
/// Job control's stop (Ctrl-Z) and continue (`fg`, `bg`).
#[cfg(unix)]
pub const STOP: i32 = libc::SIGTSTP;
#[cfg(unix)]
pub const CONTINUE: i32 = libc::SIGCONT;
#[cfg(not(unix))]
pub const STOP: i32 = -1;
#[cfg(not(unix))]
pub const CONTINUE: i32 = -2;

#[cfg(unix)]
pub const ENDING: [i32; 12] = [
    libc::SIGINT,
    libc::SIGTERM,
    libc::SIGHUP,
    libc::SIGQUIT,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGVTALRM,
    libc::SIGPROF,
    libc::SIGXCPU,
    libc::SIGXFSZ,
    libc::SIGIO,
];

impl Signals {
    /// The signals that end a loop (`ENDING`).
    pub fn new() -> std::io::Result<Signals> {
        Signals::of(&[])
    }

    /// `ENDING`, and SIGTSTP and SIGCONT for a loop that owns the terminal: it gives the
    /// terminal back, stops (`stop_self`), and takes it again when continued.
    pub fn with_job_control() -> std::io::Result<Signals> {
        #[cfg(unix)]
        return Signals::of(&[libc::SIGTSTP, libc::SIGCONT]);
        #[cfg(not(unix))]
        Signals::of(&[])
    }

    fn of(extra: &[i32]) -> std::io::Result<Signals> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{signal, SignalKind};
            let mut streams = Vec::new();
            for &n in ENDING.iter().chain(extra) {
                streams.push((n, signal(SignalKind::from_raw(n))?));
            }
            Ok(Signals { streams })
        }
        #[cfg(not(unix))]
        {
            let _ = extra;
            Ok(Signals {})
        }
    }

    /// The next signal's number.
    pub async fn recv(&mut self) -> i32 {
        #[cfg(unix)]
        {
            let next = futures::future::select_all(
                self.streams
                    .iter_mut()
                    .map(|(n, s)| Box::pin(async move { s.recv().await.map(|_| *n) })),
            );
            match next.await.0 {
                Some(n) => n,
                None => std::future::pending().await,
            }
        }
        #[cfg(not(unix))]
        std::future::pending().await
    }
}

/// Stops this process as SIGTSTP's default action would (SIGSTOP, which cannot be caught),
/// returning once it is continued (`fg`). Call it with the terminal given back.
#[cfg(unix)]
pub fn stop_self() {
    // SAFETY: kill and getpid have no memory-safety preconditions.
    unsafe {
        libc::kill(libc::getpid(), libc::SIGSTOP);
    }
}

#[cfg(not(unix))]
pub fn stop_self() {}

/// What `restore_terminal_on_crash` writes and sets: the bytes that undo the dashboard's
/// terminal modes, and the terminal's modes from before raw mode, with the descriptor they are
/// of.
#[cfg(unix)]
struct Saved {
    bytes: &'static [u8],
    tty: libc::c_int,
    modes: libc::termios,
}

#[cfg(unix)]
static SAVED: std::sync::OnceLock<Saved> = std::sync::OnceLock::new();

/// The faults and the abort (an allocation that failed aborts) end the process at once: no
/// destructor runs, so a dashboard would leave the terminal raw, in the alternate screen with
/// mouse reporting on. This installs, for each of them, a handler that writes `bytes` to
/// standard output and sets the terminal's current modes back (both async-signal-safe: write
/// and tcsetattr), then lets the signal end the process as it would have (its default action,
/// raised again). Call it before raw mode is entered; a second call does nothing.
#[cfg(unix)]
pub fn restore_terminal_on_crash(bytes: &'static [u8]) {
    use std::os::fd::AsRawFd;
    // The terminal raw mode is set on: standard input, or the controlling terminal.
    let tty = if std::io::IsTerminal::is_terminal(&std::io::stdin()) {
        std::io::stdin().as_raw_fd()
    } else {
        match std::fs::File::open("/dev/tty") {
            // Kept open for the handler: leaked on purpose, once.
            Ok(f) => std::os::fd::IntoRawFd::into_raw_fd(f),
            Err(_) => return,
        }
    };
    // SAFETY: a zeroed termios is valid.
    let mut modes: libc::termios = unsafe { std::mem::zeroed() };
    // SAFETY: tcgetattr fills `modes` for an open descriptor, or fails.
    if unsafe { libc::tcgetattr(tty, &mut modes) } != 0 {
        return;
    }
    if SAVED.set(Saved { bytes, tty, modes }).is_err() {
        return;
    }
    for sig in [
        libc::SIGABRT,
        libc::SIGSEGV,
        libc::SIGBUS,
        libc::SIGILL,
        libc::SIGFPE,
        libc::SIGTRAP,
        libc::SIGSYS,
    ] {
        // SAFETY: a zeroed sigaction is valid; the handler only makes async-signal-safe calls.
        unsafe {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_crash as extern "C" fn(libc::c_int) as libc::sighandler_t;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
    }
}

#[cfg(unix)]
extern "C" fn on_crash(sig: libc::c_int) {
    if let Some(s) = SAVED.get() {
        // SAFETY: write, tcsetattr, signal and raise are async-signal-safe; `s` is never
        // changed once set.
        unsafe {
            libc::write(1, s.bytes.as_ptr().cast(), s.bytes.len());
            libc::tcsetattr(s.tty, libc::TCSANOW, &s.modes);
        }
    }
    // The default action, delivered when this handler returns (the signal is blocked while it
    // runs): the process ends as the signal would have ended it, core dump included.
    // SAFETY: signal and raise are async-signal-safe and take no pointers.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        libc::raise(sig);
    }
}

#[cfg(not(unix))]
pub fn restore_terminal_on_crash(_bytes: &'static [u8]) {}
