#!/usr/bin/env bash
# Records the second held-out `gcscope tune` validation corpus in traces/go/tune-holdout2/
# (see README.md). Adapted from traces/go/tune-holdout/record.sh: same lock, quiet-wait
# rule, /usr/bin/time CPU accounting and TSV formats; a different program.
#
#   ./record.sh [group ...]     groups: build sweep limit (default: all)
#   REPS_LIMIT="1" ./record.sh limit   only rep 1 of the limit group (default "1 2")
#
# ONE standard-library benchmark test binary, Green Tea GC (the go1.27 default) only:
# index/suffixarray BenchmarkNew/text=zero/size=1M/bits=32 (builds the suffix array of
# 1 MB of zero bytes per op, 4 MB int32 array per op, while a 50 MB byte slice stays
# live: ~53 MB live heap, all pointer-free). The program-selection rule (README.md)
# passed only this one of its 8 candidates, so there is no second program.
# GOMAXPROCS=2, GODEBUG=gctrace=1.
#
# Every run (and every build) holds /tmp/gcscope-machine.lock, so runs from
# other sessions that take the lock never overlap. Inside the lock, each run
# first waits (polling every 2 s, at most 90 s) until the 1-minute load average
# is below 0.8, because builds that do not take the lock may still be running;
# if it never drops, the run is recorded anyway with quiet=no. The program runs
# under /usr/bin/time, which gives its own user/sys CPU time.
# Every run writes a row to runs.tsv (wall time, wait, load average before/after,
# CPU time, exit code, exact command) and to labels.tsv. Re-recording a run
# overwrites its files and replaces its rows (other rows are kept).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
export PATH=/work/venv-go127/bin:$PATH GOTOOLCHAIN=local GOFLAGS=-mod=mod
export GOCACHE=${GOCACHE:-/tmp/hold2-gocache}
BIN=${BIN:-/tmp/hold2-bin}       # built binaries
SRC=${SRC:-/tmp/tune-src}        # fixed copy of $(go env GOROOT)/src (cwd only: text=zero reads no file)
LOCK=/tmp/gcscope-machine.lock
RUNS=$HERE/runs.tsv
LABELS=$HERE/labels.tsv

# ---- workloads (identical in every run; only GOGC / GOMEMLIMIT change)
SA_DIR=$SRC/index/suffixarray                               # input: make([]byte, 50e6) in makeText("zero"), first 1 MB used
SA_ARGS=(-test.run='^$' -test.bench='^BenchmarkNew$/^text=zero$/^size=1M$/^bits=32$' -test.benchtime=650x)

build() {
	[ -d "$SRC" ] || cp -a "$(go env GOROOT)/src" "$SRC" || exit 1
	mkdir -p "$BIN"
	[ -x "$BIN/suffixarray" ] || flock -o "$LOCK" go test -c -o "$BIN/suffixarray" index/suffixarray || exit 1
	go version -m "$BIN/suffixarray" | grep -q 'GOEXPERIMENT=nogreenteagc' && { echo "suffixarray build is not the default collector"; exit 1; }
	return 0
}

