#!/usr/bin/env bash
# speed.sh: compare how fast gcscope reads a large gctrace log with two baselines:
#
#   grep     grep -c '^gc ' FILE                    (the fastest you can go: a line count)
#   python   python3 assets/bench/py_reader.py FILE (a plain Python regex reader)
#   gcscope  gcscope summary --json FILE   (output to a file)
#
# on two inputs, each from a file and from a pipe (`cat FILE | CMD -`):
#   mixed    1,000,000 lines of this repository's traces as they are (below)
#   gc-only  1,000,000 gc lines of one process: the lines of
#            traces/go/go1.27.3_greentea_tree_p2_r1.log repeated, renumbered 1..1M
#            with a clock that advances, as a long-running program prints them
#
# The input is a 1,000,000-line trace made only of real lines: every file in
# traces/go/*.log of this repository (or $TRACE_DIR/*.log) is concatenated as-is (gc lines plus scan:,
# pacer:, scav and program-output lines, in their real proportion) and the
# result is repeated until there are exactly 1,000,000 lines. Nothing is
# renumbered, so the gc cycle counter restarts at every copy, as it does in a
# real log that holds several runs.
#
# Each command is run 10 times (round-robin, so that noise on a shared machine
# hits all of them alike), and the best wall-clock time is reported. Every timed
# run comes right after an untimed warm-up run of the same command (as
# `hyperfine --warmup`): on the 2-core CI VM a command started right after
# another one measured up to twice its time (gcscope: 0.25-0.34 s right after
# the 2.4 s single-threaded Python run, 0.14 s right after itself), from the
# idle second vCPU waking up and from the VM's DAMON page-out evicting the
# file from the page cache in between. The warm-up gives every command the same
# start: a warm page cache and awake CPUs.
#
# Usage (from any directory):
#   assets/bench/speed.sh
#   GCSCOPE=/path/to/gcscope assets/bench/speed.sh   # use this binary, do not build
#
# Environment:
#   GCSCOPE   gcscope binary to time (default: target/release/gcscope, which is
#             built with `cargo build --release` if it is missing)
#   TMPDIR    where the 1M-line trace is kept (default /tmp); it is built once
#             and reused by later runs
#   RUNS      runs per command (default 10)
#   TRACE_DIR where the real traces come from (default: traces/go of this repository,
#             so a clone measures what the README says)
#   TEBEKA_GCTRACE  a clone of github.com/tebeka/gctrace: its parser (gctrace.go, standard
#             library only) is built from that source, with `go` ($GO or on PATH), into a
#             reader timed beside the others (a line at a time through gctrace.Unmarshal,
#             the function its Scanner calls, going on past lines that are not gc lines,
#             which its Scanner stops at). Without it, or without go, that column is left
#             out and the script says so. Its source is never copied into this repository.
set -euo pipefail

# --- locations ------------------------------------------------------------
# The repo root is two levels above this script (assets/bench/speed.sh).
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
TRACE_DIR="${TRACE_DIR:-$ROOT/traces/go}"
# One built trace per source directory: a trace built from other files is never reused.
BIG="${TMPDIR:-/tmp}/gcscope-1m-$(printf %s "$TRACE_DIR" | cksum | cut -d' ' -f1).log"
N_LINES=1000000
RUNS="${RUNS:-10}"
PY_READER="$ROOT/assets/bench/py_reader.py"

die() { echo "speed.sh: $*" >&2; exit 1; }

