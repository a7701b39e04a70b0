//! A program gcscope starts (`run`, `ab`): gctrace added to its GODEBUG, its stderr read as
//! the trace (and recorded byte for byte), its stdout and other stderr lines as its output,
//! its end reported with its status, its CPU time and the load it shared the machine with.
//!
//! It is never left running: stopped on request (SIGTERM, then SIGKILL after `GRACE`), on a
//! time cap, and by the kernel if gcscope dies first (`PR_SET_PDEATHSIG`); `kill_all` ends
//! every live one (the panic hook calls it).

use super::{Sink, SourceError};
use gcscope_core::trace::lines::LineSplitter;
use gcscope_core::trace::metric::UserMetric;
use gcscope_core::trace::Decoder;
use gcscope_model::{Event, ExitStatus, ProgramExit, ProgramStart, Stopped};
use std::ffi::OsString;
use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering::SeqCst};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How long a program has to end after SIGTERM before it gets SIGKILL.
pub const GRACE: Duration = Duration::from_secs(3);
/// After the program exits, how long its pipes may stay open (a child it left behind holds
/// them) before gcscope stops reading them.
const DRAIN: Duration = Duration::from_millis(500);

/// What to run and how.
#[derive(Debug, Clone)]
pub struct ChildSpec {
    /// The program and its arguments; for `ab`, `["sh", "-c", COMMAND]`.
    pub argv: Vec<OsString>,
    /// The command as the user wrote it (headers, reports).
    pub display: String,
    /// The gctrace level added to GODEBUG, unless the user's GODEBUG sets one.
    pub gctrace: u8,
    /// The Go build, when known (`gobuild`), for the header.
    pub build: Option<String>,
    /// Write the program's stderr here, byte for byte.
    pub record: Option<PathBuf>,
    /// And its stdout here (`ab`: the figures `--metric` reads are often there).
    pub record_stdout: Option<PathBuf>,
    /// Copy its stdout and stderr to gcscope's as they arrive (headless).
    pub passthrough: bool,
    /// The program runs in a process group of its own, signalled as a group, so what it
    /// starts (a shell's children: `sh -c` does not always exec) stops with it. Off only for
    /// `run --headless` on a terminal: there it shares gcscope's group and reads the
    /// terminal, and Ctrl-C reaches it as it would without gcscope.
    pub own_group: bool,
    /// The program reads no input (the dashboard owns the terminal; an A/B's runs must not
    /// wait on it).
    pub no_stdin: bool,
    /// Stop it (SIGTERM, then SIGKILL) after this long.
    pub timeout: Option<Duration>,
    pub metrics: Vec<UserMetric>,
    pub ab: Option<(char, usize)>,
    pub warmup: bool,
    /// Run it under this gcscope binary's supervisor (`supervise`), so that what it starts
    /// ends with it and with gcscope, even a SIGKILLed gcscope. `None`: run directly (a
    /// library caller, the tests of this crate).
    pub supervisor: Option<PathBuf>,
}

/// Whether `prog` names a program that can be started: a path to an executable file, or a
/// name found on PATH. Checked before a supervisor starts it, so that "cannot start" is said
/// by gcscope as it is without one.
fn startable(prog: &std::ffi::OsStr) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let runnable = |p: &std::path::Path| {
        std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    let p = std::path::Path::new(prog);
    let found = if p.components().count() > 1 || prog.to_string_lossy().contains('/') {
        runnable(p)
    } else {
        std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|d| runnable(&d.join(p))))
    };
    if found {
        Ok(())
    } else {
        Err(std::io::Error::from(std::io::ErrorKind::NotFound))
    }
}

/// GODEBUG with gctrace added: the user's settings kept, their own gctrace winning.
#[must_use]
pub fn godebug_with_gctrace(existing: Option<&str>, level: u8) -> String {
    let existing = existing.unwrap_or("");
    let has = existing
        .split(',')
        .any(|kv| kv.trim().split('=').next() == Some("gctrace"));
    match (has, existing.is_empty()) {
        (true, _) => existing.to_string(),
        (false, true) => format!("gctrace={level}"),
        (false, false) => format!("{existing},gctrace={level}"),
    }
}

