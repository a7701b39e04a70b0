//! `gcscope run` and `gcscope ab` on a stand-in program (examples/standin.rs) that prints
//! real recorded gc lines from traces/ at their timestamps: CI has no Go toolchain. The
//! dashboard's side (q, Ctrl-C, signals) is in tests/terminal.rs.
#![cfg(unix)]
#![allow(clippy::unwrap_used)]
// Tests build their inputs from numbers they chose; the workspace's cast lints are for
// numbers read from traces.
#![allow(
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss
)]

mod common;

use common::{gone_within, metric, standin};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn gcscope() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_gcscope"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("GODEBUG")
        .stdin(Stdio::null());
    c
}

fn trace(name: &str) -> String {
    format!("{}/traces/go/{name}", env!("CARGO_MANIFEST_DIR"))
}

const LEGACY: &str = "go1.27.3_legacy_tree_p2_r1.log";
const GREENTEA: &str = "go1.27.3_greentea_tree_p2_r1.log";

fn temp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("gcscope-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn read_pid(p: &Path) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(pid) = std::fs::read_to_string(p)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            return pid;
        }
        assert!(Instant::now() < deadline, "no pid in {}", p.display());
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn run_headless_keeps_godebug_passes_output_and_the_exit_status() {
    let out: Output = gcscope()
        .env("GODEBUG", "madvdontneed=1")
        .args(["run", "--headless", "--", &standin()])
        .args(["--trace", &trace(GREENTEA), "--speed", "0", "--godebug"])
        .args(["--say", "ops/s: 1234", "--exit", "3"])
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    // The user's GODEBUG kept, gctrace added; the program's stdout passed through as is.
    assert_eq!(stdout, "GODEBUG=madvdontneed=1,gctrace=1\nops/s: 1234\n");
    // Its stderr passes through too (the gc lines), then gcscope's summary of them.
    assert!(stderr.contains("gc 61 @9.331s 29%"), "{stderr}");
    assert!(stderr.contains("exit status 3 after"), "{stderr}");
    assert!(stderr.contains("61 cycles"), "{stderr}");
}

#[test]
fn run_a_gctrace_the_user_set_wins() {
    let out = gcscope()
        .env("GODEBUG", "gctrace=2,x=1")
        .args(["run", "--headless", "--", &standin(), "--godebug"])
        .output()
        .unwrap();
    assert_eq!(text(&out.stdout), "GODEBUG=gctrace=2,x=1\n");
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn run_record_is_the_programs_stderr_byte_for_byte() {
    let d = temp("record");
    let rec = d.join("rec.log");
    let out = gcscope()
        .args(["run", "--headless", "--record"])
        .arg(&rec)
        .args([
            "--",
            &standin(),
            "--trace",
            &trace(GREENTEA),
            "--speed",
            "0",
        ])
        .args(["--say", "on stdout, not in the record"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read(&rec).unwrap(),
        std::fs::read(trace(GREENTEA)).unwrap()
    );
    // And it reads back as the same run.
    let s = gcscope().args(["summary"]).arg(&rec).output().unwrap();
    assert!(text(&s.stdout).contains("61 cycles"));
}

#[test]
fn run_a_record_that_cannot_be_written_is_an_error_and_the_run_goes_on() {
    let out = gcscope()
        .args(["run", "--headless", "--record", "/dev/full", "--"])
        .args([
            &standin(),
            "--trace",
            &trace(GREENTEA),
            "--speed",
            "0",
            "--exit",
            "0",
        ])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("writing /dev/full failed"), "{stderr}");
}

#[test]
fn run_a_program_that_cannot_start_is_named() {
    let out = gcscope()
        .args(["run", "--headless", "--", "/nonexistent/prog"])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr.contains("cannot start /nonexistent/prog"),
        "{stderr}"
    );
    // Control bytes and bidi overrides in a command reach the terminal escaped, in the
    // "cannot start" line and in the exit line alike.
    let evil = "/nonexistent/\u{1b}]0;owned\u{7}\u{202e}gorp";
    let out = gcscope()
        .args(["run", "--headless", "--", evil])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\u{7}'),
        "{stderr:?}"
    );
    assert!(!stderr.contains('\u{202e}'), "{stderr:?}");
    assert!(
        stderr.contains("\\u{1b}]0;owned\\u{7}\\u{202e}gorp"),
        "{stderr:?}"
    );
    let out = gcscope()
        .args([
            "run",
            "--headless",
            "--",
            "sh",
            "-c",
            "exit 3",
            "\u{1b}[2J\u{7}",
        ])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        !stderr.contains('\u{1b}') && !stderr.contains('\u{7}'),
        "{stderr:?}"
    );
    assert!(stderr.contains("exit status 3 after"), "{stderr:?}");
}

