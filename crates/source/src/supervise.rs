//! The supervisor between gcscope and a program it runs, so that what the program starts
//! never outlives it or gcscope, even when gcscope is SIGKILLed.
//!
//! gcscope runs `gcscope __supervise OWN_GROUP -- PROG ARGS` (`ChildSpec::supervisor`). The
//! supervisor makes itself a child subreaper (PR_SET_CHILD_SUBREAPER: the program's orphans
//! become its children instead of init's), asks the kernel for SIGPWR when gcscope dies
//! (PR_SET_PDEATHSIG), and runs the program in its own process group (the program's group
//! when `run`/`ab` give it one, gcscope's on a shared terminal). When the program exits
//! it ends whatever the program left (SIGTERM, then SIGKILL after `LEFT_GRACE`), then exits
//! with the program's status (or dies of its signal); when gcscope dies it ends the program
//! and the rest the same way. gcscope's wait4 of the supervisor counts the CPU of every
//! process it reaped, as it counted the program's before.
//!
//! What Linux cannot guarantee: a process that leaves with setsid *and* double-forks before
//! the supervisor sees it is still its child and is ended; one that is re-parented elsewhere
//! (a daemon handing itself to systemd) is not.

use std::ffi::OsString;
use std::os::unix::process::ExitStatusExt;
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering::SeqCst};
use std::time::{Duration, Instant};

/// How long what the program left has after SIGTERM before it gets SIGKILL.
const LEFT_GRACE: Duration = Duration::from_millis(500);

/// The first argument that selects the supervisor.
pub const ARG: &str = "__supervise";

static GCSCOPE_DIED: AtomicBool = AtomicBool::new(false);
static PROGRAM: AtomicI32 = AtomicI32::new(0);
static FORWARD: AtomicBool = AtomicBool::new(false);
static PARENT: AtomicI32 = AtomicI32::new(0);

/// The argv that runs `argv` under the supervisor `exe`.
#[must_use]
pub fn wrap(exe: &std::path::Path, own_group: bool, argv: &[OsString]) -> Vec<OsString> {
    let mut v = vec![
        exe.as_os_str().to_owned(),
        ARG.into(),
        if own_group { "group" } else { "shared" }.into(),
        "--".into(),
    ];
    v.extend(argv.iter().cloned());
    v
}

extern "C" fn on_signal(sig: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    if sig == libc::SIGPWR {
        GCSCOPE_DIED.store(true, SeqCst);
        return;
    }
    // gcscope signals the program's group when it has one (the program got this too); when
    // they share gcscope's group it signals the supervisor alone, which passes it on. A
    // terminal's signal (from the kernel) reached the whole group already.
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let from = unsafe { (*info).si_pid() };
    let program = PROGRAM.load(SeqCst);
    if FORWARD.load(SeqCst) && program > 0 && from == PARENT.load(SeqCst) {
        // SAFETY: kill is async-signal-safe.
        unsafe {
            libc::kill(program, sig);
        }
    }
}

/// Runs the supervisor over `args` (what follows `__supervise`): never returns.
pub fn main(args: &[OsString]) -> ! {
    let (own_group, argv) = match args {
        [mode, dashdash, argv @ ..] if dashdash == "--" && !argv.is_empty() => {
            (mode == "group", argv)
        }
        _ => {
            eprintln!("gcscope {ARG}: usage: gcscope {ARG} group|shared -- PROG ARGS");
            std::process::exit(2);
        }
    };
    // SAFETY: getppid and prctl have no memory-safety preconditions.
    let parent = unsafe { libc::getppid() };
    PARENT.store(parent, SeqCst);
    FORWARD.store(!own_group, SeqCst);
    // SAFETY: as above; the handler makes only async-signal-safe calls.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGPWR);
        for sig in [
            libc::SIGPWR,
            libc::SIGINT,
            libc::SIGTERM,
            libc::SIGHUP,
            libc::SIGQUIT,
            libc::SIGUSR1,
            libc::SIGUSR2,
            libc::SIGALRM,
        ] {
            let mut act: libc::sigaction = std::mem::zeroed();
            act.sa_sigaction = on_signal
                as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
                as libc::sighandler_t;
            // No SA_RESTART: a signal ends the wait below, which then looks at the flags.
            act.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut act.sa_mask);
            libc::sigaction(sig, &act, std::ptr::null_mut());
        }
        // gcscope may have died before the death signal was asked for.
        if libc::getppid() != parent {
            std::process::exit(1);
        }
    }
    // The program inherits the standard streams and the environment; exec resets the
    // handlers above to their defaults in it.
    let child = match std::process::Command::new(&argv[0])
        .args(&argv[1..])
        .spawn()
    {
        Ok(c) => c,
        Err(e) => {
            eprintln!(
                "gcscope: cannot start {}: {e}",
                gcscope_core::fmt::escape_controls(&argv[0].to_string_lossy())
            );
            std::process::exit(127);
        }
    };
    #[allow(clippy::cast_possible_wrap)]
    let program = child.id() as i32; // a pid_t
    PROGRAM.store(program, SeqCst);
    let mut status: Option<i32> = None;
    while status.is_none() {
        if GCSCOPE_DIED.load(SeqCst) {
            end_the_rest(Some(program));
            std::process::exit(1);
        }
        let mut st = 0;
        // SAFETY: waitpid writes the status of a child it reaps into `st`.
        let r = unsafe { libc::waitpid(-1, &mut st, 0) };
        if r == program {
            status = Some(st);
        } else if r < 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD) {
            break;
        }
    }
    // What the program left behind goes with it.
    end_the_rest(None);
    let st = status.unwrap_or(0);
    let exit = std::process::ExitStatus::from_raw(st);
    if let Some(sig) = exit.signal() {
        // Dies of the program's signal, so that gcscope reports what the program did.
        // SAFETY: signal and raise take no pointers.
        unsafe {
            libc::signal(sig, libc::SIG_DFL);
            libc::raise(sig);
        }
    }
    std::process::exit(exit.code().unwrap_or(1));
}

/// SIGTERM to `program` and to every child of the supervisor (the program's orphans), then
/// SIGKILL to what is left after `LEFT_GRACE`, reaping until there is no child.
fn end_the_rest(program: Option<i32>) {
    let start = Instant::now();
    let mut killed = false;
    if let Some(p) = program {
        // SAFETY: kill has no memory-safety preconditions.
        unsafe {
            libc::kill(p, libc::SIGTERM);
        }
    }
    for pid in children() {
        // SAFETY: as above; our own children, not yet reaped, so the pids are theirs.
        unsafe {
            libc::kill(pid, libc::SIGTERM);
        }
    }
    loop {
        let mut st = 0;
        // SAFETY: waitpid writes the status into `st`.
        let r = unsafe { libc::waitpid(-1, &mut st, libc::WNOHANG) };
        if r < 0 {
            return; // ECHILD: nothing left.
        }
        if r > 0 {
            continue;
        }
        if !killed && start.elapsed() >= LEFT_GRACE {
            killed = true;
            for pid in children() {
                // SAFETY: as above.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
        if killed && start.elapsed() >= LEFT_GRACE * 4 {
            return;
        }
        // Children that appear later (a grandchild orphaned by the kill above) are ours too.
        if killed {
            for pid in children() {
                // SAFETY: as above.
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The supervisor's children, from /proc (it is single-threaded: its one task).
fn children() -> Vec<i32> {
    // SAFETY: getpid has no preconditions.
    let me = unsafe { libc::getpid() };
    std::fs::read_to_string(format!("/proc/{me}/task/{me}/children"))
        .map(|s| {
            s.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}