QUIET_LOAD=0.8    # wait until the 1-minute load average is below this ...
QUIET_MAX_S=90    # ... for at most this long, polling every 2 s
RUNS_HDR=$'file\tstarted_utc\twall_s\twait_s\tload1_before\tload1_after\tquiet\tcpu_user_s\tcpu_sys_s\tns_per_op\tgc_lines\texit\tcommand'
LABELS_HDR=$'file\tprogram\tcollector\tgogc\tlimit_mib\trep\twall_s\tload1_before\tload1_after\tgc_lines\tquiet\tcpu_user_s\tcpu_sys_s\tns_per_op'
for f in "$RUNS:$RUNS_HDR" "$LABELS:$LABELS_HDR"; do
	file=${f%%:*} hdr=${f#*:}
	if [ ! -s "$file" ]; then
		printf '%s\n' "$hdr" > "$file"
	elif [ "$(head -n1 "$file")" != "$hdr" ]; then
		echo "$file has an older header; move it away first" >&2; exit 1
	fi
done

# drop_row TSV FILE_NAME: remove an earlier row of a run that is being re-recorded
drop_row() {
	awk -F'\t' -v f="$2" 'NR == 1 || $1 != f' "$1" > "$1.tmp" && mv "$1.tmp" "$1"
}

# rec PROGRAM COLLECTOR GOGC LIMIT_MIB(- = unset) REP
# stderr -> NAME.log (the trace), stdout -> NAME.stdout.txt
rec() {
	local prog=$1 coll=$2 gogc=$3 lim=$4 rep=$5
	local name=${prog}_${coll}_gogc${gogc}
	[ "$lim" != "-" ] && name+=_lim$lim
	name+=_r$rep
	local envs=(GOMAXPROCS=2 GODEBUG=gctrace=1 GOGC=$gogc)
	[ "$lim" != "-" ] && envs+=(GOMEMLIMIT=${lim}MiB)
	local dir cmd
	case $prog in
	suffixarray) dir=$SA_DIR; cmd=("$BIN/suffixarray" "${SA_ARGS[@]}") ;;
	esac
	# inside the lock: wait for a quiet machine, then read load and clock right around the run
	local tf res wait lb t0 t1 la rc cu cs
	tf=$(mktemp /tmp/hold2-time.XXXXXX)
	res=$(flock -o "$LOCK" bash -c '
		dir=$1 out=$2 err=$3 tf=$4 qload=$5 qmax=$6; shift 6
		w0=$(date +%s.%N); SECONDS=0
		while :; do
			lb=$(cut -d" " -f1 /proc/loadavg)
			awk -v l="$lb" -v q="$qload" "BEGIN { exit !(l < q) }" && break
			[ "$SECONDS" -ge "$qmax" ] && break
			sleep 2
		done
		t0=$(date +%s.%N)
		if [ -x /usr/bin/time ]; then
			(cd "$dir" && exec /usr/bin/time -f "%U %S %e" -o "$tf" env "$@") > "$out" 2> "$err"; rc=$?
		else  # fallback: the child rusage via python
			(cd "$dir" && exec python3 -c "
import resource, subprocess, sys
rc = subprocess.call(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[1], \"w\").write(\"%.2f %.2f -\n\" % (r.ru_utime, r.ru_stime))
sys.exit(rc)" "$tf" env "$@") > "$out" 2> "$err"; rc=$?
		fi
		t1=$(date +%s.%N); la=$(cut -d" " -f1 /proc/loadavg)
		echo "$(echo "$t0 - $w0" | bc) $lb $t0 $t1 $la $rc"' _ \
		"$dir" "$HERE/$name.stdout.txt" "$HERE/$name.log" "$tf" "$QUIET_LOAD" "$QUIET_MAX_S" "${envs[@]}" "${cmd[@]}")
	read -r wait lb t0 t1 la rc <<< "$res"
	# /usr/bin/time puts "Command exited with non-zero status N" first if rc != 0: take the last line
	read -r cu cs _ <<< "$(tail -n1 "$tf")"; rm -f "$tf"
	local wall n quiet nsop=
	wall=$(printf '%.2f' "$(echo "$t1 - $t0" | bc)")
	wait=$(printf '%.1f' "$wait")
	quiet=$(awk -v l="$lb" -v q="$QUIET_LOAD" 'BEGIN { print (l < q) ? "yes" : "no" }')
	n=$(grep -c '^gc ' "$HERE/$name.log")
	local bre
	case $prog in suffixarray) bre='^BenchmarkNew/text=zero/size=1M/bits=32-' ;; esac
	nsop=$(awk -v re="$bre" '$0 ~ re { for (i = 2; i <= NF; i++) if ($i == "ns/op") print $(i-1) }' "$HERE/$name.stdout.txt")
	local shown="${envs[*]} $(cd "$dir" && echo "${cmd[*]}" | sed "s#$BIN/#\$BIN/#; s#$SRC#\$SRC#g"'; s#=\(\^[^ ]*\$\)#='"'"'\1'"'"'#g') (cwd ${dir/#$SRC/\$SRC})"
	drop_row "$RUNS" "$name.log"; drop_row "$LABELS" "$name.log"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name.log" "$(date -u -d @"${t0%.*}" +%FT%TZ)" "$wall" "$wait" "$lb" "$la" \
		"$quiet" "$cu" "$cs" "$nsop" "$n" "$rc" "${shown/(cwd $HERE)/(cwd traces/go/tune-holdout2)}" >> "$RUNS"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name.log" "$prog" "$coll" "$gogc" "$lim" "$rep" "$wall" "$lb" "$la" "$n" \
		"$quiet" "$cu" "$cs" "$nsop" >> "$LABELS"
	echo "$name: ${wall}s (waited ${wait}s), cpu ${cu}u+${cs}s, $n gc lines, exit $rc, load $lb -> $la, quiet=$quiet${nsop:+, $nsop ns/op}"
}

# GOGC sweep, interleaved: rep 1 of every program x GOGC, then rep 2, then rep 3
g_sweep() {
	for rep in 1 2 3; do
		for prog in suffixarray; do
			for g in 25 50 100 200 400; do rec $prog gt $g - $rep; done
		done
	done
}

# GOMEMLIMIT at GOGC=100: one that binds (~0.7x the median max-over-cycles peak heap,
# h1 of h0->h1->h2, of the GOGC=100 sweep runs, but >= live heap + 6 MiB) and one that
# does not (3x the peak). Chosen from this corpus's own sweep (values in README.md).
declare -A LIMITS=(
	[suffixarray]="80 342"   # GOGC=100 peaks 107/114/122 MB (median 114), max h2 53/57/61: 0.7x = 80 (>= 61+6 = 67); 3x = 342
)
g_limit() {
	for rep in ${REPS_LIMIT:-1 2}; do
		for prog in suffixarray; do
			for lim in ${LIMITS[$prog]}; do rec $prog gt 100 $lim $rep; done
		done
	done
}

groups=${*:-build sweep limit}
for grp in $groups; do
	case $grp in build) build ;; *) "g_$grp" ;; esac
done