/// Headless, a signal to gcscope reaches the program (the same signal), the program is
/// reaped, the summary still printed, and gcscope exits with the program's status; one that
/// ignores SIGTERM gets SIGKILL after the grace period.
#[test]
fn run_headless_signals_stop_and_reap_the_program() {
    for (sig, ignore, want) in [
        (libc::SIGINT, false, 128 + libc::SIGINT),
        (libc::SIGTERM, false, 128 + libc::SIGTERM),
        (libc::SIGTERM, true, 128 + libc::SIGKILL),
    ] {
        let d = temp(&format!("sig{sig}{ignore}"));
        let pidfile = d.join("pid");
        let mut cmd = gcscope();
        cmd.args(["run", "--headless", "--", &standin()])
            .args(["--trace", &trace(GREENTEA), "--speed", "0", "--hang"])
            .arg("--pidfile")
            .arg(&pidfile)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if ignore {
            cmd.arg("--ignore-term");
        }
        let child = cmd.spawn().unwrap();
        let pid = read_pid(&pidfile);
        // The summary is printed on the way out: wait until the trace has been read.
        std::thread::sleep(Duration::from_millis(300));
        let t0 = Instant::now();
        // SAFETY: kill has no memory-safety preconditions.
        unsafe { libc::kill(child.id() as i32, sig) };
        let out = child.wait_with_output().unwrap();
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(want), "signal {sig}: {stderr}");
        assert!(
            gone_within(pid, Duration::from_secs(5)),
            "signal {sig}: program {pid} left running"
        );
        assert!(stderr.contains("61 cycles"), "signal {sig}: {stderr}");
        if ignore {
            assert!(
                t0.elapsed() >= Duration::from_secs(3),
                "SIGKILL before the grace period"
            );
        }
    }
}