command -v python3 >/dev/null || die "python3 not found"
command -v grep >/dev/null || die "grep not found"
[[ -f "$PY_READER" ]] || die "missing $PY_READER"
[[ "$RUNS" =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer (got '$RUNS')"

# --- 1. the 1,000,000-line trace ---------------------------------------------
build_big_trace() {
    local -a logs=()
    local f
    shopt -s nullglob
    for f in "$TRACE_DIR"/*.log; do
        # Skip the one hand-made file (go1.27.3_..._synthetic-truncated.log,
        # see INDEX.md): its last line is cut mid-field and has no trailing
        # newline, so it is not a real line.
        case "$(basename "$f")" in *synthetic*) continue ;; esac
        logs+=("$f")
    done
    shopt -u nullglob
    (( ${#logs[@]} > 0 )) || die "no trace files in $TRACE_DIR/*.log"

    local tmpd
    tmpd="$(mktemp -d "${TMPDIR:-/tmp}/gcscope-speed.XXXXXX")"
    # shellcheck disable=SC2064  # expand $tmpd now, on purpose
    trap "rm -rf '$tmpd'" EXIT

    # One copy of the corpus. `awk 1` prints every line with a newline, so a
    # file without a trailing newline cannot glue its last line to the next file.
    awk 1 "${logs[@]}" >"$tmpd/corpus"
    local per_copy full rem i
    per_copy=$(wc -l <"$tmpd/corpus")
    (( per_copy > 0 )) || die "the trace files are empty"
    full=$(( N_LINES / per_copy ))
    rem=$(( N_LINES % per_copy ))

    # Whole copies, then the first $rem lines of one more copy. (No endless
    # `yes | head` style pipe: under pipefail its SIGPIPE would abort the script.)
    {
        for (( i = 0; i < full; i++ )); do cat "$tmpd/corpus"; done
        if (( rem > 0 )); then head -n "$rem" "$tmpd/corpus"; fi
    } >"$tmpd/big"

    local got
    got=$(wc -l <"$tmpd/big")
    (( got == N_LINES )) || die "built $got lines instead of $N_LINES"
    mv -f "$tmpd/big" "$BIG"   # same filesystem: an atomic rename, never a half-written file
    rm -rf "$tmpd"
    trap - EXIT
    echo "built $BIG from ${#logs[@]} files ($per_copy lines per copy, $full copies + $rem lines)" >&2
}

# The gc-only input: one process's real gc lines (their text after "N%: "), renumbered.
GC_ONLY="${TMPDIR:-/tmp}/gcscope-1m-gc-only.log"
build_gc_only() {
    python3 - "$ROOT/traces/go/go1.27.3_greentea_tree_p2_r1.log" "$GC_ONLY.tmp" "$N_LINES" <<'GEN'
import sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
tails = [l.split("%: ", 1)[1] for l in open(src) if l.startswith("gc ") and "%: " in l]
with open(dst, "w") as out:
    for i in range(n):
        out.write(f"gc {i + 1} @{i // 10}.{(i % 10) * 100:03d}s 29%: {tails[i % len(tails)]}")
GEN
    mv -f "$GC_ONLY.tmp" "$GC_ONLY"
    echo "built $GC_ONLY" >&2
}
if [[ ! -f "$GC_ONLY" ]] || [[ "$(wc -l <"$GC_ONLY")" -ne "$N_LINES" ]]; then build_gc_only; fi

if [[ -f "$BIG" ]] && [[ "$(wc -l <"$BIG")" -eq "$N_LINES" ]]; then
    echo "using existing $BIG" >&2
else
    [[ -e "$BIG" ]] && echo "$BIG does not have $N_LINES lines; rebuilding" >&2
    build_big_trace
fi

# --- 2. the gcscope binary ---------------------------------------------------
if [[ -n "${GCSCOPE:-}" ]]; then
    # An explicit binary (or a command name on PATH); never build in this case.
    # A bare name is looked up as a file on PATH (type -P, so the shell builtin
    # `true` resolves to /usr/bin/true); anything with a slash is a path.
    if [[ "$GCSCOPE" == */* ]]; then GCSCOPE_BIN="$GCSCOPE"; else GCSCOPE_BIN="$(type -P -- "$GCSCOPE" || true)"; fi
    [[ -n "$GCSCOPE_BIN" && -x "$GCSCOPE_BIN" ]] || die "GCSCOPE=$GCSCOPE is not an executable"
    [[ "$GCSCOPE_BIN" == /* ]] || GCSCOPE_BIN="$PWD/$GCSCOPE_BIN"   # we cd to the repo root below
else
    GCSCOPE_BIN="${CARGO_TARGET_DIR:-$ROOT/target}/release/gcscope"
    if [[ ! -x "$GCSCOPE_BIN" ]]; then
        command -v cargo >/dev/null || die "$GCSCOPE_BIN is missing and cargo is not installed"
        echo "building gcscope: cargo build --release" >&2
        (cd "$ROOT" && cargo build --release)
        [[ -x "$GCSCOPE_BIN" ]] || die "cargo build finished but $GCSCOPE_BIN does not exist"
    fi
fi

# --- 2b. tebeka/gctrace's parser, built from a clone when there is one ---------------
TEBEKA_BIN=""
GO_BIN="${GO:-$(type -P go || true)}"
if [[ -n "${TEBEKA_GCTRACE:-}" && -n "$GO_BIN" && -f "$TEBEKA_GCTRACE/gctrace.go" ]]; then
    tebeka_dir="$(mktemp -d "${TMPDIR:-/tmp}/gcscope-tebeka.XXXXXX")"
    # shellcheck disable=SC2064  # expand $tebeka_dir now, on purpose
    trap "rm -rf '$tebeka_dir'" EXIT
    mkdir -p "$tebeka_dir/gctrace"
    # Only the parser's file: the module's go.mod asks for test and lint tools this
    # offline build cannot fetch, and the parser needs none of them.
    cp "$TEBEKA_GCTRACE/gctrace.go" "$tebeka_dir/gctrace/"
    printf 'module gcscopebench\n\ngo 1.21\n' > "$tebeka_dir/go.mod"
    cat > "$tebeka_dir/main.go" <<'GO'
// A reader over tebeka/gctrace's parser: every line through gctrace.Unmarshal, gc lines
// counted and one figure of each summed (so the parse is not dead code).
package main

import (
	"bufio"
	"fmt"
	"os"

	"gcscopebench/gctrace"
)

func main() {
	in := os.Stdin
	if len(os.Args) > 1 && os.Args[1] != "-" {
		f, err := os.Open(os.Args[1])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		defer f.Close()
		in = f
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var tr gctrace.Trace
	n, other, live := 0, 0, 0
	for sc.Scan() {
		if gctrace.Unmarshal(sc.Text(), &tr) == nil {
			n++
			live += tr.Heap.Live
		} else {
			other++
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fmt.Println(n, other, live)
}
GO
    if (cd "$tebeka_dir" && GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local "$GO_BIN" build -o tebeka-reader . ) >&2; then
        TEBEKA_BIN="$tebeka_dir/tebeka-reader"
        echo "tebeka/gctrace: built from $TEBEKA_GCTRACE with $("$GO_BIN" version)" >&2
    else
        echo "tebeka/gctrace: the build failed; its column is left out" >&2
    fi
else
    echo "tebeka/gctrace: left out (set TEBEKA_GCTRACE to a clone of github.com/tebeka/gctrace, with go on PATH or in \$GO)" >&2
fi

# --- 3. timing and the table -------------------------------------------------
# Python does the timing: time.perf_counter() around subprocess.run(), best of
# RUNS. Every command's stdout goes to a temporary file (rewritten each run),
# as `cmd > out.txt` would:
#   - NOT /dev/null: GNU grep notices that its stdout is /dev/null and stops at
#     the first match (measured: 0.002 s instead of 0.045 s on the 1M file),
#     which would make the grep baseline meaningless;
#   - NOT a pipe read by this script: gcscope's summary of this input is 5 MB
#     (7,158 runs), and pushing it through a pipe into Python cost 30-70 ms of
#     Python's reading (measured: 0.118 s to a file or /dev/null, 0.150-0.193 s
#     into a pipe), which is not gcscope's work. grep and Python print a line
#     or a few.
TIMER_PY=$(cat <<'PY'
import os, subprocess, sys, tempfile, time

inputs = [("mixed", sys.argv[1]), ("gc-only", sys.argv[2])]
runs, py_reader, gcscope = int(sys.argv[3]), sys.argv[4], sys.argv[5]
tebeka = sys.argv[6] if len(sys.argv) > 6 and sys.argv[6] else None

def cmds(path):
    """(name, label, argv) for each command on each path: from the file, from a pipe."""
    q = lambda x: "'" + x.replace("'", "'\\''") + "'"
    return [
        ("grep", "file", ["grep", "-c", "^gc ", path]),
        ("python", "file", [sys.executable, py_reader, path]),
        ("gcscope", "file", [gcscope, "summary", "--json", path]),
        ("grep", "pipe", ["sh", "-c", f"cat {q(path)} | grep -c '^gc '"]),
        ("python", "pipe", ["sh", "-c", f"cat {q(path)} | {q(sys.executable)} {q(py_reader)} /dev/stdin"]),
        ("gcscope", "pipe", ["sh", "-c", f"cat {q(path)} | {q(gcscope)} summary --json -"]),
    ] + ([
        ("tebeka", "file", [tebeka, path]),
        ("tebeka", "pipe", ["sh", "-c", f"cat {q(path)} | {q(tebeka)} -"]),
    ] if tebeka else [])

out = tempfile.TemporaryFile(mode="w+")

def run(argv):
    """One run with stdout to the temporary file; its wall time in seconds."""
    out.seek(0)
    out.truncate()
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdout=out, stderr=subprocess.PIPE)
    took = time.perf_counter() - t0
    # grep -c exits 1 when it counts 0 lines; that is still a valid run.
    if p.returncode not in (0, 1):
        sys.exit(f"speed.sh: {' '.join(argv)} exited with {p.returncode}\n{p.stderr.decode(errors='replace')}")
    return took

print(f"gcscope: {gcscope}")
print(f"best of {runs} runs (wall clock), each after an untimed warm-up run, round-robin\n")
for name, path in inputs:
    size_mb = os.path.getsize(path) / 1e6
    run(["grep", "-c", "^gc ", path]); out.seek(0); n = out.read().strip()
    print(f"input {name}: {path} ({size_mb:.1f} MB, 1,000,000 lines, {n} gc lines)")
    cs = cmds(path)
    best = {(c, how): float("inf") for c, how, _ in cs}
    for _ in range(runs):
        for c, how, argv in cs:
            run(argv)
            best[(c, how)] = min(best[(c, how)], run(argv))
    head = f"  {'path':<5} {'grep -c s':>10} {'python s':>9} {'gcscope s':>10} {'gcscope/grep':>13} {'python/gcscope':>15}"
    print(head + (f" {'tebeka s':>9} {'tebeka/gcscope':>15}" if tebeka else ""))
    for how in ("file", "pipe"):
        g, p, q = best[("gcscope", how)], best[("python", how)], best[("grep", how)]
        row = f"  {how:<5} {q:>10.3f} {p:>9.3f} {g:>10.3f} {g / q:>12.2f}x {p / g:>14.1f}x"
        if tebeka:
            t = best[("tebeka", how)]
            row += f" {t:>9.3f} {t / g:>14.1f}x"
        print(row)
    print()
PY
)

cat "$BIG" "$GC_ONLY" >/dev/null   # warm the page cache so the first timed run is not a disk read
cd "$ROOT"
python3 -c "$TIMER_PY" "$BIG" "$GC_ONLY" "$RUNS" "$PY_READER" "$GCSCOPE_BIN" "$TEBEKA_BIN"
