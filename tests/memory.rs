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
