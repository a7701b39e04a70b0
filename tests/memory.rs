//! Memory that does not grow with the output: `summary --json` and `--csv` of 1,000,000 real
//! lines from standard input stay under 80 MiB, and CSV rows come out while the input is still
//! being written. (The input restarts its cycle counter every 116 lines: 8,584 runs, each with
//! its bounded statistics and findings facts, about 1.5 KB of them a run since the findings.)
#![cfg(unix)]
// A test that unwraps fails loudly, which is what it should do.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

/// 1,000,000 lines made of real logs (gc lines, scan: lines, notes, program output).
fn million_lines() -> Vec<u8> {
    let mut real = Vec::new();
    for f in [
        "traces/go/go1.27.3_greentea_map_p2_gctrace2.log",
        "traces/go/go1.27.3_greentea_tree_p2_r1.log",
        "traces/go/go1.26.6_legacy_tree_p2_r1.stdout.txt",
    ] {
        real.extend(std::fs::read(f).unwrap());
    }
    let lines: Vec<&[u8]> = real
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    let mut out = Vec::with_capacity(90 << 20);
    for l in lines.iter().cycle().take(1_000_000) {
        out.extend_from_slice(l);
        out.push(b'\n');
    }
    out
}

/// Watches a running process's peak resident size (VmHWM, which only grows) until it exits,
/// KiB. (getrusage over children would count the test's own 74 MB of input: a child's size
/// before it execs is its parent's.)
fn watch_peak(pid: u32) -> std::thread::JoinHandle<u64> {
    std::thread::spawn(move || {
        let mut peak = 0;
        while let Ok(status) = std::fs::read_to_string(format!("/proc/{pid}/status")) {
            let hwm = status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok());
            match hwm {
                Some(kib) => peak = peak.max(kib),
                None => break, // a zombie: it has exited
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        }
        peak
    })
}

#[test]
fn json_and_csv_of_a_million_lines_from_stdin_stay_under_80_mib_and_csv_streams() {
    let input = million_lines();
    for args in [["summary", "--json", "-"], ["summary", "--csv", "-"]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gcscope"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let peak = watch_peak(child.id());
        let mut stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let seen = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counter = seen.clone();
        let reader = std::thread::spawn(move || {
            let (mut lines, mut line) = (0usize, String::new());
            while stdout.read_line(&mut line).unwrap() > 0 {
                lines += 1;
                counter.store(lines, std::sync::atomic::Ordering::Relaxed);
                line.clear();
            }
            lines
        });
        if args[1] == "--csv" {
            // Half the input, and rows are already out before the rest is written.
            let half = input.len() / 2;
            let cut = half + input[half..].iter().position(|&b| b == b'\n').unwrap() + 1;
            stdin.write_all(&input[..cut]).unwrap();
            stdin.flush().unwrap();
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
            while seen.load(std::sync::atomic::Ordering::Relaxed) < 1000
                && std::time::Instant::now() < deadline
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            let early = seen.load(std::sync::atomic::Ordering::Relaxed);
            assert!(
                early >= 1000,
                "no CSV rows before the input ended ({early})"
            );
            stdin.write_all(&input[cut..]).unwrap();
        } else {
            stdin.write_all(&input).unwrap();
        }
        drop(stdin);
        let lines = reader.join().unwrap();
        assert!(child.wait().unwrap().success(), "{args:?}");
        assert!(lines > 1000, "{args:?}: {lines} lines");
        let peak = peak.join().unwrap();
        assert!(peak > 0 && peak < 80 << 10, "{args:?}: peak {peak} KiB");
        eprintln!("{args:?}: {lines} lines out, peak {peak} KiB");
    }
}

/// 400,000 one-cycle runs: a stream whose cycle counter never advances (a log of many short
/// processes, `yes 'gc 1 @...'`), each line a run of its own.
fn one_cycle_runs(n: usize) -> Vec<u8> {
    "gc 1 @0.010s 1%: 0.010+1.0+0.010 ms clock, 0.020+0.10/0.50/0+0.020 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n"
        .repeat(n)
        .into_bytes()
}