/// Shared between the code that runs a program and the code that may stop it (the
/// dashboard's q, a signal).
#[derive(Debug, Default)]
pub struct ChildControl {
    stop: AtomicBool,
    /// The signal that asked for the stop, to be passed on (0: SIGTERM).
    signal: AtomicI32,
    done: Mutex<bool>,
    done_cv: std::sync::Condvar,
    /// How the last program ended.
    exit: Mutex<Option<ExitStatus>>,
}

impl ChildControl {
    #[must_use]
    pub fn new() -> Arc<ChildControl> {
        Arc::new(ChildControl::default())
    }

    /// Stop the program (and, in an A/B, start no more): SIGTERM, or `signal` when gcscope
    /// was sent one, then SIGKILL after `GRACE`.
    pub fn stop(&self, signal: Option<i32>) {
        self.signal.store(signal.unwrap_or(0), SeqCst);
        self.stop.store(true, SeqCst);
    }

    pub fn stopping(&self) -> bool {
        self.stop.load(SeqCst)
    }

    /// The signal a stop came with, if any.
    pub fn signal(&self) -> Option<i32> {
        Some(self.signal.load(SeqCst)).filter(|&s| s != 0)
    }

    /// How the last program it ran ended, once it has.
    pub fn exit(&self) -> Option<ExitStatus> {
        self.exit.lock().ok().and_then(|e| *e)
    }

    /// Every program this control runs has ended and been reaped.
    pub fn finish(&self) {
        if let Ok(mut d) = self.done.lock() {
            *d = true;
        }
        self.done_cv.notify_all();
    }

    /// Waits until `finish`, at most `limit`; true if it came.
    pub fn wait_finished(&self, limit: Duration) -> bool {
        let Ok(guard) = self.done.lock() else {
            return false;
        };
        self.done_cv
            .wait_timeout_while(guard, limit, |d| !*d)
            .map(|(d, _)| *d)
            .unwrap_or(false)
    }
}

/// Process (group) ids of the programs running now: `kill_all` ends them.
static LIVE: Mutex<Vec<(i32, bool)>> = Mutex::new(Vec::new());

/// SIGKILL every program gcscope runs (a panic's last act: nothing is left behind).
pub fn kill_all() {
    let live = match LIVE.lock() {
        Ok(l) => l.clone(),
        Err(poisoned) => poisoned.into_inner().clone(),
    };
    for (pid, group) in live {
        signal(pid, group, libc::SIGKILL);
    }
}

fn signal(pid: i32, group: bool, sig: i32) {
    // SAFETY: kill has no memory effects; a pid that is gone gives ESRCH, which is fine.
    unsafe {
        libc::kill(if group { -pid } else { pid }, sig);
    }
}

enum Msg {
    Stderr(Vec<u8>),
    Stdout(Vec<u8>),
    /// One of the two pipes reached its end.
    Eof,
    Exit(Reaped),
}

/// The program's end as the reaper saw it, at the moment it exited.
struct Reaped {
    status: ExitStatus,
    /// Its CPU time (wait4), seconds.
    cpu_s: Option<f64>,
    wall_s: f64,
    /// The machine's busy CPU and gcscope's own CPU at that moment, seconds.
    busy_s: Option<f64>,
    self_s: f64,
}

