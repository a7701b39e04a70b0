//! A stand-in for a Go program, for the tests of `gcscope run` and `gcscope ab` (CI has no Go
//! toolchain): it prints a real recorded trace's lines to stderr at their own timestamps, as
//! the runtime would, and whatever the test asks on stdout.
//!
//! standin [--trace FILE] [--speed X] [--say TEXT]... [--say-first TEXT]... [--godebug]
//!         [--pidfile FILE] [--exit N] [--hang] [--ignore-term] [--child-pidfile FILE]
#![allow(clippy::unwrap_used, clippy::zombie_processes)]

use std::io::Write;
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut trace, mut speed, mut exit, mut hang) = (None, 1.0f64, 0, false);
    let (mut say, mut say_first) = (Vec::new(), Vec::new());
    while let Some(a) = args.next() {
        let mut value = || args.next().expect("a value after the flag");
        match a.as_str() {
            "--trace" => trace = Some(value()),
            "--speed" => speed = value().parse().unwrap(),
            "--say" => say.push(value()),
            "--say-first" => say_first.push(value()),
            "--godebug" => say_first.push(format!(
                "GODEBUG={}",
                std::env::var("GODEBUG").unwrap_or_default()
            )),
            "--pidfile" => std::fs::write(value(), std::process::id().to_string()).unwrap(),
            "--exit" => exit = value().parse().unwrap(),
            "--hang" => hang = true,
            "--ignore-term" => {
                // SAFETY: ignoring a signal touches no memory of ours.
                unsafe { libc::signal(libc::SIGTERM, libc::SIG_IGN) };
            }
            "--child-pidfile" => {
                // A child of its own that outlives nothing: it sleeps until killed.
                let c = std::process::Command::new("sleep")
                    .arg("1000")
                    .spawn()
                    .unwrap();
                std::fs::write(value(), c.id().to_string()).unwrap();
            }
            other => panic!("standin: unknown flag {other}"),
        }
    }
    let mut out = std::io::stdout();
    for s in &say_first {
        writeln!(out, "{s}").unwrap();
    }
    out.flush().unwrap();
    if let Some(path) = trace {
        let text = std::fs::read_to_string(path).unwrap();
        let t0 = Instant::now();
        let mut err = std::io::stderr();
        for line in text.lines() {
            // `gc N @T.TTTs ...`: wait for T (scaled) since start, as the program would.
            if let Some(at) = line
                .strip_prefix("gc ")
                .and_then(|r| r.split_once(" @"))
                .and_then(|(_, r)| r.split_once("s "))
                .and_then(|(t, _)| t.parse::<f64>().ok())
            {
                if speed > 0.0 {
                    let due = Duration::from_secs_f64(at / speed);
                    if let Some(wait) = due.checked_sub(t0.elapsed()) {
                        std::thread::sleep(wait);
                    }
                }
            }
            writeln!(err, "{line}").unwrap();
        }
    }
    for s in &say {
        writeln!(out, "{s}").unwrap();
    }
    out.flush().unwrap();
    if hang {
        loop {
            std::thread::sleep(Duration::from_secs(1000));
        }
    }
    std::process::exit(exit);
}