/// The A/B runs its commands one at a time, A B A B: each writes when it starts and ends,
/// and the log shows them strictly in turn. Every run is recorded, with the order in
/// runs.tsv; the sides' gctrace and environment are the same.
#[test]
fn ab_runs_interleave_never_overlap_and_are_recorded() {
    let d = temp("order");
    let log = d.join("order");
    let rec = d.join("rec");
    let side = |name: &str, file: &str| {
        format!(
            "echo {name} start >> {l}; {s} --trace {t} --speed 0 --godebug; sleep 0.1; echo {name} end >> {l}",
            l = log.display(),
            s = standin(),
            t = trace(file)
        )
    };
    let out = gcscope()
        .args(["ab", "--runs", "3", "--warmup", "1", "--record"])
        .arg(&rec)
        .args([side("A", LEGACY), side("B", GREENTEA)])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let order = std::fs::read_to_string(&log).unwrap();
    let want: String = ["A", "B"]
        .iter()
        .cycle()
        .take(8)
        .map(|s| format!("{s} start\n{s} end\n"))
        .collect();
    assert_eq!(order, want);
    // Progress on stderr, one line per run as it ends.
    assert_eq!(stderr.matches("] A run ").count(), 6, "{stderr}");
    assert!(stderr.contains("[8/8] B run 3: 61 cycles"), "{stderr}");
    let tsv = std::fs::read_to_string(rec.join("runs.tsv")).unwrap();
    let sides: Vec<&str> = tsv
        .lines()
        .skip(1)
        .map(|l| l.split('\t').nth(1).unwrap())
        .collect();
    assert_eq!(sides, ["A", "B", "A", "B", "A", "B", "A", "B"]);
    for f in ["a-warmup-01", "a-01", "b-03"] {
        assert!(rec.join(format!("{f}.log")).exists(), "{f}.log");
    }
    assert_eq!(
        std::fs::read(rec.join("b-02.log")).unwrap(),
        std::fs::read(trace(GREENTEA)).unwrap()
    );
    assert_eq!(
        std::fs::read_to_string(rec.join("a-01.stdout")).unwrap(),
        "GODEBUG=gctrace=1\n"
    );
    // The report: 3 runs a side (the warm-up is not a sample), A legacy vs B Green Tea.
    let report = text(&out.stdout);
    assert!(report.contains("order: a b A B A B A B"), "{report}");
    assert!(report.contains("(3 runs)"), "{report}");

    // The same directory again: refused before any run, the first record untouched.
    let before = std::fs::read(rec.join("runs.tsv")).unwrap();
    let again = gcscope()
        .args(["ab", "--runs", "1", "--record"])
        .arg(&rec)
        .args([side("A", LEGACY), side("B", GREENTEA)])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(
        text(&again.stderr).contains("the directory is not empty (an earlier record?)"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(std::fs::read(rec.join("runs.tsv")).unwrap(), before);
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        want,
        "no run started"
    );
    // A plain file in the way: named, kept as it was.
    let file = d.join("a-file");
    std::fs::write(&file, "mine").unwrap();
    let blocked = gcscope()
        .args(["ab", "--runs", "1", "--record"])
        .arg(&file)
        .args([side("A", LEGACY), side("B", GREENTEA)])
        .output()
        .unwrap();
    assert_eq!(blocked.status.code(), Some(1));
    assert!(text(&blocked.stderr).contains("a file is in the way"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
}

fn ab_json(args: &[&str]) -> (serde_json::Value, String, Option<i32>) {
    let out = gcscope()
        .arg("ab")
        .arg("--json")
        .args(args)
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {} / {stderr}", text(&out.stdout)));
    (v, stderr, out.status.code())
}

/// Three runs a side of real Go 1.27.3 tree lines: Green Tea's compulsory CPU "lower" by
/// the one rule, the program's own figure (`--metric`) compared beside it, and `compare
/// --metric` over the recorded runs gives the same rows.
#[test]
fn ab_json_verdicts_and_metrics_match_compare_on_the_record() {
    let d = temp("verdict");
    let rec = d.join("rec");
    let cmd = |file: &str, ops: &str| {
        format!(
            "{} --trace {} --speed 0 --say 'warming up: ops/s 1' --say 'done: ops/s {ops}'",
            standin(),
            trace(file)
        )
    };
    let rec_s = rec.display().to_string();
    let (v, stderr, code) = ab_json(&[
        "--runs",
        "3",
        "--record",
        &rec_s,
        "--metric",
        "ops=ops/s ([0-9.]+)",
        &cmd(LEGACY, "100"),
        &cmd(GREENTEA, "130"),
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(v["a_runs"], 3);
    assert_eq!(v["b_runs"], 3);
    let c = metric(&v, "compulsory_cpu_ms_per_cycle");
    assert_eq!(c["verdict"], "lower", "{c}");
    let ops = metric(&v, "ops");
    assert_eq!(ops["a"]["median"], 100.0);
    assert_eq!(ops["b"]["median"], 130.0);
    assert_eq!(ops["verdict"], "higher");
    assert_eq!(v["runs"].as_array().unwrap().len(), 6);
    // Runs this short (under half a second) have no load figure: /proc/stat counts 10 ms
    // ticks. (`ab_reports_a_busy_machine` has runs long enough.)
    assert!(v["runs"][0]["other_cpus"].is_null(), "{}", v["runs"][0]);

    let logs = |side: &str| -> Vec<PathBuf> {
        (1..=3)
            .map(|k| rec.join(format!("{side}-{k:02}.log")))
            .collect()
    };
    let out = gcscope()
        .args(["compare", "--json", "--metric", "ops=ops/s ([0-9.]+)"])
        .args(logs("a"))
        .arg("--")
        .args(logs("b"))
        .output()
        .unwrap();
    let c: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for key in ["ops", "compulsory_cpu_ms_per_cycle", "gc_cpu_ms_per_cycle"] {
        assert_eq!(metric(&c, key)["a"], metric(&v, key)["a"], "{key}");
        assert_eq!(metric(&c, key)["b"], metric(&v, key)["b"], "{key}");
        assert_eq!(
            metric(&c, key)["verdict"],
            metric(&v, key)["verdict"],
            "{key}"
        );
    }
}

/// Fewer than 3 runs a side: no verdict, and the JSON says why.
#[test]
fn ab_with_two_runs_a_side_gives_no_verdict() {
    let cmd = |f: &str| format!("{} --trace {} --speed 0", standin(), trace(f));
    let (v, stderr, code) = ab_json(&["--runs", "2", &cmd(LEGACY), &cmd(GREENTEA)]);
    assert_eq!(code, Some(0), "{stderr}");
    let c = metric(&v, "compulsory_cpu_ms_per_cycle");
    assert_eq!(c["verdict"], "none");
    assert_eq!(c["why"], "2 runs a side; a verdict needs 3");
}

/// A replayed trace prints seconds of GC P time in milliseconds of CPU: `run` and `ab` say
/// the figures are P time, not CPU seconds, with the runs it held for; quiet where it did not.
#[test]
fn run_and_ab_say_when_gc_p_time_exceeds_the_process_cpu() {
    let out = gcscope()
        .args(["run", "--headless", "--", &standin()])
        .args(["--trace", &trace(GREENTEA), "--speed", "0"])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "gcscope run: oversubscribed: Go's GC P time exceeded the process's CPU time \
             (user + sys), by up to"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("not CPU seconds"), "{stderr}");

    let cmd = |f: &str| format!("{} --trace {} --speed 0", standin(), trace(f));
    let (v, stderr, code) = ab_json(&["--runs", "2", &cmd(LEGACY), &cmd(GREENTEA)]);
    assert_eq!(code, Some(0), "{stderr}");
    for r in v["runs"].as_array().unwrap() {
        let (p, cpu) = (
            r["gc_p_time_s"].as_f64().unwrap(),
            r["cpu_s"].as_f64().unwrap(),
        );
        assert!(p > 1.0 && p > cpu, "{r}");
    }
    let out = gcscope()
        .args([
            "ab",
            "--headless",
            "--runs",
            "2",
            &cmd(LEGACY),
            &cmd(GREENTEA),
        ])
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("oversubscribed: in 4 of 4 runs Go's GC P time exceeded"),
        "{stdout}"
    );

    // A window: each run's figures from gc 50 on (the tree traces have 61 cycles).
    let (w, stderr, code) = ab_json(&[
        "--runs",
        "2",
        "--from-cycle",
        "50",
        &cmd(LEGACY),
        &cmd(GREENTEA),
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(w["window"]["from_cycle"], 50);
    let cycles = metric(&w, "cycles_per_run");
    assert_eq!(cycles["b"]["median"], 12.0, "{cycles}");

    // A program with no GC P time to speak of: nothing said.
    let quiet = gcscope()
        .args(["run", "--headless", "--", &standin(), "--say", "hi"])
        .output()
        .unwrap();
    assert!(!text(&quiet.stderr).contains("oversubscribed"));
}

/// A failed run stops the A/B (status 1, said why) unless --keep-going, which reports it
/// and leaves it out of the samples (a side left with none fails the A/B); a run over
/// --timeout is stopped and counts as failed.
#[test]
fn ab_failed_runs_stop_the_ab_or_are_left_out() {
    let ok = format!("{} --trace {} --speed 0", standin(), trace(LEGACY));
    let bad = format!(
        "{} --trace {} --speed 0 --exit 7",
        standin(),
        trace(GREENTEA)
    );
    let (v, stderr, code) = ab_json(&["--runs", "3", &ok, &bad]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("run 1 of B failed"), "{stderr}");
    assert_eq!(v["runs"].as_array().unwrap().len(), 2);
    assert_eq!(v["runs"][1]["status"], 7);
    assert_eq!(v["runs"][1]["sample"], false);

    // Every B run failed: reported and left out, and with no B sample left there is nothing
    // to compare, which is a failed A/B (status 1).
    let (v, stderr, code) = ab_json(&["--runs", "3", "--keep-going", &ok, &bad]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(v["runs"].as_array().unwrap().len(), 6);
    assert_eq!(v["a_runs"], 3);
    assert_eq!(v["b_runs"], 0);

    // The shell does not always exec the command: the stop reaches the program through
    // its process group, and nothing is left running.
    let d = temp("timeout");
    let pidfile = d.join("pid");
    let hang = format!(
        "{} --trace {} --speed 0 --hang --pidfile {}; echo after",
        standin(),
        trace(GREENTEA),
        pidfile.display()
    );
    let t0 = Instant::now();
    let (v, stderr, code) = ab_json(&["--runs", "1", "--timeout", "1s", &ok, &hang]);
    assert_eq!(code, Some(1), "{stderr}");
    assert_eq!(v["runs"][1]["stopped"], "timeout");
    assert_eq!(v["runs"][1]["status"], 128 + libc::SIGTERM);
    assert!(t0.elapsed() < Duration::from_secs(10));
    // The group's SIGKILL is sent as the A/B moves on; dying takes the kernel a moment.
    let pid = read_pid(&pidfile);
    assert!(
        gone_within(pid, Duration::from_secs(5)),
        "the timed-out program {pid} was left running"
    );
}

/// The load other processes put on the machine is measured per run: with a busy loop
/// beside the A/B, every run reports it, and the report says the machine was loaded.
#[test]
fn ab_reports_a_busy_machine() {
    let mut busy = Command::new("sh")
        .args(["-c", "while :; do :; done"])
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(100));
    // Runs of half a second or more (the load is measured in 10 ms ticks).
    let cmd = |f: &str| format!("{} --trace {} --speed 12", standin(), trace(f));
    let out = gcscope()
        .args([
            "ab",
            "--headless",
            "--runs",
            "1",
            &cmd(LEGACY),
            &cmd(GREENTEA),
        ])
        .output()
        .unwrap();
    let _ = busy.kill();
    let _ = busy.wait();
    let report = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        report.contains("loaded machine: 1 of A's and 1 of B's runs"),
        "{report}"
    );
    let mean: f64 = report
        .split("other processes used ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|x| x.parse().ok())
        .unwrap();
    assert!(mean > 0.6, "a busy loop is about one CPU: {mean}");
}

/// `gcscope run --headless -- yes | head -1`: when gcscope's stdout closes, the program's
/// does too, so it ends as it would in the pipe (SIGPIPE), and gcscope with its status.
#[test]
fn run_headless_passes_a_closed_stdout_on_to_the_program() {
    use std::io::Read;
    let mut child = gcscope()
        .args(["run", "--headless", "--", "yes"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut buf = [0u8; 4];
    out.read_exact(&mut buf).unwrap();
    drop(out);
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("gcscope kept running after its stdout closed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(128 + libc::SIGPIPE));
}

/// What a program leaves running in the background goes with it (its process group is
/// killed when it exits), and its CPU counts as other load, never more than the machine has.
#[test]
fn run_background_children_go_with_the_program_and_load_stays_within_the_machine() {
    // (Also when gcscope is SIGKILLed: `run_s_grandchildren_die_with_a_sigkilled_gcscope`.)
    let d = temp("background");
    let pidfile = d.join("yes.pid");
    let script = format!(
        "yes > /dev/null & echo $! > {}; sleep 0.8; exit 0",
        pidfile.display()
    );
    let log = d.join("gc.log");
    let out = gcscope()
        .args(["run", "--headless", "--record"])
        .arg(&log)
        .args(["--", "sh", "-c", &script])
        .output()
        .unwrap();
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let pid = read_pid(&pidfile);
    assert!(
        gone_within(pid, Duration::from_secs(5)),
        "the program's background child {pid} was left running"
    );
    // The background yes is the program's own work: reaped by the supervisor, its CPU is in
    // the program's (runs.tsv's cpu_s), not in the other load.
    let tsv = std::fs::read_to_string(d.join("runs.tsv")).unwrap();
    let head: Vec<&str> = tsv.lines().next().unwrap().split('\t').collect();
    let row: Vec<&str> = tsv.lines().nth(1).unwrap().split('\t').collect();
    let cpu: f64 = row[head.iter().position(|h| *h == "cpu_s").unwrap()]
        .parse()
        .unwrap();
    assert!(
        cpu > 0.3,
        "the background yes's CPU is the program's: {tsv}"
    );
    let load: f64 = stderr
        .split("other load ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no load figure: {stderr}"));
    let cpus = std::thread::available_parallelism().unwrap().get() as f64;
    assert!(load <= cpus, "{load} CPUs of other load on {cpus} CPUs");
}

/// A failed warm-up is named as one, stops the A/B, and is listed as failed.
#[test]
fn ab_a_failed_warm_up_is_named() {
    let ok = format!("{} --trace {} --speed 0", standin(), trace(LEGACY));
    let bad = format!(
        "{} --trace {} --speed 0 --exit 3",
        standin(),
        trace(GREENTEA)
    );
    let out = gcscope()
        .args([
            "ab",
            "--headless",
            "--runs",
            "2",
            "--warmup",
            "1",
            &ok,
            &bad,
        ])
        .output()
        .unwrap();
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("warm-up 1 of B failed"), "{stderr}");
    assert!(
        stdout.contains("failed: B warm-up 1: exit status 3, left out"),
        "{stdout}"
    );
    assert!(stdout.contains("order: a b!"), "{stdout}");
}

/// `kill -9` of gcscope: the supervisor between it and the program ends the program and what
/// the program started (here a shell's two sleeps), headless and on a pipe alike.
#[test]
fn run_s_grandchildren_die_with_a_sigkilled_gcscope() {
    let d = temp("sigkill");
    let pids = d.join("pids");
    let script = format!(
        "sleep 3003 & echo $! >> {p}; sleep 3004 & echo $! >> {p}; wait",
        p = pids.display()
    );
    let mut child = gcscope()
        .args(["run", "--headless", "--", "sh", "-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let read = || -> Vec<i32> {
        std::fs::read_to_string(&pids)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| l.trim().parse().ok())
            .collect()
    };
    while read().len() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let sleeps = read();
    assert_eq!(sleeps.len(), 2, "the sleeps did not start");
    child.kill().unwrap();
    let _ = child.wait();
    for pid in sleeps {
        assert!(
            gone_within(pid, Duration::from_secs(5)),
            "sleep {pid} outlived a SIGKILLed gcscope"
        );
    }
}
