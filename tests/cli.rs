//! The binary as a user runs it: exit codes, messages, formats.
// A test or bench that unwraps fails loudly, which is what it should do.
#![allow(clippy::unwrap_used)]

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn gcscope(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("runs")
}

/// `gcscope args` with `input` on its standard input.
fn gcscope_stdin(args: &[&str], input: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    child
        .stdin
        .take()
        .expect("piped")
        .write_all(input)
        .expect("the input is taken");
    child.wait_with_output().expect("runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const TREE_GT: &str = "traces/go/go1.27.3_greentea_tree_p2_r1.log";
const TREE_LEGACY: &str = "traces/go/go1.27.3_legacy_tree_p2_r1.log";

#[test]
fn missing_file_names_the_path() {
    let o = gcscope(&["summary", "no/such/trace.log"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no/such/trace.log"), "{err}");
}

#[test]
fn summary_text_reports_problems_with_line_numbers() {
    let o = gcscope(&[
        "summary",
        "traces/go/go1.27.3_greentea_graph_p2_r1_synthetic-truncated.log",
    ]);
    assert!(o.status.success());
    let s = stdout(&o);
    assert!(s.contains("8 cycles"), "{s}");
    assert!(s.contains("line 9: gc line ends early"), "{s}");
}

#[test]
fn summary_json_has_the_documented_fields() {
    let o = gcscope(&["summary", "--json", TREE_GT]);
    assert!(o.status.success());
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let run = &j["runs"][0];
    for key in ["cycles", "forced", "first_cycle", "last_cycle", "procs"] {
        assert!(run[key].is_u64(), "{key}");
    }
    for key in ["sweep_term", "assist", "background", "idle", "mark_term"] {
        assert!(run["cpu_ms"][key].is_f64(), "cpu_ms.{key}");
    }
    for key in ["sweep_term", "mark", "mark_term"] {
        assert!(run["clock_ms"][key].is_f64(), "clock_ms.{key}");
    }
    for key in ["p50", "p90", "p99", "max"] {
        assert!(run["pause_ms"][key].is_f64(), "pause_ms.{key}");
    }
    assert_eq!(run["cycles"], 61);
    assert_eq!(run["procs"], 2);
    assert!(j["problems"].as_array().unwrap().is_empty());
    assert_eq!(j["notes"]["pacer"], 0);
}

#[test]
fn summary_reads_stdin() {
    let text = std::fs::read(format!("{}/{TREE_LEGACY}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let o = gcscope_stdin(&["summary", "--json", "-"], &text);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["runs"][0]["cycles"], 58);
    assert_eq!(j["runs"][0]["source"], "-");
}

/// A lab trace (a `lab:` line before each gc line): the summary reports the lab's page scan
/// density and totals, in text and JSON.
#[test]
fn summary_reports_lab_page_density() {
    let mut text = String::new();
    for n in 1..=3 {
        text += &format!(
            "lab: objs {} bytes {} visits {} freed 100 cpu_ns 2500000 hist 4,{n}\n",
            1000 * n,
            (1 << 20) * n,
            100 * n
        );
        text += &format!("gc {n} @0.{n}s 1%: 0.01+1.0+0.01 ms clock, 0.02+0.1/0.5/0+0.02 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n");
    }
    let run = |args: &[&str]| {
        let o = gcscope_stdin(args, text.as_bytes());
        assert!(o.status.success());
        o
    };
    let j: serde_json::Value =
        serde_json::from_slice(&run(&["summary", "--json", "-"]).stdout).unwrap();
    let r = &j["runs"][0];
    assert_eq!(r["format"], "gcscope lab");
    assert!(r["scan"].is_null());
    let lab = &r["lab"];
    assert_eq!(lab["cycles_with_lab"], 3);
    assert_eq!(lab["objects_scanned"], 6000);
    assert_eq!(lab["bytes_scanned"], 6 << 20);
    assert_eq!(lab["page_visits"], 600);
    assert_eq!(lab["objects_per_page_visit"], 10.0);
    assert_eq!(lab["objects_freed"], 300);
    assert_eq!(lab["thread_cpu_ms"], 7.5);
    assert_eq!(lab["thread_cpu_ms_per_cycle"], 2.5);
    assert_eq!(lab["density_hist"], serde_json::json!([12, 6]));
    assert!(j["problems"].as_array().unwrap().is_empty());
    let s = stdout(&run(&["summary", "-"]));
    assert!(
        s.contains("page scan    10.0 objects per page visit (600 visits, 6000 objects, 6 MiB) in 3 lab cycles"),
        "{s}"
    );
    assert!(s.contains("300 objects freed; GC thread CPU 7.5 ms"), "{s}");
    // Without lab lines there is no lab section.
    let o = gcscope(&["summary", "--json", TREE_GT]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(j["runs"][0]["lab"].is_null());
}

#[test]
fn csv_has_one_row_per_cycle() {
    let o = gcscope(&["summary", "--csv", TREE_GT, TREE_LEGACY]);
    let s = stdout(&o);
    let mut lines = s.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header[0], "source");
    let rows: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), 61 + 58);
    assert!(rows.iter().all(|r| r.split(',').count() == header.len()));
}

#[test]
fn compare_reports_ranges_and_overlap() {
    let o = gcscope(&[
        "compare",
        "--json",
        "traces/go/go1.27.3_legacy_graph_p2_r1.log",
        "traces/go/go1.27.3_legacy_graph_p2_r2.log",
        "traces/go/go1.27.3_legacy_graph_p2_r3.log",
        "--",
        "traces/go/go1.27.3_greentea_graph_p2_r1.log",
        "traces/go/go1.27.3_greentea_graph_p2_r2.log",
        "traces/go/go1.27.3_greentea_graph_p2_r3.log",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["a_runs"], 3);
    let rows = j["metrics"].as_array().unwrap();
    let row = |k: &str| rows.iter().find(|r| r["metric"] == k).unwrap().clone();
    // Green Tea's graph win is far outside the run-to-run ranges.
    let c = row("compulsory_cpu_ms_per_cycle");
    assert_eq!(c["overlap"], false);
    assert!(c["delta_pct"].as_f64().unwrap() < -40.0, "{c}");
    assert!(c["p"].is_null(), "no p-value with 3 runs a side");
    let a = &c["a"];
    assert!(a["min"].as_f64() <= a["median"].as_f64() && a["median"].as_f64() <= a["max"].as_f64());

    let text = stdout(&gcscope(&[
        "compare",
        TREE_GT,
        "--",
        "traces/go/go1.27.3_greentea_tree_p2_r2.log",
    ]));
    assert!(text.contains("mean compulsory P ms/cycle"), "{text}");
}

/// gctrace=2 traces: Green Tea prints span visits, so its side has a page scan density; the
/// legacy collector's `scan:` lines count objects only, so its side has none and the row says
/// so instead of comparing.
#[test]
fn compare_page_scan_density_of_gctrace2_traces() {
    const LEGACY2: &str = "traces/go/go1.27.3_legacy_tree_p2_gctrace2.log";
    const GT2: &str = "traces/go/go1.27.3_greentea_tree_p2_gctrace2.log";
    let o = gcscope(&["compare", LEGACY2, "--", GT2]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = stdout(&o);
    let line = |label: &str| -> Vec<String> {
        let l = text
            .lines()
            .find(|l| l.starts_with(label))
            .unwrap_or_else(|| panic!("no {label} row in\n{text}"));
        l[label.len()..]
            .split_whitespace()
            .map(String::from)
            .collect()
    };
    assert_eq!(
        line("page scan density"),
        ["n/a", "49.3", "B", "only"],
        "{text}"
    );
    assert!(
        text.contains("A only, B only: no run on the other side"),
        "{text}"
    );
    // Both sides have the other two new figures.
    for label in ["mean GC P ms/cycle", "idle share of GC P time"] {
        let cells = line(label);
        assert!(!cells.contains(&"n/a".to_string()), "{label}: {text}");
    }

    let j: serde_json::Value =
        serde_json::from_slice(&gcscope(&["compare", "--json", LEGACY2, "--", GT2]).stdout)
            .unwrap();
    let rows = j["metrics"].as_array().unwrap();
    let keys: Vec<&str> = rows.iter().map(|r| r["metric"].as_str().unwrap()).collect();
    assert_eq!(
        keys[1..8],
        [
            "compulsory_cpu_ms_per_cycle",
            "compulsory_cpu_s_per_run",
            "cycles_per_run",
            "page_scan_density",
            "gc_cpu_ms_per_cycle",
            "assist_share",
            "idle_share",
        ]
    );
    let key = |k: &str| rows.iter().find(|r| r["metric"] == k).unwrap();
    let d = key("page_scan_density");
    assert!(d["a"].is_null() && d["delta_pct"].is_null(), "{d}");
    let b = d["b"]["median"].as_f64().unwrap();
    assert!((b - 49.3).abs() < 0.05, "{d}");
    // GC CPU per cycle is the mean: the summary's total over its cycles.
    let s: serde_json::Value =
        serde_json::from_slice(&gcscope(&["summary", "--json", GT2]).stdout).unwrap();
    let (total, cycles) = (
        s["runs"][0]["gc_cpu_ms"].as_f64().unwrap(),
        s["runs"][0]["cycles"].as_f64().unwrap(),
    );
    let b = |k: &str| key(k)["b"]["median"].as_f64();
    let per = b("gc_cpu_ms_per_cycle").unwrap();
    assert!(
        (per - total / cycles).abs() < 1e-9,
        "{per} vs {total}/{cycles}"
    );
    assert_eq!(b("cycles_per_run"), Some(cycles));
    let compulsory = s["runs"][0]["compulsory_cpu_ms"].as_f64().unwrap();
    assert_eq!(b("compulsory_cpu_s_per_run"), Some(compulsory / 1000.0));
    let assist = s["runs"][0]["cpu_ms"]["assist"].as_f64().unwrap();
    assert_eq!(b("assist_share"), Some(assist / compulsory));
    assert_eq!(b("idle_share"), s["runs"][0]["idle_share"].as_f64());

    // The bench format carries the density for the Green Tea run only.
    let bench = stdout(&gcscope(&[
        "compare", "--format", "bench", LEGACY2, "--", GT2,
    ]));
    let lines: Vec<&str> = bench.lines().collect();
    assert!(!lines[1].contains("objs/visit"), "{bench}");
    assert!(lines[3].contains(" objs/visit"), "{bench}");
    assert!(lines[3].contains(" gc-cpu-ms/cycle") && lines[3].contains(" idle-share"));
}

/// Without gctrace=2 or lab lines no run has a page scan density: no row for it at all.
#[test]
fn compare_prints_no_row_for_a_figure_no_run_has() {
    let text = stdout(&gcscope(&["compare", TREE_LEGACY, "--", TREE_GT]));
    assert!(!text.contains("page scan density"), "{text}");
    assert!(
        !text.contains("B only") && !text.contains("A only"),
        "{text}"
    );
    assert!(text.contains("mean GC P ms/cycle"), "{text}");
    // JSON keeps the metric, with nothing on either side.
    let j: serde_json::Value =
        serde_json::from_slice(&gcscope(&["compare", "--json", TREE_LEGACY, "--", TREE_GT]).stdout)
            .unwrap();
    let d = j["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "page_scan_density")
        .unwrap();
    assert!(d["a"].is_null() && d["b"].is_null(), "{d}");
}

/// A figure only one side's runs carry: early Go 1.5 prints no goal, and one cycle has no
/// rate. The row says which side has it, and no delta is made up.
#[test]
fn compare_says_when_only_one_side_has_a_figure() {
    let o = gcscope_stdin(
        &["compare", "-", "--", TREE_GT],
        b"gc #1 @0.166s 0%: 0.22+2.3+0.074+0.76+0.56 ms clock, 0.45+2.3+0+0.55/0.59/0+1.1 ms cpu, 5->5->1 MB, 4 P\n",
    );
    assert!(o.status.success());
    let text = stdout(&o);
    for label in ["cycles/s", "heap goal max MB"] {
        let row = text.lines().find(|l| l.starts_with(label)).unwrap();
        let cells: Vec<&str> = row[label.len()..].split_whitespace().collect();
        assert_eq!(
            (cells[0], cells[2], cells[3]),
            ("n/a", "B", "only"),
            "{text}"
        );
    }
    assert!(
        text.contains("A only, B only: no run on the other side"),
        "{text}"
    );
}

#[test]
fn compare_bench_format_is_benchstat_input() {
    let s = stdout(&gcscope(&[
        "compare",
        "--format",
        "bench",
        TREE_LEGACY,
        "--",
        TREE_GT,
    ]));
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines[0], "side: A");
    assert!(
        lines[1].starts_with("BenchmarkGCTrace-2 58 "),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "side: B");
    // name, iterations, then value/unit pairs
    let fields: Vec<&str> = lines[3].split_whitespace().collect();
    assert_eq!(fields.len() % 2, 0);
    assert!(fields.contains(&"gc-cpu-%"));
}

#[test]
fn compare_needs_both_sides() {
    let o = gcscope(&["compare", TREE_GT]);
    assert!(!o.status.success());
}

/// `gcscope lab --headless --ab`: runs a side, one after another, then compare's table with
/// the lab's page scan density on both sides.
#[test]
fn lab_headless_ab_prints_the_comparison() {
    let o = gcscope(&[
        "lab",
        "--headless",
        "--ab",
        "--runs",
        "2",
        "--duration",
        "800ms",
        "--scale",
        "0.0625",
        "--workload",
        "graph",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = stdout(&o);
    assert!(out.contains("(2 runs)"), "{out}");
    let density = out
        .lines()
        .find(|l| l.starts_with("page scan density"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(!density.contains("n/a"), "{density}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("run ").count(), 4, "{err}");
}

/// `--trace-out` writes a file `summary` reads back as the same lab run, with the same figures;
/// a bad path is named.
#[test]
fn lab_headless_and_summary_of_its_trace_agree_and_bad_paths_are_named() {
    let dir = std::env::temp_dir().join(format!("gcscope-cli-lab-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("lab.log");
    let f = file.to_str().unwrap();
    let o = gcscope(&[
        "lab",
        "--headless",
        "--json",
        "--duration",
        "600ms",
        "--scale",
        "0.0625",
        "--trace-out",
        f,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["lab"]["workload"], "tree");
    // The file says how it was made: every setting an A/B must share.
    let head = std::fs::read_to_string(&file).unwrap();
    assert_eq!(
        head.lines().next().unwrap(),
        "# gcscope lab tree greentea GOGC=100 P=2 seed=1 scale=0.0625 duration=0.6s"
    );
    let s = gcscope(&["summary", "--json", f]);
    let sj: serde_json::Value = serde_json::from_slice(&s.stdout).unwrap();
    let run = &sj["runs"][0];
    assert!(
        run["lab"]["objects_per_page_visit"].as_f64().unwrap() > 10.0,
        "{run}"
    );
    // One statistics engine: the run's figures are `summary`'s of the file, field for field.
    let mut from_file = run.clone();
    let fields = from_file.as_object_mut().unwrap();
    assert_eq!(fields.remove("source").unwrap(), f);
    assert_eq!(fields.remove("run").unwrap(), 1);
    assert_eq!(json["run"], from_file);
    assert!(
        json["run"]["setup_cycles"].as_u64().is_some(),
        "{}",
        json["run"]
    );
    let bad = gcscope(&[
        "lab",
        "--headless",
        "--duration",
        "100ms",
        "--trace-out",
        "/no/such/dir/x.log",
    ]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("/no/such/dir/x.log"));
    std::fs::remove_dir_all(&dir).ok();
}

/// Lab flags out of range are refused (clap's usage error, status 2) with the valid range named;
/// nothing is clamped silently.
#[test]
fn lab_flags_out_of_range_name_the_valid_range() {
    for (flag, value, range) in [
        ("--procs", "0", "1 to 64"),
        ("--procs", "1000", "1 to 64"),
        ("--scale", "0", "to 64"),
        ("--scale", "1e9", "to 64"),
        ("--scale", "inf", "to 64"),
        ("--scale", "NaN", "to 64"),
        ("--gogc", "0", "1..=10000"),
        ("--gogc", "99999999999", "1..=10000"),
        ("--arena-mb", "99999999999", "64..=65536"),
        ("--duration", "25h", "24h"),
    ] {
        let o = gcscope(&["lab", "--headless", flag, value]);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains(flag) && err.contains(range),
            "{flag} {value}: {err}"
        );
    }
    let o = gcscope(&["lab", "--headless", "--ab", "--runs", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("1..=1000"));
}

/// A file name holding terminal escape sequences is printed escaped by the text outputs and
/// in error messages (it cannot retitle or clear the user's terminal); JSON keeps it as it is.
#[test]
fn control_characters_in_file_names_are_escaped_in_text() {
    let dir = std::env::temp_dir().join(format!("gcscope-cli-esc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // ESC, BEL and a right-to-left override (which would show `gol.x` for `x.log`).
    let name = dir.join("a\u{1b}]0;owned\u{7}\u{1b}[2J\u{202e}.log");
    std::fs::copy(TREE_GT, &name).unwrap();
    let n = name.to_str().unwrap();
    for args in [
        vec!["summary", n],
        vec!["compare", n, "--", n],
        vec!["summary", "--csv", n],
        vec!["summary", "--format", "markdown", n],
        vec!["compare", "--format", "markdown", n, "--", n],
    ] {
        let o = gcscope(&args);
        assert!(o.status.success(), "{args:?}");
        assert!(
            !o.stdout.contains(&0x1b) && !o.stdout.contains(&7),
            "{args:?}"
        );
        assert!(!stdout(&o).contains('\u{202e}'), "{args:?}");
        assert!(
            stdout(&o).contains("a\\u{1b}]0;owned\\u{7}\\u{1b}[2J\\u{202e}.log"),
            "{args:?}"
        );
    }
    let j: serde_json::Value =
        serde_json::from_slice(&gcscope(&["summary", "--json", n]).stdout).unwrap();
    assert_eq!(j["runs"][0]["source"], n);
    let missing = dir.join("gone\u{1b}[2J.log");
    let o = gcscope(&["summary", missing.to_str().unwrap()]);
    assert!(!o.status.success());
    assert!(!o.stderr.contains(&0x1b));
    assert!(String::from_utf8_lossy(&o.stderr).contains("gone\\u{1b}[2J.log"));
    std::fs::remove_dir_all(&dir).ok();
}

/// `gcscope lab --headless | head -1`: the reader goes away after one line; gcscope ends
/// quietly with 141 (a shell's status for a tool stopped by SIGPIPE), its lab threads with it.
/// Output to a full disk is an error that says so, status 1.
#[test]
fn closed_pipes_and_full_disks_end_commands_cleanly() {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args([
            "lab",
            "--headless",
            "--duration",
            "60s",
            "--scale",
            "0.0625",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    assert!(first.starts_with("gc 1 @"), "{first}");
    // The pipe is closed here (the reader is dropped): the next cycle's line fails.
    let start = std::time::Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > std::time::Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("gcscope did not exit after its output closed");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(141));
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert!(err.is_empty(), "{err}");

    if std::path::Path::new("/dev/full").exists() {
        for args in [
            vec!["summary", TREE_GT],
            vec!["summary", "--json", TREE_GT],
            vec!["summary", "--csv", TREE_GT],
            vec!["compare", TREE_GT, "--", TREE_LEGACY],
            vec![
                "lab",
                "--headless",
                "--duration",
                "300ms",
                "--scale",
                "0.0625",
            ],
        ] {
            let o = Command::new(env!("CARGO_BIN_EXE_gcscope"))
                .args(&args)
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .stdout(
                    std::fs::OpenOptions::new()
                        .write(true)
                        .open("/dev/full")
                        .unwrap(),
                )
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(1), "{args:?}");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(err.contains("No space left on device"), "{args:?}: {err}");
        }
    }
}

/// `gcscope view DIR` (or a file that cannot be opened) is an error naming the path, before
/// any dashboard opens; it used to open an empty dashboard and exit 0.
#[test]
fn view_of_an_unreadable_input_is_an_error() {
    for (path, why) in [
        ("traces", "it is a directory"),
        ("no/such.log", "No such file"),
    ] {
        let o = gcscope(&["view", path]);
        assert_eq!(o.status.code(), Some(1), "{path}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(path) && err.contains(why), "{err}");
    }
}

/// One verdict rule: a direction only with 3 runs a side and disjoint ranges, else `none` with
/// the reason; units that fit the figure. The three recorded real Go 1.27.3 tree runs a side:
/// Green Tea's compulsory CPU is "lower"; one run a side gives no verdict at all.
#[test]
fn compare_verdicts_follow_one_rule_with_units_that_fit() {
    let side = |marker: &str| -> Vec<String> {
        (1..=3)
            .map(|r| format!("traces/go/go1.27.3_{marker}_tree_p2_r{r}.log"))
            .collect()
    };
    let (a, b) = (side("legacy"), side("greentea"));
    let mut args = vec!["compare", "--json"];
    args.extend(a.iter().map(String::as_str));
    args.push("--");
    args.extend(b.iter().map(String::as_str));
    let j: serde_json::Value = serde_json::from_slice(&gcscope(&args).stdout).unwrap();
    let metric = |key: &str| common::metric(&j, key);
    let c = metric("compulsory_cpu_ms_per_cycle");
    assert_eq!(
        (&c["verdict"], &c["unit"]),
        (&"lower".into(), &"%".into()),
        "{c}"
    );
    assert!(c["why"].is_null());
    let idle = metric("idle_share");
    assert_eq!(
        (&idle["verdict"], &idle["why"]),
        (&"none".into(), &"ranges overlap".into())
    );
    assert_eq!(idle["unit"], "pp");
    let gc = metric("gc_cpu_pct");
    assert_eq!(
        (&gc["unit"], &gc["change"]),
        (&"pp".into(), &(-15.0).into()),
        "{gc}"
    );
    let rate = metric("cycles_per_s");
    assert_eq!(
        (&rate["unit"], &rate["verdict"]),
        (&"x".into(), &"higher".into())
    );
    assert!(
        (rate["change"].as_f64().unwrap() - 6.41 / 5.29).abs() < 0.01,
        "{rate}"
    );

    // 1 v 1: no verdict anywhere, with the reason; text says "1 run", not "1 runs".
    let one = gcscope(&["compare", "--json", &a[0], "--", &b[0]]);
    let j: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
    for m in j["metrics"].as_array().unwrap() {
        assert_eq!(m["verdict"], "none", "{m}");
        assert!(m["why"].as_str().is_some(), "{m}");
    }
    let text = stdout(&gcscope(&["compare", &a[0], "--", &b[0]]));
    assert!(
        text.contains("(1 run)") && !text.contains("1 runs"),
        "{text}"
    );
    assert!(text.contains("1 run a side; a verdict needs 3"), "{text}");
    // 2 v 1 with disjoint values is still no verdict.
    let two = gcscope(&["compare", "--json", &a[0], &a[1], "--", &b[0]]);
    let j: serde_json::Value = serde_json::from_slice(&two.stdout).unwrap();
    let c = j["metrics"][1].clone();
    assert_eq!(c["verdict"], "none");
    assert_eq!(c["why"], "2 v 1 runs; a verdict needs 3 a side");
}

/// The `~` footer is printed when a row has `~`, and a p-value (4+ runs a side) stands only
/// beside a direction, never beside `~`.
#[test]
fn compare_footer_and_p_values_match_the_rows() {
    let side = |marker: &str| -> Vec<String> {
        [1, 2, 3, 1]
            .iter()
            .map(|r| format!("traces/go/go1.27.3_{marker}_tree_p2_r{r}.log"))
            .collect()
    };
    let (a, b) = (side("legacy"), side("greentea"));
    let mut args = vec!["compare"];
    args.extend(a.iter().map(String::as_str));
    args.push("--");
    args.extend(b.iter().map(String::as_str));
    let text = stdout(&gcscope(&args));
    assert!(text.contains("~ : no verdict"), "{text}");
    let rows: Vec<&str> = text
        .lines()
        .skip(3)
        .take_while(|l| !l.starts_with('~'))
        .collect();
    assert!(rows.iter().any(|l| l.contains(" ~ ")), "{text}");
    for line in &rows {
        assert_eq!(line.contains(" ~ "), !line.contains("p="), "{line}");
    }
}

/// Off-CPU time on the lab: line: the summary reports it and its share of the mark segments'
/// wall time (booked CPU + off-CPU); over the threshold, summary and compare say the machine
/// was loaded.
#[test]
fn a_loaded_lab_run_is_said_to_be_loaded() {
    // Mark CPU booked per cycle: 0.1 + 0.5 + 0 = 0.6 ms; off-CPU 0.15 ms (0.15 / 0.75 = 20 %)
    // or 0.6 ms (0.6 / 1.2 = 50 %).
    let trace = |offcpu_ns: u64| {
        let mut text = String::new();
        for n in 1..=3 {
            text += &format!(
                "lab: objs 1000 bytes 1048576 visits 100 freed 100 cpu_ns 500000 offcpu_ns {offcpu_ns} hist 4\n"
            );
            text += &format!("gc {n} @0.{n}s 1%: 0.01+1.0+0.01 ms clock, 0.02+0.1/0.5/0+0.02 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n");
        }
        text
    };
    let dir = std::env::temp_dir().join(format!("gcscope-cli-loaded-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (quiet, busy) = (dir.join("quiet.log"), dir.join("busy.log"));
    std::fs::write(&quiet, trace(150_000)).unwrap();
    std::fs::write(&busy, trace(600_000)).unwrap();
    let (q, b) = (quiet.to_str().unwrap(), busy.to_str().unwrap());
    let j: serde_json::Value =
        serde_json::from_slice(&gcscope(&["summary", "--json", q, b]).stdout).unwrap();
    let share = |i: usize| j["runs"][i]["lab"]["offcpu_share"].as_f64().unwrap();
    assert!(
        (share(0) - 0.2).abs() < 1e-9 && (share(1) - 0.5).abs() < 1e-9,
        "{j}"
    );
    assert!((j["runs"][1]["lab"]["offcpu_ms"].as_f64().unwrap() - 1.8).abs() < 1e-9);
    let text = stdout(&gcscope(&["summary", q, b]));
    assert_eq!(text.matches("the machine was loaded").count(), 1, "{text}");
    let cmp = gcscope(&["compare", "--json", q, "--", b]);
    let c: serde_json::Value = serde_json::from_slice(&cmp.stdout).unwrap();
    assert_eq!(
        (&c["a_loaded_runs"], &c["b_loaded_runs"]),
        (&0.into(), &1.into())
    );
    assert!(stdout(&gcscope(&["compare", q, "--", b]))
        .contains("loaded machine: 0 of A's and 1 of B's"));
    std::fs::remove_dir_all(&dir).ok();
}

/// Lab traces whose headers name different settings are compared (a user may mean it) but
/// said not to be one experiment, in text and JSON; Go traces have no settings to differ.
#[test]
fn compare_says_when_lab_runs_are_not_one_experiment() {
    let trace = |header: &str| {
        let mut text = format!("# gcscope {header}\n");
        for n in 1..=3 {
            text += "lab: objs 1000 bytes 1048576 visits 100 freed 100 cpu_ns 500000 offcpu_ns 0 hist 4\n";
            text += &format!("gc {n} @0.{n}s 1%: 0.01+1.0+0.01 ms clock, 0.02+0.1/0.5/0+0.02 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n");
        }
        text
    };
    let dir = std::env::temp_dir().join(format!("gcscope-cli-mismatch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files = [
        (
            "a.log",
            "lab map legacy GOGC=100 P=2 seed=1 scale=1 duration=5s",
        ),
        (
            "b.log",
            "lab map greentea GOGC=100 P=2 seed=1 scale=2 duration=5s",
        ),
        (
            "c.log",
            "lab map greentea GOGC=100 P=2 seed=9 scale=1 duration=5s",
        ),
    ];
    for (name, header) in files {
        std::fs::write(dir.join(name), trace(header)).unwrap();
    }
    let p = |n: &str| dir.join(n).to_str().unwrap().to_string();
    let (a, b, c) = (p("a.log"), p("b.log"), p("c.log"));
    let j: serde_json::Value =
        serde_json::from_slice(&gcscope(&["compare", "--json", &a, "--", &b]).stdout).unwrap();
    assert_eq!(j["mismatch"], serde_json::json!(["scale 1 vs 2"]));
    let text = stdout(&gcscope(&["compare", &a, "--", &b]));
    assert!(
        text.contains(
            "not one experiment: the lab runs differ in more than the marker (scale 1 vs 2)"
        ),
        "{text}"
    );
    // The marker and the seed may differ.
    let j: serde_json::Value =
        serde_json::from_slice(&gcscope(&["compare", "--json", &a, "--", &c]).stdout).unwrap();
    assert_eq!(j["mismatch"], serde_json::json!([]));
    assert!(!stdout(&gcscope(&["compare", &a, "--", &c])).contains("not one experiment"));
    // summary names the run's settings.
    assert!(stdout(&gcscope(&["summary", &b]))
        .contains("run 1 (from line 3): lab map greentea GOGC=100 P=2 seed=1 scale=2 duration=5s; gcscope lab"));
    std::fs::remove_dir_all(&dir).ok();
}

/// Counts read as English: one of a thing is singular (`1 output line`, not `1 output lines`).
#[test]
fn summary_counts_are_singular_for_one() {
    let text = "starting\n\
        gc 1 @0.1s 1%: 0.01+1.0+0.01 ms clock, 0.02+0.1/0.5/0+0.02 ms cpu, 4->5->2 MB, 5 MB goal, 2 P\n\
        gc 2 @0.2s 1%: 0.01+1.0\n";
    let o = gcscope_stdin(&["summary", "-"], text.as_bytes());
    assert!(o.status.success());
    let s = stdout(&o);
    assert!(
        s.starts_with("-: 1 run, 1 cycle, 1 output line, 1 problem\n"),
        "{s}"
    );
    let o = gcscope(&["summary", TREE_GT]);
    let s = stdout(&o);
    assert!(s.contains(": 1 run, 61 cycles, "), "{s}");
    assert!(s.contains(" output lines, 0 problems\n"), "{s}");
}

/// A lab trace has one page scan density, the lab's own (objects per page visit), though it
/// also carries gctrace=2-style `scan:` counters: one `page scan` line a run, for either
/// marker; the counters stay in `--json`.
#[test]
fn summary_of_a_lab_trace_prints_one_page_scan_density() {
    let files = [
        "traces/lab/lab_tree_greentea_p2.log",
        "traces/lab/lab_tree_legacy_p2.log",
    ];
    let o = gcscope(&["summary", files[0], files[1]]);
    assert!(o.status.success());
    let s = stdout(&o);
    let scan: Vec<&str> = s.lines().filter(|l| l.contains("page scan")).collect();
    assert_eq!(scan.len(), 2, "{s}");
    for l in scan {
        assert!(l.contains("objects per page visit"), "{l}");
    }
    assert!(!s.contains("per span visit"), "{s}");
    let o = gcscope(&["summary", "--json", files[0]]);
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(j["runs"][0]["scan"]["objects_per_span_visit"].is_f64());
    assert!(j["runs"][0]["lab"]["objects_per_page_visit"].is_f64());
}

/// `--help` says what each command does and what every argument is; the top level says what
/// bare `gcscope`, `gcscope lab` and `gcscope demo` run; `lab --marker` names its default.
#[test]
fn help_describes_every_command_and_argument() {
    let help = |args: &[&str]| {
        let o = gcscope(args);
        assert!(o.status.success(), "{args:?}");
        stdout(&o)
    };
    let top = help(&["--help"]);
    for said in [
        "With no arguments, gcscope runs its GC lab live: legacy marking (A) against Green Tea (B)",
        "`gcscope lab --ab`",
        "`gcscope lab` runs\nGreen Tea alone",
        "`gcscope demo` plays an A/B of two real Go 1.27.3 traces",
    ] {
        assert!(top.contains(said), "{said:?} not in\n{top}");
    }
    for cmd in ["view", "summary", "compare", "demo", "lab"] {
        // Short help: one line per argument, its description beside it.
        let text = help(&[cmd, "-h"]);
        let mut in_list = false;
        for line in text.lines() {
            if line.ends_with(':') && !line.starts_with(' ') {
                in_list = line == "Arguments:" || line == "Options:";
                continue;
            }
            if in_list && line.starts_with("  ") {
                let (name, desc) = line
                    .trim_start()
                    .split_once("  ")
                    .unwrap_or((line.trim(), ""));
                assert!(
                    !desc.trim().is_empty(),
                    "gcscope {cmd}: {name} has no description\n{text}"
                );
            }
        }
    }
    let lab = help(&["lab", "--help"]);
    assert!(lab.contains("[default: greentea]"), "{lab}");
    assert!(lab.contains("`--ab` runs both"), "{lab}");
    let demo = help(&["demo", "--help"]);
    for said in ["Go 1.27.3", "gctrace=2", "legacy", "Green Tea", "graph"] {
        assert!(demo.contains(said), "{said:?} not in\n{demo}");
    }
    let compare = help(&["compare", "--help"]);
    assert!(compare.contains("[default: table]"), "{compare}");
    // The default format is not a conflict with --json.
    let o = gcscope(&["compare", "--json", TREE_LEGACY, "--", TREE_GT]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = gcscope(&[
        "compare",
        "--json",
        "--format",
        "table",
        TREE_LEGACY,
        "--",
        TREE_GT,
    ]);
    assert_eq!(o.status.code(), Some(2));
}

/// The classic forgotten `2>&1`: input without a gc line gets the dashboard's hint on stderr
/// (summary and compare), and an A/B whose runs printed none says so and fails.
#[test]
fn input_without_gc_lines_says_how_go_prints_them() {
    let o = gcscope_stdin(&["summary", "-"], b"hello\nworld\n");
    assert!(o.status.success());
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("no gc lines in -"), "{e}");
    assert!(
        e.contains("GODEBUG=gctrace=1 ./prog 2>&1 | gcscope -"),
        "{e}"
    );
    let o = gcscope(&["summary", "traces/go/pacer/sweep_tree_gogc100.log"]);
    assert!(!String::from_utf8_lossy(&o.stderr).contains("no gc lines"));
    let o = gcscope(&["ab", "--runs", "1", "echo a", "echo b"]);
    assert_eq!(o.status.code(), Some(1));
    // No Go build to read: said, with the gctrace level chosen instead.
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("no Go build info in echo") && e.contains("gctrace=1"),
        "{e}"
    );
    let out = stdout(&o);
    assert!(
        out.contains("1 of A's and 1 of B's runs ended well but printed no gc line"),
        "{out}"
    );
}

/// `compare` over an `ab --record` directory keeps the load each run was measured under: it
/// reads the `runs.tsv` beside the logs. The directory here is what `ab --record` writes,
/// with the load column set by hand (three loaded A runs, quiet B runs); without a
/// `runs.tsv` the load is unknown, and the JSON says null, not 0.
#[test]
fn compare_of_recorded_logs_keeps_their_load() {
    let dir = std::env::temp_dir().join(format!("gcscope-rec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let src = |g: u32| format!("traces/go/pacer/sweep_tree_gogc{g}.log");
    let mut tsv =
        String::from("order\tside\trun\twarmup\tlog\tstatus\twall_s\tcpu_s\tother_cpus\tcommand\n");
    for r in 1..=3 {
        for (side, g, load) in [("a", 100, 1.6), ("b", 200, 0.05)] {
            let log = format!("{side}-{r:02}.log");
            std::fs::copy(
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(src(g)),
                dir.join(&log),
            )
            .unwrap();
            tsv += &format!("{r}\t{side}\t{r}\tfalse\t{log}\t0\t7.5\t15.0\t{load}\tcmd\n");
        }
    }
    std::fs::write(dir.join("runs.tsv"), tsv).unwrap();
    let logs = |side: &str| -> Vec<String> {
        (1..=3)
            .map(|r| dir.join(format!("{side}-{r:02}.log")).display().to_string())
            .collect()
    };
    let mut args = vec!["compare".to_string(), "--json".into()];
    args.extend(logs("a"));
    args.push("--".into());
    args.extend(logs("b"));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let c: serde_json::Value = serde_json::from_slice(&gcscope(&refs).stdout).unwrap();
    assert_eq!(
        (&c["a_loaded_runs"], &c["b_loaded_runs"]),
        (&3.into(), &0.into())
    );
    let text = stdout(&gcscope(
        &refs[..1]
            .iter()
            .chain(&refs[2..])
            .copied()
            .collect::<Vec<_>>(),
    ));
    assert!(
        text.contains("loaded machine: 3 of A's and 0 of B's runs"),
        "{text}"
    );
    // Without the runs.tsv: unknown.
    std::fs::remove_file(dir.join("runs.tsv")).unwrap();
    let c: serde_json::Value = serde_json::from_slice(&gcscope(&refs).stdout).unwrap();
    assert!(
        c["a_loaded_runs"].is_null() && c["b_loaded_runs"].is_null(),
        "{c}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `run --record LOG` keeps the run's facts beside the log, as `ab --record` does: a row of
/// `runs.tsv` with its status, wall, CPU and the load measured while it ran, which `compare`
/// then reads (a number: measured, even when it is 0).
#[test]
fn run_record_writes_the_runs_facts_beside_its_log() {
    let dir = std::env::temp_dir().join(format!("gcscope-runrec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("gc.log");
    let log_s = log.display().to_string();
    // Over half a second: the load figure needs that much (/proc/stat ticks).
    let o = gcscope(&[
        "run",
        "--headless",
        "--record",
        &log_s,
        "--",
        "sh",
        "-c",
        "sleep 0.7; cat traces/go/pacer/sweep_tree_gogc100.log >&2",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tsv = std::fs::read_to_string(dir.join("runs.tsv")).unwrap();
    let row: Vec<&str> = tsv.lines().nth(1).unwrap().split('\t').collect();
    assert_eq!(row[4], "gc.log");
    assert_eq!(row[5], "0");
    assert!(row[6].parse::<f64>().unwrap() >= 0.7, "{tsv}");
    if cfg!(target_os = "linux") {
        assert!(row[8].parse::<f64>().is_ok(), "the load, measured: {tsv}");
        let c: serde_json::Value =
            serde_json::from_slice(&gcscope(&["compare", "--json", &log_s, "--", &log_s]).stdout)
                .unwrap();
        assert!(c["a_loaded_runs"].is_number(), "{c}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// A result to paste: `compare --format markdown` and `ab --markdown` give the table as a
/// Markdown pipe table with the same rows and verdicts as the text, and the footnotes under it.
#[test]
fn compare_and_ab_write_a_markdown_table_with_the_same_rows() {
    let a = [
        "traces/go/go1.27.3_legacy_graph_p2_r1.log",
        "traces/go/go1.27.3_legacy_graph_p2_r2.log",
        "traces/go/go1.27.3_legacy_graph_p2_r3.log",
    ];
    let b = [
        "traces/go/go1.27.3_greentea_graph_p2_r1.log",
        "traces/go/go1.27.3_greentea_graph_p2_r2.log",
        "traces/go/go1.27.3_greentea_graph_p2_r3.log",
    ];
    let args = |fmt: &[&'static str]| -> Vec<&str> {
        let mut v = vec!["compare"];
        v.extend(fmt);
        v.extend(a);
        v.push("--");
        v.extend(b);
        v
    };
    let md = stdout(&gcscope(&args(&["--format", "markdown"])));
    let text = stdout(&gcscope(&args(&[])));
    assert!(md.contains("| metric | A median [min-max] | B median [min-max] | B vs A | |\n|---|--:|--:|--:|---|\n"), "{md}");
    let md_rows = md
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| metric"))
        .count();
    let text_rows = text
        .lines()
        .skip_while(|l| !l.starts_with("metric"))
        .skip(1)
        .take_while(|l| !l.starts_with("~ :") && !l.starts_with("B vs A:"))
        .count();
    assert_eq!(md_rows, text_rows, "{md}\n{text}");
    assert!(
        md.contains("| mean compulsory P ms/cycle | 1538 [1310-1541] | 486 [455-503] | -68.4% |"),
        "{md}"
    );
    assert!(md.contains("\nB vs A: % is a change of A's median"), "{md}");

    let rep = |g: u32| format!("cat traces/go/pacer/sweep_tree_gogc{g}.log >&2");
    let o = gcscope(&["ab", "--runs", "1", "--markdown", &rep(100), &rep(200)]);
    let md = stdout(&o);
    assert!(md.contains("|---|--:|--:|--:|---|"), "{md}");
    assert!(md.contains("GODEBUG=gctrace=1\n\n"), "{md}");
    let o = gcscope(&[
        "ab",
        "--runs",
        "1",
        "--format",
        "markdown",
        &rep(100),
        &rep(200),
    ]);
    // The same document but for the measured CPU ratio of the oversubscribed line.
    let measured = |s: &str| -> String {
        s.lines()
            .filter(|l| !l.starts_with("oversubscribed"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(measured(&stdout(&o)), measured(&md));

    // summary: one row per run, with the text summary's figures, then the findings.
    let sum = stdout(&gcscope(&["summary", "--format", "markdown", a[0], b[0]]));
    let rows: Vec<&str> = sum.lines().filter(|l| l.starts_with("| traces/")).collect();
    assert_eq!(rows.len(), 2, "{sum}");
    let j: serde_json::Value =
        serde_json::from_slice(&gcscope(&["summary", "--json", b[0]]).stdout).unwrap();
    let r = &j["runs"][0];
    assert!(
        rows[1].contains(&format!(" | {} | {} | ", r["cycles"], r["final_gc_pct"])),
        "{}",
        rows[1]
    );
    assert!(sum.contains("\nFindings:\n\n- **"), "{sum}");
    assert!(sum.contains("P time (wall time while holding a P), not CPU seconds"));
}

/// `--from-cycle` and `--after`: the figures are of the window's cycles only, and every output
/// says the window and how many cycles it left out; a window past every cycle is said, not
/// taken for input without gc lines.
#[test]
fn a_steady_state_window_leaves_the_setup_cycles_out_and_says_so() {
    const JSON: &str = "traces/go/tune/json_gt_gogc100_r1.log"; // gc 1..68, 3 forced early
    let whole: serde_json::Value =
        serde_json::from_slice(&gcscope(&["summary", "--json", JSON]).stdout).unwrap();
    assert!(whole["window"].is_null());
    let w: serde_json::Value =
        serde_json::from_slice(&gcscope(&["summary", "--json", "--from-cycle", "10", JSON]).stdout)
            .unwrap();
    assert_eq!(w["window"]["from_cycle"], 10);
    assert!(w["window"]["after_s"].is_null());
    let run = &w["runs"][0];
    assert_eq!(
        (run["cycles"].as_u64(), run["first_cycle"].as_u64()),
        (Some(59), Some(10))
    );
    assert_eq!(run["before_window"], 9);
    assert_eq!(w["sources"][0]["before_window"], 9);
    // The forced cycles were gc 1, 2 and 7: all before the window.
    assert_eq!(
        (whole["runs"][0]["forced"].as_u64(), run["forced"].as_u64()),
        (Some(3), Some(0))
    );
    assert!(run["gc_cpu_ms"].as_f64() < whole["runs"][0]["gc_cpu_ms"].as_f64());

    let t = gcscope(&["summary", "--after", "1s", JSON]);
    let text = stdout(&t);
    assert!(text.contains("window       after 1.000s: "), "{text}");
    assert!(text.contains("before the window, left out"), "{text}");

    // CSV: rows from the window's first cycle.
    let csv = stdout(&gcscope(&["summary", "--csv", "--from-cycle", "60", JSON]));
    let first = csv.lines().nth(1).unwrap();
    assert!(first.starts_with(&format!("{JSON},1,60,")), "{first}");
    assert_eq!(csv.lines().count(), 1 + 9);

    // compare: the window in the JSON and above the table.
    let c: serde_json::Value = serde_json::from_slice(
        &gcscope(&[
            "compare",
            "--json",
            "--from-cycle",
            "10",
            JSON,
            "--",
            TREE_GT,
        ])
        .stdout,
    )
    .unwrap();
    assert_eq!(c["window"]["from_cycle"], 10);
    let ct = stdout(&gcscope(&[
        "compare",
        "--from-cycle",
        "10",
        JSON,
        "--",
        TREE_GT,
    ]));
    assert!(
        ct.contains("window: from gc 10 in every run (18 cycles before it left out)"),
        "{ct}"
    );

    // Past every cycle: not "no gc lines".
    let past = gcscope(&["summary", "--from-cycle", "1000", JSON]);
    let err = String::from_utf8_lossy(&past.stderr);
    assert!(!err.contains("no gc lines"), "{err}");
    assert!(
        stdout(&past).contains("68 cycles read before it"),
        "{}",
        stdout(&past)
    );
    let none = gcscope(&["compare", "--from-cycle", "1000", JSON, "--", TREE_GT]);
    assert!(!none.status.success());
    let err = String::from_utf8_lossy(&none.stderr);
    assert!(err.contains("in the window (from gc 1000)"), "{err}");
}

/// `view --snapshot`: one frame of the dashboard, headless, as an SVG file with its colours
/// (none under NO_COLOR), at the size asked; a bad size or an unwritable path is named.
#[test]
fn view_snapshot_draws_one_frame_to_an_svg_file() {
    let dir = std::env::temp_dir().join(format!("gcscope-svg-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("ab.svg");
    let o = gcscope(&[
        "view",
        "--snapshot",
        out.to_str().unwrap(),
        "--size",
        "100x30",
        TREE_LEGACY,
        TREE_GT,
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("one 100x30 frame of the dashboard is in"),
        "{err}"
    );
    let svg = std::fs::read_to_string(&out).unwrap();
    assert!(svg.starts_with(r#"<svg xmlns="http://www.w3.org/2000/svg" width="840" height="510""#));
    assert!(svg.trim_end().ends_with("</svg>"));
    // Both sides' names, every cycle shown (the trace's 61), the strip, and colour.
    assert!(svg.contains("legacy_tree_p2_r1.log") && svg.contains("greentea_tree_p2_r1.log"));
    assert!(svg.contains("61/61"), "{svg}");
    assert!(svg.contains("mean compulsory P ms/cycle"), "{svg}");
    assert!(svg.contains(r##"fill="#cd3131""##) || svg.contains(r##"fill="#11a8cd""##));

    let plain = dir.join("plain.svg");
    let o = Command::new(env!("CARGO_BIN_EXE_gcscope"))
        .args(["view", "--snapshot", plain.to_str().unwrap(), TREE_GT])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(o.status.success());
    let svg = std::fs::read_to_string(&plain).unwrap();
    let fills: std::collections::BTreeSet<&str> =
        svg.split("fill=\"").skip(1).map(|s| &s[..7]).collect();
    assert!(
        fills.iter().all(|f| ["#d0d0d0", "#1c1c1c"].contains(f)),
        "{fills:?}"
    );

    let bad = gcscope(&["view", "--snapshot", "x.svg", "--size", "20x5", TREE_GT]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("outside 60-1000"));
    let nowhere = gcscope(&["view", "--snapshot", "/no/such/dir/x.svg", TREE_GT]);
    assert!(!nowhere.status.success());
    assert!(String::from_utf8_lossy(&nowhere.stderr).contains("cannot write /no/such/dir/x.svg"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The README's A/B table is what `compare` prints over the record it names
/// (traces/go/ab-readme/, written by `ab --record`): the claim is measured on its input.
#[test]
fn the_readmes_ab_table_is_compares_table_of_its_record() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let block: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("metric                       A median"))
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert!(block.len() > 10, "no A/B table in the README");
    let mut args = vec!["compare", "--metric", "wall_s=wall=([0-9.]+)s"];
    let logs: Vec<String> = ["a", "b"]
        .iter()
        .flat_map(|s| (1..=3).map(move |k| format!("traces/go/ab-readme/{s}-0{k}.log")))
        .collect();
    args.extend(logs[..3].iter().map(String::as_str));
    args.push("--");
    args.extend(logs[3..].iter().map(String::as_str));
    let text = stdout(&gcscope(&args));
    let table: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("metric"))
        .take(block.len())
        .map(str::trim_end)
        .collect();
    assert_eq!(table, block);
    // Recorded on a quiet machine: runs.tsv keeps the load, and compare says none was loaded.
    let j: serde_json::Value =
        serde_json::from_slice(&gcscope(&[&["compare", "--json"][..], &args[3..]].concat()).stdout)
            .unwrap();
    assert_eq!(
        (j["a_loaded_runs"].as_u64(), j["b_loaded_runs"].as_u64()),
        (Some(0), Some(0))
    );
}

/// Under an address-space limit the lab's 8 GB arena cannot be reserved: a clear error that
/// names --arena-mb, status 1, no abort; a smaller arena then runs.
#[test]
fn a_lab_arena_that_cannot_be_reserved_names_arena_mb() {
    let bin = env!("CARGO_BIN_EXE_gcscope");
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 4000000 && exec '{bin}' lab --headless --duration 1s"
        ))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("cannot reserve the lab's 8192 MB arena"),
        "{err}"
    );
    assert!(err.contains("--arena-mb 2048"), "{err}");
    assert!(!err.contains("memory allocation"), "{err}");
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 4000000 && exec '{bin}' lab --headless --duration 1s --arena-mb 2048"
        ))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A `--metric` that matched nothing is said per side; a 300-digit figure is printed in
/// scientific form, not 300 columns wide.
#[test]
fn metrics_that_never_match_are_said_and_huge_ones_stay_narrow() {
    let o = gcscope(&[
        "compare",
        "--metric",
        "nope=zzz([0-9]+)",
        TREE_LEGACY,
        "--",
        TREE_GT,
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    for side in ["A's 1 run", "B's 1 run"] {
        assert!(
            err.contains(&format!(
                "--metric nope matched no output line in any of {side}"
            )),
            "{err}"
        );
    }
    let dir = std::env::temp_dir().join(format!("gcscope-huge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("x.log");
    std::fs::copy(TREE_GT, &log).unwrap();
    std::fs::write(dir.join("x.stdout"), format!("ops {}\n", "9".repeat(300))).unwrap();
    let l = log.to_str().unwrap();
    let o = gcscope(&["compare", "--metric", "ops=ops ([0-9]+)", l, "--", l]);
    let text = stdout(&o);
    let row = text.lines().find(|r| r.starts_with("ops")).unwrap();
    assert!(row.contains("1.00e300"), "{row}");
    assert!(text.lines().all(|r| r.chars().count() < 200), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `lab --headless --trace-out` stopped by SIGTERM or SIGINT: the trace file keeps every
/// cycle written until then, whole (its buffer flushed), and gcscope exits 128 + the signal.
#[test]
fn a_signalled_lab_keeps_its_trace_file_whole() {
    let dir = std::env::temp_dir().join(format!("gcscope-labsig-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for sig in [libc::SIGTERM, libc::SIGINT] {
        let out = dir.join(format!("lab-{sig}.log"));
        let child = Command::new(env!("CARGO_BIN_EXE_gcscope"))
            .args(["lab", "--headless", "--duration", "60s", "--trace-out"])
            .arg(&out)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(1500));
        // SAFETY: kill has no memory-safety preconditions.
        assert_eq!(unsafe { libc::kill(child.id().cast_signed(), sig) }, 0);
        let o = child.wait_with_output().unwrap();
        assert_eq!(
            o.status.code(),
            Some(128 + sig),
            "{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = std::fs::read_to_string(&out).unwrap();
        assert!(text.ends_with('\n'), "the last line is whole");
        let s: serde_json::Value =
            serde_json::from_slice(&gcscope(&["summary", "--json", out.to_str().unwrap()]).stdout)
                .unwrap();
        assert!(s["runs"][0]["cycles"].as_u64().unwrap() >= 1, "{s}");
        assert_eq!(s["problems"].as_array().unwrap().len(), 0, "{s}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Sums saturate at 2^64-1 ns rather than wrap: when one does, it is a problem with its line,
/// and the run says its figures are lower bounds (3000 cycles of assists near the parser's
/// 2^53 ns cap pass 2^64 at cycle 2048).
#[test]
fn a_saturated_sum_is_a_problem_not_an_exact_figure() {
    let lines: String = (1..=3000)
        .map(|n| format!("gc {n} @{n}.0s 1%: 0.01+1.0+0.01 ms clock, 0.02+9007199254.7/0.5/0.4+0.02 ms cpu, 4->5->2 MB, 5 MB goal, 0 MB stacks, 0 MB globals, 2 P\n"))
        .collect();
    let o = gcscope_stdin(&["summary", "-"], lines.as_bytes());
    let text = stdout(&o);
    assert!(text.contains("1 problem"), "{text}");
    assert!(
        text.contains("line 2048: a sum of this run reached 2^64-1 ns"),
        "{text}"
    );
    assert!(
        text.contains("figure made of them are lower bounds"),
        "{text}"
    );
    let j: serde_json::Value = serde_json::from_slice(
        &gcscope_stdin(&["summary", "--json", "-"], lines.as_bytes()).stdout,
    )
    .unwrap();
    assert_eq!(j["runs"][0]["saturated"], true);
    assert_eq!(j["problems"][0]["line"], 2048);
    // Below the cap nothing is said.
    let few: String = lines.lines().take(100).map(|l| format!("{l}\n")).collect();
    let j: serde_json::Value =
        serde_json::from_slice(&gcscope_stdin(&["summary", "--json", "-"], few.as_bytes()).stdout)
            .unwrap();
    assert_eq!(j["runs"][0]["saturated"], false);
    assert!(j["problems"].as_array().unwrap().is_empty());
}
