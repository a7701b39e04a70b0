#!/usr/bin/env bash
# Records the fourth held-out `gcscope tune` validation corpus in traces/go/tune-holdout4/
# (see README.md). Adapted from traces/go/tune-holdout2/record.sh: same lock, quiet-wait
# rule, /usr/bin/time CPU accounting and TSV formats.
#
#   ./record.sh [group ...]     groups: build sweep limit (default: all)
#
# The recorder's five shapes (traces/go/recorder/gcwork) at sizes the pacer corpus
# (traces/go/pacer/) and tune-holdout3 do not use, on a quiet machine, the
# model frozen at dfc16a0. GOMAXPROCS=2, GODEBUG=gctrace=1, Green Tea (the go1.27 default).
#
# Every run (and every build) holds /tmp/gcscope-machine.lock; inside it each run waits
# (polling every 2 s, at most 90 s) until the 1-minute load average is below 0.8.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
export PATH=/work/venv-go127/bin:$PATH GOTOOLCHAIN=local GOFLAGS=-mod=mod
export GOCACHE=${GOCACHE:-/tmp/hold4-gocache}
BIN=${BIN:-/tmp/hold4-bin}       # built binaries
SRC=${SRC:-/tmp/tune-src}        # fixed copy of $(go env GOROOT)/src (cwd only: text=zero reads no file)
LOCK=/tmp/gcscope-machine.lock
RUNS=$HERE/runs.tsv
LABELS=$HERE/labels.tsv

# ---- workloads (identical in every run; only GOGC / GOMEMLIMIT change)
declare -A FLAGS=(
	[tree]="-mode tree -tree-long 21 -tree-short 16 -scale 2.8"
	[map]="-mode map -map-n 45000 -scale 1.2"
	[graph]="-mode graph -graph-n 393216 -graph-pool-mb 6 -scale 0.45"
	[pointer]="-mode pointer -live-mb 40 -scale 0.4"
	[scalar]="-mode scalar -live-mb 96 -scale 0.25"
)
PROGS="tree map graph pointer scalar"

build() {
	mkdir -p "$BIN"
	[ -x "$BIN/gcwork" ] || (cd "$HERE/../recorder/gcwork" && flock -o "$LOCK" go build -o "$BIN/gcwork" .) || exit 1
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
	dir=/tmp
	# shellcheck disable=SC2206
	cmd=("$BIN/gcwork" ${FLAGS[$prog]} -maxsec 40)
	# inside the lock: wait for a quiet machine, then read load and clock right around the run
	local tf res wait lb t0 t1 la rc cu cs
	tf=$(mktemp /tmp/hold4-time.XXXXXX)
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
	nsop=-
	local shown="${envs[*]} $(cd "$dir" && echo "${cmd[*]}" | sed "s#$BIN/#\$BIN/#; s#$SRC#\$SRC#g"'; s#=\(\^[^ ]*\$\)#='"'"'\1'"'"'#g') (cwd ${dir/#$SRC/\$SRC})"
	drop_row "$RUNS" "$name.log"; drop_row "$LABELS" "$name.log"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name.log" "$(date -u -d @"${t0%.*}" +%FT%TZ)" "$wall" "$wait" "$lb" "$la" \
		"$quiet" "$cu" "$cs" "$nsop" "$n" "$rc" "${shown/(cwd $HERE)/(cwd traces/go/tune-holdout4)}" >> "$RUNS"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name.log" "$prog" "$coll" "$gogc" "$lim" "$rep" "$wall" "$lb" "$la" "$n" \
		"$quiet" "$cu" "$cs" "$nsop" >> "$LABELS"
	echo "$name: ${wall}s (waited ${wait}s), cpu ${cu}u+${cs}s, $n gc lines, exit $rc, load $lb -> $la, quiet=$quiet${nsop:+, $nsop ns/op}"
}

# GOGC sweep, interleaved: rep 1 of every program x GOGC, then rep 2
g_sweep() {
	for rep in 1 2; do
		for prog in $PROGS; do
			for g in 25 50 100 200 400; do rec $prog gt $g - $rep; done
		done
	done
}

# GOMEMLIMIT at GOGC=100, by the tune-holdout rule, from this corpus's own GOGC=100 sweep
# runs: one that binds (0.7x the median of the runs' max h1, raised to max h2 + 6 MiB) and
# one that does not (3x that median). One run each.
limits_of() {
	local prog=$1
	cat "$HERE/${prog}_gt_gogc100_r"*.log | python3 -c '
import re, statistics, sys
runs, h1s, h2s = sys.stdin.read(), [], []
for part in re.split(r"(?m)^(?=gc 1 @)", runs):
    got = [tuple(map(int, m.groups())) for m in re.finditer(r"\d+->(\d+)->(\d+) MB", part)]
    if got:
        h1s.append(max(a for a, _ in got)); h2s.append(max(b for _, b in got))
peak = statistics.median(h1s)
print(max(round(0.7 * peak), max(h2s) + 6), round(3 * peak))'
}
g_limit() {
	for prog in $PROGS; do
		for lim in $(limits_of "$prog"); do rec $prog gt 100 "$lim" 1; done
	done
}

groups=${*:-build sweep limit}
for grp in $groups; do
	case $grp in build) build ;; *) "g_$grp" ;; esac
done