/// Runs gcscope with `args` and `input` on its standard input, under a data cap of 512 MiB
/// (a runaway fails there instead of taking the machine): its output, its peak resident size
/// in KiB, and whether it ended well.
fn capped(args: &[&str], input: &[u8]) -> (Vec<u8>, Vec<u8>, u64, bool) {
    let (out, err, peak, status) = capped_in(args, input, &[]);
    (out, err, peak, status.success())
}

/// `capped` with these environment variables set, and the exit status itself.
fn capped_in(
    args: &[&str],
    input: &[u8],
    env: &[(&str, &str)],
) -> (Vec<u8>, Vec<u8>, u64, std::process::ExitStatus) {
    use std::os::unix::process::CommandExt;
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_gcscope"));
    cmd.args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: setrlimit is async-signal-safe; nothing else runs between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let cap = libc::rlimit {
                rlim_cur: 512 << 20,
                rlim_max: 512 << 20,
            };
            if libc::setrlimit(libc::RLIMIT_DATA, &cap) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn().unwrap();
    let peak = watch_peak(child.id());
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // A child that failed stops reading: its error is what the test reports.
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (out.stdout, out.stderr, peak.join().unwrap(), out.status)
}

/// Memory bounded by what is shown, not by what was read: 400,000 one-cycle runs from a
/// pipe stay under 64 MiB in `summary` (text, JSON and Markdown), `--csv`, and `run
/// --headless` of a program that prints them; every run is still in the output. (Before the
/// timeline retired runs: 736 MB, 1,011 MB, 949 MB and 1.45 GB; Markdown 1.25 GB until it
/// spooled its rows too.)
#[test]
fn four_hundred_thousand_one_cycle_runs_stay_under_64_mib_headless() {
    const RUNS: usize = 400_000;
    let input = one_cycle_runs(RUNS);
    let dir = std::env::temp_dir().join(format!("gcscope-flood-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("flood.log");
    std::fs::write(&log, &input).unwrap();
    let print = format!("cat '{}' >&2", log.display());
    let cases: [(&[&str], &[u8]); 5] = [
        (&["summary", "-"], &input),
        (&["summary", "--json", "-"], &input),
        (&["summary", "--csv", "-"], &input),
        (&["summary", "--format", "markdown", "-"], &input),
        (&["run", "--headless", "--", "sh", "-c", &print], b""),
    ];
    for (args, stdin) in cases {
        let (out, err, peak, ok) = capped(args, stdin);
        let err = String::from_utf8_lossy(&err);
        assert!(ok, "{args:?}: {}", &err[err.len().saturating_sub(2000)..]);
        let out = String::from_utf8_lossy(&out);
        let text = if args[0] == "run" { &err } else { &out };
        let want = match args[1] {
            "--json" => format!("\"runs\": {RUNS},"),
            "--csv" => format!("-,{RUNS},1,{RUNS},"),
            // The table's last row: every run has one, in order.
            "--format" => format!("| - | {RUNS} | Go 1.18+ (stacks, globals), 2 P | 1 |"),
            _ => format!("{RUNS} runs, {RUNS} cycles"),
        };
        assert!(text.contains(&want), "{args:?}: no {want:?}");
        if args[1] == "--format" {
            let rows = text.lines().filter(|l| l.starts_with("| - | ")).count();
            assert_eq!(rows, RUNS, "{args:?}: a row a run");
        } else if args[1] != "--csv" {
            // Every run has its part: the last run's, numbered as the first's.
            let last = match args[1] {
                "--json" => format!("\"run\": {RUNS},"),
                _ => format!("run {RUNS} (from line"),
            };
            assert!(text.contains(&last), "{args:?}: no {last:?}");
        }
        eprintln!("{args:?}: peak {peak} KiB");
        assert!(peak > 0 && peak < 64 << 10, "{args:?}: peak {peak} KiB");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One process's 3,000,000 cycles from a pipe stay under 64 MiB in `--csv` and `--json`.
/// `--csv` writes rows as they come, and its statistics (`RunStats::lean`) hold nothing per
/// cycle. `--json` summarises the run in full:
/// - its per-cycle columns stream past 16,384 cycles (`per_cycle`): counted while a column
///   has few distinct values, binned past that (the sweep termination times written here
///   take 2,000 values, so the pause column has more than `counted::DISTINCT_CAP`);
/// - the pacer judges one block of 64 cycles in 2^k past 16,384 (`pacer::POINTS_CAP`), and
///   says so.
///
/// Before: 213 MB for `--csv`, 263 MB for `--json`.
#[test]
fn csv_and_json_of_three_million_cycles_from_a_pipe_stay_under_64_mib() {
    const CYCLES: usize = 3_000_000;
    let real = std::fs::read_to_string("traces/go/go1.27.3_greentea_tree_p2_r1.log").unwrap();
    // Each line's text after its sweep termination time.
    let tails: Vec<String> = real
        .lines()
        .filter_map(|l| {
            l.split_once("%: ")?
                .1
                .split_once('+')
                .map(|(_, t)| t.to_string())
        })
        .collect();
    for format in ["--csv", "--json"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gcscope"))
            .args(["summary", format, "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let peak = watch_peak(child.id());
        let mut stdin = std::io::BufWriter::new(child.stdin.take().unwrap());
        let tails = tails.clone();
        // Written as it is made: the input never sits in this test's memory whole.
        let writer = std::thread::spawn(move || {
            for i in 0..CYCLES {
                let tail = &tails[i % tails.len()];
                writeln!(
                    stdin,
                    "gc {} @{}.{:03}s 29%: {}.{:03}+{tail}",
                    i + 1,
                    i / 10,
                    (i % 10) * 100,
                    i % 2000 / 1000,
                    i % 1000
                )
                .unwrap();
            }
        });
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (mut rows, mut line, mut last, mut all) =
            (0usize, String::new(), String::new(), String::new());
        while stdout.read_line(&mut line).unwrap() > 0 {
            rows += 1;
            if format == "--json" {
                all.push_str(&line);
            }
            std::mem::swap(&mut last, &mut line);
            line.clear();
        }
        writer.join().unwrap();
        assert!(child.wait().unwrap().success());
        if format == "--csv" {
            assert_eq!(rows, CYCLES + 1, "a header and a row a cycle");
            assert!(
                last.starts_with(&format!("-,1,{CYCLES},{CYCLES},")),
                "{last}"
            );
        } else {
            let v: serde_json::Value = serde_json::from_str(&all).unwrap();
            let run = &v["runs"][0];
            assert_eq!(run["cycles"], CYCLES);
            assert_eq!(run["per_cycle_binned"], true);
            // 3M judged cycles over the 16,384-point cap: one block in 256.
            assert_eq!(run["pacer"]["judged_one_block_in"], 256, "{}", run["pacer"]);
            assert!(run["pause_ms"]["p99"].as_f64().unwrap() > 0.0);
        }
        let peak = peak.join().unwrap();
        eprintln!("{format} of {CYCLES} cycles: peak {peak} KiB");
        assert!(peak > 0 && peak < 64 << 10, "{format}: peak {peak} KiB");
    }
}

/// Where the spool of earlier runs cannot be written (a full disk, a TMPDIR that is not
/// there), `summary` says so, names the directory, exits 1 and prints nothing half.
#[test]
fn a_spool_that_cannot_be_written_is_said_and_nothing_is_printed_half() {
    let input = one_cycle_runs(20_000);
    for args in [&["summary", "-"][..], &["summary", "--json", "-"]] {
        let (stdout, stderr, _, status) =
            capped_in(args, &input, &[("TMPDIR", "/nonexistent/gcscope-tmp")]);
        let err = String::from_utf8_lossy(&stderr);
        assert_eq!(status.code(), Some(1), "{args:?}: {err}");
        assert!(stdout.is_empty(), "{args:?}: output printed half");
        assert!(
            err.contains("temporary file in /nonexistent/gcscope-tmp (TMPDIR)"),
            "{args:?}: {err}"
        );
    }
}

/// `compare` folds each run into its side's figures as the run is read (`compare::Side`:
/// distributions exact up to 16,384 runs, binned past that), so its memory does not grow with
/// the runs: 400,000 one-cycle runs from a pipe against 100,000 from a file compare under
/// 64 MiB, text and JSON, every run counted, the verdict given and the binning said. (Before:
/// 872 MiB for 200,000 runs a side with each run's `RunSummary` kept; 230 MiB with a compact
/// record a run; 44-47 MiB now for 200,000 or 1,000,000 runs from a pipe.)
#[test]
fn compare_of_four_hundred_thousand_runs_stays_under_64_mib() {
    const A_RUNS: usize = 400_000;
    const B_RUNS: usize = 100_000;
    let dir = std::env::temp_dir().join(format!("gcscope-compare-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let b = dir.join("b.log");
    // B's runs pause longer, so the table has a verdict to give.
    let slower = String::from_utf8(one_cycle_runs(B_RUNS))
        .unwrap()
        .replace("0.010+1.0+0.010 ms clock", "0.020+1.0+0.020 ms clock");
    std::fs::write(&b, slower).unwrap();
    let b = b.display().to_string();
    let input = one_cycle_runs(A_RUNS);
    for json in [false, true] {
        let args: Vec<&str> = ["compare"]
            .into_iter()
            .chain(json.then_some("--json"))
            .chain(["-", "--", &b])
            .collect();
        let (out, err, peak, ok) = capped(&args, &input);
        let err = String::from_utf8_lossy(&err);
        assert!(ok, "{}", &err[err.len().saturating_sub(2000)..]);
        let out = String::from_utf8_lossy(&out);
        if json {
            let v: serde_json::Value = serde_json::from_str(&out).unwrap();
            assert_eq!(v["a_runs"], A_RUNS);
            assert_eq!(v["b_runs"], B_RUNS);
            assert_eq!(v["binned"], true);
            let pause = v["metrics"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["metric"] == "pause_max_ms")
                .unwrap();
            assert_eq!(pause["verdict"], "higher", "{pause}");
            assert_eq!(
                (pause["a"]["median"].as_f64(), pause["b"]["median"].as_f64()),
                (Some(0.02), Some(0.04))
            );
        } else {
            assert!(out.contains(&format!("({A_RUNS} runs)")), "{out}");
            assert!(out.contains(&format!("({B_RUNS} runs)")), "{out}");
            let pause = out
                .lines()
                .find(|l| l.starts_with("pause max ms"))
                .unwrap_or_else(|| panic!("no pause row: {out}"));
            assert!(pause.contains("0.02") && pause.contains("0.04"), "{pause}");
            assert!(pause.contains("+100"), "a verdict: {pause}");
            // The footnote reads as one sentence (a line continuation once left runs of
            // blanks in it).
            assert!(
                out.contains(
                    "binned: a side has over 16384 runs, so its medians and p-values are read \
                     from bins of at most 0.1 % of their values"
                ),
                "{out}"
            );
        }
        eprintln!("compare (json: {json}) of {A_RUNS} v {B_RUNS} runs: peak {peak} KiB");
        assert!(peak > 0 && peak < 64 << 10, "peak {peak} KiB");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `summary` and `compare` read with base pages only (`source::read::base_pages_only`): the
/// kernel's record of the process says so while it reads. (Only they: a command that starts
/// programs would hand the setting on to them.)
#[test]
fn summary_and_compare_read_with_base_pages_only() {
    let thp_enabled = |pid: u32| -> Option<String> {
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let line = status.lines().find(|l| l.starts_with("THP_enabled:"))?;
        Some(line.split_whitespace().nth(1)?.to_string())
    };
    if thp_enabled(std::process::id()).is_none() {
        eprintln!("SKIPPED: no THP_enabled in /proc/self/status (not Linux 5.0+)");
        return;
    }
    let trace = "traces/go/go1.27.3_legacy_scalar_p2_r3.log";
    for args in [&["summary", "-"][..], &["compare", "-", "--", trace][..]] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_gcscope"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        // Standard input stays open: the process is still reading it when it is looked at.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        let mut seen = thp_enabled(child.id());
        while seen.as_deref() != Some("0") && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
            seen = thp_enabled(child.id());
        }
        let _ = child.kill();
        let _ = child.wait();
        assert_eq!(seen.as_deref(), Some("0"), "gcscope {args:?}");
    }
}