/// Runs the program to its end (or until stopped), sending its events through `out`; `dec`
/// is the side's decoder (line numbers go on across an A/B side's runs). Returns how it
/// ended. An error is a program that could not be started, or a record that could not be
/// written (the run goes on; the error comes at its end).
pub fn run(
    spec: &ChildSpec,
    control: &ChildControl,
    dec: &mut Decoder,
    out: &mut dyn Sink,
) -> Result<ProgramExit, SourceError> {
    let godebug = godebug_with_gctrace(
        std::env::var("GODEBUG").ok().as_deref(),
        spec.gctrace.max(1),
    );
    out.push(Event::ProgramStart(Box::new(ProgramStart {
        command: spec.display.clone(),
        build: spec.build.clone(),
        godebug: godebug.clone(),
        ab: spec.ab,
        warmup: spec.warmup,
    })));
    let create = |p: &Option<PathBuf>| match p {
        Some(path) => std::fs::File::create(path)
            .map(|f| Some((path.clone(), f)))
            .map_err(|e| SourceError::open(path, e)),
        None => Ok(None),
    };
    let mut record = create(&spec.record)?;
    let mut record_stdout = create(&spec.record_stdout)?;
    let argv = match &spec.supervisor {
        Some(exe) => {
            if let Some(prog) = spec.argv.first() {
                startable(prog).map_err(|e| start_error(spec, e))?;
            }
            crate::supervise::wrap(exe, spec.own_group, &spec.argv)
        }
        None => spec.argv.clone(),
    };
    let Some((prog, args)) = argv.split_first() else {
        return Err(start_error(spec, std::io::Error::other("no command")));
    };
    let mut cmd = Command::new(prog);
    cmd.args(args)
        .env("GODEBUG", &godebug)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if spec.no_stdin {
        cmd.stdin(Stdio::null());
    }
    if spec.own_group {
        cmd.process_group(0);
    }
    // A pid fits an i32 (pid_t): Linux caps pids at 2^22.
    #[allow(clippy::cast_possible_wrap)]
    let parent = std::process::id() as i32;
    // SAFETY: the closure runs in the child between fork and exec and makes only
    // async-signal-safe system calls (prctl, getppid, raise).
    unsafe {
        cmd.pre_exec(move || {
            // Killed with gcscope, even by SIGKILL. (The signal comes when the thread that
            // forked ends: `run` waits for the program on that thread.)
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() != parent {
                libc::raise(libc::SIGKILL);
            }
            Ok(())
        });
    }
    let cpu0 = machine_busy_s();
    let self0 = self_cpu_s();
    let t0 = Instant::now();
    let mut child = cmd.spawn().map_err(|e| start_error(spec, e))?;
    #[allow(clippy::cast_possible_wrap)]
    let pid = child.id() as i32; // a pid_t, as above
    if let Ok(mut live) = LIVE.lock() {
        live.push((pid, spec.own_group));
    }
    // Bounded: a program that prints faster than gcscope reads waits on its pipe, as it
    // would on a terminal, instead of gcscope's memory growing.
    let (tx, rx) = mpsc::sync_channel::<Msg>(64);
    // Set when gcscope's own stdout is gone (`gcscope run --headless -- prog | head`): the
    // program's stdout pipe is closed, so it meets the closed pipe it would have met.
    let stdout_gone = Arc::new(AtomicBool::new(false));
    let pipe = |mut r: Box<dyn Read + Send>, tx: mpsc::SyncSender<Msg>, err: bool| {
        let gone = stdout_gone.clone();
        std::thread::spawn(move || {
            let mut buf = vec![0u8; 64 * 1024];
            loop {
                if !err && gone.load(SeqCst) {
                    break;
                }
                match r.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => {
                        let b = buf[..n].to_vec();
                        if tx
                            .send(if err { Msg::Stderr(b) } else { Msg::Stdout(b) })
                            .is_err()
                        {
                            return;
                        }
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = tx.send(Msg::Eof);
        })
    };
    if let Some(e) = child.stderr.take() {
        pipe(Box::new(e), tx.clone(), true);
    }
    if let Some(o) = child.stdout.take() {
        pipe(Box::new(o), tx.clone(), false);
    }
    // The reaping thread. It sees the exit without reaping (`waitid` with WNOWAIT), so the
    // pid and the group id still belong to the program while its group is killed (what the
    // program started goes with it; a reaped pid could be another process's), then reaps it:
    // wait4 gives the status and the program's CPU time. The load is sampled at the exit,
    // not after the pipes are drained.
    let exited = Arc::new(AtomicBool::new(false));
    {
        let tx = tx.clone();
        let exited = exited.clone();
        let group = spec.own_group;
        std::thread::spawn(move || {
            wait_exit(pid);
            let wall_s = t0.elapsed().as_secs_f64();
            let (busy_s, self_s) = (machine_busy_s(), self_cpu_s());
            exited.store(true, SeqCst);
            if let Ok(mut live) = LIVE.lock() {
                live.retain(|(p, _)| *p != pid);
            }
            if group {
                signal(pid, true, libc::SIGKILL);
            }
            let (status, cpu_s) = wait(pid);
            let _ = tx.send(Msg::Exit(Reaped {
                status,
                cpu_s,
                wall_s,
                busy_s,
                self_s,
            }));
        });
    }
    drop(tx);

    let mut stdout_lines = LineSplitter::default();
    let mut open_pipes = 2;
    let mut exit: Option<Reaped> = None;
    let mut exited_at: Option<Instant> = None;
    // Why a stop was asked, and whether gcscope signalled the program for it (a Ctrl-C on a
    // shared terminal reaches the program by itself: it is not sent twice).
    let mut asked: Option<Stopped> = None;
    let mut signalled = false;
    let mut kill_at: Option<Instant> = None;
    let mut record_error: Option<(PathBuf, std::io::Error)> = None;
    let deadline = spec.timeout.map(|t| t0 + t);
    // Output lines pass the metrics on their way out.
    let emit = |e: Event, out: &mut dyn Sink| {
        let value = match &e {
            Event::Output { text, .. } => spec
                .metrics
                .iter()
                .filter_map(|m| m.capture(text).map(|v| (m.name.clone(), v)))
                .collect(),
            _ => Vec::new(),
        };
        out.push(e);
        for (name, value) in value {
            out.push(Event::ProgramValue { name, value });
        }
    };
    loop {
        if exit.is_some() && (open_pipes == 0 || exited_at.is_some_and(|t| t.elapsed() > DRAIN)) {
            break;
        }
        // A stop: the request (or the time cap) first, SIGKILL after the grace period.
        // Never once the program has exited: its pid may be another process's soon.
        if !exited.load(SeqCst) {
            let now = Instant::now();
            if asked.is_none() {
                let why = if control.stopping() {
                    Some(Stopped::User)
                } else if deadline.is_some_and(|d| now >= d) {
                    Some(Stopped::Timeout)
                } else {
                    None
                };
                if let Some(why) = why {
                    asked = Some(why);
                    let sig = match why {
                        Stopped::User => control.signal().unwrap_or(libc::SIGTERM),
                        Stopped::Timeout => libc::SIGTERM,
                    };
                    // In gcscope's own group on a terminal, the terminal's SIGINT, SIGQUIT
                    // or SIGHUP reached the program too: only the grace period starts.
                    let from_terminal = matches!(sig, libc::SIGINT | libc::SIGQUIT | libc::SIGHUP);
                    if spec.own_group || !from_terminal || why == Stopped::Timeout {
                        signal(pid, spec.own_group, sig);
                        signalled = true;
                    }
                    kill_at = Some(now + GRACE);
                }
            } else if kill_at.is_some_and(|k| now >= k) {
                signal(pid, spec.own_group, libc::SIGKILL);
                signalled = true;
                kill_at = None;
            }
        }
        let msg = match rx.try_recv() {
            Ok(m) => m,
            Err(_) => {
                // Nothing more for now: show what came.
                out.flush();
                match rx.recv_timeout(Duration::from_millis(50)) {
                    Ok(m) => m,
                    Err(mpsc::RecvTimeoutError::Timeout) => continue,
                    Err(mpsc::RecvTimeoutError::Disconnected) => break,
                }
            }
        };
        match msg {
            Msg::Stderr(bytes) => {
                if let Some((path, f)) = &mut record {
                    if let Err(e) = f.write_all(&bytes) {
                        // Keep going: the dashboard loses nothing; the error is said at the
                        // end, and the record stops here rather than having holes.
                        record_error = Some((path.clone(), e));
                        record = None;
                    }
                }
                if spec.passthrough {
                    let _ = std::io::stderr().write_all(&bytes);
                }
                dec.push(&bytes, &mut |e| emit(e, out));
            }
            Msg::Stdout(bytes) => {
                if let Some((path, f)) = &mut record_stdout {
                    if let Err(e) = f.write_all(&bytes) {
                        record_error = Some((path.clone(), e));
                        record_stdout = None;
                    }
                }
                if spec.passthrough && !stdout_gone.load(SeqCst) {
                    let mut o = std::io::stdout().lock();
                    if let Err(e) = o.write_all(&bytes).and_then(|_| o.flush()) {
                        if e.kind() == std::io::ErrorKind::BrokenPipe {
                            stdout_gone.store(true, SeqCst);
                        }
                    }
                }
                // Numbered after the trace line before it, so the log shows it in order.
                let at = dec.lines();
                stdout_lines.push(&bytes, |l| {
                    stdout_line(at, l.bytes, &mut |e| emit(e, out));
                });
            }
            Msg::Eof => open_pipes -= 1,
            Msg::Exit(reaped) => {
                exit = Some(reaped);
                exited_at = Some(Instant::now());
            }
        }
    }
    let at = dec.lines();
    stdout_lines.finish(|l| stdout_line(at, l.bytes, &mut |e| emit(e, out)));
    // The program's last line, if it had no newline, is its own; the next program's cycles
    // start a new run.
    dec.new_stream(&mut |e| emit(e, out));
    let reaped = exit.unwrap_or(Reaped {
        // Every channel end is gone without an exit: cannot happen while the reaper lives.
        status: ExitStatus::Signal(libc::SIGKILL),
        cpu_s: None,
        wall_s: t0.elapsed().as_secs_f64(),
        busy_s: None,
        self_s: self_cpu_s(),
    });
    let (status, cpu_s, wall_s) = (reaped.status, reaped.cpu_s, reaped.wall_s);
    // /proc/stat counts in clock ticks (10 ms): under half a second the figure is noise. What
    // the program's own background processes used (not in wait4's figure) counts as other;
    // never more than the machine has.
    let other_cpus = match (cpu0, reaped.busy_s, cpu_s) {
        (Some(a), Some(b), Some(mine)) if wall_s >= 0.5 => {
            let gcscope = reaped.self_s - self0;
            Some((((b - a) - mine - gcscope).max(0.0) / wall_s).min(cpus()))
        }
        _ => None,
    };
    let exit = ProgramExit {
        status,
        wall_s,
        cpu_s,
        other_cpus,
        stopped: if signalled { asked } else { None },
    };
    out.push(Event::ProgramExit(exit));
    out.flush();
    if let Ok(mut e) = control.exit.lock() {
        *e = Some(status);
    }
    for (path, f) in record.iter_mut().chain(record_stdout.iter_mut()) {
        // A file's data reaching the disk is what a full disk refuses last (a device or a
        // pipe cannot be synced: EINVAL, nothing lost).
        match f.sync_data() {
            Err(e) if e.raw_os_error() != Some(libc::EINVAL) => {
                record_error.get_or_insert((path.clone(), e));
            }
            _ => {}
        }
    }
    if let Some((path, error)) = record_error {
        return Err(SourceError::write(&path, error));
    }
    Ok(exit)
}

fn stdout_line(at: u64, bytes: &[u8], out: &mut dyn FnMut(Event)) {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    out(Event::Output {
        line: at,
        text: String::from_utf8_lossy(bytes).into_owned(),
    });
}

fn start_error(spec: &ChildSpec, e: std::io::Error) -> SourceError {
    SourceError::Start {
        command: spec.display.clone(),
        error: e.into(),
    }
}

/// Waits until `pid` has exited, leaving it to be reaped (its pid stays taken).
fn wait_exit(pid: i32) {
    loop {
        // SAFETY: a zeroed siginfo is valid; waitid writes it.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: pid is our child; the pointer is valid for the call.
        let r = unsafe {
            libc::waitid(
                libc::P_PID,
                // A child's pid is positive.
                pid.unsigned_abs() as libc::id_t,
                &mut info,
                libc::WEXITED | libc::WNOWAIT,
            )
        };
        if r == 0 || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return;
        }
    }
}

/// CPUs online (the most other processes can use).
fn cpus() -> f64 {
    // SAFETY: sysconf has no memory effects.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n > 0 {
        n as f64
    } else {
        f64::INFINITY
    }
}

