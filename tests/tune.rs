//! `gcscope tune` as a user runs it: the text says "model", the JSON carries what the issue
//! names, runs the model does not fit are refused with the reason, and `--verify` runs a
//! command at each setting and sets its measurement beside the prediction.
#![allow(clippy::unwrap_used)]

use std::process::{Command, Output};

fn gcscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const TREE: &str = "traces/go/pacer/sweep_tree_gogc100.log";

#[test]
fn tune_prints_a_model_with_its_basis_and_the_trace_s_own_point() {
    let o = gcscope(&["tune", TREE]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let s = text(&o.stdout);
    assert!(s.contains("model, not measured"), "{s}");
    assert!(s.contains("GOGC 98 read back"), "{s}");
    assert!(s.contains("(trace)"), "{s}");
    for g in ["GOGC=25 ", "GOGC=400 "] {
        assert!(s.contains(g), "{g}: {s}");
    }
    assert!(
        s.contains("against the trace's own setting (model):"),
        "{s}"
    );
    assert!(s.contains("assumed:"), "{s}");
}

#[test]
fn tune_json_has_predictions_with_the_named_fields_and_halves_cpu_when_gogc_doubles() {
    let o = gcscope(&[
        "tune", "--json", "--gogc", "100,200", "--limit", "48MiB", TREE,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["model"], "predicted, not measured");
    let p = v["predictions"].as_array().unwrap();
    // 100, 200, and the limit at each.
    assert_eq!(p.len(), 4, "{p:#?}");
    for k in [
        "gogc",
        "limit_mib",
        "cycles",
        "compulsory_gc_cpu_s",
        "peak_heap_mb",
    ] {
        assert!(p[0].get(k).is_some(), "{k}");
    }
    assert!(p[0]["limit_mib"].is_null());
    assert_eq!(p[2]["limit_mib"], 48.0);
    let cpu = |i: usize| p[i]["compulsory_gc_cpu_s"].as_f64().unwrap();
    let ratio = cpu(1) / cpu(0);
    assert!(
        (0.35..0.75).contains(&ratio),
        "GOGC 200 / 100 GC P time {ratio}"
    );
    // A 48 MiB limit binds a heap that peaks at 60+ MiB: more cycles, a smaller heap.
    let peak = |i: usize| p[i]["peak_heap_mb"].as_f64().unwrap();
    assert!(peak(2) < peak(0) && p[2]["limit_binds_share"].as_f64().unwrap() > 0.5);
    let basis = &v["basis"];
    assert_eq!(basis["formula"], "go1.18+");
    assert!(basis["work_mib"].as_f64().unwrap() > 1000.0);
}

#[test]
fn a_leaking_program_is_refused_with_the_reason() {
    let o = gcscope(&[
        "tune",
        "traces/go/go1.27.3_greentea_heapleak_p2_live-growth.log",
    ]);
    assert!(!o.status.success());
    let e = text(&o.stderr);
    assert!(
        e.contains("not tuned") && e.contains("still growing"),
        "{e}"
    );
}

#[test]
fn a_setting_the_model_cannot_predict_says_why_in_its_row() {
    let o = gcscope(&["tune", "--gogc", "off,5000", TREE]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let s = text(&o.stdout);
    assert!(
        s.contains("GOGC=off") && s.contains("no goal at all"),
        "{s}"
    );
    assert!(
        s.contains("GOGC=5000") && s.contains("outside what it shows"),
        "{s}"
    );
}

#[test]
fn bad_sizes_and_missing_files_get_clear_errors() {
    let o = gcscope(&["tune", "--limit", "12XB", TREE]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("use B, KiB, MiB, GiB or TiB"));
    let o = gcscope(&["tune", "no/such.log"]);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("no/such.log"));
    let o = gcscope(&["tune", "--verify", TREE]);
    assert!(!o.status.success(), "--verify needs a command");
}

/// `--verify` through its whole path without Go: the command is a shell script that replays,
/// for the GOGC it is given, the recorded run at that GOGC (traces/go/pacer/sweep_tree_*), so
/// what it measures is what real Go did at each setting, and the verdicts are the model's
/// against those recordings.
#[test]
fn verify_runs_each_setting_interleaved_and_sets_measurement_beside_the_model() {
    let script = "case $GOGC in 9[0-9]|10[0-9]) g=100;; *) g=$GOGC;; esac; \
                  test \"$GOMEMLIMIT\" = off || exit 3; \
                  cat traces/go/pacer/sweep_tree_gogc$g.log >&2";
    let o = gcscope(&[
        "tune", TREE, "--json", "--gogc", "50,200", "--verify", "--runs", "2", "--", "sh", "-c",
        script,
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    // Own setting first, then 50, 200; two rounds: 6 runs, in rounds.
    assert!(
        err.contains("[1/6] GOGC=98 run 1") && err.contains("[6/6] GOGC=200 run 2"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let checks = v["verify"].as_array().unwrap();
    assert_eq!(checks.len(), 3);
    let own = &checks[0];
    assert_eq!(own["own"], true);
    // The trace's own setting replays the fitted trace itself: the model reproduces it.
    assert_eq!(own["measured"]["runs"], 2);
    let (p, m) = (
        own["predicted"]["cycles"].as_f64().unwrap(),
        own["measured"]["cycles"]["median"].as_f64().unwrap(),
    );
    assert!((p / m - 1.0).abs() < 0.02, "{p} vs {m}");
    assert_eq!(own["held"]["cycles"], true);
    for c in checks {
        assert!(c["held"]["peak_heap_mb"].is_boolean(), "{c:#?}");
        assert_eq!(c["failed_runs"], 0);
    }
    // The text form says model and measured side by side.
    let o = gcscope(&[
        "tune", TREE, "--gogc", "200", "--verify", "--runs", "1", "--", "sh", "-c", script,
    ]);
    let s = text(&o.stdout);
    assert!(
        s.contains("model [range]") && s.contains("measured median"),
        "{s}"
    );
    assert!(s.contains("the model held on"), "{s}");
}

#[test]
fn a_failing_command_is_counted_and_left_out() {
    let o = gcscope(&[
        "tune", TREE, "--gogc", "200", "--verify", "--runs", "1", "--", "sh", "-c", "exit 4",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let s = text(&o.stdout);
    assert!(s.contains("no run gave figures (1 failed)"), "{s}");
}

/// SIGINT during `--verify`: the running program is stopped, what was measured so far is
/// printed, and gcscope exits 128 + 2, as `ab` does.
#[cfg(unix)]
#[test]
fn an_interrupted_verify_stops_the_program_and_prints_what_it_has() {
    use std::process::Stdio;
    let dir = std::env::temp_dir().join(format!("gcscope-tune-int-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let pidfile = dir.join("pid");
    let script = format!("echo $$ > {}; exec sleep 30", pidfile.display());
    let child = Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(["tune", TREE, "--verify", "--", "sh", "-c", &script])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    while !pidfile.exists() && t0.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let pid: i32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // SAFETY: kill has no memory-safety preconditions.
    unsafe { libc::kill(i32::try_from(child.id()).unwrap(), libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(128 + libc::SIGINT),
        "{}",
        text(&out.stderr)
    );
    assert!(text(&out.stderr).contains("stopped; the runs so far are compared"));
    assert!(text(&out.stdout).contains("no run gave figures (1 failed)"));
    // SAFETY: signal 0 only asks whether the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    assert!(!alive, "the program {pid} outlived gcscope");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Under `go run` the log holds the go command's own cycles first (a process of its own, the
/// counter restarting at gc 1): tune fits the last process, the program's, and predicts what
/// it predicts from the program's lines alone.
#[test]
fn a_go_run_log_is_tuned_on_the_program_not_the_go_command() {
    let program = "traces/go/tune-holdout4/pointer_gt_gogc100_r1.log";
    let go_command: String = std::fs::read_to_string("traces/go/go1.27.3_greentea_graph_p2_r1.log")
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("gc "))
        .take(12)
        .map(|l| format!("{l}\n"))
        .collect();
    let dir = std::env::temp_dir().join(format!("gcscope-gorun-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("gorun.log");
    let both = format!(
        "{go_command}# command-line-arguments\n{}",
        std::fs::read_to_string(program).unwrap()
    );
    std::fs::write(&log, both).unwrap();
    let json = |path: &str| -> serde_json::Value {
        let o = gcscope(&["tune", "--json", path]);
        assert!(o.status.success(), "{path}: {}", text(&o.stderr));
        serde_json::from_slice(&o.stdout).unwrap()
    };
    let (alone, under_go_run) = (json(program), json(log.to_str().unwrap()));
    assert_eq!(
        under_go_run["run"], 2,
        "the program is the log's second process"
    );
    assert_eq!(alone["predictions"], under_go_run["predictions"]);
    assert_eq!(alone["basis"]["cycles"], under_go_run["basis"]["cycles"]);
    std::fs::remove_dir_all(&dir).unwrap();
}
