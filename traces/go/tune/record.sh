#!/usr/bin/env bash
# Re-records the `gcscope tune` validation corpus in traces/go/tune/ (see README.md).
#
#   ./record.sh [group ...]     groups: build sweep limit limit18 (default: all)
#   REPS_LIMIT="1" ./record.sh limit   only rep 1 of the limit group (default "1 2")
#
# Two real programs (gofmt from the toolchain's source, encoding/json's
# BenchmarkCodeUnmarshal test binary), each built twice: Green Tea (default)
# and legacy (GOEXPERIMENT=nogreenteagc). GOMAXPROCS=2, GODEBUG=gctrace=1.
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
export GOCACHE=${GOCACHE:-/tmp/gocache-tune}
BIN=${BIN:-/tmp/tune-bin}        # built binaries
SRC=${SRC:-/tmp/tune-src}        # fixed copy of $(go env GOROOT)/src (gofmt input, json testdata)
LOCK=/tmp/gcscope-machine.lock
RUNS=$HERE/runs.tsv
LABELS=$HERE/labels.tsv

# ---- workloads (identical in every run; only GOGC / GOMEMLIMIT change)
GOFMT_ARGS=(-l "$SRC/cmd/vendor" "$SRC/runtime")          # 1642 files, 24 MB of Go, no parse errors
JSON_DIR=$SRC/encoding/json                                 # needs internal/jsontest/testdata/golang_source.json.zst
JSON_ARGS=(-test.run='^$' -test.bench='^BenchmarkCodeUnmarshal$' -test.benchtime=200x)

build() {
	[ -d "$SRC" ] || cp -a "$(go env GOROOT)/src" "$SRC" || exit 1
	mkdir -p "$BIN"
	local b
	for b in gofmt-gt gofmt-legacy json-gt json-legacy; do
		[ -x "$BIN/$b" ] && continue
		local exp=()
		case $b in *-legacy) exp=(env GOEXPERIMENT=nogreenteagc) ;; esac
		case $b in
		gofmt-*) flock -o "$LOCK" "${exp[@]}" go build -o "$BIN/$b" cmd/gofmt || exit 1 ;;
		json-*) flock -o "$LOCK" "${exp[@]}" go test -c -o "$BIN/$b" encoding/json || exit 1 ;;
		esac
	done
	go version -m "$BIN/gofmt-legacy" | grep -q 'GOEXPERIMENT=nogreenteagc' || { echo "legacy build lacks nogreenteagc"; exit 1; }
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
	gofmt) dir=$HERE; cmd=("$BIN/gofmt-$coll" "${GOFMT_ARGS[@]}") ;;
	json) dir=$JSON_DIR; cmd=("$BIN/json-$coll" "${JSON_ARGS[@]}") ;;
	esac
	# inside the lock: wait for a quiet machine, then read load and clock right around the run
	local tf res wait lb t0 t1 la rc cu cs
	tf=$(mktemp /tmp/tune-time.XXXXXX)
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
	[ "$prog" = json ] && nsop=$(awk '/^BenchmarkCodeUnmarshal/ { for (i = 2; i <= NF; i++) if ($i == "ns/op") print $(i-1) }' "$HERE/$name.stdout.txt")
	local shown="${envs[*]} $(cd "$dir" && echo "${cmd[*]}" | sed "s#$BIN/#\$BIN/#; s#$SRC#\$SRC#g"'; s#=\(\^[^ ]*\$\)#='"'"'\1'"'"'#g') (cwd ${dir/#$SRC/\$SRC})"
	drop_row "$RUNS" "$name.log"; drop_row "$LABELS" "$name.log"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name.log" "$(date -u -d @"${t0%.*}" +%FT%TZ)" "$wall" "$wait" "$lb" "$la" \
		"$quiet" "$cu" "$cs" "$nsop" "$n" "$rc" "${shown/(cwd $HERE)/(cwd traces/go/tune)}" >> "$RUNS"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name.log" "$prog" "$coll" "$gogc" "$lim" "$rep" "$wall" "$lb" "$la" "$n" \
		"$quiet" "$cu" "$cs" "$nsop" >> "$LABELS"
	echo "$name: ${wall}s (waited ${wait}s), cpu ${cu}u+${cs}s, $n gc lines, exit $rc, load $lb -> $la, quiet=$quiet${nsop:+, $nsop ns/op}"
}

# GOGC sweep, interleaved: rep 1 of every program x collector x GOGC, then rep 2, then rep 3
g_sweep() {
	for rep in 1 2 3; do
		for prog in gofmt json; do
			for coll in gt legacy; do
				for g in 25 50 100 200 400; do rec $prog $coll $g - $rep; done
			done
		done
	done
}

# GOMEMLIMIT at GOGC=100: ~0.6x (binds), ~0.85x (binds lightly), 3x (does not bind) of the
# max-over-cycles peak heap (h1 of h0->h1->h2) of the GOGC=100 sweep runs (values in README.md)
declare -A LIMITS=(
	[gofmt_gt]="33 47 165"      # median peak 55 MB (runs: 55 60 55)
	[gofmt_legacy]="32 46 162"  # median peak 54 MB (runs: 54 54 62)
	[json_gt]="8 11 39"          # median peak 13 MB (runs: 14 13 14)
	[json_legacy]="8 11 39"      # median peak 13 MB (runs: 13 13 12)
)
g_limit() {
	for rep in ${REPS_LIMIT:-1 2}; do
		for pc in gofmt_gt json_gt gofmt_legacy json_legacy; do
			for lim in ${LIMITS[$pc]}; do rec ${pc%_*} ${pc#*_} 100 $lim $rep; done
		done
	done
}

# added after the limit group: for json, 8 and 11 MiB both pinned the goal at the live heap
# (~1000 cycles), because GOMEMLIMIT counts all runtime memory (~6 MiB beyond the heap here);
# 18 MiB (~1.3x the heap peak, ~0.85x peak heap + that overhead) is the lightly binding one
g_limit18() {
	for rep in 1 2; do
		for coll in gt legacy; do rec json $coll 100 18 $rep; done
	done
}

groups=${*:-build sweep limit limit18}
for grp in $groups; do
	case $grp in build) build ;; *) "g_$grp" ;; esac
done