/// Reaps `pid`: its status and its CPU time (user + system, its reaped children included).
fn wait(pid: i32) -> (ExitStatus, Option<f64>) {
    loop {
        let mut status = 0;
        // SAFETY: a zeroed rusage is valid; wait4 writes both out-parameters.
        let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: pid is our child; the pointers are valid for the call.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
        if r == pid {
            let cpu = cpu_s(&ru);
            let st = if libc::WIFSIGNALED(status) {
                ExitStatus::Signal(libc::WTERMSIG(status))
            } else {
                ExitStatus::Code(libc::WEXITSTATUS(status))
            };
            return (st, Some(cpu));
        }
        if r == -1 && std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            return (ExitStatus::Signal(libc::SIGKILL), None);
        }
    }
}

/// The machine's busy CPU time so far, all CPUs, seconds (`/proc/stat`: all but idle and
/// iowait). `None` where there is no /proc.
fn machine_busy_s() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let cpu = stat.lines().next()?.strip_prefix("cpu ")?;
    let v: Vec<u64> = cpu
        .split_whitespace()
        .filter_map(|x| x.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal (guest time is inside user)
    let busy: u64 = v
        .iter()
        .take(8)
        .enumerate()
        .filter(|(i, _)| *i != 3 && *i != 4)
        .map(|(_, x)| x)
        .sum();
    // SAFETY: sysconf has no memory effects.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    (hz > 0).then(|| busy as f64 / hz as f64)
}

/// User + system CPU of a rusage, seconds.
fn cpu_s(ru: &libc::rusage) -> f64 {
    let s = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    s(ru.ru_utime) + s(ru.ru_stime)
}

/// gcscope's own CPU time so far (its dashboard and parsing are not the program's load).
fn self_cpu_s() -> f64 {
    // SAFETY: a zeroed rusage is valid; getrusage fills it.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: the pointer is valid for the call.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) };
    cpu_s(&ru)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `kill_all` ends every program this process started, those of tests running beside it
    /// too: the tests that start programs take turns.
    static PROGRAMS: Mutex<()> = Mutex::new(());

    fn spec(argv: &[&str]) -> ChildSpec {
        ChildSpec {
            argv: argv.iter().map(OsString::from).collect(),
            display: argv.join(" "),
            gctrace: 1,
            build: None,
            record: None,
            record_stdout: None,
            passthrough: false,
            own_group: true,
            no_stdin: true,
            timeout: None,
            metrics: Vec::new(),
            ab: None,
            warmup: false,
            supervisor: None,
        }
    }

    /// What the panic hook does: every program gcscope runs is killed, and its runner sees
    /// it end by SIGKILL.
    #[test]
    fn kill_all_ends_every_running_program() {
        let _turn = PROGRAMS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let control = ChildControl::new();
        let c = control.clone();
        let h = std::thread::spawn(move || {
            let mut events = Vec::new();
            let r = run(
                &spec(&["sleep", "100"]),
                &c,
                &mut Decoder::new(),
                &mut |e| events.push(e),
            );
            (r, events)
        });
        let t0 = Instant::now();
        while LIVE.lock().unwrap().is_empty() {
            assert!(t0.elapsed() < Duration::from_secs(10), "never started");
            std::thread::sleep(Duration::from_millis(5));
        }
        kill_all();
        let (r, events) = h.join().unwrap();
        let exit = r.unwrap();
        assert_eq!(exit.status, ExitStatus::Signal(libc::SIGKILL));
        assert!(matches!(events.last(), Some(Event::ProgramExit(e)) if e.status == exit.status));
        assert!(LIVE.lock().unwrap().is_empty());
    }

    /// The program's output lines become output events, in order, and `--metric` values
    /// follow the line that gave them.
    #[test]
    fn output_lines_and_metric_values_arrive_in_order() {
        let _turn = PROGRAMS
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut s = spec(&["sh", "-c", "echo 'rate 5'; echo 'rate 7' >&2; echo done"]);
        s.metrics = vec![UserMetric::parse("rate=rate ([0-9]+)").unwrap()];
        let mut events = Vec::new();
        let exit = run(&s, &ChildControl::new(), &mut Decoder::new(), &mut |e| {
            events.push(e)
        })
        .unwrap();
        assert_eq!(exit.status, ExitStatus::Code(0));
        let values: Vec<f64> = events
            .iter()
            .filter_map(|e| match e {
                Event::ProgramValue { value, .. } => Some(*value),
                _ => None,
            })
            .collect();
        assert_eq!(values.len(), 2);
        let mut texts: Vec<&str> = events
            .iter()
            .filter_map(|e| match e {
                Event::Output { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        texts.sort_unstable();
        assert_eq!(texts, ["done", "rate 5", "rate 7"]);
        assert!(matches!(events.first(), Some(Event::ProgramStart(_))));
    }

    #[test]
    fn gctrace_joins_the_users_godebug() {
        assert_eq!(godebug_with_gctrace(None, 1), "gctrace=1");
        assert_eq!(godebug_with_gctrace(Some(""), 2), "gctrace=2");
        assert_eq!(
            godebug_with_gctrace(Some("madvdontneed=1"), 1),
            "madvdontneed=1,gctrace=1"
        );
        // The user's own gctrace wins.
        assert_eq!(
            godebug_with_gctrace(Some("gctrace=2,x=1"), 1),
            "gctrace=2,x=1"
        );
        assert_eq!(
            godebug_with_gctrace(Some("gctracex=1"), 1),
            "gctracex=1,gctrace=1"
        );
    }
}
